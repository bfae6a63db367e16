/**
 * The programs a device is asked about (`DeviceSources.programs`), and which of them make a feature.
 * One list for every device: the host looks each name up on PATH, a scenario lists them in
 * `device.yaml` (`programs:`, refused when it names another), `chutebox record` records them.
 */
export const KNOWN_PROGRAMS = ['ip', 'iw', 'hostapd', 'hostapd_cli', 'dnsmasq', 'nsenter', 'nft', 'iptables'] as const;

/** A name of `KNOWN_PROGRAMS`. */
export type KnownProgram = (typeof KNOWN_PROGRAMS)[number];

/**
 * Whether a device with these programs can build chute networks (runtime/network/chute-networks.ts):
 * `ip` for the interfaces, `hostapd` for an access point, `dnsmasq` for DHCP, `nsenter` to reach into
 * the chute's network namespace, and a firewall, `nft` or else `iptables`.
 *
 * @example
 * canBuildChuteNetworks(['ip', 'hostapd', 'dnsmasq', 'nsenter', 'iptables']) // true
 * canBuildChuteNetworks(['ip', 'hostapd', 'nsenter', 'nft']) // false: no dnsmasq
 */
export function canBuildChuteNetworks(programs: readonly string[]): boolean {
  return (
    programs.includes('ip') &&
    programs.includes('hostapd') &&
    programs.includes('dnsmasq') &&
    programs.includes('nsenter') &&
    (programs.includes('nft') || programs.includes('iptables'))
  );
}
