import { deepFreeze } from '../../functions/core/deep-freeze.ts';
import * as z from 'zod/mini';
import { ChangeRecordSchema } from '../../functions/changes/schemas.ts';
import { resetGuard, type ResetGuard } from '../../runtime/changes/reset-guard.ts';
import { chuteImageTag } from '../../functions/chutes/image-tag.ts';
import { servicesOrRoot, taggedServices } from '../../functions/chutes/services.ts';
import { ChuteConfigSchema } from '../../functions/chutes/chute-config.ts';
import { cacheWithNetworks, networkChange, networkLedger, reservationNotes } from '../../functions/chutes/network-reservations.ts';
import { uploadedImageTags } from '../../functions/parsers/image-archive.ts';
import {
  CHUTE_LABEL,
  CHUTE_NAME,
  type ChangeRecord,
  type ChangeRequest,
  type ChuteAction,
  type ChuteInstall,
  type Device,
  type DevicePowerAction,
  type StoredChute,
} from '../../functions/core/device/index.ts';
import type { ChangeLogBound } from '../../runtime/changes/bound.ts';
import { memoryChangeLog, type MemoryChangeLog } from '../../runtime/changes/memory-log.ts';
import { changeRunner, chuteEffectsBy, type ChangeEffect, type ChangeEffects, type ChangeRequestOf, type Note } from '../../runtime/changes/runner.ts';
import type { PublishEvent } from '../../runtime/events/buffer.ts';
import type { ProvisioningService } from '../../runtime/device-config/provisioning.ts';
import { takeRelease } from '../../runtime/device-config/take-release.ts';
import { ContainerSchema } from '../../runtime/scenario/format.ts';
import { jsonCopy } from './json-copy.ts';
import { CHUTE_EDITS, type ChuteEdit } from './chute-edits.ts';
import { ChuteCache, storedChutes, type ChuteDocuments } from './chutes.ts';
import { atMost, shallow, STATE_LIMITS } from '../state-limits.ts';
import { DEFAULT_SEED } from '../seeded.ts';

/** How long each step of an emulated change takes by default: queued → running → finished. */
export const DEFAULT_CHANGE_DELAY_MS = 200;

/** How emulated changes run. */
export interface EmulatedChangeOptions {
  /** How long each step takes, in milliseconds of the device's time. */
  delayMs: number;
  /** How a step waits: the emulated clock's `sleep` (emulator/emulated-clock.ts), so that steps follow its speed and advances. */
  sleep: (ms: number) => Promise<void>;
  /** The seed the ids of new containers are drawn from (default `DEFAULT_SEED`). */
  seed?: number;
  /**
   * What an `update-hostconfig` change does: the host configuration service's `perform` (the runtime's
   * code, over the emulator's memory), which resolves the `[redacted]` placeholders, notes each step and
   * throws to fail; what it answers runs once the change's `succeeded` is saved.
   */
  applyHostConfig: ChangeEffect<'update-hostconfig'>;
  /** What a factory reset does besides removing the chutes and the changes: host configuration, provisioning. */
  resetDevice(): Promise<void>;
  /** Where an `update-runtime` change takes a release from: the emulated provisioning, with its controller. */
  releases: Pick<ProvisioningService, 'release'>;
  /** The device's guard of factory resets, when other parts of it refuse work during one too; default one of its own. */
  resetGuard?: ResetGuard;
  /** How many change records it keeps, and for how long, as a device does; default `DEFAULT_CHANGE_LOG_BOUND`. */
  bound?: ChangeLogBound;
  /** Where the changes' steps and the chutes' new states go as events (`change.*`, `chute.state`). */
  publish?: PublishEvent;
  /**
   * Why a change to a chute fails now, before it does anything (a device fault: `ENGINE_UNREACHABLE`
   * while the engine cannot be reached), or null when it goes on; asked once the change runs.
   */
  failing?: (request: ChangeRequestOf<ChuteAction>) => string | null;
  /**
   * Told of each chute whose documents a change replaced (an install, an update, a configuration
   * update, a delete; a factory reset deletes every chute): what it was, and what it is now (null:
   * deleted). The networks it rebuilt start afresh (`rebuiltNetworks`).
   */
  replaced?: (before: StoredChute, after: StoredChute | null) => void;
  /**
   * Starts from a snapshot's chutes, containers, images and change log instead of the base's: a
   * change it has `queued` or `running` is marked failed, as the device marks the changes a restart
   * cut short (what such a change did so far stays), unless `resume` carries it on.
   */
  state?: ChangesState;
  /**
   * The changes of `state` to carry on rather than mark failed (`EmulatedDevice.underWay()` of the
   * device the state was taken of): each goes on from the step its record is at, at the time its
   * record and its `turnAt` say, so that it ends at the time it would have ended on that device.
   */
  resume?: readonly ChangeUnderWay[];
}

