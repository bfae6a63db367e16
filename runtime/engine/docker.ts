import Docker from 'dockerode';
import { isUnixSocket } from './socket.ts';
import { noEngineAt } from './unreachable.ts';
import { CHUTE_LABEL, chuteContainerName, CONTAINER_REF, MAIN_SERVICE_LABEL, SERVICE_LABEL } from '../../functions/core/device/index.ts';
import { companionContainerName } from '../../functions/chutes/services.ts';

/** How long the engine may take to list containers before it counts as absent. */
const LIST_DEADLINE_MS = 2000;
/** A one-shot stats call samples the container twice, about a second apart. */
const STATS_DEADLINE_MS = 5000;

/** How long one lifecycle call (create, start, stop, remove, rename, inspect) may take. */
const LIFECYCLE_DEADLINE_MS = 60_000;
/** Seconds a chute container gets to stop before the engine kills it. */
const STOP_GRACE_SECONDS = 10;
/**
 * What the engine keeps of a chute container's output: json-file (what `docker logs` and the chute log
 * routes read) in at most two files of 1 MiB, the older dropped, so a chatty chute cannot fill a
 * router's flash (the engine's default json-file grows without bound).
 */
const CHUTE_LOG_CONFIG = { Type: 'json-file', Config: { 'max-size': '1m', 'max-file': '2' } };

/*
 * The engine calls of the host Device, on the Docker Engine behind a UNIX socket: the two reads of the
 * endpoints and the chute lifecycle (`chuteEngine`, driven by `chuteLifecycle`). Part of the engine
 * bundle, `dist/chute-lifecycle.mjs` (its entry: runtime/chutes/chute-lifecycle.entry.ts), loaded on first use, so the runtime stays small.
 */

/**
 * `GET /containers/json?all=1` filtered to the containers labelled `io.chutebox.chute` (running or
 * not), as the engine lists them.
 *
 * Answers null when the socket does not exist or the engine does not answer within ~2 s.
 *
 * @example
 * await listChuteContainers('/var/run/docker.sock') // [{ Id, Names, State, Labels, … }]
 */
export async function listChuteContainers(socketPath: string): Promise<Record<string, unknown>[] | null> {
  if (!(await isUnixSocket(socketPath))) return null;
  try {
    const containers = await new Docker({ socketPath }).listContainers({
      all: true,
      filters: { label: [CHUTE_LABEL] },
      abortSignal: AbortSignal.timeout(LIST_DEADLINE_MS),
    });
    return containers as unknown as Record<string, unknown>[];
  } catch {
    return null;
  }
}

/**
 * The raw body of `GET /containers/<id>/stats?stream=false`. `id` must be a container id or name
 * (`CONTAINER_REF`), so that it cannot reach another engine path.
 *
 * Answers null for any other `id`, when the socket does not exist, when the engine answers with an
 * error (e.g. no such container) and when it does not answer within ~5 s.
 *
 * @example
 * await containerStats('/var/run/docker.sock', '5f1c…ff') // { read, cpu_stats, memory_stats, … }
 */
export async function containerStats(socketPath: string, id: string): Promise<Record<string, unknown> | null> {
  if (!CONTAINER_REF.test(id) || !(await isUnixSocket(socketPath))) return null;
  try {
    // dockerode passes abortSignal through to the request; its typings only lack the field.
    const options = { stream: false as const, abortSignal: AbortSignal.timeout(STATS_DEADLINE_MS) };
    const stats = await new Docker({ socketPath }).getContainer(id).stats(options);
    return stats as unknown as Record<string, unknown>;
  } catch {
    return null;
  }
}

/** How long the engine may take to build a chute's image. */
const BUILD_DEADLINE_MS = 30 * 60_000;

/**
 * One line of the engine's build answer (JSON): its `stream` text, line by line, to `output`.
 *
 * @throws EngineError with the engine's message for an `error` line.
 */
async function buildEvent(line: string, output: (line: string) => Promise<void>): Promise<void> {
  if (line.trim() === '') return;
  const event = JSON.parse(line) as { stream?: string; status?: string; error?: string; errorDetail?: { message?: string } };
  const error = event.errorDetail?.message ?? event.error;
  if (error !== undefined) throw new EngineError(error.trim());
  for (const text of (event.stream ?? event.status ?? '').split('\n')) if (text.trim() !== '') await output(text.trimEnd());
}

