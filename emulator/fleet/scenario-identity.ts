import { deepFreeze } from '../../functions/core/deep-freeze.ts';
import type { Device } from '../../functions/core/device/index.ts';
import { ScenarioError } from '../../runtime/scenario/format.ts';
import type { ScenarioDocuments } from '../scenario/documents.ts';
import type { ScenarioTree } from '../scenario/tree.ts';
import { documentPlan, planned, type DocumentPlan } from './identity-documents.ts';
import { documentSite, fileSites } from './identity-sites.ts';
import { filled, recordedMacs, textTemplate, type IdentityTables, type TextTemplate } from './identity-texts.ts';
import { CONTAINER_SLOTS, MAC_SLOTS, type MemberIdentity } from './identity-values.ts';

/**
 * The identity a scenario recorded, found once when a fleet loads it (docs/decisions/0055-a-fleet-of-emulated-routers.md):
 * every MAC in its texts and documents, the engine's container ids, and the values of `identity-sites.ts`.
 * Shared by every device of the fleet that runs the scenario; each rewrites what it reads with it.
 */
export interface ScenarioIdentity {
  /** The MACs and container ids by slot, and the marked SSIDs. */
  tables: IdentityTables;
  /** The template of each raw text that holds a value, by the text. */
  texts: ReadonlyMap<string, TextTemplate>;
  /** Where the documents hold values, or null when they hold none. */
  documents: DocumentPlan | null;
}

/** The documents a device reads, without the raw files of a compiled scenario. */
const DOCUMENT_KEYS = ['device', 'engine', 'chutes', 'hostConfig', 'living'] as const;

/** A container id of an engine: 64 hexadecimal digits. */
const LONG_ID = /^[0-9a-f]{64}$/;

/**
 * Finds the identity of a scenario: its documents, its raw files (`tree`), and those files served
 * (`files`, which resolves the paths where a device reads them).
 *
 * @throws ScenarioError for a scenario with more MACs or container ids than a device can map.
 */
export async function scenarioIdentity(documents: ScenarioDocuments, tree: ScenarioTree, files: Pick<Device, 'realPath'>): Promise<ScenarioIdentity> {
  const texts = Object.entries(tree).flatMap(([at, entry]) => ('file' in entry ? [[at, entry.file] as const] : []));
  const tables: IdentityTables = {
    macs: slots([...texts.flatMap(([, text]) => recordedMacs(text)), ...documentStrings(documents).flatMap(recordedMacs)], MAC_SLOTS, 'MAC addresses'),
    containers: slots(containerIds(documents), CONTAINER_SLOTS, 'container ids'),
    ssids: new Set(documents.device.identity?.ssids ?? []),
  };
  const networks = Object.fromEntries(
    Object.entries(documents.chutes).map(([chute, { config }]) => [chute, Object.keys((config.net as object | undefined) ?? {})]),
  );
  const sites = await fileSites(files, networks, tables.ssids);
  const templates = new Map<string, TextTemplate>();
  for (const [at, text] of texts) {
    const site = sites.get(at);
    // The same text at two places is read the same at both: a place of its own decides.
    if (templates.has(text) && site === undefined) continue;
    const template = textTemplate(text, tables, site);
    if (template !== null) templates.set(text, template);
  }
  const plan = documentPlan(pick(documents), tables, (path) => documentSite(path, tables.ssids));
  return { tables, texts: templates, documents: plan };
}

/**
 * A raw text as a device with `identity` reads it: the scenario's own text, shared, when it holds no
 * identity value.
 */
export function identityText(scenario: ScenarioIdentity, text: string, identity: MemberIdentity): string {
  const template = scenario.texts.get(text);
  return template === undefined ? text : filled(template, identity);
}

/**
 * The documents as a device with `identity` reads them: each made when it is first read (`planned`:
 * copied only on the way to its values), deep-frozen, and kept for as long as the device is built, so
 * that a device read again answers the same objects and the builds kept by them hold
 * (docs/decisions/0071-a-fleet-device-keeps-its-documents.md).
 */
export class IdentityDocuments implements ScenarioDocuments {
  readonly #scenario: ScenarioIdentity;
  readonly #documents: ScenarioDocuments;
  readonly #identity: MemberIdentity;
  /** The documents read so far, as rewritten. */
  readonly #kept = new Map<string, unknown>();

  constructor(scenario: ScenarioIdentity, documents: ScenarioDocuments, identity: MemberIdentity) {
    this.#scenario = scenario;
    this.#documents = documents;
    this.#identity = identity;
  }

  get device() {
    return this.#read('device');
  }
  get engine() {
    return this.#read('engine');
  }
  get chutes() {
    return this.#read('chutes');
  }
  get hostConfig() {
    return this.#read('hostConfig');
  }
  get living() {
    return this.#read('living');
  }

  #read<K extends (typeof DOCUMENT_KEYS)[number]>(key: K): ScenarioDocuments[K] {
    const plan = this.#scenario.documents;
    const part = plan === null || 'literals' in plan ? undefined : plan.members.get(key);
    if (part === undefined) return this.#documents[key];
    if (!this.#kept.has(key)) this.#kept.set(key, deepFreeze(planned(this.#documents[key], part, this.#identity)));
    return this.#kept.get(key) as ScenarioDocuments[K];
  }
}

/** The documents a device reads, by their keys. */
function pick(documents: ScenarioDocuments): Partial<ScenarioDocuments> {
  return Object.fromEntries(DOCUMENT_KEYS.filter((key) => documents[key] !== undefined).map((key) => [key, documents[key]]));
}

/** Every string of the documents, keys too. */
function documentStrings(documents: ScenarioDocuments): string[] {
  const strings: string[] = [];
  const walk = (value: unknown): void => {
    if (typeof value === 'string') strings.push(value);
    else if (typeof value === 'object' && value !== null) {
      for (const [key, member] of Object.entries(value)) {
        if (!Array.isArray(value)) strings.push(key);
        walk(member);
      }
    }
  };
  walk(pick(documents));
  return strings;
}

/** The container ids of the engine recordings: each container's `Id` and each stats body's. */
function containerIds(documents: ScenarioDocuments): string[] {
  const ids = [...(documents.engine?.containers ?? []).map((container) => container.Id), ...Object.keys(documents.engine?.stats ?? {})];
  return ids.filter((id): id is string => typeof id === 'string' && LONG_ID.test(id));
}

/** Each distinct value by its place in sorted order: the same slots whatever order they were found in. */
function slots(values: readonly string[], max: number, what: string): Map<string, number> {
  const sorted = [...new Set(values)].sort();
  if (sorted.length > max) throw new ScenarioError(`a fleet's devices can each map ${max} ${what} of a scenario; this one has ${sorted.length}`);
  return new Map(sorted.map((value, slot) => [value, slot]));
}
