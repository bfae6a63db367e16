import type { ChangeRequest, ChuteAction, ChuteInstall, Device, StoredChute } from '../../functions/core/device.ts';
import { environmentStrings, type Environment } from '../../functions/chutes/chute-config.ts';
import { mapping } from '../../functions/chutes/chute-record.ts';
import {
  cacheWithNetworks,
  networkChange,
  recordedReservations,
  reservationNotes,
  type HeldReservations,
  type NetworkChange,
  type NetworkReservation,
} from '../../functions/chutes/network-reservations.ts';
import { resolvePlaceholders } from '../../functions/chutes/redact.ts';
import { chuteImageTag, isBuiltImage } from '../../functions/chutes/image-tag.ts';
import { chuteState } from '../../functions/chutes/state.ts';
import type { AfterSucceeded, ChangeEffect, ChangeEffects, ChangeRequestOf, Note } from '../changes/runner.ts';
import type { ChuteContainer, ChuteContainerSpec, ChuteEngine } from '../engine/docker.ts';
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

/**
 * What each change does to a chute on the container engine (see `ChangeRequest`). A chute's container
 * is `chute-<name>`, labelled `io.chutebox.chute=<name>`, made from the image the chute record names
 * (`image`) with:
 * - `Env`: the configuration's `environment`, then the record's (a later one wins);
 * - `HostConfig.PortBindings` from `host_config.port_bindings`, `HostConfig.Dns` from `host_config.dns`;
 * - `HostConfig.NetworkMode` from `networkMode`.
 *
 * `install` stores the new chute (`chute.json` with `state: 'installing'`, `service.json`, `cache.json`
 * `{}`, all at once), removes any container an earlier chute of that name left behind, then creates
 * and starts its container as `start` does. When a step fails (image missing, engine error) it
 * removes the container it made and the chute's folder, and the change fails with the reason.
 *
 * `start` starts the existing container, or (re)creates it when there is none or the change brings an
 * environment. `update-config` first resolves the configuration's `[redacted]` placeholders against
 * the one stored now (`resolvePlaceholders`: the change fails, with nothing changed, when one has no
 * secret behind it any more), then writes what undoes it (`rollback.json`, see `Rollback`), then
 * stores the new configuration, sets the old container aside (stopped, renamed
 * `chute-<name>-previous-<id>`), creates and starts the new one, removes the old one and, last,
 * `rollback.json`. On any failure it removes the new container, restores the previous configuration and
 * puts the old container back (running again when it ran before), and the change fails with the
 * engine's message; when a crash cuts it short, `recoverChutes` does the same at the next start. After
 * every change but a successful delete, the record's `state` is set to the chute's state as the engine
 * then reports it (the last known state, for when no engine is reachable).
 *
 * @example
 * const effects = chuteEffects({ chutes, writer, engine: () => chuteEngine(socket), networkMode: 'bridge' });
 * await effects.start({ action: 'start', chute: 'hello' }, async (text) => console.log(text), 7);
 */