/** How long the engine may take to load an image archive. */
const LOAD_DEADLINE_MS = 10 * 60_000;

/**
 * `POST /images/load` of an image archive (`docker save`); answers the repo tags of what the engine
 * loaded, as its `Loaded image: <tag>` lines say (none for an untagged image).
 *
 * @throws EngineError with the engine's message: `statusCode` 400 when it refused the archive (its
 *   answer streams an error), the engine's status when the call failed, none when there is no socket.
 * @example
 * await loadImage('/var/run/docker.sock', archive) // ['busybox:latest']
 */
export async function loadImage(socketPath: string, archive: Uint8Array): Promise<string[]> {
  if (!(await isUnixSocket(socketPath))) throw new EngineError(noEngineAt(socketPath));
  const docker = new Docker({ socketPath });
  // docker-modem sends a Buffer body as it is (with its Content-Length); the typings only know streams.
  const body = Buffer.from(archive.buffer, archive.byteOffset, archive.byteLength) as unknown as NodeJS.ReadableStream;
  const stream = await engineCall(() => docker.loadImage(body, { abortSignal: AbortSignal.timeout(LOAD_DEADLINE_MS) }));
  const chunks: Buffer[] = [];
  for await (const chunk of stream as AsyncIterable<Buffer>) chunks.push(chunk);
  const tags: string[] = [];
  for (const line of Buffer.concat(chunks).toString('utf8').split('\n')) {
    if (line.trim() === '') continue;
    const event = JSON.parse(line) as { stream?: string; error?: string; errorDetail?: { message?: string } };
    const error = event.errorDetail?.message ?? event.error;
    if (error !== undefined) throw Object.assign(new EngineError(error), { statusCode: 400 });
    const loaded = /^Loaded image: (.+)$/m.exec(event.stream ?? '');
    if (loaded !== null) tags.push(loaded[1]!.trim());
  }
  return tags;
}

/** What a chute container is made from; `chuteEngine().create` adds its name and label. */
export interface ChuteContainerSpec {
  image: string;
  /** Variables, later sources already merged over earlier ones. */
  env: Record<string, string>;
  /** Container port (`80`, `80/tcp`, `53/udp`) → host port, as `host_config.port_bindings` holds them. */
  portBindings: Record<string, string | number>;
  /** DNS servers (`host_config.dns`); undefined: the engine's default. */
  dns: string[] | undefined;
  /** `HostConfig.NetworkMode`: `bridge`, `none`, `host` or a network name. */
  networkMode: string;
  /** `HostConfig.CpuShares`, the relative CPU weight (`allocation.cpu_shares`); undefined: the engine's default (1024). */
  cpuShares: number | undefined;
  /** What the container runs instead of its image's command: a string through `/bin/sh -c`, a list as it is. */
  command?: string | readonly string[];
  /** The name of the chute's main service, on the chute's own container of a chute installed with services (`io.chutebox.main-service`). */
  mainService?: string;
  /** The service of the chute this container runs, when it is not the main one (`chute-<chute>-<service>`, labelled `io.chutebox.service`). */
  service?: string;
}

/** A chute's container as the lifecycle needs it. */
export interface ChuteContainer {
  Id: string;
  /** The engine's state: `created`, `running`, `exited`, … */
  State: string;
}

/** The container of a chute's service other than its main one. */
export interface CompanionContainer extends ChuteContainer {
  service: string;
}

/**
 * The chute lifecycle on one engine. Every call touches only containers labelled
 * `io.chutebox.chute=<chute>`: one that takes an id inspects the container first and refuses (throws)
 * when it is not that chute's. Engine failures are thrown as `EngineError`, with the engine's message.
 */
