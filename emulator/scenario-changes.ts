import { deepFreeze } from '../functions/core/deep-freeze.ts';
import { randomBytes } from 'node:crypto';
import { resetGuard, type ResetGuard } from '../runtime/changes/reset-guard.ts';
import { chuteImageTag } from '../functions/chutes/image-tag.ts';
import { resolvePlaceholders } from '../functions/chutes/redact.ts';
import { uploadedImageTags } from '../functions/parsers/image-archive.ts';
import { CHUTE_LABEL, changeQueue, changeSubject, chuteContainerName, type ChangeRecord, type ChangeRequest, type ChangeState, type ChuteInstall, type Device, type DevicePowerAction, type StoredChute } from '../functions/core/device.ts';

/** How long each step of an emulated change takes by default: queued → running → finished. */
export const DEFAULT_CHANGE_DELAY_MS = 200;


/** How emulated changes run. */
export interface EmulatedChangeOptions {
  /** How long each step takes, in milliseconds. */
  delayMs: number;
  /**
   * Stores and applies a host configuration (`update-hostconfig`, its `[redacted]` placeholders still
   * in it: `HostConfigService.perform` resolves them), answering what it did; throws to fail.
   */
  applyHostConfig(config: Record<string, unknown>): Promise<string[]>;
  /** What a factory reset does besides removing the chutes and the changes: host configuration, provisioning. */
  resetDevice(): Promise<void>;
  /** The device's guard of factory resets, when other parts of it refuse work during one too; default one of its own. */
  resetGuard?: ResetGuard;
}

/** The Device methods that changes add. */
type ChangeMethods = 'submitChange' | 'change' | 'changes' | 'loadImage' | 'factoryReset';

/** What a change does to the emulator's state: its messages, in order. */
type Effect = (chute: StoredChute) => string[];

/**
 * The emulator's change log and runner over a scenario's Device: changes go through the states a
 * device's do (queued → running → succeeded or failed), each step after `delayMs`, with timestamped
 * messages; changes to one chute run one after another, changes to different chutes at the same
 * time. What they do lasts until the emulator stops, in memory (the scenario's files are never
 * written):
 * - `start`: the chute's container runs (`State` `running`, `Status` `Up …`); a chute without a
 *   container in the recordings gets one, labelled as a chute, named `chute-<name>`. An `environment`
 *   replaces the chute's environment for good (GET /api/v1/chutes/<chute> shows it), as on a device;
 * - `stop`: its container exits with code 0 (the chute reads `stopped`);
 * - `restart`: stop, then start;
 * - `delete`: its containers and the chute are gone (the chute reads 404);
 * - `update-config`: the configuration is replaced and the container runs again, as recreated; its
 *   `[redacted]` placeholders keep the secrets of the configuration in effect when it runs (it fails,
 *   changing nothing, when one has no secret behind it any more: `resolvePlaceholders`);
 * - `install`: the chute is there from the moment the change is queued, `installing` (no container)
 *   until it has run; then its container, labelled as the chute and named `chute-<name>`, runs the
 *   image. An install of a name that is taken when it is queued fails.
 * - `reboot`, `shutdown`: nothing happens; a message says that the emulated device does not really
 *   reboot or shut down (its uptime goes on);
 * - `install` or `update` from a chute's source: the image is not built; it is named as a device tags
 *   it (`chuteImageTag`) and remembered as an image of the engine; an update then replaces the
 *   record's image, version and environment and the configuration, and the container runs again.
 * `loadImage` reads the archive's `manifest.json` (as `docker load` does) and remembers its tags as
 * images of the engine; an install names its image as loaded when it is one of them.
 * Each also sets the chute record's `state` (the last known state, what a scenario without an engine
 * answers). A change to a chute deleted meanwhile fails. A stopped container has no stats.
 *
 * @param base the scenario's Device, without change methods.
 * @example
 * const device = emulatedChanges(scenarioDevice, { delayMs: 0 });
 * const { id } = await device.submitChange({ action: 'stop', chute: 'hotspot' });
 * (await device.change(id))?.state // 'queued', then 'running', then 'succeeded'
 */
