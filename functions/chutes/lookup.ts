import type { Device, NetworkTarget, StoredChute } from '../core/device/index.ts';
import type { FunctionInput } from '../core/handler.ts';
import { HttpProblem } from '../core/problem.ts';
import { mapping } from './chute-record.ts';
import { type NetworkKind, networkKind } from './network-kind.ts';
import { pathParams } from './params.ts';

export type { NetworkKind };

/** One entry of a chute configuration's `net`, and the host resources behind it. */
export interface ChuteNetwork {
  chute: string;
  /** The key of the entry in `net`: the `<network>` path parameter. */
  name: string;
  type: string;
  /** `mode` as configured; a Wi-Fi network without one is an access point (`ap`). */
  mode: string | null;
  /** `intfName`: the interface inside the chute. */
  interface: string;
  kind: NetworkKind;
  /** The host resources the chute cache records under `networks.<name>`; null where none is recorded. */
  target: NetworkTarget;
}

/** Network summary: ParaDrop's answer to a network read or list. */
export interface NetworkSummary {
  name: string;
  type: string;
  interface: string;
}

/**
 * An installed chute.
 *
 * @param name a validated chute name (`pathParams`).
 * @throws HttpProblem 404 when there is no chute by that name.
 */
export async function loadChute(device: Device, name: string): Promise<StoredChute> {
  const chute = await device.chute(name);
  if (chute === null) throw new HttpProblem(404, `there is no chute named ${name}`);
  return chute;
}

/** The installed chutes, in name order. */
export async function installedChutes(device: Device): Promise<readonly StoredChute[]> {
  const chutes = await Promise.all((await device.chuteNames()).map((name) => device.chute(name)));
  return chutes.filter((chute) => chute !== null);
}

/**
 * The networks of a chute: the entries of its configuration's `net`, in their order. An entry that is
 * not a mapping with a string `type` and `intfName` (which the configuration requires) is not a
 * network chutebox can serve, and is left out.
 *
 * @example
 * chuteNetworks({ name: 'hello', config: { net: { wlan: { type: 'wifi', intfName: 'wlan0' } } }, record: {}, cache: {} })
 * // [{ chute: 'hello', name: 'wlan', type: 'wifi', mode: null, interface: 'wlan0', kind: 'access-point', target: { … } }]
 */
export function chuteNetworks(chute: StoredChute): ChuteNetwork[] {
  const networks: ChuteNetwork[] = [];
  for (const [name, entry] of Object.entries(mapping(chute.config.net))) {
    const { type, intfName, mode } = mapping(entry);
    if (typeof type !== 'string' || typeof intfName !== 'string') continue;
    const configuredMode = typeof mode === 'string' ? mode : null;
    networks.push({
      chute: chute.name,
      name,
      type,
      mode: configuredMode,
      interface: intfName,
      kind: networkKind(type, configuredMode),
      target: networkTarget(chute, name),
    });
  }
  return networks;
}

/**
 * One network of an installed chute.
 *
 * @throws HttpProblem 404 for an unknown chute or network.
 */
export async function findNetwork(device: Device, params: { chute: string; network: string }): Promise<ChuteNetwork> {
  const chute = await loadChute(device, params.chute);
  const network = chuteNetworks(chute).find((n) => n.name === params.network);
  if (network === undefined) throw new HttpProblem(404, `chute ${params.chute} has no network named ${params.network}`);
  return network;
}

/**
 * One network of an installed chute that can serve an operation.
 *
 * @param kinds the kinds of network that can serve it.
 * @param operation what is asked, for the 409 detail: `list stations`, `read DHCP leases`.
 * @throws HttpProblem 404 for an unknown chute or network, 409 for a network of another kind.
 * @example
 * await servingNetwork(device, params, ['access-point', 'vlan'], 'read DHCP leases')
 * // on a monitor interface: 409 'cannot read DHCP leases: network mon of chute hello is a Wi-Fi monitor interface, not a Wi-Fi access point or a VLAN network'
 */
export async function servingNetwork(
  device: Device,
  params: { chute: string; network: string },
  kinds: readonly NetworkKind[],
  operation: string,
): Promise<ChuteNetwork> {
  const network = await findNetwork(device, params);
  if (!kinds.includes(network.kind)) {
    const wanted = kinds.map((kind) => KIND_NAMES[kind]).join(' or ');
    throw new HttpProblem(409, `cannot ${operation}: network ${network.name} of chute ${network.chute} is ${describe(network)}, not ${wanted}`);
  }
  return network;
}

/**
 * The network a request's path names (`:chute`, `:network`), when it can serve the operation: how
 * every endpoint under `/api/v1/chutes/:chute/networks/:network/` begins.
 *
 * @throws HttpProblem 400 naming the parameter that is malformed, then as `servingNetwork`.
 * @example
 * await requestedNetwork(input, device, ['access-point'], 'list stations') // { chute: 'hello', name: 'wlan', kind: 'access-point', … }
 */
export async function requestedNetwork(input: FunctionInput, device: Device, kinds: readonly NetworkKind[], operation: string): Promise<ChuteNetwork> {
  return servingNetwork(device, pathParams(input, ['chute', 'network']), kinds, operation);
}

/**
 * The access point and the station MAC address a `…/networks/:network/stations/:mac` path names.
 *
 * @throws HttpProblem 400 naming the parameter that is malformed (the MAC address before any lookup), then as `servingNetwork`.
 * @example
 * await requestedStation(input, device, 'read a station') // { network: { name: 'wlan', … }, mac: '5c:f7:e6:1c:36:f7' }
 */
export async function requestedStation(input: FunctionInput, device: Device, operation: string): Promise<{ network: ChuteNetwork; mac: string }> {
  const { mac, ...params } = pathParams(input, ['chute', 'network', 'mac']);
  return { network: await servingNetwork(device, params, ['access-point'], operation), mac };
}

/** The summary of a network (ParaDrop's shape). */
export function networkSummary(network: ChuteNetwork): NetworkSummary {
  return { name: network.name, type: network.type, interface: network.interface };
}

const KIND_NAMES: Record<NetworkKind, string> = {
  'access-point': 'a Wi-Fi access point',
  monitor: 'a Wi-Fi monitor interface',
  vlan: 'a VLAN network',
  other: 'another kind of network',
};

/** How a 409 names a network: `a VLAN network`, `a wifi network in mode sta`. */
function describe(network: ChuteNetwork): string {
  if (network.kind !== 'other') return KIND_NAMES[network.kind];
  return `a ${network.type} network${network.mode === null ? '' : ` in mode ${network.mode}`}`;
}

/** The host resources the chute cache records for a network (`cache.networks.<name>`). */
function networkTarget(chute: StoredChute, name: string): NetworkTarget {
  const recorded = mapping(mapping(chute.cache.networks)[name]);
  const text = (value: unknown) => (typeof value === 'string' && value !== '' ? value : null);
  return {
    chute: chute.name,
    network: name,
    hostInterface: text(recorded.hostInterface),
    hostapdControl: text(recorded.hostapdControl),
    leaseFile: text(recorded.leaseFile),
  };
}
