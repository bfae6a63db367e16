import { deepFreeze } from './deep-freeze.ts';
import { readFile, readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateHostConfig, telemetrySettings } from '../functions/config/host-config.ts';
import { CHUTE_LABEL, CONTAINER_REF, type Device, type FsStats, type Settings } from '../functions/core/device.ts';
import { resetGuard } from '../runtime/changes/reset-guard.ts';
import { telemetryReport } from '../runtime/controller/telemetry.ts';
import { scenarioAccounts } from './scenario-accounts.ts';
import { hostConfigApplier, scenarioHostConfig } from './scenario-host-config.ts';
import { scenarioProvisioning } from './scenario-provisioning.ts';
import { rootedFiles } from '../runtime/device/files.ts';
import { DEFAULT_CHANGE_DELAY_MS, emulatedChanges } from './scenario-changes.ts';
import { loadChutes } from './scenario-chutes.ts';
import { scenarioNetworks } from './scenario-network.ts';
import { scenarioClock } from './scenario-clock.ts';
import {
  check,
  ContainerList,
  CONTAINERS_FILE,
  DEVICE_FILE,
  parseDeviceYaml,
  ScenarioError,
  StatsBody,
  STATS_DIR,
  statsFile,
  type DeviceYaml,
} from './scenario-format.ts';

export { ScenarioError } from './scenario-format.ts';

/** Environment variable naming the scenario to serve (`chutebox emulate`, the Lambda device module). */
export const SCENARIO_ENV = 'CHUTEBOX_SCENARIO';

/**
 * The scenarios shipped with chutebox: `fixtures/scenarios/` of the package, found from this module
 * both as source (`emulator/`) and as bundle (`dist/`), which sit at the same depth.
 */
export const BUILT_IN_SCENARIOS = new URL('../fixtures/scenarios/', import.meta.url);

/** A built-in scenario name: no slash, no leading dot. */
const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/** How a scenario is served. */
export interface ScenarioOptions {
  /** How long each step of a change takes, in milliseconds (default DEFAULT_CHANGE_DELAY_MS). */
  changeDelayMs?: number;
  /** A real controller's base URL for provisioning and telemetry; default the built-in fake controller. */
  controller?: string;
  /** What `settings()` answers (default none). */
  settings?: () => Settings;
  /** The device's clock, in milliseconds since the epoch (default the real one); tests inject one. */
  now?: () => number;
  /**
   * Serve /proc/uptime, /proc/stat and the lease files exactly as recorded, instead of replayed as if
   * recorded at the start (`scenarioClock`): how `chutebox record` checks what it wrote.
   */
  asRecorded?: boolean;
}

/** A loaded scenario: where it is, what it says about itself, and the Device that serves it. */
export interface Scenario {
  /** The name given, or the folder's base name for a path. */
  name: string;
  /** Absolute path of the scenario folder. */
  dir: string;
  description: string | null;
  device: Device;
}

/**
 * Loads a scenario and makes a Device over it: files (and symbolic links) through `rootedFiles` — the
 * same code the host uses on `/` — `uname` and `statfs` from `device.yaml`, containers and their stats
 * from the engine recordings, installed chutes from `chutes/` through the runtime's chute store (see
 * `loadChutes`), their networks from the recordings beside them (see `scenarioNetworks`: what a
 * request changes there lasts as long as this Device), `now()` from the real clock (or `options.now`),
 * the recording replayed as if taken at the start (see `scenarioClock`: uptime, boot time and lease
 * expiries follow `now()`, unless `options.asRecorded`), and chute changes
 * from an in-memory change log and runner (see `emulatedChanges`: what they do lasts as long as this
 * Device). Device configuration is the emulator's too: the host configuration (`scenarioHostConfig`:
 * `config/hostconfig.yaml` or the one generated from the hardware, pdconf rendered in memory),
 * provisioning with the built-in fake controller or `options.controller` (`scenarioProvisioning`,
 * telemetry sent as on a device), the accounts of `etc/passwd` and their keys (`scenarioAccounts`).
 * Everything is checked here, so a bad scenario fails at start-up with a message naming the file and
 * field.
 *
 * @param nameOrDir a built-in name such as `default` (no slash), or a folder path (any slash: `./x`, `/tmp/x`).
 * @param builtIn where built-in names are looked up; tests point it elsewhere.
 * @param options how changes are emulated.
 * @throws ScenarioError
 * @example
 * const { device } = await loadScenario('default');
 * await device.readFile('/proc/cpuinfo');
 */