export interface ChuteEngine {
  /** The chute's containers (labelled with its name, not with a service), running or not, the most recently created first. */
  containers(chute: string): Promise<ChuteContainer[]>;
  /** The containers of the chute's services other than its main one (labelled `io.chutebox.service`). */
  companions(chute: string): Promise<CompanionContainer[]>;
  /** Every chute container of the engine, as `listChuteContainers` answers them. */
  listAll(): Promise<Record<string, unknown>[]>;
  /** Creates (does not start) container `chute-<chute>` (`chute-<chute>-<service>` for `spec.service`) labelled with the chute; answers its id. */
  create(chute: string, spec: ChuteContainerSpec): Promise<string>;
  /** Starts the container; already running is fine. */
  start(chute: string, id: string): Promise<void>;
  /** Stops the container (SIGTERM, SIGKILL after 10 s); already stopped is fine. */
  stop(chute: string, id: string): Promise<void>;
  /** Removes the container (force: a running one is killed first); already gone is fine. */
  remove(chute: string, id: string): Promise<void>;
  /**
   * Renames the container `chute-<chute>-<suffix>` (to set it aside while a successor is tried), or
   * back to `chute-<chute>` when `suffix` is null.
   */
  rename(chute: string, id: string, suffix: string | null): Promise<void>;
  /** The raw body of `GET /containers/<id>/json`. */
  inspect(chute: string, id: string): Promise<Record<string, unknown>>;
  /**
   * Builds an image from a build context (a tar with its Dockerfile at its root) and tags it `tag`
   * (`POST /build`, intermediate containers removed even on failure), its RUN steps on network
   * `networkMode`. `output` gets each line of the engine's output as it comes.
   *
   * @throws EngineError with the engine's message when the build fails (nothing is tagged then).
   */
  build(context: Uint8Array, tag: string, networkMode: string, output: (line: string) => Promise<void>): Promise<void>;
  /** Removes the image tag (and the image when nothing else uses it); already gone is fine. */
  removeImage(tag: string): Promise<void>;
}

/** The engine refused or failed a call; `message` is the engine's own (e.g. `No such image: x:1`). */
export class EngineError extends Error {
  override name = 'EngineError';
}

/**
 * The chute lifecycle on the engine at `socketPath`, or null when there is no socket there.
 *
 * @example
 * const engine = await chuteEngine('/var/run/docker.sock');
 * const id = await engine!.create('hello', { image: 'hello:1', env: { PORT: '80' }, portBindings: { 80: 8080 }, dns: undefined, networkMode: 'bridge', cpuShares: undefined });
 * await engine!.start('hello', id);
 */
