import path from 'node:path';
import { encodeDocument } from '../../functions/core/body/index.ts';
import { resolvePlaceholders } from '../../functions/config/secret-placeholders.ts';
import { parseStoredHostConfig, type HostConfig } from '../../functions/config/host-config.ts';
import type { ChangeRequest, Device, HostConfigStore } from '../../functions/core/device/index.ts';
import type { AfterSucceeded, Note } from '../changes/runner.ts';
import type { PublishEvent } from '../events/buffer.ts';
import { commandApplier, directoryStore, PDCONF_STORE_FILES, pdconfEngine } from './pdconf.ts';
import type { ApplyCommands, PdconfEngine, PdconfReport, PdconfSource, TextStore } from './pdconf.ts';
import { daemonLog } from '../log/log.ts';

/** The stored host configuration, in the state dir. */
export const HOST_CONFIG_FILE = 'hostconfig.yaml';
/** The one it replaced, kept until the next update. */
export const PREVIOUS_HOST_CONFIG_FILE = 'hostconfig.previous.yaml';
/**
 * What undoes an update cut short by a crash: the stored and previous configurations from before it
 * (`{ change, current, previous }`, each configuration text or null; `change` the update's change
 * id). Written before anything changes; removed once the update failed and was undone, or once its
 * `succeeded` is saved in its change record (not before: a crash in between would leave the new
 * configuration under a change read as `failed`). `recover()` finds it at the next start.
 */
export const HOST_CONFIG_ROLLBACK_FILE = 'hostconfig.rollback.json';
/** pdconf's folder in the state dir: the rendered files and `status.json`. */
export const PDCONF_DIR = 'pdconf';

/** The stored documents from before an update. */
interface Rollback {
  /** The id of the update's change, when it runs as one. */
  change?: number;
  current: string | null;
  previous: string | null;
}

/** An `update-hostconfig` change. */
export type HostConfigChange = Extract<ChangeRequest, { action: 'update-hostconfig' }>;

/** The Device's `hostConfig`, and what the runtime (or the emulator) does with it besides. */
export interface HostConfigService extends HostConfigStore {
  /** The configuration in effect: the stored one, or the generated one when none is stored. */
  current(): Promise<HostConfig>;
  /**
   * Does an `update-hostconfig` change: resolves its `[redacted]` placeholders against the
   * configuration in effect now (`resolvePlaceholders`; it throws naming the paths, before anything
   * is stored, when one has no secret behind it any more), stores the configuration (YAML; the one
   * it replaces is kept as `hostconfig.previous.yaml`), renders pdconf and applies the files that
   * changed. When an apply fails it stores the previous configuration again (or none, when there was
   * none), applies it, and throws with the reason: the change fails. `note` gets what happened, step
   * by step.
   *
   * It leaves the rollback file (`HOST_CONFIG_ROLLBACK_FILE`, naming `change`) in place, and answers
   * what removes it: the change runner calls that once the change's `succeeded` is saved.
   */
  perform(request: HostConfigChange, note: Note, change?: number): Promise<AfterSucceeded>;
  /** After chutes changed, and at start: renders pdconf and applies the files that changed (their networks). */
  refresh(): Promise<PdconfReport>;
  /**
   * At start, before anything else: when a crash cut an update short, puts back the configurations
   * from before it, for the `refresh` that follows to apply (it applies every file whose rendering
   * changed, and pdconf's status keeps a file due across a crash). Answers whether there was one to
   * undo. An update whose change record reads `succeeded` (`changes`) was over but for removing its
   * rollback file: that is all that is done then.
   */
  recover(): Promise<boolean>;
  /**
   * Factory reset: removes the stored configurations (`hostconfig*.yaml`) and what pdconf rendered,
   * then renders the generated configuration and applies every file.
   */
  reset(): Promise<PdconfReport>;
}

export interface HostConfigServiceOptions {
  /** Where `hostconfig.yaml` and `hostconfig.previous.yaml` are kept. */
  documents: TextStore;
  /** pdconf over the given source (the configuration in effect and the chutes). */
  pdconf: (source: PdconfSource) => PdconfEngine;
  /** The installed chutes, whose networks pdconf renders. */
  chutes: Pick<Device, 'chuteNames' | 'chute'>;
  /** The configuration generated from the hardware: what applies while none is stored. */
  generate: () => Promise<HostConfig>;
  /** Called with the configuration in effect after each update, rollback and reset (e.g. to tell the telemetry sender). */
  onApplied?: (config: HostConfig) => void;
  /** The change records, for `recover()` to tell an update that succeeded from one cut short; without them, every rollback found is undone. */
  changes?: Pick<Device, 'change'>;
  /** Where each update and reset goes as a `hostconfig.applied` event once pdconf applied it. */
  publish?: PublishEvent;
}

