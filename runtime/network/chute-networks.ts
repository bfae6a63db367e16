import { mkdir, readdir, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import type { AccessPointEntry, VlanEntry } from '../../functions/chutes/chute-config.ts';
import { mapping } from '../../functions/chutes/chute-record.ts';
import { recordedReservations, type NetworkReservation, type ReservationSources } from '../../functions/chutes/network-reservations.ts';
import { currentHostConfig, type WifiRadioConfig } from '../../functions/config/host-config.ts';
import type { StoredChute } from '../../functions/core/device/index.ts';
import { radioPhys } from '../../functions/info/wifi.ts';
import { parseCidr } from '../../functions/parsers/ipv4.ts';
import { commandFailure } from '../device-config/command-exit.ts';
import { readIfExists } from '../state/read-if-exists.ts';
import { writeFileAtomic } from '../state/atomic-write.ts';
import { runTool, type Tool } from '../tools/run.ts';
import { logFileOf, stopRecorded, supervise, type Supervised } from '../tools/supervisor.ts';
import { dnsmasqArgs, eapUserFile, hostapdConfig } from './chute-daemons.ts';
import { chuteFirewall, firewallBackend } from './chute-firewall.ts';
import { daemonLog } from '../log/log.ts';

/** Where the host side of chute networks finds its programs, and how long a command may take. */
export interface ChuteNetworkTools {
  ip: string;
  /** Makes a radio's access point interfaces (`iw phy <phy> interface add … type __ap`) and moves a monitor network's phy into its chute. */
  iw: string;
  hostapd: string;
  dnsmasq: string;
  /** Runs `ip` in a chute container's network namespace (`nsenter -t <pid> -n`). */
  nsenter: string;
  /** nftables, for chutebox's own table (runtime/network/chute-firewall.ts). */
  nft: string;
  /** iptables, for chains of chutebox's own where nft is missing. */
  iptables: string;
  timeoutMs: number;
}

export interface ChuteNetworkOptions {
  /** The run folder of the networks (`networkRunDir` of the state dir): hostapd's and dnsmasq's files. */
  runDir: string;
  /**
   * For tests and labs (`--lab-link`): an Ethernet interface that stands in for the radios and the
   * LAN ports. An access point or a VLAN network is then a macvlan of it, and hostapd runs its wired
   * driver (802.1X, EAP-MD5 with the network's key as the password) instead of nl80211. Null on a
   * device: access points need a radio, VLANs the LAN bridge.
   */
  labLink: string | null;
  /**
   * A radio by its id (`pci-wifi-0`, the `radio` of a reservation): its phy and its settings in the
   * host configuration (channel, mode, width, country); null when the device has no such radio now.
   */
  radio: (id: string) => Promise<{ phy: string; settings: WifiRadioConfig } | null>;
  tools: ChuteNetworkTools;
  /** Turns IPv4 forwarding on when the firewall is first made; by default in /proc (`ChuteFirewallOptions.forwarding`). */
  forwarding?: () => Promise<void>;
}

/** A line of a change's record. */
type Note = (text: string) => Promise<void>;

/**
 * The host side of chute networks (docs/api/networks.md): for each network a chute's cache reserves,
 * its host interface with the host's address, hostapd for an access point and dnsmasq for a network
 * with `dhcp`, each supervised by pid (runtime/tools/supervisor.ts), made by `up` and removed by
 * `down`. Every command runs from an argument array, with a timeout.
 *
 * @example
 * const networks = chuteNetworks({ runDir: '/var/lib/chutebox/networks', labLink: null, tools });
 * await networks.up(chute, note);   // after its container started
 * await networks.down(chute, note, 'keep');   // when it stops
 * await networks.down(chute, note, 'remove'); // when it is deleted
 */
export function chuteNetworks(options: ChuteNetworkOptions) {
  /** The daemons this serve supervises, by key (`hostapd-<interface>`, `dnsmasq-<interface>`), with the argv each runs. */
  const running = new Map<string, { process: Supervised; argv: readonly string[] }>();
  const tool = (name: keyof Omit<ChuteNetworkTools, 'timeoutMs'>): Tool => ({ name, path: options.tools[name], setting: `${name} on PATH` });
  const firewall = chuteFirewall({
    backend: firewallBackend({ nft: options.tools.nft, iptables: options.tools.iptables }),
    runDir: options.runDir,
    timeoutMs: options.tools.timeoutMs,
    forwarding: options.forwarding,
  });
  /** Where a daemon's pid is recorded, by its key (`daemonKeys`), with its log beside it. */
  const pidsDir = path.join(options.runDir, 'pids');
  const pidFileOf = (key: string) => path.join(pidsDir, `${key}.pid`);
  /** hostapd's configuration of a network, and the EAP users of the wired stand-in. */
  const hostapdFiles = (reservation: Pick<NetworkReservation, 'hostInterface'>) => {
    const dir = path.join(options.runDir, 'hostapd');
    return { conf: path.join(dir, `${reservation.hostInterface}.conf`), eapUsers: path.join(dir, `${reservation.hostInterface}.eap_users`) };
  };

  /** Removes a file of the run folder (a path read from a chute cache goes only when it is in there); answers whether it was there. */
  async function removeOwn(file: string | null): Promise<boolean> {
    if (file === null || path.relative(options.runDir, file).startsWith('..') || !path.isAbsolute(file)) return false;
    return rm(file).then(
      () => true,
      () => false,
    );
  }

  /** Runs `ip` or `iw` on the host; a failure throws, naming the command line. */
  async function onHost(program: 'ip' | 'iw', args: string[]): Promise<void> {
    const result = await runTool(tool(program), args, { timeoutMs: options.tools.timeoutMs });
    const failure = commandFailure(result);
    if (failure !== null) throw new Error(`${program} ${args.join(' ')} ${failure}`);
  }
  const ip = (args: string[]) => onHost('ip', args);
  const iw = (args: string[]) => onHost('iw', args);

  /** `ip` (or `iw`) in the network namespace of the process `pid` (a chute's container); answers whether it exited with 0. */
  async function inChute(pid: number, args: string[], check = true, program: 'ip' | 'iw' = 'ip'): Promise<boolean> {
    const result = await runTool(tool('nsenter'), ['-t', String(pid), '-n', options.tools[program], ...args], { timeoutMs: options.tools.timeoutMs });
    const failure = commandFailure(result);
    if (failure !== null && check) throw new Error(`${program} ${args.join(' ')} in the chute's network namespace ${failure}`);
    return failure === null;
  }

  /** The radio a network's reservation names, as the device has it now. */
  async function radioOf(network: string, reservation: NetworkReservation): Promise<{ phy: string; settings: WifiRadioConfig }> {
    if (reservation.radio === null) throw new Error(`network ${network} has no radio reserved (reserved where a lab link stood in): install the chute again`);
    const radio = await options.radio(reservation.radio);
    if (radio === null) throw new Error(`network ${network}: radio ${reservation.radio} is not on this device or not in its host configuration`);
    return radio;
  }

  /**
   * A monitor network: the radio's phy moved into the chute's network namespace (`iw phy <phy> set
   * netns <pid>`), with a monitor interface named `intfName` on it, up. One already there is kept.
   * The phy comes back to the host when the container's namespace goes.
   */
  async function monitorInterface(network: string, intfName: string, reservation: NetworkReservation, pid: number, note: Note): Promise<void> {
    if (await inChute(pid, ['link', 'show', 'dev', intfName], false)) return;
    const { phy } = await radioOf(network, reservation);
    await iw(['phy', phy, 'set', 'netns', String(pid)]);
    await inChute(pid, ['phy', phy, 'interface', 'add', intfName, 'type', 'monitor'], true, 'iw');
    await inChute(pid, ['link', 'set', 'dev', intfName, 'up']);
    await note(`moved radio ${reservation.radio} (${phy}) into the chute, with its monitor interface ${intfName}`);
  }

  /**
   * The chute's own interface of a network: a macvlan (bridge mode) of the host interface, moved into
   * the container's network namespace, named `intfName`, given the chute's address and brought up.
   * One already there (a restart of serve) is kept.
   */
  async function chuteInterface(network: string, intfName: string, reservation: NetworkReservation, pid: number, note: Note): Promise<void> {
    if (await inChute(pid, ['link', 'show', 'dev', intfName], false)) return;
    const temporary = `${reservation.hostInterface.slice(0, 14)}c`;
    await ip(['link', 'add', 'link', reservation.hostInterface, 'name', temporary, 'type', 'macvlan', 'mode', 'bridge']);
    try {
      await ip(['link', 'set', 'dev', temporary, 'netns', String(pid)]);
    } catch (error) {
      await ip(['link', 'delete', 'dev', temporary]).catch(() => undefined);
      throw error;
    }
    await inChute(pid, ['link', 'set', 'dev', temporary, 'name', intfName]);
    const subnet = reservation.ipv4Network === null ? undefined : parseCidr(reservation.ipv4Network);
    if (subnet !== undefined && reservation.chuteAddress !== null)
      await inChute(pid, ['address', 'add', `${reservation.chuteAddress}/${subnet.prefix}`, 'dev', intfName]);
    await inChute(pid, ['link', 'set', 'dev', intfName, 'up']);
    // The new interface has a new MAC: the host forgets the one it learnt for the chute's address (a
    // restart, an update), or it would send there until the entry expired, and the chute's page would fail.
    if (reservation.chuteAddress !== null) await ip(['neigh', 'flush', 'to', reservation.chuteAddress, 'dev', reservation.hostInterface]);
    await note(`gave the chute its interface ${intfName} of network ${network}${reservation.chuteAddress === null ? '' : ` (${reservation.chuteAddress})`}`);
  }

  /** The host interface of a network, made when it is missing (an access point on `phy`, its radio), with the host's address, up. */
  async function hostInterface(kind: 'access-point' | 'vlan', reservation: NetworkReservation, phy: string | null, note: Note): Promise<void> {
    const name = reservation.hostInterface;
    if (!(await interfaceExists(name))) {
      if (phy !== null) await iw(apInterfaceArgs(phy, name));
      else await ip(linkArgs(kind, reservation, options.labLink));
      await note(
        `made interface ${name}${phy !== null ? ` on radio ${reservation.radio} (${phy})` : options.labLink === null ? '' : ` (a macvlan of the lab link ${options.labLink})`}`,
      );
    }
    const subnet = reservation.ipv4Network === null ? undefined : parseCidr(reservation.ipv4Network);
    if (subnet !== undefined && reservation.gateway !== null) await ip(['address', 'replace', `${reservation.gateway}/${subnet.prefix}`, 'dev', name]);
    await ip(['link', 'set', 'dev', name, 'up']);
  }

  /** Runs (or keeps running) one daemon of a network; one whose argv or configuration changed is restarted. */
  async function daemon(key: string, name: string, argv: [string, ...string[]], note: Note, changed: boolean): Promise<void> {
    const current = running.get(key);
    if (current !== undefined && !changed && current.argv.join('\0') === argv.join('\0')) return;
    if (current !== undefined) {
      await current.process.stop();
      running.delete(key);
    }
    const pidFile = pidFileOf(key);
    await mkdir(path.dirname(pidFile), { recursive: true, mode: 0o700 });
    if (changed) await stopRecorded(pidFile);
    const started = await supervise({ name, argv, pidFile });
    running.set(key, { process: started, argv });
    await note(started.adopted ? `kept ${name} (pid ${started.pid}), left running by an earlier start` : `started ${name} (pid ${started.pid})`);
  }

  const networks = {
    /**
     * Makes every network of the chute's cache that is not there yet, and restarts a daemon whose
     * configuration changed; what is already right is left alone (a restart of serve adopts the
     * daemons it left). With the pid of the chute's running container, each network's interface
     * inside the chute too. On a failure, what was made for the chute's networks is removed again.
     */
    async up(chute: StoredChute, note: Note, containerPid: number | null = null): Promise<void> {
      const reservations = recordedReservations(chute.cache);
      try {
        for (const [network, reservation] of Object.entries(reservations)) {
          const entry = mapping(mapping(chute.config.net)[network]);
          const kind = entry.type === 'vlan' ? 'vlan' : entry.mode === 'monitor' ? 'monitor' : 'access-point';
          if (kind === 'monitor') {
            if (containerPid !== null && typeof entry.intfName === 'string') await monitorInterface(network, entry.intfName, reservation, containerPid, note);
            continue;
          }
          const radio = kind === 'access-point' && options.labLink === null ? await radioOf(network, reservation) : null;
          await hostInterface(kind, reservation, radio?.phy ?? null, note);
          const isolateInterface = mapping(entry.options).isolate === true ? reservation.hostInterface : null;
          if (reservation.ipv4Network !== null && (await firewall.allow(`${chute.name}/${network}`, reservation.ipv4Network, { isolateInterface }))) {
            await note(`network ${network} reaches the WAN through NAT, and no other chute network`);
          }
          if (kind === 'access-point') await accessPoint(chute.name, network, entry as AccessPointEntry, reservation, radio?.settings ?? null, note);
          if (containerPid !== null && typeof entry.intfName === 'string') await chuteInterface(network, entry.intfName, reservation, containerPid, note);
          if (entry.dhcp !== undefined) {
            const args = dnsmasqArgs(entry as AccessPointEntry | VlanEntry, reservation, {});
            if (reservation.leaseFile !== null) await mkdir(path.dirname(reservation.leaseFile), { recursive: true, mode: 0o700 });
            await daemon(
              daemonKeys(reservation).dnsmasq,
              `dnsmasq for network ${network} of chute ${chute.name}`,
              [options.tools.dnsmasq, ...args],
              note,
              false,
            );
          }
        }
      } catch (error) {
        await networks.down(chute, async () => {}, 'keep');
        throw error;
      }
    },

    /**
     * Removes what was made for the chute's networks: its daemons (by pid), their files and hostapd's
     * control socket, its firewall rules, its host interfaces and, with the pid of its still running
     * container, its own interfaces in there (otherwise they go with the container's network
     * namespace). dnsmasq's lease files stay with `leases: 'keep'`, when the networks come back as
     * they were (a stop: dnsmasq finds its leases again at the next start, as a router's does), and
     * go with `'remove'`, when the networks go for good (a delete, an update that drops them or
     * reserves them anew, a failed install).
     */
    async down(chute: StoredChute, note: Note, leases: 'keep' | 'remove', containerPid: number | null = null): Promise<void> {
      if (containerPid !== null) await networks.leave(chute, note, containerPid);
      for (const [network, reservation] of Object.entries(recordedReservations(chute.cache))) {
        for (const key of Object.values(daemonKeys(reservation))) {
          const current = running.get(key);
          running.delete(key);
          const pidFile = pidFileOf(key);
          const stopped = current !== undefined ? (await current.process.stop(), true) : await stopRecorded(pidFile);
          await rm(logFileOf(pidFile), { force: true });
          if (stopped) await note(`stopped ${key.split('-')[0]} for network ${network}`);
        }
        for (const file of [...Object.values(hostapdFiles(reservation)), reservation.hostapdControl]) await removeOwn(file);
        if (leases === 'remove' && (await removeOwn(reservation.leaseFile))) await note(`removed the leases of network ${network}`);
        if (await firewall.remove(`${chute.name}/${network}`)) await note(`removed the firewall rules of network ${network}`);
        if (await interfaceExists(reservation.hostInterface)) {
          await ip(['link', 'delete', 'dev', reservation.hostInterface]);
          await note(`removed interface ${reservation.hostInterface}`);
        }
      }
    },

    /**
     * Takes the chute's own interfaces out of its running container (`containerPid`), and a monitor
     * network's radio back, before the container stops. Left to the container's end, they would
     * outlive it for a while: the kernel tears a network namespace down in the background, and
     * meanwhile its interface still answers for the chute's address on the host's link.
     */
    async leave(chute: StoredChute, note: Note, containerPid: number): Promise<void> {
      for (const [network, reservation] of Object.entries(recordedReservations(chute.cache))) {
        const entry = mapping(mapping(chute.config.net)[network]);
        if (typeof entry.intfName !== 'string') continue;
        if (entry.mode === 'monitor') await monitorBack(network, entry.intfName, reservation, containerPid, note);
        else if (await inChute(containerPid, ['link', 'delete', 'dev', entry.intfName], false)) await note(`removed the chute's interface ${entry.intfName}`);
      }
    },

    /**
     * At start: removes the firewall rules, stops every daemon and removes the hostapd and dnsmasq
     * files that no network of `chutes` owns (left by a chute deleted while serve was down, or by a
     * crash), and answers what it removed.
     */
    async sweep(chutes: readonly StoredChute[]): Promise<string[]> {
      const owned = new Set(
        chutes.flatMap((chute) => Object.values(recordedReservations(chute.cache)).flatMap((r) => Object.values(daemonKeys(r)).map((key) => `${key}.pid`))),
      );
      const dir = pidsDir;
      const stopped: string[] = [];
      const owners = new Set(chutes.flatMap((chute) => Object.keys(recordedReservations(chute.cache)).map((network) => `${chute.name}/${network}`)));
      for (const owner of await firewall.sweep(owners)) stopped.push(`the firewall rules of ${owner}`);
      for (const file of await readdir(dir).catch(() => [] as string[])) {
        if (!file.endsWith('.pid') || owned.has(file)) continue;
        if (await stopRecorded(path.join(dir, file))) stopped.push(file.slice(0, -'.pid'.length));
        await rm(path.join(dir, file), { force: true });
        await rm(logFileOf(path.join(dir, file)), { force: true });
      }
      // What hostapd and dnsmasq keep of a network (left by a chute deleted before they were removed with it).
      const files = new Set(
        chutes.flatMap((chute) =>
          Object.values(recordedReservations(chute.cache)).flatMap((r) =>
            [...Object.values(hostapdFiles(r)), r.hostapdControl, r.leaseFile].flatMap((file) => (file === null ? [] : [path.resolve(file)])),
          ),
        ),
      );
      for (const folder of ['hostapd', 'dnsmasq']) {
        for (const file of await readdir(path.join(options.runDir, folder)).catch(() => [] as string[])) {
          const full = path.resolve(options.runDir, folder, file);
          if (!files.has(full) && (await removeOwn(full))) stopped.push(`${folder}/${file}`);
        }
      }
      return stopped;
    },
  };
  return {
    ...networks,
    /**
     * At start: removes what no chute owns any more, then makes again what each running chute
     * lacks, adopting the daemons a killed runtime left (`pidOf` answers the pid of a chute's
     * running container). Failures are logged, not thrown: the API starts all the same.
     */
    async repair(chutes: readonly StoredChute[], pidOf: (chute: string) => Promise<number | null>): Promise<void> {
      const log = async (text: string) => daemonLog.info(`networks: ${text}`);
      try {
        for (const name of await networks.sweep(chutes)) await log(`removed ${name}, which no chute owns`);
      } catch (error) {
        daemonLog.error('sweeping the chute networks at start failed', { error });
      }
      for (const chute of chutes.filter((chute) => chute.record.state === 'running')) {
        const pid = await pidOf(chute.name).catch(() => null);
        await networks
          .up(chute, log, pid)
          .catch((error: unknown) => daemonLog.error(`the networks of chute ${chute.name} cannot be made`, { chute: chute.name, error }));
      }
    },
  };

  /** A monitor network's phy back to serve's namespace, its monitor interface removed, while the chute still runs. */
  async function monitorBack(network: string, intfName: string, reservation: NetworkReservation, pid: number, note: Note): Promise<void> {
    if (!(await inChute(pid, ['link', 'show', 'dev', intfName], false))) return;
    const { phy } = await radioOf(network, reservation);
    await inChute(pid, ['dev', intfName, 'del'], false, 'iw');
    await inChute(pid, ['phy', phy, 'set', 'netns', String(process.pid)], true, 'iw');
    await note(`moved radio ${reservation.radio} (${phy}) back from the chute`);
  }

  /**
   * hostapd for an access point, on its radio (nl80211, with the radio's `settings` from the host
   * configuration) or on the lab link (its wired driver, 802.1X with the network key as the EAP-MD5
   * password): its configuration written (atomically) and hostapd (re)started when it changed.
   */
  async function accessPoint(
    chute: string,
    network: string,
    entry: AccessPointEntry,
    reservation: NetworkReservation,
    settings: WifiRadioConfig | null,
    note: Note,
  ): Promise<void> {
    if (reservation.hostapdControl === null) throw new Error(`network ${network} has no hostapd control socket reserved`);
    const { conf, eapUsers } = hostapdFiles(reservation);
    await mkdir(path.dirname(conf), { recursive: true, mode: 0o700 });
    let text: string;
    if (settings !== null) {
      const { channel, hwmode, htmode, country } = settings;
      text = hostapdConfig(entry, reservation, { kind: 'radio', channel, hwmode, htmode, country: typeof country === 'string' ? country : undefined });
    } else {
      await writeFileAtomic(eapUsers, eapUserFile(entry), 0o600);
      text = hostapdConfig(entry, reservation, { kind: 'wired' }, eapUsers);
    }
    const changed = (await readIfExists(conf)) !== text;
    if (changed) await writeFileAtomic(conf, text, 0o600);
    await daemon(daemonKeys(reservation).hostapd, `hostapd for network ${network} of chute ${chute}`, [options.tools.hostapd, conf], note, changed);
  }
}

export type ChuteNetworks = ReturnType<typeof chuteNetworks>;

/**
 * `ip link add` for a network's host interface: a macvlan of the lab link in a lab; on a device a
 * VLAN of the LAN bridge (`ip link add link br-lan name br-lan.20 type vlan id 20`).
 *
 * @example
 * linkArgs('vlan', { hostInterface: 'br-lan.20', vlanId: 20, … }, null) // ['link', 'add', 'link', 'br-lan', 'name', 'br-lan.20', 'type', 'vlan', 'id', '20']
 */
export function linkArgs(kind: 'access-point' | 'vlan', reservation: Pick<NetworkReservation, 'hostInterface' | 'vlanId'>, labLink: string | null): string[] {
  const name = reservation.hostInterface;
  if (labLink !== null) return ['link', 'add', 'link', labLink, 'name', name, 'type', 'macvlan', 'mode', 'bridge'];
  if (kind === 'vlan') {
    const dot = name.lastIndexOf('.');
    if (dot < 1 || reservation.vlanId === null) throw new Error(`interface ${name} is not named <LAN interface>.<VLAN ID>`);
    return ['link', 'add', 'link', name.slice(0, dot), 'name', name, 'type', 'vlan', 'id', String(reservation.vlanId)];
  }
  throw new Error(`interface ${name}: an access point is made on its radio (apInterfaceArgs), or on a lab link`);
}

/**
 * `iw` for an access point's interface on a radio: `iw phy phy0 interface add vwlan5d1e type __ap`
 * (hostapd then runs it).
 */
export function apInterfaceArgs(phy: string, name: string): string[] {
  return ['phy', phy, 'interface', 'add', name, 'type', '__ap'];
}

/**
 * `ChuteNetworkOptions.radio` on a device: a radio's phy from /sys/class/ieee80211 and its settings
 * from the host configuration in effect, read when a network is made.
 */
export function deviceRadios(device: ReservationSources): ChuteNetworkOptions['radio'] {
  return async (id) => {
    const [phys, config] = await Promise.all([radioPhys(device), currentHostConfig(device)]);
    const phy = phys.get(id);
    const settings = config.wifi?.find((radio) => radio.id === id);
    return phy === undefined || settings === undefined ? null : { phy, settings };
  };
}

/** The keys of a network's daemons, which name their pid and log files. */
function daemonKeys(reservation: Pick<NetworkReservation, 'hostInterface'>): { hostapd: string; dnsmasq: string } {
  return { hostapd: `hostapd-${reservation.hostInterface}`, dnsmasq: `dnsmasq-${reservation.hostInterface}` };
}

/** Whether a network interface of that name exists in this network namespace. */
async function interfaceExists(name: string): Promise<boolean> {
  return stat(path.join('/sys/class/net', name)).then(
    () => true,
    () => false,
  );
}
