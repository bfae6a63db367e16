import { currentHostConfig } from '../config/host-config.ts';
import { DEFAULT_STATE_DIR, networkRunDir, type Device, type DeviceSources, type Settings, type StoredChute } from '../core/device/index.ts';
import { kernelTagsVlans } from '../info/vlan.ts';
import { readRadios } from '../info/wifi.ts';
import type { InputError } from '../core/problem.ts';
import { invalidInput } from '../core/validate.ts';
import { cidrText, ipv4Text, overlaps, parseCidr, type Ipv4Network } from '../parsers/ipv4.ts';
import { parseRoutes, type KernelRoute } from '../parsers/proc-net-route.ts';
import { mapping } from './chute-record.ts';
import { restoreRedacted } from '../config/secret-placeholders.ts';
import { chooseRadio, radioOffers, type RadioHolders, type RadioOffer } from './radio-choice.ts';

/*
 * What each network of a chute holds on the host, worked out before anything is made and recorded
 * under `networks.<network>` of the chute cache (where the network endpoints read it), as ParaDrop's
 * daemon does:
 * - a subnet: `ipv4_network` when it is given and free, otherwise the next free /24 of the chute
 *   subnet pool (the `chute_subnet_pool` setting; `auto`: 10.128.0.0/9, or 192.168.128.0/17 when the
 *   WAN is in 10.0.0.0/8). The host end takes its first address, the chute its second. A network that
 *   overlaps another chute's, or a network the host routes (the LAN, the WAN, any other), is taken;
 * - a host interface name of at most 15 characters, unique on the host: `vwlan<4 hex>` for an access
 *   point and `vmon<4 hex>` for a monitor interface (from a hash of chute and `intfName`, then the
 *   next free number), `<LAN interface>.<vlan_id>` for a VLAN (one chute per VLAN ID);
 * - hostapd's control socket (an access point) and dnsmasq's lease file (a network with `dhcp`),
 *   both under the run folder in the state dir;
 * - the radio of an access point or a monitor network (radio-choice.ts), unless a lab link stands in
 *   for the radios: then an access point has none, and a monitor network is refused.
 */

/** What one chute network holds on the host: `networks.<network>` of the chute cache. */
export interface NetworkReservation {
  /** The network's interface on the host, e.g. `vwlan3f2a`, `br-lan.20`. */
  hostInterface: string;
  /** The subnet, e.g. `10.128.0.0/24`; null for a monitor interface. */
  ipv4Network: string | null;
  /** The host end's address in it (the first), the chute's gateway; null without a subnet. */
  gateway: string | null;
  /** The chute end's address in it (the second); null without a subnet. */
  chuteAddress: string | null;
  /** hostapd's control socket, for an access point; null otherwise. */
  hostapdControl: string | null;
  /** dnsmasq's lease file, for a network with `dhcp`; null otherwise. */
  leaseFile: string | null;
  /** The 802.1Q tag of a VLAN network; null otherwise. */
  vlanId: number | null;
  /**
   * The radio (`pci-wifi-0`) an access point is served on or a monitor network is given
   * (radio-choice.ts); null for a VLAN, and where a lab link stands in for the radios.
   */
  radio: string | null;
}

/** What the host has and what other chutes hold, which a chute's networks must not take. */
export interface ReservationContext {
  chute: string;
  /** The host's IPv4 routes: their networks are taken, and the default route says which interface is the WAN. */
  routes: readonly KernelRoute[];
  /** Interface names on the host (`/sys/class/net`). */
  interfaces: readonly string[];
  /** The reservations of every other chute, by chute, then network. */
  others: ReadonlyMap<string, Readonly<Record<string, NetworkReservation>>>;
  /** This chute's reservations so far (an update or a restart): an entry whose network is unchanged keeps its own. */
  previous: Readonly<Record<string, NetworkReservation>>;
  /** This chute's configuration before the change, for telling whether an entry changed; {} for an install. */
  previousNet: Readonly<Record<string, unknown>>;
  /** `auto` or a network in slash notation. */
  pool: string;
  /** The folder of control sockets and lease files (`<state dir>/networks`). */
  runDir: string;
  /** The interface a VLAN network is tagged on: the LAN's, `br-lan` by default. */
  lanInterface: string;
  /** The radios Wi-Fi networks can be given (`radioOffers`); null where a lab link stands in for them (`lab_link`). */
  radios: readonly RadioOffer[] | null;
  /**
   * Whether the kernel makes 802.1Q VLAN interfaces (`kernelTagsVlans`), which a VLAN network needs
   * besides the LAN interface; null where a lab link stands in for the LAN ports (a VLAN network is
   * then a macvlan of it).
   */
  dot1q: boolean | null;
}

