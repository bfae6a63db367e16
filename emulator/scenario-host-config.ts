import path from 'node:path';
import { parseYaml } from '../functions/core/body-formats.ts';
import { hostConfigFor, type HostConfig } from '../functions/config/host-config.ts';
import { HostConfigBodySchema } from '../functions/config/host-config-body.ts';
import type { Device } from '../functions/core/device.ts';
import { hostConfigService, HOST_CONFIG_FILE, type HostConfigService } from '../runtime/config/host-config.ts';
import { memoryStore, pdconfEngine, type Applier } from '../runtime/config/pdconf.ts';
import { rootedFiles } from '../runtime/device/files.ts';
import { check, ScenarioError } from '../runtime/scenario/format.ts';

/** A scenario's optional host configuration, relative to the scenario folder. */
export const SCENARIO_HOST_CONFIG = 'config/hostconfig.yaml';

/** How the emulator applies a pdconf file: it has no system to apply it to, so every apply succeeds. */
export const emulatedApply: Applier = async () => ({ success: true, comment: 'applied (emulated)' });

export interface MemoryHostConfigOptions {
  /** The stored configuration as YAML, or null (the default) for none: the generated one applies. */
  stored?: string | null;
  /** The installed chutes whose networks pdconf renders; none by default. */
  chutes?: Pick<Device, 'chuteNames' | 'chute'>;
  /** The generated configuration; by default that of a device without Ethernet or radios. */
  generate?: () => Promise<HostConfig>;
  /** How a pdconf file applies; by default `emulatedApply`. Tests pass a failing one. */
  apply?: Applier;
  /** The clock, ms since the epoch; default Date.now. */
  now?: () => number;
  onApplied?: (config: HostConfig) => void;
}

/**
 * The host configuration in memory: what the emulator, test/support/memory-device.ts and handler tests use.
 * The same code as the runtime's (`hostConfigService`: storing, pdconf rendering, rollback), over
 * memory; `documents` and `rendered` show what it stores, for tests.
 *
 * @example
 * const hostConfig = memoryHostConfig({ stored: 'firewall: …' });
 * await hostConfig.read(); // 'firewall: …'
 */
export function memoryHostConfig(options: MemoryHostConfigOptions = {}): HostConfigService & {
  documents: Map<string, string>;
  rendered: Map<string, string>;
} {
  const documents = memoryStore(options.stored == null ? {} : { [HOST_CONFIG_FILE]: options.stored });
  const rendered = memoryStore();
  const service = hostConfigService({
    documents,
    pdconf: (source) => pdconfEngine({ store: rendered, apply: options.apply ?? emulatedApply, now: options.now ?? Date.now, source }),
    chutes: options.chutes ?? { chuteNames: async () => [], chute: async () => null },
    generate: options.generate ?? (async () => hostConfigFor([], [])),
    ...(options.onApplied === undefined ? {} : { onApplied: options.onApplied }),
  });
  return { ...service, documents: documents.files, rendered: rendered.files };
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
