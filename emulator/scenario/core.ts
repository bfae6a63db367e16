import { deepFreeze } from '../../functions/core/deep-freeze.ts';
import { generateHostConfig, telemetrySettings, type HostConfig } from '../../functions/config/host-config.ts';
import type { Device, DeviceSources, Settings } from '../../functions/core/device/index.ts';
import { ENGINE_UNREACHABLE } from '../../runtime/engine/unreachable.ts';
import type { DeviceFault } from '../faults/device-fault.ts';
import { faultyDevice } from '../faults/faulty-device.ts';
import { faultActive } from '../faults/storage-and-controller.ts';
import type { ChangeLogBound } from '../../runtime/changes/bound.ts';
import { resetGuard } from '../../runtime/changes/reset-guard.ts';
import { eventBuffer } from '../../runtime/events/buffer.ts';
import { telemetryReport, type Timers } from '../../runtime/controller/telemetry.ts';
import { scenarioAccounts } from './accounts.ts';
import { memoryHostConfig } from './host-config.ts';
import { scenarioProvisioning, type ApitokenMemory } from './provisioning.ts';
import { DEFAULT_CHANGE_DELAY_MS, emulatedChanges, type ChangeUnderWay, type EmulatedDevice } from './changes.ts';
import { checkEmulatorState, EMULATOR_STATE_VERSION, type EmulatorState, type EmulatorStateApi } from '../emulator-state.ts';
import { fakeController, type FakeController } from './fake-controller.ts';
import { storedChutes } from './chutes.ts';
import type { EngineRecordings, ScenarioDocuments } from './documents.ts';
import { jsonCopy } from './json-copy.ts';
import { PASSWD_FILE, type DeviceYaml } from '../../runtime/scenario/format.ts';
import { scenarioNetworks } from './network.ts';
import { emulatedRadios, rebuiltNetworks } from './installed-networks.ts';
import { scenarioClock } from './clock.ts';
import { emulatedClock, settled, type ClockStart, type EmulatedClock } from '../emulated-clock.ts';
import { DEFAULT_SEED } from '../seeded.ts';
import { recordedLogs, scenarioLogs } from './logs.ts';
import { scenarioSnapd } from './snapd.ts';
import { checkCompiledScenario, normalizePosix, treeFiles } from './tree.ts';
import { livingNetwork, type LivingNetwork } from '../living/living.ts';
import { scenarioAudio } from './audio.ts';

/** How a scenario is served. */
export interface ScenarioOptions {
  /** How long each step of a change takes, in milliseconds (default DEFAULT_CHANGE_DELAY_MS). */
  changeDelayMs?: number;
  /** How many change records it keeps, and for how long (default `DEFAULT_CHANGE_LOG_BOUND`, as `serve`). */
  changeLog?: ChangeLogBound;
  /** A real controller's base URL for provisioning and telemetry; default the built-in fake controller. */
  controller?: string;
  /** The built-in controller to talk to without `controller` (default one of the device's own): a fleet's devices share one. */
  fakeController?: FakeController;
  /** How requests to a real `controller` are made (default the global fetch): a fleet bounds how many are in flight. */
  controllerFetch?: typeof globalThis.fetch;
  /** What `settings()` answers (default none). */
  settings?: () => Settings;
  /**
   * How the device's emulated clock starts (emulator/emulated-clock.ts): its wall time (default the
   * real one), the time elapsed since the replay started (default 0) and its speed (default 1; 0
   * stands still until advanced).
   */
  clock?: ClockStart;
  /** The seed of everything the emulator draws (emulator/seeded.ts; default `DEFAULT_SEED`). */
  seed?: number;
  /** Whether the living network stands still (`chutebox emulate --still`; default false). */
  still?: boolean;
  /** How many events it keeps for clients that reconnect (default `DEFAULT_EVENT_BUFFER`, as `serve`). */
  eventBuffer?: number;
  /**
   * Serve /proc/uptime, /proc/stat and the lease files exactly as recorded, instead of replayed as if
   * recorded at the start (`scenarioClock`): how `chutebox record` checks what it wrote.
   */
  asRecorded?: boolean;
  /**
   * The device faults active now, asked at every call (docs/decisions/0052-device-faults-as-serve-answers-them.md):
   * the device answers as serve does in the same real situation (`faultyDevice`). Default none.
   */
  deviceFaults?: () => readonly DeviceFault[];
  /** How long a hanging `iw` or `hostapd_cli` is waited for (serve's `--tool-timeout`), in milliseconds; default 5 s. */
  toolTimeoutMs?: number;
  /**
   * Told when the device first renders its system configuration, on its first use of pdconf or
   * provisioning (a read too): its state differs from the scenario's from then on.
   */
  onRendered?: () => void;
  /**
   * The timers telemetry waits on (default the device's clock). A fleet's device on Lambda gets timers
   * that never fire: its clock is caught up on each invocation, and the outbound handler sends its reports.
   */
  telemetryTimers?: Timers;
  /**
   * Where the apitokens of the provisionings stored are remembered, out of the state (default one of
   * the device's own): a fleet's device on Lambda fills it from its table's item and reads it back.
   */
  apitokens?: ApitokenMemory;
}