/** A change queued or running, as a device that carries it on needs it (a fleet's device on Lambda). */
export interface ChangeUnderWay {
  id: number;
  /** What was submitted. */
  request: ChangeRequest;
  /** When its turn came (its wait of `delayMs` before it runs began), in ms since the epoch; null while it waits behind another change or runs. */
  turnAt: number | null;
  /** An install of a name that was taken when it was queued: it fails when it runs. */
  conflicting?: true;
}

/** The Device methods that changes add. */
type ChangeMethods = 'submitChange' | 'change' | 'changes' | 'loadImage' | 'factoryReset';

/**
 * What changes have made of the emulated device, its part of an emulator state
 * (emulator/emulator-state.ts): `chutes`, the chutes installed now with their documents (a chute of
 * the scenario that is missing was deleted); `engine`, the engine's containers now (null: the scenario
 * has no engine) and the images loaded or built since the start; `changes`, the change log (its
 * records, oldest first, and the id the next change gets).
 */
export interface ChangesState {
  chutes: Record<string, ChuteDocuments>;
  engine: { containers: Record<string, unknown>[] | null; images: string[] };
  changes: { nextId: number; records: ChangeRecord[] };
}

const chuteName = z.string().check(z.regex(CHUTE_NAME, { error: 'must be a chute name' }));

/**
 * `ChangesState.chutes`: each chute's documents, checked as a scenario's `chutes/<chute>/` are (the
 * configuration as the API takes one), none nested deeper than a request body may be.
 */
export const ChutesStateSchema = z
  .record(chuteName, z.strictObject({ record: shallow(z.record(z.string(), z.unknown())), config: shallow(ChuteConfigSchema), cache: shallow(ChuteCache) }))
  .check(z.refine((chutes) => Object.keys(chutes).length <= STATE_LIMITS.chutes, `must hold at most ${STATE_LIMITS.chutes} chutes`));

/** `ChangesState.engine`: each container as the engine lists one (`ContainerSchema`). */
export const EngineStateSchema = z.strictObject({
  containers: z.nullable(z.array(shallow(ContainerSchema)).check(atMost(STATE_LIMITS.containers, 'containers'))),
  images: z.array(z.string()).check(atMost(STATE_LIMITS.images, 'images')),
});

/** `ChangesState.changes`: every record as `GET /api/v1/changes` answers it. */
export const ChangeLogStateSchema = z.strictObject({
  nextId: z.int().check(z.positive()),
  records: z.array(ChangeRecordSchema).check(atMost(STATE_LIMITS.changeRecords, 'change records')),
});