/** Why a monitor network is refused where a lab link stands in for the radios: its phy would move into the chute, and a lab has none. */
const LAB_LINK_MONITOR = 'a monitor interface takes a radio of its own, and this device has none: a lab link (--lab-link) stands in for its radios';

/** The prefix length of a subnet taken from the pool, as ParaDrop's daemon gives. */
export const CHUTE_PREFIX = 24;

/** The pool of `auto`, and the one taken instead when the WAN is in 10.0.0.0/8. */
export const AUTO_POOLS = { default: '10.128.0.0/9', wanInTen: '192.168.128.0/17' } as const;

/**
 * The network reservations of a chute's `net` (validated), in the order of its entries.
 *
 * @throws HttpProblem 422 listing each entry that cannot be served: `net.<name>.ipv4_network` when it
 *   overlaps another chute's network, a network of the host or an earlier entry, or leaves no room for
 *   two addresses; `net.<name>.vlan_id` when another chute has that VLAN; `net.<name>` when the pool
 *   has no free subnet left; `net.<name>.mode` for a monitor interface where a lab link stands in
 *   for the radios; `net.<name>.type` for a VLAN network on a device without the LAN interface or
 *   802.1Q.
 * @example
 * reserveNetworks({ wifi: { type: 'wifi', intfName: 'wlan0', dhcp: {} } }, context)
 * // { wifi: { hostInterface: 'vwlan5d1e', ipv4Network: '10.128.0.0/24', gateway: '10.128.0.1', chuteAddress: '10.128.0.2',
 * //           hostapdControl: '/var/lib/chutebox/networks/hostapd/vwlan5d1e', leaseFile: '/var/lib/chutebox/networks/dnsmasq/hello-wifi.leases', vlanId: null } }
 */
