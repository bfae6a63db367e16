import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { parse } from 'yaml';
import * as z from 'zod/mini';
import { ChuteConfigSchema } from '../../functions/chutes/chute-config.ts';
import { CHUTE_NAME, type Device, type StoredChute } from '../../functions/core/device/index.ts';
import { chuteStore } from '../../runtime/chutes/store.ts';
import { deepFreeze } from '../../functions/core/deep-freeze.ts';
import { jsonCopy } from './json-copy.ts';
import { check, chuteLogFile, CHUTES_DIR, NETWORK_FILES, parseLogFile, ScenarioError, YAML_CHUTE_FORMAT } from '../../runtime/scenario/format.ts';

const DOCUMENTS = ['chute', 'service', 'cache'] as const;
const RECORDINGS: readonly string[] = Object.values(NETWORK_FILES);

const maybeString = z.optional(z.nullable(z.string()));

/** What the emulator reads of `cache.yaml`: the host resources behind each network. */
export const ChuteCache = z.looseObject({
  networks: z.optional(z.record(z.string(), z.looseObject({ hostInterface: maybeString, hostapdControl: maybeString, leaseFile: maybeString }))),
});

/** A chute's documents as a scenario holds them: what `Device.chute(name)` answers, less the name. */
export type ChuteDocuments = Omit<StoredChute, 'name'>;

/**
 * The chutes of a scenario folder, read and checked: `chutes/<chute>/chute.yaml`, `service.yaml`
 * and optional `cache.yaml`, read by the runtime's chute store (`runtime/chutes/store.ts`) in YAML,
 * by chute name (sorted). Everything is checked here, so a bad scenario fails at start-up naming the
 * file: each document must be YAML holding a mapping, `service.yaml` a chute configuration as the API
 * takes one (`ChuteConfigSchema`), `cache.yaml`'s `networks.<network>` hold strings, and every
 * `networks/<network>/` folder must belong to an entry of `net` and hold only the recordings of
 * `NETWORK_FILES`, and a `logs` file must be a log (`parseLogFile`). Folders whose name starts with a
 * dot are ignored.
 *
 * @throws ScenarioError
 * @example
 * Object.keys(await readChutes('fixtures/scenarios/default')); // ['hello-world', 'hotspot']
 */
export async function readChutes(dir: string): Promise<Record<string, ChuteDocuments>> {
  const root = path.join(dir, CHUTES_DIR);
  const store = chuteStore(root, YAML_CHUTE_FORMAT);
  const chutes: Record<string, ChuteDocuments> = {};
  for (const entry of await folders(root)) {
    const folder = path.join(root, entry);
    if (!CHUTE_NAME.test(entry)) {
      throw new ScenarioError(`${folder}: ${JSON.stringify(entry)} is not a chute name (a letter or digit, then letters, digits, "_", "." or "-", 64 at most)`);
    }
    for (const base of DOCUMENTS) await checkYaml(path.join(folder, `${base}${YAML_CHUTE_FORMAT.extension}`));
    const chute = await store.chute(entry).catch((error: unknown) => {
      throw new ScenarioError((error as Error).message);
    });
    if (chute === null) throw new ScenarioError(`${folder} is not a chute: it has no chute.yaml`);
    const { net } = check(ChuteConfigSchema, chute.config, `${path.join(folder, 'service.yaml')} is not a chute configuration`);
    check(ChuteCache, chute.cache, `${path.join(folder, 'cache.yaml')} is not a chute cache`);
    await checkNetworkFolders(path.join(folder, 'networks'), Object.keys(net ?? {}));
    await checkLogFile(dir, entry);
    chutes[entry] = { record: chute.record, config: chute.config, cache: chute.cache };
  }
  return chutes;
}

/**
 * Installed chutes served from memory, as the emulator serves a scenario's: `chuteNames()` and
 * `chute(name)` answer what the runtime's chute store answers for the folder the documents were read
 * from. Every call answers the same deep-frozen chute: a caller that tried to edit it throws instead of
 * changing every later answer.
 *
 * @example
 * const chutes = storedChutes(await readChutes('fixtures/scenarios/default'));
 * (await chutes.chute('hotspot'))?.record.version; // '2.1'
 */
export function storedChutes(documents: Record<string, ChuteDocuments>): Pick<Device, 'chuteNames' | 'chute'> {
  const names = Object.keys(documents).sort();
  const chutes = new Map(names.map((name) => [name, deepFreeze({ name, ...jsonCopy(documents[name]!) })]));
  return {
    chuteNames: async () => [...names],
    chute: async (name) => chutes.get(name) ?? null,
  };
}

/** The chute's log file is a log (`parseLogFile`), or missing. */
async function checkLogFile(dir: string, chute: string): Promise<void> {
  const file = path.join(dir, chuteLogFile(chute));
  const text = await readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return null;
    throw new ScenarioError(`cannot read ${file}: ${error.message}`);
  });
  if (text !== null) parseLogFile(text, file);
}

/** A YAML file parses (or is missing). */
async function checkYaml(file: string): Promise<void> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw new ScenarioError(`cannot read ${file}: ${(error as Error).message}`);
  }
  try {
    parse(text);
  } catch (error) {
    throw new ScenarioError(`${file} is not valid YAML: ${(error as Error).message}`);
  }
}

/** Each recording folder belongs to a network of `net` and holds only recordings by their names. */
async function checkNetworkFolders(dir: string, networks: string[]): Promise<void> {
  for (const network of await folders(dir)) {
    const folder = path.join(dir, network);
    if (!networks.includes(network)) {
      throw new ScenarioError(`${folder} records a network that service.yaml's net does not have (it has: ${networks.join(', ') || 'none'})`);
    }
    for (const file of await readdir(folder)) {
      if (!RECORDINGS.includes(file) && !file.startsWith('.')) {
        throw new ScenarioError(`${path.join(folder, file)} is not a network recording; their names are ${RECORDINGS.join(', ')}`);
      }
    }
  }
}

/** Sub-folders of a folder, sorted, without hidden ones; none when it is missing. */
async function folders(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  return entries
    .filter((entry) => entry.isDirectory() && !entry.name.startsWith('.'))
    .map((entry) => entry.name)
    .sort();
}
