import path from 'node:path';
import { compiledScenario } from './compiled.ts';
import { emulateScenario, type Scenario, type ScenarioOptions } from './core.ts';
import { readScenarioDocuments } from './documents.ts';
import { scenarioFiles } from './files.ts';
import { BUILT_IN_SCENARIOS, isScenarioName, resolveScenario } from './names.ts';
import { treeFiles } from './tree.ts';

export { ScenarioError } from '../../runtime/scenario/format.ts';
export { EMULATOR_STATE_VERSION, type EmulatorState, type EmulatorStateApi } from '../emulator-state.ts';
export { BUILT_IN_SCENARIOS, builtInScenarios, resolveScenario } from './names.ts';
export { emulateScenario, scenarioFromDocument, type Scenario, type ScenarioOptions, type ScenarioSource } from './core.ts';

/** Environment variable naming the scenario to serve (`chutebox emulate`, the Lambda device module). */
export const SCENARIO_ENV = 'CHUTEBOX_SCENARIO';

/**
 * Loads a scenario and makes a Device over it: files (and symbolic links) through `rootedFiles` — the
 * same code the host uses on `/` — each read once and then served from memory (`scenarioFiles`),
 * `uname`, `statfs` and `programs` from `device.yaml`, containers and their stats from the engine recordings,
 * installed chutes from `chutes/` as the runtime's chute store reads them (see `readChutes`), their
 * networks from the recordings beside them (see `scenarioNetworks`: what a request changes there
 * lasts as long as this Device), `now()` from the real clock (or `options.now`), the recording
 * replayed as if taken at the start (see `scenarioClock`: uptime, boot time and lease expiries follow
 * `now()`, unless `options.asRecorded`), the chutes' logs from `chutes/<chute>/logs` replayed on that
 * clock (see `recordedLogs`), and chute changes from an in-memory change log and runner
 * (see `emulatedChanges`: what they do lasts as long as this Device). Device configuration is the
 * emulator's too: the host configuration (`memoryHostConfig`: `config/hostconfig.yaml` or the one
 * generated from the hardware, pdconf rendered in memory), provisioning with the built-in fake
 * controller or `options.controller` (`scenarioProvisioning`, telemetry sent as on a device), the
 * accounts of `etc/passwd` and their keys (`scenarioAccounts`). Its events (`eventBuffer`) are what it
 * does itself: the steps of its changes and the chute states they set, the stations a request
 * disconnects, the host configurations applied and the deliveries to the controller.
 *
 * What requests change is the device's state (`EmulatorState`), which the answer snapshots, restores
 * and resets. The networks and the clock are restored in place (a hostapd control websocket keeps its
 * network); the chutes, the engine, the changes, the host configuration, provisioning and the
 * accounts are made anew from the state, and the one `device` is given its methods, so that nothing
 * under way before a restore (a change's next step, a telemetry timer, a provisioning check) reaches
 * the state after it.
 *
 * Everything is checked here, so a bad scenario fails at start-up with a message naming the file and
 * field. The documents (`device.yaml`, the engine recordings, the chutes, `config/hostconfig.yaml`)
 * are read here and a raw file when first asked for; none is read again. A scenario is a recording:
 * after editing one, start the emulator again. A built-in scenario's documents come compiled from the
 * build when there are (`compiledScenario`: no YAML is parsed at start, and the raw files are served
 * from the compiled tree, `treeFiles`); a folder given by path is parsed and checked here. The
 * device itself is made by `emulateScenario`, which also serves a compiled scenario given as a
 * document (`scenarioFromDocument`, the browser's way).
 *
 * @param nameOrDir a built-in name such as `default` (no slash), or a folder path (any slash: `./x`, `/tmp/x`).
 * @param builtIn where built-in names are looked up; tests point it elsewhere.
 * @param options how changes are emulated.
 * @throws ScenarioError
 * @example
 * const { device, snapshot, reset } = await loadScenario('default');
 * await device.readFile('/proc/cpuinfo');
 * const saved = await snapshot(); // … requests change things …
 * await reset(); // every answer is the scenario's again
 */
export async function loadScenario(nameOrDir: string, builtIn: URL = BUILT_IN_SCENARIOS, options: ScenarioOptions = {}): Promise<Scenario & { dir: string }> {
  const dir = await resolveScenario(nameOrDir, builtIn);
  const name = isScenarioName(nameOrDir) ? nameOrDir : path.basename(dir);
  const compiled = isScenarioName(nameOrDir) && builtIn.href === BUILT_IN_SCENARIOS.href ? await compiledScenario(nameOrDir) : null;
  const documents = compiled ?? (await readScenarioDocuments(dir));
  const files = compiled === null ? scenarioFiles(dir) : treeFiles(compiled.files);
  return emulateScenario({ name, dir, documents, files }, options) as Scenario & { dir: string };
}