/**
 * The host configuration over a document store and a pdconf engine: the code the runtime (state dir,
 * apply commands) and the emulator (memory) share. One operation at a time: an update, a reload, a
 * refresh or a reset waits for the one before. An update and a reset are published as a
 * `hostconfig.applied` event once applied: `success` false when a file could not be applied (the
 * update then restores the previous configuration, and fails).
 *
 * @example
 * const hostConfig = hostConfigService({ documents, pdconf: (source) => pdconfEngine({ …, source }), chutes, generate });
 * await hostConfig.perform({ action: 'update-hostconfig', config }, note);
 */
export function hostConfigService(options: HostConfigServiceOptions): HostConfigService {
  const { documents } = options;
  let tail: Promise<unknown> = Promise.resolve();
  const exclusive = <T>(task: () => Promise<T>): Promise<T> => {
    const run = tail.then(task, task);
    // Settled with nothing, not with the answer: the queue keeps no report for the device's life.
    tail = run.then(
      () => {},
      () => {},
    );
    return run;
  };

  async function current(): Promise<HostConfig> {
    const stored = await documents.read(HOST_CONFIG_FILE);
    return stored === null ? options.generate() : parseStoredHostConfig(stored);
  }

  async function installedChutes() {
    const names = await options.chutes.chuteNames();
    const chutes = await Promise.all(names.map((name) => options.chutes.chute(name)));
    return chutes.filter((chute) => chute !== null);
  }

  const pdconf = options.pdconf(async () => ({ config: await current(), chutes: await installedChutes() }));

  /** Stores a document, or removes it for null. */
  async function put(name: string, text: string | null): Promise<void> {
    if (text === null) await documents.remove(name);
    else await documents.write(name, text);
  }

  /** Puts back the configurations of a rollback. */
  async function putBack(rollback: Rollback): Promise<void> {
    await put(HOST_CONFIG_FILE, rollback.current);
    await put(PREVIOUS_HOST_CONFIG_FILE, rollback.previous);
  }

  /** Puts back the configurations of a rollback, applies them, and removes the rollback. */
  async function restore(rollback: Rollback): Promise<PdconfReport> {
    await putBack(rollback);
    const report = await pdconf.update();
    await documents.remove(HOST_CONFIG_ROLLBACK_FILE);
    await applied();
    return report;
  }

  /** Publishes how applying a host configuration went. */
  function published(report: PdconfReport | null): void {
    options.publish?.({ kind: 'hostconfig.applied', success: report !== null && report.failures.length === 0 });
  }

  async function applied(): Promise<void> {
    if (options.onApplied === undefined) return;
    try {
      options.onApplied(await current());
    } catch (error) {
      daemonLog.error('host configuration: onApplied failed', { error });
    }
  }

  return {
    read: () => documents.read(HOST_CONFIG_FILE),
    pdconf: () => pdconf.status(),
    reloadPdconf: () => exclusive(async () => (await pdconf.reload()).sections),
    current,
    refresh: () => exclusive(() => pdconf.update()),
    reset: () =>
      exclusive(async () => {
        for (const name of [HOST_CONFIG_FILE, PREVIOUS_HOST_CONFIG_FILE, HOST_CONFIG_ROLLBACK_FILE]) await documents.remove(name);
        await pdconf.clear();
        const report = await pdconf.reload();
        published(report);
        await applied();
        return report;
      }),
    perform: (request, note, change) =>
      exclusive(async () => {
        // Placeholders keep the secrets in effect now, which a change queued before this one may have set.
        const inEffect = await current().catch(() => ({}));
        const config = resolvePlaceholders(request.config, inEffect, 'the host configuration') as HostConfig;
        const before = await documents.read(HOST_CONFIG_FILE);
        const beforePrevious = await documents.read(PREVIOUS_HOST_CONFIG_FILE);
        const rollback: Rollback = { ...(change === undefined ? {} : { change }), current: before, previous: beforePrevious };
        const rollbackText = `${JSON.stringify(rollback)}\n`;
        await documents.write(HOST_CONFIG_ROLLBACK_FILE, rollbackText);
        await put(PREVIOUS_HOST_CONFIG_FILE, before);
        await documents.write(HOST_CONFIG_FILE, formatHostConfig(config));
        await note(
          before === null
            ? 'stored the host configuration (none was stored: the generated one applied)'
            : 'stored the host configuration; the previous one is kept',
        );
        const report = await pdconf.update().catch(async (error: unknown) => {
          published(null);
          await restore(rollback);
          throw error;
        });
        published(report);
        await noteApplied(report, note);
        if (report.failures.length === 0) {
          await applied();
          // Removes this update's rollback file, unless a reset or a later update replaced it meanwhile.
          return () =>
            exclusive(async () => {
              if ((await documents.read(HOST_CONFIG_ROLLBACK_FILE)) === rollbackText) await documents.remove(HOST_CONFIG_ROLLBACK_FILE);
            });
        }
        await note('restoring the previous host configuration');
        const again = await restore(rollback);
        await noteApplied(again, note);
        const restored =
          again.failures.length === 0
            ? 'the previous configuration was restored and applied'
            : 'the previous configuration was restored, but applying it failed too';
        throw new Error(`applying the host configuration failed (${report.failures.join('; ')}); ${restored}`);
      }),
    recover: () =>
      exclusive(async () => {
        const text = await documents.read(HOST_CONFIG_ROLLBACK_FILE);
        if (text === null) return false;
        const rollback = JSON.parse(text) as Rollback;
        if (rollback.change !== undefined && (await options.changes?.change(rollback.change))?.state === 'succeeded') {
          await documents.remove(HOST_CONFIG_ROLLBACK_FILE);
          return false;
        }
        await putBack(rollback);
        await documents.remove(HOST_CONFIG_ROLLBACK_FILE);
        return true;
      }),
  };
}