/**
 * A loaded scenario: where it is, what it says about itself, the Device that serves it, its clock and
 * seed, and that Device's state (`EmulatorStateApi`: `snapshot()`, `restore(state)`, `reset()`).
 */
export interface Scenario extends EmulatorStateApi {
  /** The name given, or the folder's base name for a path. */
  name: string;
  /** Absolute path of the scenario folder; null for a compiled scenario given as a document. */
  dir: string | null;
  description: string | null;
  /** The one Device that serves it, whatever state is restored behind it: hand it to the HTTP app once. */
  device: Device;
  /** The device's emulated clock: the Device's `now()` and every timer that models the device. */
  clock: EmulatedClock;
  /** The seed in effect: the one started with, or a restored state's. */
  seed(): number;
  /**
   * `EmulatorStateApi.restore`, its refusal naming the fields from `at` (`checkEmulatorState`):
   * `'body'` for a state that came as a request's body, as `PUT /_chutebox/state` gives it. The
   * changes `resume` names go on from where the state has them, rather than being marked failed
   * (`changesUnderWay()` of the device the state was taken of, at the same time).
   */
  restore(state: EmulatorState, at?: string, resume?: readonly ChangeUnderWay[]): Promise<void>;
  /** The changes queued or running now, to carry on in a device restored from a snapshot taken now. */
  changesUnderWay(): ChangeUnderWay[];
  /** Whether the device is rebooting (a `reboot` device fault): it answers no request until it is back. */
  rebooting(): boolean;
  /**
   * Sends one telemetry report now, outside its interval, counted as a scheduled one
   * (`ProvisioningService.sendNow`): how a device whose telemetry timers never fire reports.
   *
   * @throws HttpProblem 409 when telemetry does not run (not provisioned, or disabled by the host configuration).
   */
  sendTelemetryNow(): Promise<boolean>;
  /** Stops what the device does on its own timers, its telemetry: for a device dropped, as a fleet's that leaves with its state held. */
  stop(): void;
  /**
   * Tells the events of the living network (docs/emulator.md#a-living-network) that happened since it
   * last did, up to the emulated time now, each at its own time: reads of its networks do it, and a
   * timer while someone follows the events. Nothing for a still scenario.
   */
  catchUp(): Promise<void>;
}

/** What a scenario device is made of: the scenario's documents and its raw files, however they were read. */
export interface ScenarioSource {
  name: string;
  /** The scenario folder, or null when the scenario came as a document. */
  dir: string | null;
  documents: ScenarioDocuments;
  /** The raw files: `scenarioFiles(dir)` for a folder, `treeFiles(compiled.files)` for a compiled scenario. */
  files: Pick<Device, 'readFile' | 'readDir' | 'realPath'>;
}