export function reserveNetworks(net: Readonly<Record<string, unknown>>, context: ReservationContext): Record<string, NetworkReservation> {
  const ownInterfaces = new Set(Object.values(context.previous).map((reservation) => reservation.hostInterface));
  const taken = takenNetworks(context, ownInterfaces);
  const names = new Set([...context.interfaces.filter((name) => !ownInterfaces.has(name)), ...othersValues(context).map((r) => r.hostInterface)]);
  const vlans = new Map<number, string>(
    othersEntries(context).flatMap(([chute, network, r]) => (r.vlanId === null ? [] : [[r.vlanId, `network ${network} of chute ${chute}`] as const])),
  );
  const pool = chosenPool(context);
  const radios = radioHolders(context);
  const errors: InputError[] = [];
  const reservations: Record<string, NetworkReservation> = {};
  const kept = Object.entries(net).filter(([name, entry]) => unchanged(context, name, entry));
  for (const [name] of kept) {
    const reservation = context.previous[name]!;
    reservations[name] = reservation;
    names.add(reservation.hostInterface);
    holdRadio(radios, reservation, `network ${name} of this chute`);
    const subnet = reservation.ipv4Network === null ? undefined : parseCidr(reservation.ipv4Network);
    if (subnet !== undefined) taken.push({ subnet, holder: `network ${name} of this chute` });
  }
  // An access point kept without a radio (a recorded cache names none) that its change makes again is
  // given one where the device has radios, as hostapd needs one; one whose entry is as before runs on.
  for (const [name, value] of kept) {
    const reservation = reservations[name]!;
    if (reservation.hostapdControl === null || reservation.radio !== null || context.radios === null) continue;
    const before = mapping(context.previousNet[name]);
    if (JSON.stringify(restoreRedacted(mapping(value), before).document) === JSON.stringify(before)) continue;
    reservations[name] = { ...reservation, radio: chooseRadio(name, mapping(value), context.radios, radios, errors) ?? null };
  }
  for (const [name, value] of Object.entries(net)) {
    if (reservations[name] !== undefined) continue;
    const entry = mapping(value);
    const path = `net.${name}`;
    const kind = entry.type === 'vlan' ? 'vlan' : entry.mode === 'monitor' ? 'monitor' : 'access-point';
    let hostInterface: string;
    let vlanId: number | null = null;
    if (kind === 'vlan') {
      vlanId = Number(entry.vlan_id);
      const holder = vlans.get(vlanId);
      hostInterface = `${context.lanInterface}.${vlanId}`;
      const unbuildable = vlanUnbuildable(context);
      if (unbuildable !== null) errors.push({ path: `${path}.type`, message: unbuildable });
      else if (holder !== undefined) errors.push({ path: `${path}.vlan_id`, message: `VLAN ${vlanId} is taken by ${holder}` });
      else if (names.has(hostInterface)) errors.push({ path: `${path}.vlan_id`, message: `VLAN ${vlanId} is in use on the host (${hostInterface})` });
      vlans.set(vlanId, `network ${name} of this chute`);
    } else {
      hostInterface = freeName(kind === 'monitor' ? 'vmon' : 'vwlan', `${context.chute}:${String(entry.intfName)}`, names);
    }
    names.add(hostInterface);
    if (kind === 'monitor' && context.radios === null) errors.push({ path: `${path}.mode`, message: LAB_LINK_MONITOR });
    const radio = kind === 'vlan' || context.radios === null ? null : (chooseRadio(name, entry, context.radios, radios, errors) ?? null);
    let subnet: Ipv4Network | undefined;
    if (kind !== 'monitor') {
      subnet =
        typeof entry.ipv4_network === 'string'
          ? requestedSubnet(entry.ipv4_network, taken, `${path}.ipv4_network`, errors)
          : poolSubnet(pool, taken, path, errors);
      if (subnet !== undefined) taken.push({ subnet, holder: `network ${name} of this chute` });
    }
    reservations[name] = {
      hostInterface,
      ipv4Network: subnet === undefined ? null : cidrText(subnet),
      gateway: subnet === undefined ? null : ipv4Text(subnet.network + 1),
      chuteAddress: subnet === undefined ? null : ipv4Text(subnet.network + 2),
      hostapdControl: kind === 'access-point' ? `${context.runDir}/hostapd/${hostInterface}` : null,
      leaseFile: kind !== 'monitor' && entry.dhcp !== undefined ? `${context.runDir}/dnsmasq/${context.chute}-${name}.leases` : null,
      vlanId,
      radio,
    };
  }
  if (errors.length > 0) throw invalidInput('the chute configuration', errors);
  return reservations;
}

/** A change to a chute's networks: its `net` now and, for an update, its reservations (cache `networks`) and `net` before. */
export interface NetworkChange {
  chute: string;
  net: Readonly<Record<string, unknown>>;
  previous?: Readonly<Record<string, unknown>>;
  previousNet?: Readonly<Record<string, unknown>>;
}

/**
 * The change to a chute's networks that giving it the configuration `config` makes: an install when
 * `stored` is null, otherwise an update that keeps what an unchanged network holds.
 *
 * @example
 * networkChange('hello', { net: { wifi: { type: 'wifi', intfName: 'wlan0' } } }, null) // { chute: 'hello', net: { wifi: … }, previous: {}, previousNet: {} }
 */
export function networkChange(chute: string, config: Readonly<Record<string, unknown>>, stored: Pick<StoredChute, 'config' | 'cache'> | null): NetworkChange {
  return { chute, net: mapping(config.net), previous: mapping(stored?.cache.networks), previousNet: mapping(stored?.config.net) };
}

/**
 * A chute cache with `networks` set to the reservations, or without a `networks` entry when there are
 * none (a chute without networks keeps the cache it had).
 */
export function cacheWithNetworks(cache: Readonly<Record<string, unknown>>, networks: Readonly<Record<string, NetworkReservation>>): Record<string, unknown> {
  const { networks: _old, ...rest } = cache;
  return Object.keys(networks).length === 0 ? rest : { ...rest, networks };
}

/** The LAN bridge, which VLAN networks are tagged on (ParaDrop's `br-lan`). */
export const LAN_INTERFACE = 'br-lan';

