import { networkLedger, type HeldReservations, type NetworkChange } from '../../functions/chutes/network-reservations.ts';
import { CHUTE_LABEL, networkRunDir, type Device } from '../../functions/core/device/index.ts';
import { chuteEngine, reachableChuteEngine } from '../engine/docker.ts';
import { chuteNetworks, deviceRadios } from '../network/chute-networks.ts';
import type { NetworkTools } from '../network/tools.ts';
import { runningPid } from './container-steps.ts';
import { chuteEffects, type ChuteEffects } from './lifecycle.ts';
import { recoverChutes, type RecoverOptions } from './recover.ts';
import { chuteWriter } from './store.ts';
import { daemonLog } from '../log/log.ts';
import { deviceChuteToken } from '../auth/local.ts';

export interface HostChutesOptions {
  /** The runtime's state folder, whose networks folder (`networkRunDir`) holds hostapd's and dnsmasq's files. */
  stateDir: string;
  /** `<stateDir>/chutes`, and the chutes stored there. */
  chutesDir: string;
  chutes: Pick<Device, 'chuteNames' | 'chute'>;
  /** The Docker Engine API socket. */
  socketPath: string;
  /** `HostConfig.NetworkMode` of the chute containers (`--container-network`). */
  networkMode: string;
  /** `--lab-link` (`ChuteNetworkOptions.labLink`). */
  labLink: string | null;
  tools: Pick<NetworkTools, 'iw' | 'timeoutMs'>;
  /** The device, once made: its chutes' networks are reserved among its sources, its radios read from them. */
  device: () => Device;
}

/** The host's work on its chutes with the chute-lifecycle bundle's code (`hostChutes`). */
export interface HostChutes {
  /** What each change to a chute does (runtime/chutes/lifecycle.ts). */
  effects: ChuteEffects;
  /**
   * At start, when chutes are stored: repairs what a crash cut short and sets each chute's stored state
   * from the engine (`recoverChutes`; a failure is logged), then the chutes' networks (`ChuteNetworks.repair`).
   */
  repairAtStart(changes: Pick<RecoverOptions, 'interrupted' | 'annotate' | 'change'>): Promise<void>;
  /** Removes every container that carries the chute label (a factory reset); false when no engine is reachable. */
  removeContainers(): Promise<boolean>;
}

/**
 * The host's work on its chutes, made once per device when the chute-lifecycle bundle is first loaded: the
 * host side of the chutes' networks (one for the runtime's life: it supervises their daemons), their
 * reservations (one change at a time), the effects of changes to chutes, the repair at start.
 */
export function hostChutes(options: HostChutesOptions): HostChutes {
  const { chutes, socketPath, device } = options;
  const networks = chuteNetworks({
    runDir: networkRunDir(options.stateDir),
    labLink: options.labLink,
    radio: deviceRadios(device()),
    tools: {
      ip: 'ip',
      iw: options.tools.iw,
      hostapd: 'hostapd',
      dnsmasq: 'dnsmasq',
      nsenter: 'nsenter',
      nft: 'nft',
      iptables: 'iptables',
      timeoutMs: options.tools.timeoutMs,
    },
  });
  let ledger: ((change: NetworkChange) => Promise<HeldReservations>) | undefined;
  const chuteToken = (chute: string) => deviceChuteToken(options.stateDir, chute);
  const effects = chuteEffects({
    chutes,
    writer: chuteWriter(options.chutesDir),
    engine: () => chuteEngine(socketPath),
    networkMode: options.networkMode,
    chuteToken,
    reserve: (change) => (ledger ??= networkLedger(device()))(change),
    networks,
  });
  return {
    effects,
    async repairAtStart(changes) {
      await recoverChutes({ dir: options.chutesDir, engine: await reachableChuteEngine(socketPath), chuteToken, ...changes }).catch((error: unknown) =>
        daemonLog.error('repairing the chutes at start failed', { error }),
      );
      const reachable = await reachableChuteEngine(socketPath);
      const stored = (await Promise.all((await chutes.chuteNames()).map((name) => chutes.chute(name)))).filter((chute) => chute !== null);
      await networks.repair(stored, async (name) => (reachable === null ? null : runningPid(reachable, name)));
    },
    async removeContainers() {
      const reachable = await reachableChuteEngine(socketPath);
      if (reachable === null) return false;
      for (const container of await reachable.listAll()) {
        const labels = container.Labels as Record<string, string>;
        await reachable.remove(labels[CHUTE_LABEL]!, String(container.Id));
      }
      return true;
    },
  };
}