async function noteApplied(report: PdconfReport, note: Note): Promise<void> {
  if (report.applied.length === 0) await note('pdconf: no file changed');
  for (const file of report.applied) await note(file.comment);
}

/**
 * The YAML of a stored host configuration: YAML 1.1 as every reader of it (PyYAML, chutebox) takes it,
 * under a comment saying where it comes from.
 *
 * @example
 * formatHostConfig({ firewall: … }) // '# The host configuration of chutebox …\nfirewall:\n  defaults: …'
 */
export function formatHostConfig(config: HostConfig): string {
  return `# The host configuration of chutebox (PUT /api/v1/config/hostconfig writes it).\n${encodeDocument(config, 'application/yaml').body}`;
}

export interface HostConfigStoreOptions {
  /** The runtime's state dir: `hostconfig.yaml`, `hostconfig.previous.yaml`, `pdconf/`. */
  stateDir: string;
  chutes: Pick<Device, 'chuteNames' | 'chute'>;
  /** pdconf's apply commands (settings `pdconf_apply_<file>`), their timeout (default 60 s), and what stops them as the runtime stops. */
  pdconf: { applyCommands: ApplyCommands; timeoutMs?: number; stop?: AbortSignal };
  generate: () => Promise<HostConfig>;
  onApplied?: (config: HostConfig) => void;
  /** The change records (see `HostConfigServiceOptions.changes`). */
  changes?: Pick<Device, 'change'>;
  publish?: PublishEvent;
  /** The clock, ms since the epoch; default Date.now. */
  now?: () => number;
}

/**
 * The runtime's host configuration in its state dir: `hostconfig.yaml` (mode 600, written
 * atomically; it may hold Wi-Fi keys), `hostconfig.previous.yaml`, `hostconfig.rollback.json`, and
 * pdconf in `pdconf/` whose files are applied by the configured commands (see commandApplier). The
 * temporary files that a crash left of their writes are removed on first use, at start (`directoryStore`).
 *
 * @example
 * const hostConfig = hostConfigStore({ stateDir, chutes, pdconf: { applyCommands: { network: ['/etc/init.d/network', 'reload'] } }, generate: () => generateHostConfig(device) });
 */
export function hostConfigStore(options: HostConfigStoreOptions): HostConfigService {
  const dir = path.join(options.stateDir, PDCONF_DIR);
  const apply = commandApplier({ dir, ...options.pdconf });
  return hostConfigService({
    documents: directoryStore(options.stateDir, [HOST_CONFIG_FILE, PREVIOUS_HOST_CONFIG_FILE, HOST_CONFIG_ROLLBACK_FILE]),
    pdconf: (source) => pdconfEngine({ store: directoryStore(dir, PDCONF_STORE_FILES), apply, now: options.now ?? Date.now, source }),
    chutes: options.chutes,
    generate: options.generate,
    ...(options.onApplied === undefined ? {} : { onApplied: options.onApplied }),
    ...(options.changes === undefined ? {} : { changes: options.changes }),
    ...(options.publish === undefined ? {} : { publish: options.publish }),
  });
}