/**
 * The network reservations of a chute's `net`, with what the device has now: its routes
 * (`/proc/net/route`), its interfaces (`/sys/class/net`), its radios and 802.1Q support when the
 * chute asks for Wi-Fi or a VLAN, the other chutes' caches, and the settings `chute_subnet_pool`,
 * `state_dir` (the run folder is `networkRunDir` of it) and `lab_link`. `pending` holds
 * what changes running now reserved and have not stored yet (`networkLedger`).
 *
 * @throws HttpProblem 422 as `reserveNetworks`.
 * @example
 * await reserveChuteNetworks(device, { chute: 'hello', net: { wifi: { type: 'wifi', intfName: 'wlan0' } } }) // { wifi: { hostInterface: 'vwlan5d1e', ipv4Network: '10.128.0.0/24', … } }
 */
export async function reserveChuteNetworks(
  device: ReservationSources,
  change: NetworkChange,
  pending: ReadonlyMap<string, Readonly<Record<string, NetworkReservation>>> = new Map(),
): Promise<Record<string, NetworkReservation>> {
  const [routes, interfaces, names, settings] = await Promise.all([
    device.readFile('/proc/net/route'),
    device.readDir('/sys/class/net'),
    device.chuteNames(),
    device.settings(),
  ]);
  const others = new Map<string, Record<string, NetworkReservation>>();
  for (const chute of await Promise.all(names.filter((name) => name !== change.chute).map((name) => device.chute(name)))) {
    if (chute !== null) others.set(chute.name, recordedReservations(chute.cache));
  }
  for (const [chute, networks] of pending) if (chute !== change.chute) others.set(chute, { ...others.get(chute), ...networks });
  return reserveNetworks(change.net, {
    chute: change.chute,
    routes: parseRoutes(routes ?? ''),
    interfaces,
    others,
    previous: recordedReservations({ networks: change.previous ?? {} }),
    previousNet: change.previousNet ?? {},
    pool: typeof settings.chute_subnet_pool === 'string' ? settings.chute_subnet_pool : 'auto',
    runDir: networkRunDir(typeof settings.state_dir === 'string' ? settings.state_dir : DEFAULT_STATE_DIR),
    lanInterface: LAN_INTERFACE,
    radios: await wifiRadios(device, change.net, settings),
    dot1q: await vlanSupport(device, change.net, settings),
  });
}

/**
 * Whether the kernel tags VLANs, for a chute with a VLAN network (nothing is read without one, and
 * it answers true); null where a lab link (the `lab_link` setting) stands in for the LAN ports.
 */
async function vlanSupport(device: ReservationSources, net: NetworkChange['net'], settings: Settings): Promise<boolean | null> {
  if (hasLabLink(settings)) return null;
  return !Object.values(net).some((entry) => mapping(entry).type === 'vlan') || kernelTagsVlans(device);
}

/** Whether a lab link (the `lab_link` setting, `--lab-link`) stands in for the radios and the LAN ports. */
function hasLabLink(settings: Settings): boolean {
  return typeof settings.lab_link === 'string' && settings.lab_link !== '';
}

/**
 * The radios the chute's Wi-Fi networks can be given: none asked for without a Wi-Fi network (nothing
 * is read), null where a lab link (the `lab_link` setting) stands in for them.
 */
async function wifiRadios(device: ReservationSources, net: NetworkChange['net'], settings: Settings): Promise<RadioOffer[] | null> {
  if (hasLabLink(settings)) return null;
  if (!Object.values(net).some((entry) => mapping(entry).type === 'wifi')) return [];
  const [config, radios] = await Promise.all([currentHostConfig(device), readRadios(device)]);
  return radioOffers(
    config,
    radios.map((radio) => radio.id),
  );
}

/** What reserving reads of a device: its raw sources and, for its radios' settings, its host configuration. */
export type ReservationSources = DeviceSources & Pick<Device, 'hostConfig'>;

/** Reservations a change holds until it is over: stored in the chute cache by then, or given up. */
export interface HeldReservations {
  networks: Record<string, NetworkReservation>;
  /** Ends the hold, once the cache that records them is written or the change failed. */
  release(): void;
}

/**
 * The reservations of one device's changes, one at a time: each is worked out with what the changes
 * still running hold (`pending`), so two installs running at once never take the same subnet, name
 * or VLAN, even while one builds its image before it stores its cache.
 *
 * @example
 * const reserve = networkLedger(device);
 * const held = await reserve({ chute: 'hello', net });
 * try { … write held.networks into the chute cache … } finally { held.release(); }
 */
