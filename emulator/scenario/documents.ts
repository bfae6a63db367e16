import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { CHUTE_LABEL, CONTAINER_REF } from '../../functions/core/device/index.ts';
import { readChutes, type ChuteDocuments } from './chutes.ts';
import {
  check,
  ContainerList,
  CONTAINERS_FILE,
  DEVICE_FILE,
  parseDeviceYaml,
  parseSnapdFile,
  ScenarioError,
  SNAPD_FILE,
  StatsBody,
  STATS_DIR,
  statsFile,
  type DeviceYaml,
} from '../../runtime/scenario/format.ts';
import { readScenarioHostConfig } from './host-config.ts';
import { LIVING_FILE, parseLivingYaml, type Living } from '../living/spec.ts';

/**
 * What a scenario says besides its raw device files, parsed and checked: everything the emulator
 * reads of the folder at start. Plain JSON values, so that the build can write a built-in scenario's
 * documents as JSON (`dist/scenarios/<name>.json`, see scenario-compile.ts) and the emulator read them
 * back without parsing YAML.
 */
export interface ScenarioDocuments {
  /** `device.yaml`. */
  device: DeviceYaml;
  /** The engine recordings, or null when there is no `engine/containers.json` (the device has no engine). */
  engine: EngineRecordings | null;
  /** `chutes/<chute>/*.yaml` by chute name, sorted. */
  chutes: Record<string, ChuteDocuments>;
  /** The text of `config/hostconfig.yaml`, or null without one. */
  hostConfig: string | null;
  /**
   * `living.yaml`, checked: the rates and timeline of its living network; null without one (the
   * network is still, as recorded). A scenario compiled before there was one has none.
   */
  living?: Living | null;
}

/** The engine recordings of a scenario. */
export interface EngineRecordings {
  /** The entries of `engine/containers.json` that carry the chute label. */
  containers: Record<string, unknown>[];
  /** Container id → the body of `engine/stats/<id>.json`, ids sorted. */
  stats: Record<string, Record<string, unknown>>;
}

/**
 * Reads and checks a scenario folder's documents: `device.yaml`, the engine recordings, the chutes
 * (`readChutes`), `config/hostconfig.yaml` (`readScenarioHostConfig`) and `living.yaml`
 * (`parseLivingYaml`), in that order; then that `snapd.yaml`, a raw file the device reads when asked, is a recorded snapd.
 *
 * @throws ScenarioError naming the file and field of the first problem found.
 * @example
 * const { device } = await readScenarioDocuments('fixtures/scenarios/gl-ar150');
 * device.uname.machine; // 'mips'
 */
export async function readScenarioDocuments(dir: string): Promise<ScenarioDocuments> {
  const file = path.join(dir, DEVICE_FILE);
  const device = parseDeviceYaml(await readFile(file, 'utf8'), file);
  const engine = await readEngine(dir);
  const chutes = await readChutes(dir);
  const hostConfig = await readScenarioHostConfig(dir);
  const living = await readLiving(dir);
  await checkSnapd(dir);
  return { device, engine, chutes, hostConfig, living };
}

/** `snapd.yaml` is a recorded snapd (`parseSnapdFile`), or missing. */
async function checkSnapd(dir: string): Promise<void> {
  const file = path.join(dir, SNAPD_FILE);
  const text = await readText(file);
  if (text !== null) parseSnapdFile(text, file);
}

/** `living.yaml`, checked; null when the scenario has none. */
async function readLiving(dir: string): Promise<Living | null> {
  const file = path.join(dir, LIVING_FILE);
  const text = await readText(file);
  return text === null ? null : parseLivingYaml(text, file);
}

/**
 * Reads the engine recordings: `engine/containers.json`, whose entries that carry the chute label
 * `containers()` answers, and every `engine/stats/<id>.json`, which `containerStats(id)` answers.
 * Null when there is no `engine/containers.json` (the device has no engine).
 */
async function readEngine(dir: string): Promise<EngineRecordings | null> {
  const listFile = path.join(dir, CONTAINERS_FILE);
  const list = await readJson(listFile);
  if (list === undefined) return null;
  const entries = check(ContainerList, list, `${listFile} is not a container list`);
  const containers = entries.filter((entry) => typeof (entry.Labels as Record<string, unknown> | undefined)?.[CHUTE_LABEL] === 'string');
  const ids = (await readdir(path.join(dir, STATS_DIR)).catch(() => []))
    .filter((name) => name.endsWith('.json'))
    .map((name) => name.slice(0, -'.json'.length))
    .filter((id) => CONTAINER_REF.test(id));
  const stats: Record<string, Record<string, unknown>> = {};
  for (const id of ids.sort()) {
    const file = path.join(dir, statsFile(id));
    const body = await readJson(file);
    if (body !== undefined) stats[id] = check(StatsBody, body, `${file} is not a stats body`);
  }
  return { containers, stats };
}

/** A JSON file's value, or undefined when the file does not exist. */
async function readJson(file: string): Promise<unknown> {
  const text = await readText(file);
  if (text === null) return undefined;
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new ScenarioError(`${file} is not valid JSON: ${(error as Error).message}`);
  }
}

/** A file's text, or null when the file does not exist. */
async function readText(file: string): Promise<string | null> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new ScenarioError(`cannot read ${file}: ${(error as Error).message}`);
  }
}