/**
 * A scenario device over a compiled scenario (`CompiledScenario`: what `chutebox scenario compile DIR`
 * writes, and the build for the built-in ones as `dist/scenarios/<name>.json`), served from memory
 * with no file system: how a scenario runs in a browser. It answers as `loadScenario` does for the
 * folder it was compiled from.
 *
 * @throws ScenarioError when `document` is not a compiled scenario.
 * @example
 * const scenario = scenarioFromDocument(await (await fetch('/scenarios/default.json')).json());
 * await scenario.device.readFile('/proc/cpuinfo');
 */
export function scenarioFromDocument(document: unknown, options: ScenarioOptions = {}): Scenario {
  const compiled = checkCompiledScenario(document);
  return emulateScenario({ name: compiled.name, dir: null, documents: compiled, files: treeFiles(compiled.files) }, options);
}

/**
 * The scenario device over a scenario's documents and raw files (see `loadScenario`, which reads them
 * from a folder or the build's compiled scenario, and `scenarioFromDocument`). Needs no Node built-in.
 */
export function emulateScenario(source: ScenarioSource, options: ScenarioOptions = {}): Scenario {
  const emulated = emulatedClock(options.clock);
  const now = emulated.now;
  const startSeed = options.seed ?? DEFAULT_SEED;
  let seed = startSeed;
  const { name, dir, documents, files } = source;
  const clock = options.asRecorded ? undefined : scenarioClock(files, emulated);
  // One buffer for every state the device goes through: a restore does not take back what happened, nor its ids.
  const events = eventBuffer(now, options.eventBuffer);
  // The living network reads the device as changes left it (its chutes' access points and containers) and the seed in effect.
  const living =
    clock === undefined || options.still || !documents.living
      ? null
      : livingNetwork({ living: documents.living, seed: () => seed, device: () => device, clock, publish: events.publish });
  // A jump of the clock (an advance, a set) tells what happened on the way, each at its own time.
  if (living !== null) emulated.onChange(() => void living.catchUp());
  // What no state holds, shared by every state the device goes through: the recordings, and who remembers what.
  const sources = livingSources(
    scenarioSources(clock === undefined ? files : { ...files, readFile: clock.readFile }, documents.device, () => documents.engine, now),
    living,
  );
  const recordedChutes = sharedChutes(documents.chutes);
  const logs = scenarioLogs(files);
  const snapd = scenarioSnapd(files);
  // The networks of the chutes installed now: as recorded, or what serve would run for them on this device's radios.
  const network = scenarioNetworks(
    files,
    clock,
    events.publish,
    {
      recorded: recordedChutes.chute,
      current: (chute) => device.chute(chute),
      radio: emulatedRadios(() => device),
    },
    living === null ? undefined : (hooks) => living.life(hooks),
  );
  const fake = options.controller === undefined ? (options.fakeController ?? fakeController()) : null;
  const apitokens: ApitokenMemory = options.apitokens ?? new Map();
  const settings = async () => options.settings?.() ?? {};
  // Generated from the hardware, i.e. from the scenario's files, which do not change: worked out once, a copy for each caller.
  let generated: Promise<HostConfig> | undefined;
  const generate = async () => jsonCopy(await (generated ??= generateHostConfig(device)));
  const faults = options.deviceFaults ?? NO_FAULTS;

  /** The device in a state: the scenario's as loaded (none given), or a checked snapshot's with the changes to carry on. */
  function inState(state?: EmulatorState, resume?: readonly ChangeUnderWay[]) {
    // The facets read the device they belong to: its chutes (as changes left them), its telemetry.
    let self: EmulatedDevice | undefined;
    /** What the state's device answers under the device faults: what telemetry reports too. */
    let served: ReturnType<typeof faultyDevice> | undefined;
    const provisioning = scenarioProvisioning({
      report: () => telemetryReport(served!),
      faults,
      ...(fake === null ? { controller: options.controller!, ...(options.controllerFetch ? { fetch: options.controllerFetch } : {}) } : { fake }),
      apitokens,
      now,
      timers: options.telemetryTimers ?? emulated,
      publish: events.publish,
      ...(state === undefined ? {} : { state: state.provisioning }),
    });
    const hostConfig = memoryHostConfig({
      stored: documents.hostConfig,
      ...(state === undefined ? {} : { state: state.hostConfig }),
      chutes: { chuteNames: () => self!.chuteNames(), chute: (chute) => self!.chute(chute) },
      generate,
      now,
      onApplied: (config) => provisioning.configure(telemetrySettings(config)),
      publish: events.publish,
    });
    // As a device's first start does, the system configuration is rendered and applied (and telemetry
    // told its settings): here when pdconf or provisioning is first used, not before the first answer.
    // A state that had it rendered has it rendered again, as it was.
    const rendered = state !== undefined && Object.keys(state.hostConfig.pdconf).length > 0;
    const afterStart = onFirstUse(async () => {
      options.onRendered?.();
      if (!rendered) await hostConfig.refresh();
      provisioning.configure(telemetrySettings(await hostConfig.current()));
    });
    // A state that is provisioned sends telemetry with the settings of its host configuration from the start.
    if (state?.provisioning) void afterStart(async () => undefined).catch(() => {});
    /** Provisioning and a pdconf reload are refused during a factory reset, as on a device. */
    const guard = resetGuard();
    const { snapshot: accountsSnapshot, ...accounts } = scenarioAccounts(files, state?.accounts);
    const audio = scenarioAudio(files, state?.audio);
    self = emulatedChanges(
      {
        // A key before the spreads, which hold no hostConfig: one hidden class for every device (docs/performance.md#objects-made-per-device).
        hostConfig: {
          read: () => hostConfig.read(),
          pdconf: () => afterStart(() => hostConfig.pdconf()),
          reloadPdconf: () => afterStart(async () => (guard.refuse(), hostConfig.reloadPdconf())),
        },
        ...sources,
        ...recordedChutes,
        network,
        provisioning: {
          status: () => afterStart(() => provisioning.status()),
          provision: (credentials) => afterStart(async () => (guard.refuse(), provisioning.provision(credentials))),
          verifyCloudUser: (token) => afterStart(() => provisioning.verifyCloudUser(token)),
        },
        accounts,
        settings,
        snapd,
        ...recordedLogs({
          read: logs,
          device: { containers: () => self!.containers(), chute: (chute) => self!.chute(chute), now },
          shift: clock?.shift,
          pause: emulated.pause,
        }),
        followEvents: living === null ? events.followEvents : watched(events.followEvents, living),
        // What pactl printed on the recorded device (`pactl/`), edited by the audio requests; none without it.
        audio: audio.audio,
      },
      {
        delayMs: options.changeDelayMs ?? DEFAULT_CHANGE_DELAY_MS,
        sleep: emulated.sleep,
        seed,
        bound: options.changeLog,
        applyHostConfig: (request, note, id) => afterStart(() => hostConfig.perform(request, note, id)),
        resetDevice: () =>
          afterStart(async () => {
            await provisioning.clear();
            await hostConfig.reset();
          }),
        releases: { release: () => afterStart(() => provisioning.release()) },
        resetGuard: guard,
        publish: events.publish,
        failing: () => (faultActive(faults, 'engine-unreachable') ? ENGINE_UNREACHABLE : null),
        replaced: (before, after) => network.forget(before.name, rebuiltNetworks(before, after)),
        ...(state === undefined ? {} : { state: { chutes: state.chutes, engine: state.engine, changes: state.changes }, resume }),
      },
    );
    const { snapshot: changes, underWay, ...device } = self;
    served =
      options.deviceFaults === undefined
        ? Object.assign(device as Device, { rebooting: () => false })
        : faultyDevice(device as Device, faults, { toolTimeoutMs: options.toolTimeoutMs });
    return {
      device: served,
      /** This state's part of a snapshot: all but the networks and the clock. */
      snapshot: async () => ({
        ...(await changes()),
        hostConfig: hostConfig.snapshot(),
        provisioning: provisioning.snapshot(),
        accounts: accountsSnapshot(),
        audio: audio.edited(),
      }),
      underWay,
      sendTelemetryNow: () => afterStart(() => provisioning.sendNow()),
      /** Stops what would go on after the device leaves this state: telemetry. */
      leave: () => provisioning.stop(),
    };
  }

  let current = inState();
  /** The one Device that the HTTP app and the handlers hold: `enter` gives it the methods of each new state. */
  const device = { ...current.device };

  /**
   * Puts the device in a state (the scenario's, with the seed and the clock as started, when none is
   * given); nothing is awaited, so no request sees half of it.
   */
  function enter(state?: EmulatorState, resume?: readonly ChangeUnderWay[]): void {
    seed = state?.seed ?? startSeed;
    // The changes it resumes take their first step a microtask later: on the clock as restored below.
    const next = inState(state, resume);
    current.leave();
    current = next;
    Object.assign(device, next.device);
    network.restore(state?.networks ?? []);
    if (state === undefined) emulated.reset();
    else emulated.restore(state.clock);
    living?.restart();
  }

  return {
    name,
    dir,
    description: documents.device.description ?? null,
    device,
    clock: emulated,
    seed: () => seed,
    async snapshot() {
      for (;;) {
        const taken = current;
        const part = await taken.snapshot();
        // A restore came in meanwhile: take the state it made instead.
        if (taken !== current) continue;
        return {
          version: EMULATOR_STATE_VERSION,
          scenario: name,
          chutes: part.chutes,
          engine: part.engine,
          changes: part.changes,
          networks: network.snapshot(),
          hostConfig: part.hostConfig,
          provisioning: part.provisioning,
          accounts: part.accounts,
          ...(part.audio === undefined ? {} : { audio: part.audio }),
          seed,
          clock: emulated.read(),
        };
      }
    },
    async restore(state, at, resume) {
      const target = { scenario: name, engine: documents.engine !== null, passwd: async () => (await files.readFile(PASSWD_FILE)) ?? '' };
      enter(await checkEmulatorState(state, target, at), resume);
      // The changes carried on have set their first timers once this resolves: an advance of the clock then runs them.
      if (resume !== undefined && resume.length > 0) await settled();
    },
    changesUnderWay: () => current.underWay(),
    async reset() {
      enter();
    },
    rebooting: () => current.device.rebooting(),
    sendTelemetryNow: () => current.sendTelemetryNow(),
    stop: () => current.leave(),
    catchUp: async () => living?.catchUp(),
  };
}