export function networkLedger(device: ReservationSources): (change: NetworkChange) => Promise<HeldReservations> {
  const pending = new Map<string, Record<string, NetworkReservation>>();
  let last: Promise<unknown> = Promise.resolve();
  return (change) => {
    const held = last.then(async () => {
      const networks = await reserveChuteNetworks(device, change, pending);
      pending.set(change.chute, networks);
      return {
        networks,
        release: () => {
          if (pending.get(change.chute) === networks) pending.delete(change.chute);
        },
      };
    });
    last = held.catch(() => undefined);
    return held;
  };
}

/**
 * The reservations a chute cache records under `networks`; an entry without a `hostInterface` (written
 * by hand, or by an older version) holds nothing.
 */
export function recordedReservations(cache: Readonly<Record<string, unknown>>): Record<string, NetworkReservation> {
  const reservations: Record<string, NetworkReservation> = {};
  const text = (value: unknown) => (typeof value === 'string' && value !== '' ? value : null);
  for (const [name, value] of Object.entries(mapping(cache.networks))) {
    const entry = mapping(value);
    const hostInterface = text(entry.hostInterface);
    if (hostInterface === null) continue;
    reservations[name] = {
      hostInterface,
      ipv4Network: text(entry.ipv4Network),
      gateway: text(entry.gateway),
      chuteAddress: text(entry.chuteAddress),
      hostapdControl: text(entry.hostapdControl),
      leaseFile: text(entry.leaseFile),
      vlanId: typeof entry.vlanId === 'number' ? entry.vlanId : null,
      radio: text(entry.radio),
    };
  }
  return reservations;
}

/** Why this device cannot build a VLAN network (no LAN interface to tag, no 802.1Q), or null when it can or a lab link stands in. */
function vlanUnbuildable(context: ReservationContext): string | null {
  if (context.dot1q === null) return null;
  if (!context.interfaces.includes(context.lanInterface))
    return `a VLAN network is tagged on the LAN interface ${context.lanInterface}, and this device has none`;
  if (!context.dot1q) return "a VLAN network needs 802.1Q, and this device's kernel has none (no 8021q loaded, built in or installed)";
  return null;
}

/** A network that is taken, and by what (for the 422 detail). */
interface Taken {
  subnet: Ipv4Network;
  holder: string;
}

/** Every reservation of the other chutes, with its chute and network. */
function othersEntries(context: ReservationContext): [string, string, NetworkReservation][] {
  return [...context.others].flatMap(([chute, networks]) =>
    Object.entries(networks).map(([network, r]) => [chute, network, r] as [string, string, NetworkReservation]),
  );
}

function othersValues(context: ReservationContext): NetworkReservation[] {
  return othersEntries(context).map(([, , r]) => r);
}

/** The radios the other chutes' networks hold: an access point has a control socket, a monitor network neither a subnet nor a VLAN. */
function radioHolders(context: ReservationContext): RadioHolders {
  const holders: RadioHolders = { accessPoints: new Map(), monitors: new Map() };
  for (const [chute, network, r] of othersEntries(context)) holdRadio(holders, r, `network ${network} of chute ${chute}`);
  return holders;
}

function holdRadio(holders: RadioHolders, r: NetworkReservation, holder: string): void {
  if (r.radio === null) return;
  if (r.hostapdControl !== null) holders.accessPoints.set(r.radio, [...(holders.accessPoints.get(r.radio) ?? []), holder]);
  else if (r.ipv4Network === null && r.vlanId === null) holders.monitors.set(r.radio, holder);
}

/** The networks of the other chutes and of the host's routes (but default routes and routes on this chute's own interfaces). */
function takenNetworks(context: ReservationContext, ownInterfaces: ReadonlySet<string>): Taken[] {
  const taken: Taken[] = [];
  for (const [chute, network, r] of othersEntries(context)) {
    const subnet = r.ipv4Network === null ? undefined : parseCidr(r.ipv4Network);
    if (subnet !== undefined) taken.push({ subnet, holder: `network ${network} of chute ${chute}` });
  }
  for (const route of context.routes) {
    if (route.destination.prefix === 0 || !route.up || ownInterfaces.has(route.interface)) continue;
    taken.push({ subnet: route.destination, holder: `the host's network on ${route.interface}` });
  }
  return taken;
}