export function chuteEffects(options: LifecycleOptions): ChuteEffects {
  const { writer } = options;
  /** The effect of an action on a chute that must be installed, with a reachable engine; it records the chute's state after. */
  const onChute =
    <A extends ChuteAction>(
      work: (chute: ChuteAtWork, request: ChangeRequestOf<A>, note: Note, id: number) => Promise<{ deleted?: boolean; after?: AfterSucceeded } | void>,
    ): ChangeEffect<A> =>
    async (request, note, id) => {
      const name = request.chute;
      const chute = await options.chutes.chute(name);
      if (chute === null) throw new Error(`chute ${name} is not installed`);
      const engine = await options.engine();
      if (engine === null) throw new Error('no container engine is reachable');
      const steps = lifecycleSteps(engine, name, note, options.networkMode);
      let done: { deleted?: boolean; after?: AfterSucceeded } | void = undefined;
      try {
        done = await work({ chute, engine, steps }, request, note, id);
      } finally {
        if (done?.deleted !== true) await recordState(engine, options.chutes, writer, name, note, request.action === 'stop' ? 'stopped' : 'running');
      }
      return done?.after;
    };

  return {
    install: (request, note, id) => install(options, request, note, id),
    start: onChute(async ({ chute, steps }, request, note) => {
      await startWith(steps, writer, chute, request.environment, note);
      if (options.networks) await options.networks.up(chute, note, await steps.pid());
    }),
    stop: onChute(async ({ chute, steps }, _request, note) => {
      await leaveContainer(options.networks, chute, steps, note);
      await steps.stop();
      await options.networks?.down(chute, note, 'keep');
    }),
    restart: onChute(async ({ chute, steps }, request, note) => {
      await leaveContainer(options.networks, chute, steps, note);
      await steps.stop();
      await startWith(steps, writer, chute, request.environment, note);
      if (options.networks) await options.networks.up(chute, note, await steps.pid());
    }),
    delete: onChute(async ({ chute, engine, steps }, _request, note) => {
      if (options.networks) await options.networks.down(chute, note, 'remove', await steps.pid());
      await steps.removeAll();
      await writer.remove(chute.name);
      await note(`removed the stored chute ${chute.name}`);
      // An image chutebox built for the chute goes with it: on a router, flash is scarce.
      const image = chute.record.image;
      if (typeof image === 'string' && isBuiltImage(chute.name, image)) await removeBuiltImage(engine, image, note);
      return { deleted: true };
    }),
    'update-config': onChute(async ({ chute, steps }, request, note, id) => {
      // Placeholders keep the secrets stored now, which a change queued before this one may have set.
      const config = resolvePlaceholders(request.config, chute.config, `the configuration of chute ${chute.name}`);
      return withCache(options, chute, config, async (cache) => ({
        after: await updateConfig(steps, writer, chute, { ...chute, config, cache }, note, id, undefined, options.networks),
      }));
    }),
    update: onChute(async ({ chute, engine, steps }, request, note, id) => {
      const name = chute.name;
      const current = typeof chute.record.image === 'string' ? chute.record.image : undefined;
      return withCache(options, chute, request.config, async (cache) => {
        const image = await buildImage(engine, name, request.source, chuteImageTag(name, request.version, id, current), options.networkMode, note);
        const record = { ...chute.record, image, version: request.version, environment: request.environment };
        let after: AfterSucceeded;
        try {
          after = await updateConfig(steps, writer, chute, { ...chute, record, config: request.config, cache }, note, id, image, options.networks);
        } catch (error) {
          await removeBuiltImage(engine, image, note);
          throw error;
        }
        if (current !== undefined && current !== image && isBuiltImage(name, current)) await removeBuiltImage(engine, current, note);
        return { after };
      });
    }),
  };
}

/**
 * Runs `work` with the networks of a chute's `net` reserved, and gives the hold up when it is over
 * (by then the cache that records them is written, or the change failed).
 */
async function withNetworks<T>(
  options: LifecycleOptions,
  change: NetworkChange,
  work: (networks: Record<string, NetworkReservation>) => Promise<T>,
): Promise<T> {
  const held = await options.reserve(change);
  try {
    return await work(held.networks);
  } finally {
    held.release();
  }
}

/** Runs `work` with the cache a chute has once its configuration is `config`: an unchanged network keeps what it holds. */
function withCache<T>(
  options: LifecycleOptions,
  chute: StoredChute,
  config: Record<string, unknown>,
  work: (cache: Record<string, unknown>) => Promise<T>,
): Promise<T> {
  return withNetworks(options, networkChange(chute.name, config, chute), (networks) => work(cacheWithNetworks(chute.cache, networks)));
}

/** What each change to a chute does on the container engine. */
export type ChuteEffects = Pick<ChangeEffects, ChuteAction>;

/** An installed chute, its engine and the steps on it, as an effect works on them. */
interface ChuteAtWork {
  chute: StoredChute;
  engine: ChuteEngine;
  steps: Steps;
}

type Steps = ReturnType<typeof lifecycleSteps>;

/** The engine steps of the changes to one chute, each noted in the change record. */
function lifecycleSteps(engine: ChuteEngine, name: string, note: Note, networkMode: string) {
  const short = (id: string) => id.slice(0, 12);
  const current = async (): Promise<ChuteContainer | undefined> => (await engine.containers(name))[0];

  async function create(chute: StoredChute): Promise<string> {
    const spec = containerSpec(chute, networkMode);
    const id = await engine.create(name, spec);
    await note(`created container ${short(id)} from image ${spec.image}`);
    return id;
  }

  async function start(id: string): Promise<void> {
    await engine.start(name, id);
    await note(`started container ${short(id)}`);
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
        await note(`removed container ${short(container.Id)} to start one with the new environment`);
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
      await note(`stopped container ${short(id)}`);
    },
    async removeAll(): Promise<void> {
      for (const container of await engine.containers(name)) {
        await engine.stop(name, container.Id);
        await engine.remove(name, container.Id);
        await note(`stopped and removed container ${short(container.Id)}`);
      }
    },
    async remove(id: string): Promise<void> {
      await engine.remove(name, id);
      await note(`removed container ${short(id)}`);
    },
    /** Sets the container aside (renamed `chute-<name>-previous-<id>`) or, with null, gives it its name back. */
    async rename(id: string, suffix: string | null): Promise<void> {
      await engine.rename(name, id, suffix);
      await note(suffix === null ? `gave container ${short(id)} its name back` : `set container ${short(id)} aside`);
    },
  };
}