export async function loadScenario(nameOrDir: string, builtIn: URL = BUILT_IN_SCENARIOS, options: ScenarioOptions = {}): Promise<Scenario> {
  const dir = await resolveScenario(nameOrDir, builtIn);
  const spec = parseDeviceYaml(await readFile(path.join(dir, DEVICE_FILE), 'utf8'), path.join(dir, DEVICE_FILE));
  const engine = await loadEngine(dir);
  const chutes = await loadChutes(dir);
  const now = options.now ?? Date.now;
  const files = rootedFiles(dir);
  const clock = options.asRecorded ? undefined : scenarioClock(files, now);
  // The facets read the device they belong to: its hardware, its chutes (as changes left them), its telemetry.
  let device: Device | undefined;
  const self = () => device!;
  const provisioning = scenarioProvisioning({
    report: () => telemetryReport(self()),
    ...(options.controller === undefined ? {} : { controller: options.controller }),
  });
  const hostConfig = await scenarioHostConfig(dir, {
    chutes: { chuteNames: () => self().chuteNames(), chute: (name) => self().chute(name) },
    generate: () => generateHostConfig(self()),
    onApplied: (config) => provisioning.configure(telemetrySettings(config)),
  });
  /** Provisioning and a pdconf reload are refused during a factory reset, as on a device. */
  const guard = resetGuard();
  device = emulatedChanges(
    {
      ...scenarioDevice(clock === undefined ? files : { ...files, readFile: clock.readFile }, spec, engine, now),
      ...chutes,
      network: scenarioNetworks(dir, clock),
      hostConfig: { ...hostConfig, reloadPdconf: async () => (guard.refuse(), hostConfig.reloadPdconf()) },
      provisioning: { status: () => provisioning.status(), provision: async (credentials) => (guard.refuse(), provisioning.provision(credentials)) },
      accounts: scenarioAccounts(files),
      settings: async () => options.settings?.() ?? {},
    },
    {
      delayMs: options.changeDelayMs ?? DEFAULT_CHANGE_DELAY_MS,
      applyHostConfig: hostConfigApplier(hostConfig),
      async resetDevice() {
        await provisioning.clear();
        await hostConfig.reset();
      },
      resetGuard: guard,
    },
  );
  // As a device's first start does: the system configuration is rendered and applied.
  await hostConfig.refresh();
  provisioning.configure(telemetrySettings(await hostConfig.current()));
  return { name: nameOrDir.includes('/') ? path.basename(dir) : nameOrDir, dir, description: spec.description ?? null, device };
}

/**
 * The folder of a scenario.
 *
 * @throws ScenarioError for an unknown name (listing the built-in ones) or a folder without `device.yaml`.
 * @example
 * await resolveScenario('default')        // '/…/chutebox/fixtures/scenarios/default'
 * await resolveScenario('./my-recording') // '/…/cwd/my-recording'
 */
export async function resolveScenario(nameOrDir: string, builtIn: URL = BUILT_IN_SCENARIOS): Promise<string> {
  if (nameOrDir.includes('/')) {
    const dir = path.resolve(nameOrDir);
    if (!(await isDirectory(dir))) throw new ScenarioError(`no scenario folder at ${dir}`);
    if (!(await isFile(path.join(dir, DEVICE_FILE)))) throw new ScenarioError(`${dir} is not a scenario: it has no ${DEVICE_FILE}`);
    return dir;
  }
  const known = await builtInScenarios(builtIn);
  if (!NAME.test(nameOrDir) || !known.includes(nameOrDir)) {
    const list = known.length > 0 ? known.join(', ') : '(none found)';
    throw new ScenarioError(
      `unknown scenario ${JSON.stringify(nameOrDir)}; built-in scenarios: ${list} (a folder path needs a slash, e.g. ./${nameOrDir})`,
    );
  }
  return fileURLToPath(new URL(`${nameOrDir}/`, builtIn)).replace(/\/$/, '');
}