/** The pool the setting names; `auto` is ParaDrop's choice by the WAN's address. */
function chosenPool(context: ReservationContext): Ipv4Network {
  if (context.pool !== 'auto') {
    const pool = parseCidr(context.pool);
    if (pool === undefined) throw new Error(`the chute_subnet_pool setting is not auto or a network in slash notation: ${context.pool}`);
    return pool;
  }
  const wan = new Set(context.routes.filter((route) => route.destination.prefix === 0 && route.up).map((route) => route.interface));
  const ten = parseCidr('10.0.0.0/8')!;
  const wanInTen = context.routes.some((route) => wan.has(route.interface) && route.destination.prefix > 0 && overlaps(route.destination, ten));
  return parseCidr(wanInTen ? AUTO_POOLS.wanInTen : AUTO_POOLS.default)!;
}

/** Whether an entry keeps its reservation: one exists and the entry's kind, subnet and VLAN are as before. */
function unchanged(context: ReservationContext, name: string, value: unknown): boolean {
  if (context.previous[name] === undefined || context.previousNet[name] === undefined) return false;
  const [now, before] = [mapping(value), mapping(context.previousNet[name])];
  return (
    (['type', 'mode', 'intfName', 'ipv4_network', 'vlan_id'] as const).every((key) => now[key] === before[key]) &&
    (now.dhcp === undefined) === (before.dhcp === undefined) &&
    mapping(now.requests).hwmode === mapping(before.requests).hwmode
  );
}

/** The requested subnet when it is free and leaves room for the host's and the chute's addresses. */
function requestedSubnet(text: string, taken: readonly Taken[], path: string, errors: InputError[]): Ipv4Network | undefined {
  const subnet = parseCidr(text);
  if (subnet === undefined) return undefined;
  if (subnet.prefix > 30) {
    errors.push({ path, message: `${text} is too small: a chute network needs a /30 or larger, for the host's address and the chute's` });
    return undefined;
  }
  const clash = taken.find((t) => overlaps(t.subnet, subnet));
  if (clash === undefined) return subnet;
  errors.push({ path, message: `${cidrText(subnet)} overlaps ${cidrText(clash.subnet)}, ${clash.holder}` });
  return undefined;
}

/** The first /24 of the pool that overlaps nothing taken. */
function poolSubnet(pool: Ipv4Network, taken: readonly Taken[], path: string, errors: InputError[]): Ipv4Network | undefined {
  const size = 2 ** (32 - CHUTE_PREFIX);
  for (let network = pool.network; network + size - 1 <= pool.broadcast; network += size) {
    const subnet = { network, broadcast: network + size - 1, prefix: CHUTE_PREFIX };
    const clash = taken.find((t) => overlaps(t.subnet, subnet));
    if (clash === undefined) return subnet;
    network = Math.max(network, clash.subnet.broadcast + 1 - size);
  }
  errors.push({ path, message: `no /${CHUTE_PREFIX} of the chute subnet pool ${cidrText(pool)} is free` });
  return undefined;
}

/** `<prefix><4 hex digits>`: from a hash of `key`, then the next number not in `taken`. */
function freeName(prefix: string, key: string, taken: ReadonlySet<string>): string {
  const start = fnv1a(key) & 0xffff;
  for (let i = 0; i < 0x10000; i++) {
    const name = `${prefix}${((start + i) & 0xffff).toString(16).padStart(4, '0')}`;
    if (!taken.has(name)) return name;
  }
  throw new Error(`no interface name ${prefix}<4 hex digits> is free`);
}

/** The 32-bit FNV-1a hash of a string's UTF-16 code units: stable across runs, unlike a random pick. */
function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return hash;
}

/**
 * One change message that says what a chute's networks hold on the host, or none without networks.
 *
 * @example
 * reservationNotes({ wifi: { hostInterface: 'vwlan5d1e', ipv4Network: '10.128.0.0/24', … } }) // ['networks: wifi 10.128.0.0/24 on vwlan5d1e']
 */
export function reservationNotes(reservations: Readonly<Record<string, NetworkReservation>>): string[] {
  const parts = Object.entries(reservations).map(([name, r]) => `${name} ${r.ipv4Network === null ? '' : `${r.ipv4Network} `}on ${r.hostInterface}`);
  return parts.length === 0 ? [] : [`networks: ${parts.join(', ')}`];
}