/** The Device of `emulatedChanges`, and its state. */
export type EmulatedDevice = Device & {
  /**
   * What changes have made of the device, now: taken at once, a change under way included as it is
   * (`queued` or `running`, what it did so far done).
   */
  snapshot(): Promise<ChangesState>;
  /** The changes queued or running now, oldest first: what `resume` carries on from a snapshot taken now. */
  underWay(): ChangeUnderWay[];
};

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
 * answers), and publishes each state it puts the chute in as a `chute.state` event once the chute is
 * so (an install's `installing` when it is queued); the steps of every change are published as the
 * runner publishes them. A change to a chute deleted meanwhile fails. A stopped container has no stats.
 * `snapshot()` answers all of it as a state, which `options.state` restores.
 *
 * @param scenario the scenario's Device, without change methods.
 * @example
 * const device = emulatedChanges(scenarioDevice, { delayMs: 0, sleep: emulatedClock().sleep, applyHostConfig, resetDevice });
 * const { id } = await device.submitChange({ action: 'stop', chute: 'hotspot' });
 * (await device.change(id))?.state // 'queued', then 'running', then 'succeeded'
 */
export function emulatedChanges(scenario: Omit<Device, ChangeMethods>, options: EmulatedChangeOptions): EmulatedDevice {
  const { state } = options;
  /** The chutes and containers changes start from: the scenario's, or a snapshot's. */
  const base: Omit<Device, ChangeMethods> = state === undefined ? scenario : { ...scenario, ...restoredEngine(state) };
  /** Changes are refused while a factory reset waits or runs. */
  const guard = options.resetGuard ?? resetGuard();
  const made = changesMade(base, state);
  const resumed = new Set(options.resume?.map((change) => change.id));
  const log = memoryChangeLog(state === undefined ? [] : interrupted(state.changes.records, new Date(base.now()).toISOString(), resumed));
  if (state !== undefined) log.nextId = Math.max(log.nextId, state.changes.nextId);
  const steps = changeSteps(base.now, options, log);
  const runner = changeRunner({
    openLog: async () => log,
    now: () => base.now(),
    turn: steps.turn,
    bound: options.bound,
    publish: options.publish,
    effects: emulatedEffects(made, { due: steps.due, ...options }),
  });
  for (const change of options.resume ?? []) {
    if (change.turnAt !== null) steps.turns.set(change.id, change.turnAt);
    if (change.conflicting) CONFLICTING.add(change.request);
    void runner.resume(change.id, change.request);
  }
  return {
    // A key before the spreads, which no Device has: one hidden class for every device (docs/performance.md#objects-made-per-device).
    underWay: () =>
      runner.underWay().map(({ id, request }) => ({
        id,
        request,
        turnAt: steps.turns.get(id) ?? null,
        ...(CONFLICTING.has(request) ? { conflicting: true as const } : {}),
      })),
    ...base,
    ...made.reads,
    async submitChange(request) {
      guard.refuse();
      if (request.action === 'install') {
        // The chute is there, installing, from the moment its install is queued, as on a device.
        if ((await made.reads.chute(request.chute)) !== null) CONFLICTING.add(request);
        else {
          made.touched.set(request.chute, deepFreeze(installing(request)));
          options.publish?.({ kind: 'chute.state', chute: request.chute, state: 'installing', previous: null });
        }
      }
      return runner.submitChange(request);
    },
    change: runner.change,
    changes: runner.changes,
    async loadImage(archive) {
      const tags = await uploadedImageTags(archive);
      for (const tag of tags) made.loaded.add(tag);
      return tags;
    },
    factoryReset: () => guard.run(() => runner.exclusive(() => resetEmulated(made, log, options))),
    snapshot: () => snapshotOf(made, log),
  };
}

/**
 * When the steps of emulated changes come, from the times their records keep: a change runs `delayMs`
 * after its turn came (`turn`), and its effect is done `delayMs` after it began to run (`due`, from its
 * record's `running` message), so that a change carried on from a state ends when it would have.
 */
function changeSteps(now: () => number, options: Pick<EmulatedChangeOptions, 'delayMs' | 'sleep'>, log: MemoryChangeLog) {
  /** When the turn of each change waiting out its turn came. */
  const turns = new Map<number, number>();
  /** Waits until `delayMs` after `since`, in the device's time. */
  const after = (since: number) => options.sleep(Math.max(0, since + options.delayMs - now()));
  return {
    turns,
    turn(id: number): Promise<void> {
      const at = turns.get(id) ?? now();
      turns.set(id, at);
      return after(at);
    },
    due(id: number): Promise<void> {
      // Its turn is over: it runs.
      turns.delete(id);
      return after(runningSince(log.records.get(id)) ?? now());
    },
  };
}

/** When a change began to run: the time of its record's last `running` message; undefined for none. */
function runningSince(record: ChangeRecord | undefined): number | undefined {
  const message = record?.messages.findLast((entry) => entry.text === 'running');
  return message === undefined ? undefined : Date.parse(message.time);
}

/**
 * Installs of a name that was taken when they were queued: they fail when they run. One set for every
 * device of the process: a request is one device's own object, and an empty set costs each device of a
 * fleet 1.5 KB.
 */
const CONFLICTING = new WeakSet<ChangeRequest>();

/**
 * What changes have made of the emulated device so far, in memory: every effect edits it, every read
 * of chutes and containers answers from it.
 */
interface ChangesMade {
  /** The chutes and containers changes started from. */
  base: Omit<Device, ChangeMethods>;
  /** Chutes a change has touched: their current documents, or null once deleted. */
  touched: Map<string, StoredChute | null>;
  /** The tags of the images loaded (`loadImage`) or built since the emulator started. */
  loaded: Set<string>;
  /** The emulator's own copy of the engine's containers, which changes edit (then call `edited`). */
  containers(): Promise<Record<string, unknown>[] | null>;
  /** Drops the frozen copy of the containers that `reads.containers()` answers: a change edited them. */
  edited(): void;
  /** The Device's reads of what changes make: chutes, containers and their stats. */
  reads: Pick<Device, 'containers' | 'containerStats' | 'chuteNames' | 'chute'>;
}

/** Nothing changed yet: the chutes and containers of `base`, and the images of a snapshot's `state`. */
function changesMade(base: Omit<Device, ChangeMethods>, state: ChangesState | undefined): ChangesMade {
  const touched = new Map<string, StoredChute | null>();
  let engine: Promise<Record<string, unknown>[] | null> | undefined;
  /** The emulator's own copy of the engine's containers, which changes edit. */
  const containers = () => (engine ??= base.containers().then((list) => (list === null ? null : structuredClone(list))));
  /** What `containers()` answers: a frozen copy of the emulator's, made again after a change. */
  let answer: Promise<Record<string, unknown>[] | null> | undefined;

  /** A chute as it is now: read-only, the same frozen object to every caller until a change replaces it. */
  function current(name: string): Promise<StoredChute | null> {
    return touched.has(name) ? Promise.resolve(touched.get(name)!) : base.chute(name);
  }

  /** The names of the chutes installed now. */
  function chuteNames(): Promise<string[]> {
    return base.chuteNames().then((recorded) => {
      const names = new Set(recorded.filter((name) => touched.get(name) !== null));
      for (const [name, chute] of touched) if (chute !== null) names.add(name);
      return [...names].sort();
    });
  }

  const reads: ChangesMade['reads'] = {
    // Until a change edits them, the containers of `base` (frozen, shared with every device of the scenario): no copy is made to read them.
    containers: () =>
      engine === undefined ? base.containers() : (answer ??= engine.then((list) => (list === null ? null : deepFreeze(structuredClone(list))))),
    containerStats: (id) =>
      reads.containers().then((list) => {
        const container = list?.find((entry) => entry.Id === id || (entry.Names as unknown[] | undefined)?.includes(`/${id}`));
        return container?.State === 'running' ? base.containerStats(id) : null;
      }),
    chuteNames,
    chute: current,
  };

  return {
    base,
    touched,
    loaded: new Set<string>(state?.engine.images),
    containers,
    edited: () => {
      answer = undefined;
    },
    reads,
  };
}

/** What each change does in the emulator, each after `delayMs`: a chute's edits what changes made, the device's own say what they do. */
function emulatedEffects(made: ChangesMade, options: EmulatedChangeOptions & StepDue): ChangeEffects {
  /** The reservations of the chutes' networks among the chutes installed now, one change at a time. */
  const reserve = networkLedger({ ...made.base, chute: made.reads.chute, chuteNames: made.reads.chuteNames });
  /** A reboot or shutdown of the emulated device: it says so, and nothing else happens. */
  const power: ChangeEffect<'reboot' | 'shutdown'> = async (request, note, id) => {
    await options.due(id);
    await note(EMULATED_POWER[request.action]);
  };
  /** Every chute action's effect: one function for them all (a device of a fleet keeps one, not seven). */
  const chuteAction = chuteEffect(made, reserve, options);
  return Object.assign(
    chuteEffectsBy(() => chuteAction),
    {
      async 'update-hostconfig'(request: ChangeRequestOf<'update-hostconfig'>, note: Note, id: number) {
        await options.due(id);
        return options.applyHostConfig(request, note, id);
      },
      async 'update-runtime'(_request: ChangeRequestOf<'update-runtime'>, note: Note) {
        await options.sleep(options.delayMs);
        const offered = await takeRelease(options.releases, note);
        if (offered !== null) await note(EMULATED_UPDATE);
      },
      reboot: power,
      shutdown: power,
    },
  );
}

/** What an effect waits for before it does anything: `delayMs` after its change began to run (`changeSteps`). */
interface StepDue {
  due(id: number): Promise<void>;
}

/**
 * What a change to a chute does to the emulator's state (`CHUTE_EDITS`): it takes `delayMs`, then edits
 * a copy of the chute and keeps it, and publishes each state the chute went through.
 */
function chuteEffect(
  made: ChangesMade,
  reserve: ReturnType<typeof networkLedger>,
  options: Pick<EmulatedChangeOptions, 'seed' | 'publish' | 'failing' | 'replaced'> & StepDue,
): ChangeEffect<ChuteAction> {
  return async (request, note, id) => {
    await options.due(id);
    const failing = options.failing?.(request);
    if (failing) {
      // As on a device, an install that fails leaves no chute.
      if (request.action === 'install' && !CONFLICTING.has(request)) made.touched.delete(request.chute);
      throw new Error(failing);
    }
    if (CONFLICTING.has(request)) throw new Error(`a chute named ${request.chute} is already installed`);
    const found = await made.reads.chute(request.chute);
    if (found === null) throw new Error(`chute ${request.chute} is not installed`);
    const chute = structuredClone(found);
    const list = await made.containers();
    const asked: ChangeRequestOf<ChuteAction> = request;
    // As on a device: the networks are reserved before anything changes, and noted right after the chute or its configuration is stored.
    const held =
      asked.action === 'install' || asked.action === 'update' || asked.action === 'update-config'
        ? await reserve(networkChange(asked.chute, asked.config, asked.action === 'install' ? null : found))
        : undefined;
    try {
      await emulatedImage(made.loaded, asked, chute, note, id);
      const engine = { containers: list, now: made.base.now(), seed: options.seed ?? DEFAULT_SEED, change: id, states: [] };
      const messages = (CHUTE_EDITS[request.action] as ChuteEdit<ChuteAction>)(chute, request, engine);
      if (held !== undefined) {
        chute.cache = cacheWithNetworks(chute.cache, held.networks);
        messages.splice(1, 0, ...reservationNotes(held.networks));
      }
      for (const text of messages) await note(text);
      made.edited();
      const now = request.action === 'delete' ? null : deepFreeze(chute);
      made.touched.set(request.chute, now);
      if (REPLACING.has(asked.action)) options.replaced?.(found, now);
      let previous = typeof found.record.state === 'string' ? found.record.state : null;
      for (const state of engine.states) {
        if (state !== previous) options.publish?.({ kind: 'chute.state', chute: request.chute, state, previous });
        previous = state;
      }
    } finally {
      held?.release();
    }
  };
}

/**
 * The image of an install or an update from source, as the emulator has it (`chute.record.image`):
 * one loaded from an archive is noted; one built from the source is named as a device would tag it,
 * and remembered, but nothing is built.
 */
async function emulatedImage(loaded: Set<string>, asked: ChangeRequestOf<ChuteAction>, chute: StoredChute, note: Note, id: number): Promise<void> {
  if (asked.action === 'install' && asked.image !== null && loaded.has(asked.image)) await note(`image ${asked.image} was loaded from an uploaded archive`);
  if ((asked.action === 'install' && asked.image === null) || asked.action === 'update') {
    const current = asked.action === 'update' && typeof chute.record.image === 'string' ? chute.record.image : undefined;
    const services = taggedServices(servicesOrRoot(asked.services), chuteImageTag(asked.chute, asked.version, id, current));
    Object.assign(chute.record, { image: services.services[services.main]!.image, services: services.services, main_service: services.main });
    if (asked.owner !== undefined) chute.record.owner = asked.owner;
    for (const service of Object.values(services.services)) {
      if (service.type === 'image' || service.image === null) continue;
      loaded.add(service.image);
      await note(`built image ${service.image} from the uploaded source (emulated: paradrop.yaml was read, no Dockerfile was run)`);
    }
  }
}

/** The chute actions that replace a chute's documents (configuration, cache), and so may rebuild its networks. */
const REPLACING: ReadonlySet<ChuteAction> = new Set<ChuteAction>(['install', 'update', 'update-config', 'delete']);

/** A factory reset of the emulated device: every chute and its containers gone, no change and no image kept, then the device's own (`resetDevice`). */
async function resetEmulated(made: ChangesMade, log: MemoryChangeLog, options: Pick<EmulatedChangeOptions, 'resetDevice' | 'replaced'>) {
  const names = new Set([...(await made.base.chuteNames()), ...made.touched.keys()]);
  const gone = await Promise.all([...names].map((name) => made.reads.chute(name)));
  const list = await made.containers();
  if (list !== null) list.splice(0, list.length, ...list.filter((entry) => !names.has(String((entry.Labels as Record<string, unknown>)[CHUTE_LABEL]))));
  made.edited();
  for (const name of names) made.touched.set(name, null);
  for (const chute of gone) if (chute !== null) options.replaced?.(chute, null);
  log.clear();
  made.loaded.clear();
  await options.resetDevice();
  return { success: true, message: 'factory reset: the default host configuration is back, every chute is removed, provisioning is cleared' };
}

/** What changes have made of the device, now (`EmulatedDevice.snapshot`). */
async function snapshotOf(made: ChangesMade, log: MemoryChangeLog): Promise<ChangesState> {
  const { base, touched } = made;
  const [names, list] = await Promise.all([base.chuteNames(), made.reads.containers()]);
  const recorded = await Promise.all(names.map((name) => base.chute(name)));
  // From here on nothing is awaited: the state of one moment.
  const now = new Map<string, StoredChute>();
  for (const chute of recorded) if (chute !== null && !touched.has(chute.name)) now.set(chute.name, chute);
  for (const [name, chute] of touched) if (chute !== null) now.set(name, chute);
  const chutes: Record<string, ChuteDocuments> = {};
  for (const name of [...now.keys()].sort()) {
    const { record, config, cache } = now.get(name)!;
    chutes[name] = jsonCopy({ record, config, cache });
  }
  return {
    chutes,
    engine: { containers: list === null ? null : jsonCopy(list), images: [...made.loaded].sort() },
    changes: { nextId: log.nextId, records: [...log.records.values()].sort((a, b) => a.id - b.id).map((record) => jsonCopy(record)) },
  };
}

/** The chutes and containers of a snapshot, served as a scenario's are: frozen, the same objects to every caller. */
function restoredEngine(state: ChangesState): Pick<Device, 'chuteNames' | 'chute' | 'containers'> {
  const containers = state.engine.containers === null ? null : deepFreeze(jsonCopy(state.engine.containers));
  return { ...storedChutes(state.chutes), containers: async () => containers };
}

/**
 * The records of a snapshot, each change that was `queued` or `running` marked failed at `time`: it
 * cannot go on, as the device marks the changes a restart cut short (runtime/changes/log.ts); but
 * those `resumed` names, which go on.
 */
function interrupted(records: readonly ChangeRecord[], time: string, resumed: ReadonlySet<number>): ChangeRecord[] {
  return records.map((record) => {
    if ((record.state !== 'queued' && record.state !== 'running') || resumed.has(record.id)) return record;
    const text = `failed: the emulator's state was restored while the change was ${record.state}`;
    return { ...record, state: 'failed', updated: time, messages: [...record.messages, { time, text }] };
  });
}

/** A chute whose install is queued or running: stored, without a container yet. */
function installing(request: ChuteInstall): StoredChute {
  const { chute: name, image, version, environment, allocation, config, owner } = request;
  return {
    name,
    record: { name, version, state: 'installing', image, environment, allocation, resources: null, ...(owner === undefined ? {} : { owner }) },
    config: structuredClone(config),
    cache: {},
  };
}

/**
 * What a reboot or shutdown of the emulated device does: nothing but say so. Its uptime goes on (the
 * scenario's clock counts from the emulator's start) and it answers as before.
 */
/** What the emulator notes once it has taken and checked a release: serve would unpack it, check it loads and make it current. */
const EMULATED_UPDATE = 'the emulated device does not install the release: serve would unpack it, check that it loads and make it current';

const EMULATED_POWER: Record<DevicePowerAction, string> = {
  reboot: 'the emulated device does not really reboot: nothing is restarted, its uptime goes on, and what changed since the emulator started stays',
  shutdown: 'the emulated device does not really shut down: it goes on answering as before',
};
