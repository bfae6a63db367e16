import type { StoredChute } from '../../functions/core/device/index.ts';
import type { Note } from '../changes/runner.ts';
import type { ChuteContainer, ChuteEngine } from '../engine/docker.ts';
import { companionServices } from '../../functions/chutes/services.ts';
import { companionSpec, containerSpec } from './container-spec.ts';

/** The engine steps of the changes to one chute, each noted in the change record. */
export function containerSteps(engine: ChuteEngine, name: string, note: Note, networkMode: string, chuteToken: (chute: string) => Promise<string>) {
  const current = async (): Promise<ChuteContainer | undefined> => (await engine.containers(name))[0];

  async function create(chute: StoredChute): Promise<string> {
    const spec = containerSpec(chute, networkMode, await chuteToken(chute.name));
    const id = await engine.create(name, spec);
    await note(`created container ${shortId(id)} from image ${spec.image}`);
    return id;
  }

  async function start(id: string): Promise<void> {
    await engine.start(name, id);
    await note(`started container ${shortId(id)}`);
  }

  return {
    current,
    create,
    startContainer: start,
    /** The pid of the chute's running container (its network namespace), or null when none runs. */
    pid: () => runningPid(engine, name),
    /** Starts the chute: its container, or a new one made from `chute` when there is none or `recreate` says so. */
    async start(chute: StoredChute, recreate = false): Promise<void> {
      const container = await current();
      if (container !== undefined && !recreate) return start(container.Id);
      if (container !== undefined) {
        await engine.remove(name, container.Id);
        await note(`removed container ${shortId(container.Id)} to start one with the new environment`);
      }
      await start(await create(chute));
    },
    async stop(): Promise<void> {
      const container = await current();
      if (container === undefined) return note('no container to stop');
      await this.stopContainer(container.Id);
    },
    async stopContainer(id: string): Promise<void> {
      await engine.stop(name, id);
      await note(`stopped container ${shortId(id)}`);
    },
    async removeAll(): Promise<void> {
      await this.removeCompanions();
      for (const container of await engine.containers(name)) {
        await engine.stop(name, container.Id);
        await engine.remove(name, container.Id);
        await note(`stopped and removed container ${shortId(container.Id)}`);
      }
    },
    /**
     * Runs the chute's other services beside its running container, each in a new container in that
     * container's network namespace (one made earlier joined the namespace of an earlier run: it goes).
     */
    async startCompanions(chute: StoredChute): Promise<void> {
      const services = companionServices(chute.record);
      if (services.length === 0) return;
      await this.removeCompanions();
      const main = await current();
      if (main === undefined) throw new Error(`chute ${name} has no container for its other services to join`);
      for (const [service, entry] of services) {
        const id = await engine.create(name, companionSpec(chute, service, entry, main.Id, await chuteToken(chute.name)));
        await engine.start(name, id);
        await note(`started container ${shortId(id)} of service ${service} from image ${String(entry.image)}`);
      }
    },
    /** Stops the containers of the chute's other services (kept, with their logs, until the chute starts again). */
    async stopCompanions(): Promise<void> {
      for (const container of await engine.companions(name)) {
        await engine.stop(name, container.Id);
        await note(`stopped container ${shortId(container.Id)} of service ${container.service}`);
      }
    },
    /** Removes the containers of the chute's other services. */
    async removeCompanions(): Promise<void> {
      for (const container of await engine.companions(name)) {
        await engine.remove(name, container.Id);
        await note(`removed container ${shortId(container.Id)} of service ${container.service}`);
      }
    },
    async remove(id: string): Promise<void> {
      await engine.remove(name, id);
      await note(`removed container ${shortId(id)}`);
    },
    /** Sets the container aside (renamed `chute-<name>-previous-<id>`) or, with null, gives it its name back. */
    async rename(id: string, suffix: string | null): Promise<void> {
      await engine.rename(name, id, suffix);
      await note(suffix === null ? `gave container ${shortId(id)} its name back` : `set container ${shortId(id)} aside`);
    },
  };
}

/** The steps of `containerSteps`. */
export type ContainerSteps = ReturnType<typeof containerSteps>;

/** A container's id as change messages show it: its first 12 characters. */
export const shortId = (id: string) => id.slice(0, 12);

/**
 * The pid of a chute's running container (the most recently created), whose network namespace holds
 * the chute's interfaces; null when none runs.
 */
export async function runningPid(engine: ChuteEngine, chute: string): Promise<number | null> {
  const container = (await engine.containers(chute))[0];
  if (container === undefined) return null;
  const state = (await engine.inspect(chute, container.Id)).State as { Running?: boolean; Pid?: number } | undefined;
  return state?.Running === true && typeof state.Pid === 'number' && state.Pid > 0 ? state.Pid : null;
}
