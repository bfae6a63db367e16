import { chuteStateOfServices, serviceStates } from '../../../functions/chutes/services.ts';
import type { ChuteState } from '../../../functions/chutes/state.ts';
import type { Device } from '../../../functions/core/device/index.ts';
import type { ChuteContainerEvent } from '../../engine/events.ts';
import type { EngineClient } from '../../device/host-parts.ts';
import { oneAtATime, type EventSource, type Publish } from './source.ts';

export interface ChuteStateSourceOptions {
  /** The Docker Engine API socket. */
  socketPath: string;
  chutes: Pick<Device, 'chuteNames' | 'chute'>;
  /** The engine client (the chute-lifecycle bundle), loaded on first use. */
  engine: EngineClient;
  /** How long the engine's stream waits before it connects again: 500 ms doubled up to 30 s by default (tests pass less). */
  retry?: { firstMs: number; maxMs: number };
  log?: (text: string) => void;
}

/**
 * `chute.state` from the engine's event stream (`followChuteContainerEvents`): after each event of a
 * container of a chute's service (its main one or another), the chute's state is worked out as the
 * API does (`chuteStateOfServices`, from the engine's list of chute containers and the chute's
 * record) and told when it differs from the last one told. A container that ends after the engine was asked to kill it (a stop, a restart,
 * `docker kill`) counts as stopped whatever its exit code, as the record of a stop does. Each time
 * the stream opens again (the engine restarted), every chute's state is looked at, so that what
 * happened meanwhile is told; the states when the source starts are no news. It keeps one state per
 * installed chute.
 *
 * @example
 * const states = await followChuteStates({ socketPath: '/var/run/docker.sock', chutes, engine }, publish);
 * await states.stop();
 */
export async function followChuteStates(options: ChuteStateSourceOptions, publish: Publish): Promise<EventSource> {
  const client = await options.engine();
  // The engine client cannot be loaded (engineClient logged why): no chute states to follow.
  if (client === null) return { ready: Promise.resolve(), stop: async () => {} };
  const log = options.log ?? ((text: string) => console.error(text));
  const known = new Map<string, ChuteState>();
  /** Chutes whose container the engine was asked to kill since it last started. */
  const stopAsked = new Set<string>();
  const pending = { all: false, chutes: new Set<string>() };
  /** The newest event of each container since the last look, which the engine's list may not show yet. */
  const newest = new Map<string, ChuteContainerEvent>();
  let synced = false;
  let looked: () => void;
  /** Settles at the first look at every chute, or when the engine cannot be reached at first (its first look then tells nothing). */
  const ready = new Promise<void>((resolve) => (looked = resolve));

  const update = oneAtATime(look, (error) => {
    log(`chute state events: ${(error as Error).message}`);
    looked();
  });

  /** Works out the state of the chutes an event named (or of all, after a reconnect) and tells what changed. */
  async function look(): Promise<void> {
    const all = pending.all;
    const names = all ? await options.chutes.chuteNames() : [...pending.chutes];
    pending.all = false;
    pending.chutes.clear();
    const events = [...newest.values()];
    newest.clear();
    const listed = await client!.listChuteContainers(options.socketPath);
    const containers = listed === null ? null : asOfEvents(listed, events);
    if (containers === null) {
      // The engine went away: looked at again at the next event or reconnect.
      pending.all ||= all;
      for (const name of names) pending.chutes.add(name);
      return;
    }
    if (all) for (const name of known.keys()) if (!names.includes(name)) known.delete(name);
    for (const name of names) {
      const chute = await options.chutes.chute(name);
      if (chute === null) {
        known.delete(name);
        stopAsked.delete(name);
        continue;
      }
      const record = stopAsked.has(name) ? { ...chute.record, state: 'stopped' } : chute.record;
      const state = chuteStateOfServices(serviceStates(containers, name, record));
      const previous = known.get(name) ?? null;
      if (state === previous) continue;
      known.set(name, state);
      if (synced) publish({ kind: 'chute.state', chute: name, state, previous });
    }
    if (all) {
      synced = true;
      looked();
    }
  }

  const events = client.followChuteContainerEvents(
    options.socketPath,
    {
      onConnected() {
        pending.all = true;
        update.run();
      },
      onEvent(event) {
        const { chute, action } = event;
        newest.set(event.id, event);
        if (action === 'kill') stopAsked.add(chute);
        else if (action === 'start' || action === 'restart') stopAsked.delete(chute);
        pending.chutes.add(chute);
        update.run();
      },
      onClosed: () => looked(),
    },
    options.retry,
  );

  return {
    ready,
    async stop() {
      looked();
      await events.stop();
      await update.idle();
    },
  };
}

/**
 * The engine's list of chute containers as the events since it was asked for say they are: the
 * engine tells a container's end (`die`) before its list shows it. A container's newest event sets
 * its `State` (and for `die` the `Status` with its exit code, as the engine writes it); `destroy`
 * takes it out.
 *
 * @example
 * asOfEvents([{ Id: 'c1', State: 'running', Status: 'Up 1 second' }], [{ chute: 'app', action: 'die', id: 'c1', exitCode: 143 }])
 * // [{ Id: 'c1', State: 'exited', Status: 'Exited (143)' }]
 */
export function asOfEvents(containers: readonly Record<string, unknown>[], events: readonly ChuteContainerEvent[]): Record<string, unknown>[] {
  const byId = new Map(events.map((event) => [event.id, event]));
  return containers.flatMap((container) => {
    const event = byId.get(String(container.Id));
    switch (event?.action) {
      case 'destroy':
        return [];
      case 'die':
        return [{ ...container, State: 'exited', Status: `Exited (${event.exitCode ?? 0})` }];
      case 'start':
      case 'restart':
      case 'unpause':
        return [{ ...container, State: 'running' }];
      case 'pause':
        return [{ ...container, State: 'paused' }];
      default:
        return [container];
    }
  });
}