/** The raw sources with what a living network moves (/proc/net/dev, the containers' network counters); as they are without one. */
function livingSources<S extends Pick<Device, 'readFile' | 'containerStats'>>(sources: S, living: LivingNetwork | null): S {
  if (living === null) return sources;
  return { ...sources, readFile: living.readFile(sources.readFile), containerStats: living.containerStats(sources.containerStats) };
}

/** `followEvents` that has the living network tell what happens while the follower follows. */
function watched(followEvents: Device['followEvents'], living: LivingNetwork): Device['followEvents'] {
  return (listener, after) => {
    const unwatch = living.watch();
    const following = followEvents(listener, after);
    return {
      ...following,
      stop() {
        unwatch();
        following.stop();
      },
    };
  };
}

/** The device faults of a device given none. */
const NO_FAULTS = () => [];

/**
 * The raw sources of a scenario whose files, `device.yaml` and engine recordings are in memory, but its
 * chutes and settings. The engine recordings are asked for on each call: a fleet's device rewrites them
 * as they are read (emulator/fleet/member-device.ts) and keeps nothing.
 */
function scenarioSources(
  files: Pick<Device, 'readFile' | 'readDir' | 'realPath'>,
  spec: DeviceYaml,
  recordings: () => EngineRecordings | null,
  now: () => number,
): Omit<DeviceSources, 'chuteNames' | 'chute' | 'settings'> {
  const { statfs, uname, programs } = frozenSpec(spec);
  // Frozen: every call shares them, as calls share an engine request on a device.
  const stats = (id: string) => {
    const bodies = recordings()?.stats;
    return bodies !== undefined && Object.hasOwn(bodies, id) ? deepFreeze(bodies[id]!) : null;
  };
  return {
    readFile: files.readFile,
    readDir: files.readDir,
    realPath: files.realPath,
    // A mount point as recorded is found without spelling it again (`mountKey`).
    statfs: async (mountPoint) => statfs.get(mountPoint) ?? statfs.get(mountKey(mountPoint)) ?? null,
    uname: async () => uname,
    programs: async () => programs,
    now,
    containers: async () => {
      const engine = recordings();
      return engine === null ? null : deepFreeze(engine.containers);
    },
    containerStats: async (id) => stats(id),
  };
}

