import type { Device } from '../../functions/core/device/index.ts';
import { hostNetwork, type SharedToolRuns } from '../network/host.ts';
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
 */
export function hostNetworks(tools: NetworkTools): Pick<Device, 'network'> {
  const toolRuns: SharedToolRuns = sharedRuns();
  return { network: (target) => hostNetwork(target, tools, toolRuns) };
}
