import path from 'node:path';
import { networkRunDir, type Device } from '../../../functions/core/device/index.ts';
import type { EngineClient } from '../../device/host-parts.ts';
import { removeStaleEventDirs } from '../../network/event-dirs.ts';
import { followChuteStates } from './chute-states.ts';
import { followLeases } from './leases.ts';
import type { EventSource, Publish } from './source.ts';
import { followStations } from './stations.ts';

export type { EventSource, Publish } from './source.ts';

/** What the host's event sources read: the host Device's parts (runtime/device/host-parts.ts) and its networks. */
export interface HostEventSourceOptions {
  /** The runtime's state dir: the chute networks' control sockets and lease files are in its run folder (`networkRunDir`). */
  stateDir: string;
  /** The Docker Engine API socket. */
  socketPath: string;
  chutes: Pick<Device, 'chuteNames' | 'chute'>;
  /** The host side of each chute network (`hostNetworks`): hostapd's events and stations, the lease file. */
  network: Device['network'];
  /** The engine client, loaded on first use (`engineClient`). */
  engine: EngineClient;
  /** How long the engine's event stream waits before it connects again (tests pass less). */
  engineRetry?: { firstMs: number; maxMs: number };
}

/**
 * Starts the device events of the real host (docs/api/networks.md#events-of-the-networks-on-serve),
 * each handed to `publish` as it happens: stations from each access point's hostapd
 * (`followStations`), DHCP leases from dnsmasq's lease files (`followLeases`) and chute states from
 * the engine's event stream (`followChuteStates`, once the engine client has loaded, in the
 * background). First removes the private folders of hostapd_cli that a killed runtime left. `stop()`
 * ends them all: their hostapd_cli processes by pid, their watches, timers and engine stream.
 *
 * @example
 * const sources = startHostEventSources({ stateDir, socketPath, chutes, network: device.network, engine }, (body) => events.publish(body));
 * await sources.stop();
 */
export function startHostEventSources(options: HostEventSourceOptions, publish: Publish): EventSource {
  const log = (text: string) => console.error(text);
  void removeStaleEventDirs().then(
    (removed) => removed.length > 0 && log(`removed ${removed.join(', ')}, left by a runtime that was killed`),
    () => undefined,
  );
  const runDir = networkRunDir(options.stateDir);
  const { chutes, network } = options;
  const stations = followStations({ chutes, network, controlDir: path.join(runDir, 'hostapd'), log }, publish);
  const leases = followLeases({ chutes, network, leaseDir: path.join(runDir, 'dnsmasq'), log }, publish);
  const states = followChuteStates({ socketPath: options.socketPath, chutes, engine: options.engine, retry: options.engineRetry, log }, publish).catch(
    (error: unknown) => {
      log(`chute state events cannot be followed: ${(error as Error).message}`);
      return null;
    },
  );
  return {
    ready: Promise.all([stations.ready, leases.ready, states.then((source) => source?.ready)]).then(() => undefined),
    async stop() {
      await Promise.all([stations.stop(), leases.stop(), states.then((source) => source?.stop())]);
    },
  };
}