export function emulatedChanges(base: Omit<Device, ChangeMethods>, options: EmulatedChangeOptions): Device {
  const log: ChangeRecord[] = [];
  /** The last id given; a factory reset keeps it, so no id is given twice. */
  let lastId = 0;
  /** Changes are refused while a factory reset waits or runs. */
  const guard = options.resetGuard ?? resetGuard();
  /** Chutes a change has touched: their current documents, or null once deleted. */
  const touched = new Map<string, StoredChute | null>();
  /** The last change of each chute, which the next one waits for. */
  const queues = new Map<string, Promise<void>>();
  let engine: Promise<Record<string, unknown>[] | null> | undefined;
  /** The emulator's own copy of the engine's containers, which changes edit. */
  const containers = () => (engine ??= base.containers().then((list) => (list === null ? null : structuredClone(list))));
  /** What `containers()` answers: a frozen copy of the edited list, made again after a change edits it. */
  let answer: Promise<Record<string, unknown>[] | null> | undefined;
  const time = () => new Date(base.now()).toISOString();
  /** The tags of the images loaded (`loadImage`) since the emulator started. */
  const loaded = new Set<string>();

  /** A chute as it is now: read-only, the same frozen object to every caller until a change replaces it. */
  async function current(name: string): Promise<StoredChute | null> {
    return touched.has(name) ? touched.get(name)! : base.chute(name);
  }

  function say(record: ChangeRecord, text: string, state?: ChangeState): void {
    const now = time();
    record.messages.push({ time: now, text });
    record.updated = now;
    if (state !== undefined) record.state = state;
  }

  async function run(record: ChangeRecord, request: ChangeRequest, conflict: boolean): Promise<void> {
    await sleep(options.delayMs);
    say(record, `running: ${describe(request)}`, 'running');
    await sleep(options.delayMs);
    try {
      if (request.action === 'update-hostconfig') {
        for (const text of await options.applyHostConfig(request.config)) say(record, text);
        return say(record, `succeeded: ${describe(request)}`, 'succeeded');
      }
      if (request.action === 'reboot' || request.action === 'shutdown') {
        say(record, EMULATED_POWER[request.action]);
        return say(record, `succeeded: ${describe(request)}`, 'succeeded');
      }
      if (conflict) throw new Error(`a chute named ${request.chute} is already installed`);
      const found = await current(request.chute);
      if (found === null) throw new Error(`there is no chute named ${request.chute} (any more)`);
      const chute = structuredClone(found);
      const list = await containers();
      if (request.action === 'install' && request.image !== null && loaded.has(request.image)) say(record, `image ${request.image} was loaded from an uploaded archive`);
      if ((request.action === 'install' && request.image === null) || request.action === 'update') {
        // The emulator builds nothing: it names the image as a device would tag it, and remembers it.
        const current = typeof chute.record.image === 'string' ? chute.record.image : undefined;
        const image = chuteImageTag(request.chute, request.version, record.id, request.action === 'update' ? current : undefined);
        loaded.add(image);
        chute.record.image = image;
        say(record, `built image ${image} from the uploaded source (emulated: paradrop.yaml was read, no Dockerfile was run)`);
      }
      for (const text of effect(request, list, base.now())(chute)) say(record, text);
      answer = undefined;
      touched.set(request.chute, request.action === 'delete' ? null : deepFreeze(chute));
      say(record, `succeeded: ${describe(request)}`, 'succeeded');
    } catch (error) {
      say(record, `failed: ${(error as Error).message}`, 'failed');
    }
  }

  return {
    ...base,
    containers: () => (answer ??= containers().then((list) => (list === null ? null : deepFreeze(structuredClone(list))))),
    async containerStats(id) {
      const container = (await containers())?.find((entry) => entry.Id === id || (entry.Names as unknown[] | undefined)?.includes(`/${id}`));
      return container?.State === 'running' ? base.containerStats(id) : null;
    },
    async chuteNames() {
      const names = new Set((await base.chuteNames()).filter((name) => touched.get(name) !== null));
      for (const [name, chute] of touched) if (chute !== null) names.add(name);
      return [...names].sort();
    },
    chute: current,
    async submitChange(request) {
      guard.refuse();
      const created = time();
      const record: ChangeRecord = {
        id: ++lastId,
        action: request.action,
        chute: changeSubject(request),
        state: 'queued',
        created,
        updated: created,
        messages: [{ time: created, text: `queued: ${describe(request)}` }],
      };
      log.push(record);
      const conflict = request.action === 'install' && (await current(request.chute)) !== null;
      if (request.action === 'install' && !conflict) touched.set(request.chute, deepFreeze(installing(request)));
      const queue = changeQueue(request);
      const previous = queues.get(queue) ?? Promise.resolve();
      queues.set(queue, previous.then(() => run(record, structuredClone(request), conflict)));
      return structuredClone(record);
    },
    async change(id) {
      const record = log.find((entry) => entry.id === id);
      return record === undefined ? null : structuredClone(record);
    },
    async changes() {
      return structuredClone(log);
    },
    async loadImage(archive) {
      const tags = await uploadedImageTags(archive);
      for (const tag of tags) loaded.add(tag);
      return tags;
    },
    factoryReset: () =>
      guard.run(async () => {
        await Promise.all(queues.values());
        const names = new Set([...(await base.chuteNames()), ...touched.keys()]);
        const list = await containers();
        if (list !== null) list.splice(0, list.length, ...list.filter((entry) => !names.has(String((entry.Labels as Record<string, unknown>)[CHUTE_LABEL]))));
        answer = undefined;
        for (const name of names) touched.set(name, null);
        log.splice(0, log.length);
        loaded.clear();
        await options.resetDevice();
        return { success: true, message: 'factory reset: the default host configuration is back, every chute is removed, provisioning is cleared' };
      }),
  };
}

/** A chute whose install is queued or running: stored, without a container yet. */
function installing(request: ChuteInstall): StoredChute {
  const { chute: name, image, version, environment, allocation, config } = request;
  return {
    name,
    record: { name, version, state: 'installing', image, environment, allocation, resources: null },
    config: structuredClone(config),
    cache: {},
  };
}