/** Names of the built-in scenarios (folders with a `device.yaml`), sorted. */
export async function builtInScenarios(builtIn: URL = BUILT_IN_SCENARIOS): Promise<string[]> {
  const root = fileURLToPath(builtIn);
  let entries: string[];
  try {
    entries = await readdir(root);
  } catch {
    return [];
  }
  const names: string[] = [];
  for (const entry of entries.sort()) {
    if (NAME.test(entry) && (await isFile(path.join(root, entry, DEVICE_FILE)))) names.push(entry);
  }
  return names;
}

/** The Device of a scenario whose raw files, `device.yaml` and engine recordings are already at hand, less its chutes. */
function scenarioDevice(
  files: ReturnType<typeof rootedFiles>,
  spec: DeviceYaml,
  engine: Engine | null,
  now: () => number,
): Omit<Device, 'chuteNames' | 'chute' | 'network' | 'submitChange' | 'change' | 'changes' | 'loadImage' | 'hostConfig' | 'provisioning' | 'accounts' | 'settings' | 'factoryReset'> {
  const statfs = new Map<string, FsStats>(Object.entries(spec.statfs ?? {}).map(([mount, stats]) => [mountKey(mount), stats]));
  return {
    ...files,
    async statfs(mountPoint) {
      const stats = statfs.get(mountKey(mountPoint));
      return stats === undefined ? null : { ...stats };
    },
    async uname() {
      return { ...spec.uname };
    },
    now,
    // The recordings are frozen (`loadEngine`): every call shares them, as calls share an engine request on a device.
    async containers() {
      return engine === null ? null : engine.containers;
    },
    async containerStats(id) {
      return engine?.stats.get(id) ?? null;
    },
  };
}

/** `/boot/` and `/boot` are the same mount point. */
function mountKey(mountPoint: string): string {
  const normal = path.posix.normalize(mountPoint);
  return normal.length > 1 ? normal.replace(/\/$/, '') : normal;
}

/** The engine recordings of a scenario, read and checked. */
interface Engine {
  /** The entries of `engine/containers.json` that carry the chute label. */
  containers: Record<string, unknown>[];
  /** Container id → the body of `engine/stats/<id>.json`. */
  stats: Map<string, Record<string, unknown>>;
}

/**
 * Reads the engine recordings: `engine/containers.json`, whose entries that carry the chute label
 * `containers()` answers, and every `engine/stats/<id>.json`, which `containerStats(id)` answers.
 * Null when there is no `engine/containers.json` (the device has no engine).
 */
async function loadEngine(dir: string): Promise<Engine | null> {
  const listFile = path.join(dir, CONTAINERS_FILE);
  const list = await readJson(listFile);
  if (list === undefined) return null;
  const entries = check(ContainerList, list, `${listFile} is not a container list`);
  const containers = entries.filter((entry) => typeof (entry.Labels as Record<string, unknown> | undefined)?.[CHUTE_LABEL] === 'string');
  const ids = (await readdir(path.join(dir, STATS_DIR)).catch(() => []))
    .filter((name) => name.endsWith('.json'))
    .map((name) => name.slice(0, -'.json'.length))
    .filter((id) => CONTAINER_REF.test(id));
  const stats = new Map<string, Record<string, unknown>>();
  for (const id of ids.sort()) {
    const file = path.join(dir, statsFile(id));
    const body = await readJson(file);
    if (body !== undefined) stats.set(id, check(StatsBody, body, `${file} is not a stats body`));
  }
  return { containers: deepFreeze(containers), stats: new Map([...stats].map(([id, body]) => [id, deepFreeze(body)])) };
}


/** A JSON file's value, or undefined when the file does not exist. */
async function readJson(file: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new ScenarioError(`cannot read ${file}: ${(error as Error).message}`);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new ScenarioError(`${file} is not valid JSON: ${(error as Error).message}`);
  }
}

async function isDirectory(file: string): Promise<boolean> {
  return stat(file).then((s) => s.isDirectory(), () => false);
}

async function isFile(file: string): Promise<boolean> {
  return stat(file).then((s) => s.isFile(), () => false);
}
