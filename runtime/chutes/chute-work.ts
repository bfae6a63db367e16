import type { ChuteAction, Device, StoredChute } from '../../functions/core/device/index.ts';
import type { HeldReservations, NetworkChange } from '../../functions/chutes/network-reservations.ts';
import type { AfterSucceeded, ChangeRequestOf, Note } from '../changes/runner.ts';
import type { ChuteEngine } from '../engine/docker.ts';
import { ENGINE_UNREACHABLE } from '../engine/unreachable.ts';
import { containerSteps, type ContainerSteps } from './container-steps.ts';
import type { ChuteWriter } from './store.ts';

export interface LifecycleOptions {
  /** Reads the installed chutes (`chuteStore` of `<state-dir>/chutes`). */
  chutes: Pick<Device, 'chute'>;
  /** Writes them (`chuteWriter` of the same folder). */
  writer: ChuteWriter;
  /** The engine, or null when none is reachable. */
  engine: () => Promise<ChuteEngine | null>;
  /** `HostConfig.NetworkMode` of every chute container (`--container-network`). */
  networkMode: string;
  /** The API token a chute's container gets as `PARADROP_API_TOKEN` (`deviceChuteToken`). */
  chuteToken(chute: string): Promise<string>;
  /**
   * Reserves what a chute's networks hold on the host (`networkLedger` of the device), held until the
   * change releases it; throws an HttpProblem 422 when they cannot have it.
   */
  reserve(change: NetworkChange): Promise<HeldReservations>;
  /** What builds a running chute's networks on the host (runtime/network/chute-networks.ts); none in tests of the engine work alone. */
  networks?: ChuteNetworkHooks;
}

/** The host side of a chute's networks, as the lifecycle drives it. */
export interface ChuteNetworkHooks {
  /**
   * Makes what the chute's cache reserves (idempotent), the chute's own interfaces inside its running
   * container (`containerPid`, null when none runs) included; on a failure it leaves nothing of its own behind.
   */
  up(chute: StoredChute, note: Note, containerPid: number | null): Promise<void>;
  /**
   * Removes what was made for the chute's networks; with the pid of its running container, its
   * interfaces in there too. Their DHCP leases stay (`keep`) when they are to come back as they were
   * (a stop), and go (`remove`) when they go for good (a delete, an update that drops them).
   */
  down(chute: StoredChute, note: Note, leases: 'keep' | 'remove', containerPid?: number | null): Promise<void>;
  /** Takes the chute's own interfaces out of its running container, before the container stops. */
  leave(chute: StoredChute, note: Note, containerPid: number): Promise<void>;
}

/** An installed chute, its engine and the steps on it, as an effect works on them, with the lifecycle's options. */
export interface ChuteAtWork {
  options: LifecycleOptions;
  chute: StoredChute;
  engine: ChuteEngine;
  steps: ContainerSteps;
}

/** What an effect's work on an installed chute answers: whether the chute is gone, and what to do once the change's `succeeded` is saved. */
export interface WorkDone {
  deleted?: boolean;
  after?: AfterSucceeded;
}

/** The work of action `A` on an installed chute (see `chuteEffects`). */
export type ChuteWork<A extends ChuteAction> = (at: ChuteAtWork, request: ChangeRequestOf<A>, note: Note, id: number) => Promise<WorkDone | undefined>;

/**
 * The engine and the steps on it of a change to chute `name`.
 *
 * @throws Error when no engine is reachable.
 */
export async function onEngine(options: LifecycleOptions, name: string, note: Note): Promise<Pick<ChuteAtWork, 'engine' | 'steps'>> {
  const engine = await options.engine();
  if (engine === null) throw new Error(ENGINE_UNREACHABLE);
  return { engine, steps: containerSteps(engine, name, note, options.networkMode, options.chuteToken) };
}