/**
 * Builds a chute's image from its source (the build context) as `tag`, and answers the tag. The
 * change's messages get the build's steps (`Step 2/4 : COPY . /app`) and its `Successfully …` lines,
 * not what each step prints: a step such as `npm install` prints thousands of lines, and each message
 * is a write of the change record.
 *
 * @throws Error saying the build failed, with the engine's message and the last lines of its output.
 */
async function buildImage(engine: ChuteEngine, chute: string, source: Uint8Array, tag: string, networkMode: string, note: Note): Promise<string> {
  await note(`building image ${tag} from the source of chute ${chute}`);
  const last: string[] = [];
  try {
    await engine.build(source, tag, networkMode, async (line) => {
      last.push(line);
      if (last.length > BUILD_TAIL_LINES) last.shift();
      if (BUILD_PROGRESS.test(line)) await note(line);
    });
  } catch (error) {
    const tail = last.length === 0 ? '' : ` (the build's last lines: ${last.join(' | ')})`;
    throw new Error(`building image ${tag} failed: ${(error as Error).message}${tail}`);
  }
  await note(`built image ${tag}`);
  return tag;
}

/** How many lines of the build's output a failed change's reason quotes. */
const BUILD_TAIL_LINES = 5;

/** The lines of a build's output that become change messages: its steps and its outcome. */
const BUILD_PROGRESS = /^(?:Step \d+\/\d+ : |Successfully )/;

/** Removes an image a change built; a failure is noted, not thrown (the image only takes space). */
async function removeBuiltImage(engine: ChuteEngine, image: string, note: Note): Promise<void> {
  try {
    await engine.removeImage(image);
    await note(`removed image ${image}`);
  } catch (error) {
    await note(`could not remove image ${image}: ${(error as Error).message}`);
  }
}

/**
 * `install`: a new chute, its image first built from its source when it has one, its container created
 * and started; on failure, nothing of it is left (nor the image it built).
 */
async function install(options: LifecycleOptions, request: ChuteInstall, note: Note, change: number): Promise<void> {
  const { chutes, writer, networkMode } = options;
  const name = request.chute;
  if ((await chutes.chute(name)) !== null) throw new Error(`a chute named ${name} is already installed`);
  const engine = await options.engine();
  if (engine === null) throw new Error('no container engine is reachable');
  const steps = lifecycleSteps(engine, name, note, networkMode);
  const { version, environment, allocation, config } = request;
  return withNetworks(options, networkChange(name, config, null), async (networks) => {
    let image: string;
    if (request.image !== null) image = request.image;
    else if (request.source !== undefined) {
      try {
        image = await buildImage(engine, name, request.source, chuteImageTag(name, version, change), networkMode, note);
      } catch (error) {
        throw new Error(`${(error as Error).message}; chute ${name} is not installed`);
      }
    } else throw new Error(`the install of chute ${name} names no image and brings no source`);
    const built = request.image === null ? image : undefined;
    const chute: StoredChute = {
      name,
      record: { name, version, state: 'installing', image, environment, allocation, resources: null },
      config,
      cache: cacheWithNetworks({}, networks),
    };
    for (const left of await engine.containers(name)) {
      await engine.remove(name, left.Id);
      await note(`removed container ${left.Id.slice(0, 12)}, left behind by an earlier chute named ${name}`);
    }
    await writer.create(name, { chute: chute.record, service: config, cache: chute.cache });
    await note(`stored chute ${name}`);
    for (const text of reservationNotes(networks)) await note(text);
    let created: string | undefined;
    try {
      created = await steps.create(chute);
      await steps.startContainer(created);
      if (options.networks) await options.networks.up(chute, note, await steps.pid());
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      await note(`the install failed: ${reason}; removing what it made`);
      try {
        await options.networks?.down(chute, note, 'remove');
        if (created !== undefined) await steps.remove(created);
        await writer.remove(name);
        await note(`removed the stored chute ${name}`);
        if (built !== undefined) await removeBuiltImage(engine, built, note);
      } catch (cleanupError) {
        throw new Error(`${reason}; removing what the install made failed too: ${(cleanupError as Error).message}`);
      }
      throw new Error(`${reason}; chute ${name} is not installed`);
    }
    await recordState(engine, chutes, writer, name, note, 'running');
  });
}

