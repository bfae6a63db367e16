import type { NetworkReservation } from '../../functions/chutes/network-reservations.ts';

/**
 * What an access point with `dhcp` holds on the host (`reserveNetworks`), as a device's state dir would
 * record it for chute `hello`'s network `wifi`: the pool's first subnet, its control socket and lease
 * file, the first PCI radio; `fields` replace any of it.
 *
 * @example
 * accessPointReservation('vwlan4dfe', { radio: null }) // { hostInterface: 'vwlan4dfe', ipv4Network: '10.128.0.0/24', … }
 */
export function accessPointReservation(hostInterface = 'vwlan5d1e', fields: Partial<NetworkReservation> = {}): NetworkReservation {
  return {
    hostInterface,
    ipv4Network: '10.128.0.0/24',
    gateway: '10.128.0.1',
    chuteAddress: '10.128.0.2',
    hostapdControl: `/var/lib/chutebox/networks/hostapd/${hostInterface}`,
    leaseFile: '/var/lib/chutebox/networks/dnsmasq/hello-wifi.leases',
    vlanId: null,
    radio: 'pci-wifi-0',
    ...fields,
  };
}
