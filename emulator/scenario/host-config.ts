import path from 'node:path';
import * as z from 'zod/mini';
import { en } from 'zod/locales';
import { parseYaml } from '../../functions/core/body/index.ts';
import { hostConfigFor, type HostConfig } from '../../functions/config/host-config.ts';
import { HostConfigBodySchema } from '../../functions/config/host-config-body.ts';
import type { Device } from '../../functions/core/device/index.ts';
import {
  hostConfigService,
  HOST_CONFIG_FILE,
  PREVIOUS_HOST_CONFIG_FILE,
  type HostConfigService,
  type HostConfigServiceOptions,
} from '../../runtime/device-config/host-config.ts';
import { memoryStore, PDCONF_STORE_FILES, pdconfEngine, type Applier } from '../../runtime/device-config/pdconf.ts';
import { rootedFiles } from '../../runtime/device/files.ts';
import { check, ScenarioError } from '../../runtime/scenario/format.ts';

/** A scenario's optional host configuration, relative to the scenario folder. */
export const SCENARIO_HOST_CONFIG = 'config/hostconfig.yaml';

/** How the emulator applies a pdconf file: it has no system to apply it to, so every apply succeeds. */
export const emulatedApply: Applier = async () => ({ success: true, comment: 'applied (emulated)' });

/** Whether a text is a host configuration in YAML that a PUT would take (`HostConfigBodySchema`). */
function isHostConfigYaml(text: string): boolean {
  let value: unknown;
  try {
    value = parseYaml(text);
  } catch {
    return false;
  }
  return HostConfigBodySchema.safeParse(value ?? {}, { error: en().localeError }).success;
}

const storedYaml = z.nullable(z.string().check(z.refine(isHostConfigYaml, 'must be a host configuration in YAML, as PUT /api/v1/config/hostconfig takes it')));

/**
 * The host configuration's part of an emulator state (emulator/emulator-state.ts): the stored
 * configuration (null: none, the generated one applies) and the one it replaced, as YAML, and what
 * pdconf rendered, file by file (`network`, `wireless`, `dhcp`, `firewall`, and its `status.json`; `{}`:
 * nothing yet, rendered on first use).
 */
export const HostConfigStateSchema = z.strictObject({
  stored: storedYaml,
  previous: storedYaml,
  pdconf: z.record(
    z.string().check(z.refine((name: string) => PDCONF_STORE_FILES.includes(name), `must be a file of pdconf: ${PDCONF_STORE_FILES.join(', ')}`)),
    z.string(),
  ),
});
export type HostConfigState = z.infer<typeof HostConfigStateSchema>;

export interface MemoryHostConfigOptions {
  /** The stored configuration as YAML, or null (the default) for none: the generated one applies. */
  stored?: string | null;
  /** Starts from the documents and the rendered files of a snapshot instead (`stored` is then not used). */
  state?: HostConfigState;
  /** The installed chutes whose networks pdconf renders; none by default. */
  chutes?: Pick<Device, 'chuteNames' | 'chute'>;
  /** The generated configuration; by default that of a device without Ethernet or radios. */
  generate?: () => Promise<HostConfig>;
  /** How a pdconf file applies; by default `emulatedApply`. Tests pass a failing one. */
  apply?: Applier;
  /** The clock, ms since the epoch; default Date.now. */
  now?: () => number;
  onApplied?: (config: HostConfig) => void;
  /** Where each update and reset goes as a `hostconfig.applied` event (the device's events). */
  publish?: HostConfigServiceOptions['publish'];
}

/**
 * The host configuration in memory: what the emulator, test/support/memory-device.ts and handler tests use.
 * The same code as the runtime's (`hostConfigService`: storing, pdconf rendering, rollback), over
 * memory; `documents` and `rendered` show what it stores, for tests, and `snapshot()` answers it as a
 * state (the rollback file of an update under way left out), which `state` restores.
 *
 * @example
 * const hostConfig = memoryHostConfig({ stored: 'firewall: …' });
 * await hostConfig.read(); // 'firewall: …'
 */
export function memoryHostConfig(options: MemoryHostConfigOptions = {}): HostConfigService & {
  documents: Map<string, string>;
  rendered: Map<string, string>;
  snapshot(): HostConfigState;
} {
  const { state } = options;
  const documents = memoryStore(
    state === undefined
      ? options.stored == null
        ? {}
        : { [HOST_CONFIG_FILE]: options.stored }
      : {
          ...(state.stored === null ? {} : { [HOST_CONFIG_FILE]: state.stored }),
          ...(state.previous === null ? {} : { [PREVIOUS_HOST_CONFIG_FILE]: state.previous }),
        },
  );
  const rendered = memoryStore(state?.pdconf);
  const service = hostConfigService({
    documents,
    pdconf: (source) => pdconfEngine({ store: rendered, apply: options.apply ?? emulatedApply, now: options.now ?? Date.now, source }),
    chutes: options.chutes ?? { chuteNames: async () => [], chute: async () => null },
    generate: options.generate ?? (async () => hostConfigFor([], [])),
    ...(options.onApplied === undefined ? {} : { onApplied: options.onApplied }),
    ...(options.publish === undefined ? {} : { publish: options.publish }),
  });
  // Added to the service, not spread into a literal with them: one hidden class for every device (docs/performance.md#objects-made-per-device).
  return Object.assign(service, {
    documents: documents.files,
    rendered: rendered.files,
    snapshot: () => ({
      stored: documents.files.get(HOST_CONFIG_FILE) ?? null,
      previous: documents.files.get(PREVIOUS_HOST_CONFIG_FILE) ?? null,
      pdconf: Object.fromEntries(PDCONF_STORE_FILES.flatMap((name) => (rendered.files.has(name) ? [[name, rendered.files.get(name)!]] : []))),
    }),
  });
}

/**
 * The text of a scenario's `config/hostconfig.yaml`, checked as a PUT body is, or null when it has
 * none (the generated configuration applies): what `memoryHostConfig` takes as `stored`.
 *
 * @throws ScenarioError naming the file and every bad field.
 * @example
 * memoryHostConfig({ ...options, stored: await readScenarioHostConfig('fixtures/scenarios/default') });
 */
export async function readScenarioHostConfig(dir: string): Promise<string | null> {
  const file = path.join(dir, SCENARIO_HOST_CONFIG);
  const text = await rootedFiles(dir).readFile(`/${SCENARIO_HOST_CONFIG}`);
  if (text === null) return null;
  let value: unknown;
  try {
    value = parseYaml(text);
  } catch (error) {
    throw new ScenarioError(`${file} is not valid YAML: ${(error as Error).message}`);
  }
  check(HostConfigBodySchema, value ?? {}, `${file} is not a valid host configuration`);
  return text;
}