/**
 * What undoes a configuration update (`<chute>/rollback.json`): written atomically before the update
 * touches anything, removed once it is over (done or undone). Found at start, it means a crash cut the
 * update short (see `recoverChutes`).
 */
export interface Rollback {
  /** The id of the `update-config` or `update` change. */
  change: number;
  /** The configuration before the update. */
  config: Record<string, unknown>;
  /** The chute record before the update, when the update replaces it too (`update`: image, version, environment). */
  record?: Record<string, unknown>;
  /** The chute cache before the update, when the update changes it (its networks' reservations). */
  cache?: Record<string, unknown>;
  /** The image the update built, which undoing it removes. */
  image?: string;
  /** The id of the chute's container before the update (the one it sets aside), or null when it had none. */
  container: string | null;
  /** Whether that container was running. */
  running: boolean;
}

/**
 * `update-config` and `update`: the chute as `next` (its configuration and, for an update, its record)
 * and a new container, or the previous ones back. `image` is the image an update built.
 */
async function updateConfig(
  steps: Steps,
  writer: ChuteWriter,
  chute: StoredChute,
  next: StoredChute,
  note: Note,
  change: number,
  image?: string,
  networks?: ChuteNetworkHooks,
): Promise<AfterSucceeded> {
  const name = chute.name;
  const config = next.config;
  const replacesRecord = next.record !== chute.record;
  // The cache changes with the networks' reservations; a chute without networks keeps its files as they are.
  const replacesCache = JSON.stringify(next.cache) !== JSON.stringify(chute.cache);
  const previous = await steps.current();
  const wasRunning = previous?.State === 'running';
  const rollback: Rollback = {
    change,
    config: chute.config,
    ...(replacesRecord ? { record: chute.record } : {}),
    ...(replacesCache ? { cache: chute.cache } : {}),
    ...(image === undefined ? {} : { image }),
    container: previous?.Id ?? null,
    running: wasRunning,
  };
  await writer.write(name, 'rollback', { ...rollback });
  await writer.write(name, 'service', config);
  if (replacesCache) await writer.write(name, 'cache', next.cache);
  if (replacesRecord) await writer.write(name, 'chute', next.record);
  await note(
    replacesRecord
      ? `stored the new record (image ${String(next.record.image)}, version ${String(next.record.version)}) and configuration`
      : 'stored the new configuration',
  );
  for (const text of reservationNotes(recordedReservations(next.cache))) await note(text);
  let created: string | undefined;
  let setAside = false;
  try {
    // A network the update removes or reserves anew goes first; one it keeps stays up through the update.
    if (networks) await networks.down(withNetworksOnly(chute, droppedNetworks(chute, next)), note, 'remove', await steps.pid());
    if (previous !== undefined) {
      await leaveContainer(networks, chute, steps, note);
      await steps.stopContainer(previous.Id);
      await steps.rename(previous.Id, `previous-${previous.Id.slice(0, 12)}`);
      setAside = true;
    }
    created = await steps.create(next);
    await steps.startContainer(created);
    if (networks) await networks.up(next, note, await steps.pid());
    if (previous !== undefined) await steps.remove(previous.Id);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    await note(`the new configuration failed: ${reason}; restoring the previous one`);
    try {
      await networks?.down(withNetworksOnly(next, droppedNetworks(next, chute)), note, 'remove');
      if (created !== undefined) await steps.remove(created);
      await writer.write(name, 'service', chute.config);
      if (replacesCache) await writer.write(name, 'cache', chute.cache);
      if (replacesRecord) await writer.write(name, 'chute', chute.record);
      await note(replacesRecord ? 'restored the previous record and configuration' : 'restored the previous configuration');
      if (previous !== undefined) {
        if (setAside) await steps.rename(previous.Id, null);
        if (wasRunning) await steps.startContainer(previous.Id);
      } else {
        await steps.startContainer(await steps.create(chute));
      }
      if (networks && (wasRunning || previous === undefined)) await networks.up(chute, note, await steps.pid());
      await writer.discard(name, 'rollback');
    } catch (restoreError) {
      // rollback.json stays: the next start tries again (recoverChutes).
      throw new Error(`${reason}; restoring the previous configuration failed too: ${(restoreError as Error).message}`);
    }
    throw new Error(`${reason}; the previous configuration is restored`);
  }
  // rollback.json goes only once the change's `succeeded` is saved: a crash before that undoes the update (recoverChutes).
  return () => writer.discard(name, 'rollback');
}