/**
 * What a reboot or shutdown of the emulated device does: nothing but say so. Its uptime goes on (the
 * scenario's clock counts from the emulator's start) and it answers as before.
 */
const EMULATED_POWER: Record<DevicePowerAction, string> = {
  reboot: 'the emulated device does not really reboot: nothing is restarted, its uptime goes on, and what changed since the emulator started stays',
  shutdown: 'the emulated device does not really shut down: it goes on answering as before',
};

/** `start chute hello-world`, `update the configuration of chute hotspot`, `install chute hello from image hello-world:1`, `reboot the device`. */
function describe(request: ChangeRequest): string {
  if (request.action === 'update-hostconfig') return 'apply a new host configuration';
  if (request.action === 'reboot') return 'reboot the device';
  if (request.action === 'shutdown') return 'shut down the device';
  if (request.action === 'install') return `install chute ${request.chute} ${request.image === null ? 'from its source' : `from image ${request.image}`}`;
  if (request.action === 'update') return `update chute ${request.chute} from its source`;
  if (request.action === 'update-config') return `update the configuration of chute ${request.chute}`;
  return `${request.action} chute ${request.chute}`;
}

/**
 * What a change does to the engine view (`containers`, changed in place; null: the scenario has no
 * engine) and to the chute's documents (changed in place), as messages.
 */
function effect(request: Extract<ChangeRequest, { chute: string }>, containers: Record<string, unknown>[] | null, now: number): Effect {
  const owned = (chute: StoredChute) => (containers ?? []).filter((entry) => (entry.Labels as Record<string, unknown> | undefined)?.[CHUTE_LABEL] === chute.name);

  const start = (chute: StoredChute, environment?: Record<string, string>): string[] => {
    chute.record.state = 'running';
    if (environment !== undefined) chute.record.environment = { ...environment };
    const extra = environment === undefined ? '' : ` with the new environment (${Object.keys(environment).join(', ') || 'none'})`;
    if (containers === null) return [`the scenario has no container engine: chute ${chute.name} is recorded as running${extra}`];
    const container = owned(chute).at(-1);
    if (container === undefined) {
      const created = newContainer(chute, now);
      containers.push(created);
      return [`created container ${String((created.Names as string[])[0]).slice(1)}`, `started it${extra}`];
    }
    if (container.State === 'running') return [`its container is already running`];
    Object.assign(container, { State: 'running', Status: 'Up Less than a second' });
    return [`started its container${extra}`];
  };

  const stop = (chute: StoredChute): string[] => {
    chute.record.state = 'stopped';
    if (containers === null) return [`the scenario has no container engine: chute ${chute.name} is recorded as stopped`];
    const running = owned(chute).filter((entry) => entry.State === 'running' || entry.State === 'restarting' || entry.State === 'paused');
    if (owned(chute).length === 0) return ['it has no container: nothing to stop'];
    if (running.length === 0) return ['its container is already stopped'];
    for (const container of running) Object.assign(container, { State: 'exited', Status: 'Exited (0) Less than a second ago' });
    return ['stopped its container'];
  };

  switch (request.action) {
    case 'start':
      return (chute) => start(chute, request.environment);
    case 'stop':
      return stop;
    case 'restart':
      return (chute) => [...stop(chute), ...start(chute, request.environment)];
    case 'delete':
      return (chute) => {
        const messages = stop(chute);
        const gone = new Set(owned(chute));
        if (containers !== null && gone.size > 0) {
          containers.splice(0, containers.length, ...containers.filter((entry) => !gone.has(entry)));
          messages.push('removed its container');
        }
        return [...messages, 'removed its stored documents'];
      };
    case 'update-config':
      return (chute) => {
        // Placeholders keep the secrets in effect now, which a change queued before this one may have set.
        chute.config = resolvePlaceholders(structuredClone(request.config), chute.config, `the configuration of chute ${chute.name}`);
        return ['stored the new configuration', ...stop(chute), ...start(chute)];
      };
    case 'install':
      return (chute) => ['stored the chute', ...start(chute)];
    case 'update':
      return (chute) => {
        Object.assign(chute.record, { version: request.version, environment: { ...request.environment } });
        chute.config = structuredClone(request.config);
        return [`stored the new record (image ${String(chute.record.image)}, version ${String(request.version)}) and configuration`, ...stop(chute), ...start(chute)];
      };
  }
}

/** A container for a chute that has none in the recordings, as a device would create it. */
function newContainer(chute: StoredChute, now: number): Record<string, unknown> {
  const { image, version } = chute.record;
  return {
    Id: randomBytes(32).toString('hex'),
    Names: [`/${chuteContainerName(chute.name)}`],
    Image: typeof image === 'string' ? image : `chutebox/${chute.name}:${typeof version === 'string' || typeof version === 'number' ? version : 'latest'}`,
    Created: Math.floor(now / 1000),
    Labels: { [CHUTE_LABEL]: chute.name },
    State: 'running',
    Status: 'Up Less than a second',
  };
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