/** The recorded chutes of each scenario, frozen: shared by every device that runs it (a fleet's), as nothing changes them. */
const recordedChutesOf = new WeakMap<ScenarioDocuments['chutes'], ReturnType<typeof storedChutes>>();

/** `storedChutes` of a scenario's chutes, made once per scenario. */
function sharedChutes(chutes: ScenarioDocuments['chutes']): ReturnType<typeof storedChutes> {
  let made = recordedChutesOf.get(chutes);
  if (made === undefined) recordedChutesOf.set(chutes, (made = storedChutes(chutes)));
  return made;
}

/** What `frozenSpec` made of each scenario's `device.yaml`, shared by every device that runs the scenario (a fleet's). */
const frozen = new WeakMap<DeviceYaml, ReturnType<typeof freezeSpec>>();

/**
 * The recorded answers of `device.yaml`, made once per scenario and frozen, as a device answers the
 * same numbers while nothing changed: a parse of them is then reused (`reusingLast` compares its
 * sources by identity), and the devices of a fleet share them.
 */
function frozenSpec(spec: DeviceYaml): ReturnType<typeof freezeSpec> {
  let made = frozen.get(spec);
  if (made === undefined) frozen.set(spec, (made = freezeSpec(spec)));
  return made;
}

function freezeSpec(spec: DeviceYaml) {
  return {
    statfs: new Map(Object.entries(spec.statfs ?? {}).map(([mount, stats]) => [mountKey(mount), deepFreeze({ ...stats })])),
    uname: deepFreeze({ ...spec.uname }),
    programs: Object.freeze([...(spec.programs ?? [])]) as readonly string[],
  };
}

/**
 * Runs `start` once, when `afterStart` is first called: that call's `fn`, and any asked for meanwhile,
 * run once it has finished (and fail as it failed); after that, `afterStart(fn)` is `fn()`. The
 * methods call it (`() => afterStart(…)`) rather than being wrapped, so that a device of a fleet keeps
 * no wrapper for each of them.
 *
 * @example
 * const afterStart = onFirstUse(() => hostConfig.refresh().then(() => undefined));
 * const pdconf = () => afterStart(() => hostConfig.pdconf());
 */
function onFirstUse(start: () => Promise<void>) {
  let started: Promise<void> | undefined;
  let done = false;
  return <R>(fn: () => Promise<R>): Promise<R> => {
    // Once started, `fn`'s own answer.
    if (done) return fn();
    return (started ??= start().then(() => void (done = true))).then(fn);
  };
}

/** `/boot/` and `/boot` are the same mount point. */
function mountKey(mountPoint: string): string {
  const normal = normalizePosix(mountPoint);
  return normal.length > 1 ? normal.replace(/\/$/, '') : normal;
}