/** Takes the chute's own interfaces out of its container when one runs, before it is stopped (`ChuteNetworkHooks.leave`). */
async function leaveContainer(networks: ChuteNetworkHooks | undefined, chute: StoredChute, steps: Pick<Steps, 'pid'>, note: Note): Promise<void> {
  const pid = networks === undefined ? null : await steps.pid();
  if (pid !== null) await networks!.leave(chute, note, pid);
}

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

/** The networks `from` reserves that `to` does not hold the same way (removed, or reserved anew), by name. */
function droppedNetworks(from: StoredChute, to: StoredChute): string[] {
  const kept = mapping(to.cache.networks);
  return Object.entries(mapping(from.cache.networks))
    .filter(([name, reservation]) => JSON.stringify(kept[name]) !== JSON.stringify(reservation))
    .map(([name]) => name);
}

/** The chute with only the named networks in its cache: what `down` is to remove. */
function withNetworksOnly(chute: StoredChute, names: readonly string[]): StoredChute {
  const networks = mapping(chute.cache.networks);
  return { ...chute, cache: { ...chute.cache, networks: Object.fromEntries(names.map((name) => [name, networks[name]])) } };
}

/**
 * `start` and `restart`: starts the chute as it is, or, with an `environment`, as ParaDrop does,
 * replaces the record's environment with it for good: the container is made again with it and, once
 * it runs, the record is stored with it (a later start or restart without one keeps it).
 */
async function startWith(steps: Steps, writer: ChuteWriter, chute: StoredChute, environment: Record<string, string> | undefined, note: Note): Promise<void> {
  if (environment === undefined) return steps.start(chute);
  const updated: StoredChute = { ...chute, record: { ...chute.record, environment } };
  await steps.start(updated, true);
  await writer.write(chute.name, 'chute', updated.record);
  await note(`stored the new environment (${Object.keys(environment).join(', ') || 'none'})`);
}

/**
 * The container of a chute: its image from the record's `image`, its environment from the
 * configuration and the record, its ports and DNS from `host_config`, its CPU weight from the
 * record's `allocation.cpu_shares`.
 *
 * @throws Error when the record names no image.
 */
export function containerSpec(chute: StoredChute, networkMode: string): ChuteContainerSpec {
  const image = chute.record.image;
  if (typeof image !== 'string' || image === '') throw new Error(`the record of chute ${chute.name} names no image (field "image")`);
  const hostConfig = mapping(chute.config.host_config);
  const dns = hostConfig.dns;
  const cpuShares = mapping(chute.record.allocation).cpu_shares;
  return {
    image,
    env: {
      ...environmentStrings(scalars(chute.config.environment)),
      ...environmentStrings(scalars(chute.record.environment)),
    },
    portBindings: mapping(hostConfig.port_bindings) as Record<string, string | number>,
    dns: Array.isArray(dns) ? dns.filter((server): server is string => typeof server === 'string') : undefined,
    networkMode,
    cpuShares: Number.isInteger(cpuShares) && (cpuShares as number) >= 2 ? (cpuShares as number) : undefined,
  };
}

/**
 * Sets the record's `state` to the chute's state as the engine reports it now, given what the change
 * meant it to be: after a stop, a container that exited with 137 or 143 (killed by the stop) is
 * `stopped`; after anything else, an exited container is `failed` unless it exited with 0.
 */
async function recordState(
  engine: ChuteEngine,
  chutes: Pick<Device, 'chute'>,
  writer: ChuteWriter,
  name: string,
  note: Note,
  intended: 'running' | 'stopped',
): Promise<void> {
  try {
    const chute = await chutes.chute(name);
    if (chute === null) return;
    const state = chuteState(await engine.listAll(), name, intended);
    if (chute.record.state !== state) await writer.write(name, 'chute', { ...chute.record, state });
  } catch (error) {
    await note(`could not record the chute's state: ${(error as Error).message}`);
  }
}

/** The scalar entries of a stored environment (what a container can get), as `Environment`. */
function scalars(value: unknown): Environment {
  const out: Environment = {};
  for (const [key, entry] of Object.entries(mapping(value))) {
    if (entry === null || ['string', 'number', 'boolean'].includes(typeof entry)) out[key] = entry as Environment[string];
  }
  return out;
}
