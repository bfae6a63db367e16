import type { Device, NetworkHost, NetworkTarget } from '../../functions/core/device/index.ts';
import type { SharedToolRuns } from '../network/host.ts';
import { DEFAULT_NETWORK_TOOLS, type NetworkTools } from '../network/tools.ts';
import { sharedRuns } from '../tools/shared-run.ts';

/** The network tools with their defaults: `iw`, `hostapd_cli` and hostapd's event program on PATH, 5 s. */
export function networkTools(tools: Partial<NetworkTools> = {}): NetworkTools {
  return {
    iw: tools.iw ?? DEFAULT_NETWORK_TOOLS.iw,
    hostapdCli: tools.hostapdCli ?? DEFAULT_NETWORK_TOOLS.hostapdCli,
    eventProgram: tools.eventProgram ?? DEFAULT_NETWORK_TOOLS.eventProgram,
    timeoutMs: tools.timeoutMs ?? DEFAULT_NETWORK_TOOLS.timeoutMs,
  };
}

/**
 * The host side of each chute network (`hostNetwork`): its tool reads in flight are shared by the
 * networks of every request (one map for the device, as `network()` makes a new object per request).
 * Its code is a bundle of its own (dist/network-host.mjs), loaded on the first call of a network's
 * method: only the network and station endpoints need it, not a start or another GET.
 */
export function hostNetworks(tools: NetworkTools): Pick<Device, 'network'> {
  const toolRuns: SharedToolRuns = sharedRuns();
  let code: Promise<typeof import('../network/host.ts')> | undefined;
  const make = (target: NetworkTarget) => (code ??= import('../network/host.ts')).then((bundle) => bundle.hostNetwork(target, tools, toolRuns));
  return { network: (target) => madeOnFirstCall(() => make(target)) };
}

/** A NetworkHost that makes the real one on the first call of a method, and hands each call to it. */
function madeOnFirstCall(make: () => Promise<NetworkHost>): NetworkHost {
  let made: Promise<NetworkHost> | undefined;
  const host = () => (made ??= make());
  return {
    stationDump: () => host().then((real) => real.stationDump()),
    stationGet: (mac) => host().then((real) => real.stationGet(mac)),
    stationDel: (mac) => host().then((real) => real.stationDel(mac)),
    hostapdStations: () => host().then((real) => real.hostapdStations()),
    leases: () => host().then((real) => real.leases()),
    hostapd: (command) => host().then((real) => real.hostapd(command)),
    hostapdEvents: (onEvent, onEnd) => host().then((real) => real.hostapdEvents(onEvent, onEnd)),
  };
}