export async function chuteEngine(socketPath: string): Promise<ChuteEngine | null> {
  if (!(await isUnixSocket(socketPath))) return null;
  const docker = new Docker({ socketPath });
  const signal = () => ({ abortSignal: AbortSignal.timeout(LIFECYCLE_DEADLINE_MS) });

  /** The container `id` after checking that it carries the chute's label. */
  async function own(chute: string, id: string): Promise<Docker.Container> {
    if (!CONTAINER_REF.test(id)) throw new EngineError(`${JSON.stringify(id)} is not a container id`);
    const container = docker.getContainer(id);
    const info = await engineCall(() => container.inspect(signal()));
    if (info.Config?.Labels?.[CHUTE_LABEL] !== chute) throw new EngineError(`container ${id} is not the container of chute ${chute}`);
    return container;
  }

  /** Every container labelled with the chute, the most recently created first. */
  async function labelled(chute: string): Promise<Docker.ContainerInfo[]> {
    const list = await engineCall(() => docker.listContainers({ all: true, filters: { label: [`${CHUTE_LABEL}=${chute}`] }, ...signal() }));
    return list.filter((c) => c.Labels?.[CHUTE_LABEL] === chute).sort((a, b) => b.Created - a.Created);
  }

  return {
    async containers(chute) {
      return (await labelled(chute)).filter((c) => c.Labels?.[SERVICE_LABEL] === undefined).map((c) => ({ Id: c.Id, State: c.State }));
    },
    async companions(chute) {
      const list = await labelled(chute);
      return list.flatMap((c) => {
        const service = c.Labels?.[SERVICE_LABEL];
        return service === undefined ? [] : [{ Id: c.Id, State: c.State, service }];
      });
    },
    async listAll() {
      const list = await engineCall(() => docker.listContainers({ all: true, filters: { label: [CHUTE_LABEL] }, ...signal() }));
      return list as unknown as Record<string, unknown>[];
    },
    async create(chute, spec) {
      const ports = Object.entries(spec.portBindings).map(([port, host]) => [port.includes('/') ? port : `${port}/tcp`, String(host)] as const);
      const container = await engineCall(() =>
        docker.createContainer({
          name: spec.service === undefined ? chuteContainerName(chute) : companionContainerName(chute, spec.service),
          Image: spec.image,
          Env: Object.entries(spec.env).map(([name, value]) => `${name}=${value}`),
          Labels: {
            [CHUTE_LABEL]: chute,
            ...(spec.service === undefined ? {} : { [SERVICE_LABEL]: spec.service }),
            ...(spec.mainService === undefined ? {} : { [MAIN_SERVICE_LABEL]: spec.mainService }),
          },
          ...(spec.command === undefined ? {} : { Cmd: typeof spec.command === 'string' ? ['/bin/sh', '-c', spec.command] : [...spec.command] }),
          ExposedPorts: Object.fromEntries(ports.map(([port]) => [port, {}])),
          HostConfig: {
            NetworkMode: spec.networkMode,
            PortBindings: Object.fromEntries(ports.map(([port, host]) => [port, [{ HostPort: host }]])),
            ...(spec.dns === undefined ? {} : { Dns: spec.dns }),
            ...(spec.cpuShares === undefined ? {} : { CpuShares: spec.cpuShares }),
            LogConfig: CHUTE_LOG_CONFIG,
          },
          ...signal(),
        }),
      );
      return container.id;
    },
    async start(chute, id) {
      const container = await own(chute, id);
      await engineCall(() => container.start(signal()), 304);
    },
    async stop(chute, id) {
      const container = await own(chute, id);
      await engineCall(() => container.stop({ t: STOP_GRACE_SECONDS, ...signal() }), 304);
    },
    async remove(chute, id) {
      const container = await own(chute, id).catch((error: unknown) => {
        if ((error as { statusCode?: number }).statusCode === 404) return null;
        throw error;
      });
      if (container !== null) await engineCall(() => container.remove({ force: true, ...signal() }), 404);
    },
    async rename(chute, id, suffix) {
      const container = await own(chute, id);
      const name = suffix === null ? chuteContainerName(chute) : `${chuteContainerName(chute)}-${suffix}`;
      await engineCall(() => container.rename({ name, ...signal() }));
    },
    async inspect(chute, id) {
      const container = await own(chute, id);
      return (await engineCall(() => container.inspect(signal()))) as unknown as Record<string, unknown>;
    },
    async build(context, tag, networkMode, output) {
      // docker-modem sends a Buffer body as it is (with its Content-Length); the typings only know streams.
      const body = Buffer.from(context.buffer, context.byteOffset, context.byteLength) as unknown as NodeJS.ReadableStream;
      const options = { t: tag, rm: true, forcerm: true, networkmode: networkMode, abortSignal: AbortSignal.timeout(BUILD_DEADLINE_MS) };
      const stream = await engineCall(() => docker.buildImage(body, options));
      let pending = '';
      for await (const chunk of stream as AsyncIterable<Buffer>) {
        pending += chunk.toString('utf8');
        const lines = pending.split('\n');
        pending = lines.pop()!;
        for (const line of lines) await buildEvent(line, output);
      }
      await buildEvent(pending, output);
    },
    async removeImage(tag) {
      await engineCall(() => docker.getImage(tag).remove(signal()), 404);
    },
  };
}

/**
 * `chuteEngine(socketPath)` when the engine there answers a container list within ~2 s, else null: a
 * check that an engine that hangs cannot hold up the runtime's start.
 */
export async function reachableChuteEngine(socketPath: string): Promise<ChuteEngine | null> {
  return (await listChuteContainers(socketPath)) === null ? null : chuteEngine(socketPath);
}

/**
 * Runs one engine call; an answer with an `ignored` status (304 not modified, 404 gone) counts as done.
 * Any other failure becomes an EngineError with the engine's message and its `statusCode`.
 */
export async function engineCall<T>(call: () => Promise<T>, ignored?: number): Promise<T> {
  try {
    return await call();
  } catch (error) {
    const failure = error as { statusCode?: number; json?: { message?: unknown }; message?: string };
    if (ignored !== undefined && failure.statusCode === ignored) return undefined as T;
    const message = typeof failure.json?.message === 'string' ? failure.json.message : (failure.message ?? String(error));
    throw Object.assign(new EngineError(message), { statusCode: failure.statusCode });
  }
}
