import { reusingLast } from '../../functions/core/reusing-last.ts';
import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import type { HostConfig } from '../../functions/config/host-config.ts';
import { PDCONF_FILES, renderPdconf, type PdconfFile, type UciSectionId } from '../../functions/config/uci.ts';
import type { PdconfSection, StoredChute } from '../../functions/core/device/index.ts';
import { removeInterruptedWritesOnce, syncDir, writeFileAtomic } from '../state/atomic-write.ts';
import { runToolUntil } from '../tools/run-until.ts';
import { commandFailure } from './command-exit.ts';
import { readIfExists } from '../state/read-if-exists.ts';

/*
 * pdconf, the configuration-reload module: renders the system configuration (functions/config/uci.ts)
 * into a store of text files, runs the configured apply command of each file that changed, and keeps
 * how each apply went. The runtime stores into `<state>/pdconf/` (files of mode 600: they hold Wi-Fi
 * keys), the emulator into memory; both run this code.
 */

/** Named text files: a folder (directoryStore) or memory (memoryStore). */
export interface TextStore {
  /** The file's text, or null when there is none. */
  read(name: string): Promise<string | null>;
  /** Replaces the file, atomically. */
  write(name: string, text: string): Promise<void>;
  /** Removes the file; none is fine. */
  remove(name: string): Promise<void>;
}

/** A file name of a `directoryStore`. */
const STORE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/**
 * Files in a folder, written atomically with mode 600 (the folder is made, mode 700, on the first
 * write): only `names` when given (the store shares its folder), else any name. Before its first read,
 * write or removal, it removes the temporary files that a crash left of its own files' writes
 * (`removeInterruptedWritesOnce`); one store per folder and names, so that none of them is being written then.
 *
 * @example
 * const files = directoryStore('/var/lib/chutebox/pdconf');
 * await files.write('network', "config interface 'lan'\n…");
 * const documents = directoryStore('/var/lib/chutebox', ['hostconfig.yaml']);
 */
export function directoryStore(dir: string, names?: readonly string[]): TextStore {
  const file = (name: string) => {
    if (!STORE_NAME.test(name) || (names !== undefined && !names.includes(name))) throw new Error(`${JSON.stringify(name)} is not a file name of the store`);
    return path.join(dir, name);
  };
  const ready = removeInterruptedWritesOnce(dir, names ?? ((name) => STORE_NAME.test(name)));
  return {
    async read(name) {
      const target = file(name);
      await ready();
      return readIfExists(target);
    },
    async write(name, text) {
      const target = file(name);
      await ready();
      await mkdir(dir, { recursive: true, mode: 0o700 });
      await writeFileAtomic(target, text, 0o600);
    },
    async remove(name) {
      const target = file(name);
      await ready();
      await rm(target, { force: true });
      await syncDir(dir);
    },
  };
}

/** Files in memory, for the emulator and tests; `files` shows them. */
export function memoryStore(initial: Record<string, string> = {}): TextStore & { files: Map<string, string> } {
  const files = new Map(Object.entries(initial));
  return {
    files,
    read: async (name: string) => files.get(name) ?? null,
    async write(name, text) {
      files.set(name, text);
    },
    async remove(name) {
      files.delete(name);
    },
  };
}

/** How applying one file went: `comment` says what ran and, when it failed, why. */
export interface ApplyOutcome {
  success: boolean;
  comment: string;
}

/** Applies one rendered file to the system; null when nothing is configured to apply it. */
export type Applier = (file: PdconfFile) => Promise<ApplyOutcome | null>;

/** A program and its arguments per file; `{file}` in an argument stands for the rendered file's path. */
export type ApplyCommands = Partial<Record<PdconfFile, readonly string[]>>;

/** How long an apply command may run by default: a network reload on a router takes seconds. */
export const DEFAULT_APPLY_TIMEOUT_MS = 60_000;

/**
 * Applies a file by running its command (settings `pdconf_apply_<file>`) through `runToolUntil`: no shell,
 * the arguments as given, `{file}` replaced by the path of the rendered file in `dir`, stopped after
 * `timeoutMs`, or when `stop` is aborted (the runtime stops: the apply fails, and the file is applied
 * again at the next start). Exit code 0 is success; anything else fails with the last line the
 * command printed (stderr first).
 *
 * @example
 * const apply = commandApplier({ dir: '/var/lib/chutebox/pdconf', applyCommands: { network: ['/usr/sbin/chutebox-apply', 'network', '{file}'] } });
 * await apply('network')  // { success: true, comment: 'applied with /usr/sbin/chutebox-apply network /var/lib/chutebox/pdconf/network' }
 * await apply('wireless') // null: no command
 */
export function commandApplier(options: { dir: string; applyCommands: ApplyCommands; timeoutMs?: number; stop?: AbortSignal }): Applier {
  return async (file) => {
    const command = options.applyCommands[file];
    if (command === undefined || command.length === 0) return null;
    const [program, ...args] = command.map((arg) => arg.replaceAll('{file}', path.join(options.dir, file)));
    const shown = [program, ...args].join(' ');
    const tool = { name: `the ${file} apply command`, path: program!, setting: `the setting pdconf_apply_${file}` };
    try {
      const result = await runToolUntil(options.stop ?? new AbortController().signal, tool, args, {
        timeoutMs: options.timeoutMs ?? DEFAULT_APPLY_TIMEOUT_MS,
        maxOutputBytes: 64 * 1024,
      });
      const failure = commandFailure(result);
      return failure === null ? { success: true, comment: `applied with ${shown}` } : { success: false, comment: `apply failed: ${shown} ${failure}` };
    } catch (error) {
      return { success: false, comment: `apply failed: ${(error as Error).message}` };
    }
  };
}

/** What pdconf renders from: the host configuration in effect and the installed chutes. */
export type PdconfSource = () => Promise<{ config: HostConfig; chutes: StoredChute[] }>;

/** The status file, beside the rendered files. */
export const STATUS_FILE = 'status.json';

/** Every file pdconf keeps in its store: the rendered files and the status. */
export const PDCONF_STORE_FILES: readonly string[] = [...PDCONF_FILES, STATUS_FILE];

/**
 * How a file's last render went: `applied` (its command succeeded), `failed` (it failed: retried at
 * the next update), `unapplied` (rendered for a status read, never applied: applied at the next
 * update), `rendered` (no command is configured: nothing was run).
 */
type FileState = 'applied' | 'failed' | 'unapplied' | 'rendered';

interface FileStatus {
  state: FileState;
  /** What happened, without the file name: `applied with …`, `apply failed: …`. */
  comment: string;
  /** When the file was last rendered and applied (or rendered, for `unapplied`), ms since the epoch. */
  time: number;
  /** The run (see `StatusDocument.runs`) in which the file was last applied, or rendered for `unapplied`. */
  run?: number;
  sections: UciSectionId[];
}

interface StatusDocument {
  /** How many times pdconf has applied (updates and reloads): ParaDrop's epoch, behind each section's `age`. */
  runs?: number;
  files: Partial<Record<PdconfFile, FileStatus>>;
}

/** One file applied in a run: what happened to it. */
export interface AppliedFile {
  file: PdconfFile;
  success: boolean;
  /** `<file>: <what happened>`. */
  comment: string;
}

/** What a render and apply did. */
export interface PdconfReport {
  /** Every section of every file, with the state of its file. */
  sections: PdconfSection[];
  /** The files this run applied (or tried to), in order; a file with no command is among them with success false. */
  applied: AppliedFile[];
  /** The comments of the files whose apply command failed. */
  failures: string[];
}

export interface PdconfEngine {
  /** Each section and how its file's last apply went; renders (without applying) when nothing was ever rendered. */
  status(): Promise<PdconfSection[]>;
  /** Renders, and applies each file that changed or whose last apply did not succeed. */
  update(): Promise<PdconfReport>;
  /** Renders, and applies every file. */
  reload(): Promise<PdconfReport>;
  /** Forgets what was rendered: removes the files and the status (a factory reset). */
  clear(): Promise<void>;
}

/** A status file's text as a document; null when it is damaged (then everything is rendered and applied again, as if never). */
function parseStatus(text: string): StatusDocument | null {
  try {
    const value = JSON.parse(text) as StatusDocument;
    return typeof value === 'object' && value !== null && typeof value.files === 'object' && value.files !== null ? value : null;
  } catch {
    return null;
  }
}

const NOT_APPLIED = 'rendered; not applied yet (PUT /api/v1/config/pdconf applies it)';
const NO_COMMAND = 'rendered; no apply command is configured';

/**
 * The pdconf engine over a store. One operation runs at a time. Files are applied in PDCONF_FILES
 * order (network, wireless, dhcp, firewall), each after it is written; the status is written after
 * each run, so it survives restarts. A section's `age` is, as in ParaDrop, the number of runs (updates
 * and reloads) since its file was last applied: 0 when the latest run applied it.
 *
 * @example
 * const pdconf = pdconfEngine({ store: directoryStore(dir), apply: commandApplier({ dir, applyCommands }), now: Date.now, source });
 * await pdconf.update(); // { sections: [{ type: 'interface', name: 'loopback', comment: 'network: applied with …', success: true, age: 0 }, …], applied: […], failures: [] }
 */
export function pdconfEngine(options: { store: TextStore; apply: Applier; now: () => number; source: PdconfSource }): PdconfEngine {
  const { store, apply, now } = options;
  let tail: Promise<unknown> = Promise.resolve();
  /** Operations queued or running. */
  let pending = 0;
  const exclusive = <T>(task: () => Promise<T>): Promise<T> => {
    pending++;
    const run = tail.then(task, task);
    tail = run.catch(() => {}).then(() => void pending--);
    return run;
  };

  async function readStatus(): Promise<StatusDocument | null> {
    const text = await store.read(STATUS_FILE);
    return text === null ? null : parseStatus(text);
  }

  /** The sections of a status file's text, worked out again only when the file changed; null when it is damaged. */
  const sectionsOf = reusingLast((text: string) => {
    const status = parseStatus(text);
    return status === null ? null : sections(status);
  });

  function sections(status: StatusDocument): PdconfSection[] {
    const runs = status.runs ?? 0;
    return PDCONF_FILES.flatMap((file) => {
      const entry = status.files[file];
      if (entry === undefined) return [];
      const age = Math.max(0, runs - (entry.run ?? runs));
      return entry.sections.map(({ type, name }) => ({ type, name, comment: `${file}: ${entry.comment}`, success: entry.state === 'applied', age }));
    });
  }

  /** The sections of the stored status (`read`, or read now); rendered first (not applied) when there is none, or it is damaged. */
  async function renderedSections(read = store.read(STATUS_FILE)): Promise<PdconfSection[]> {
    const text = await read;
    return (text === null ? null : sectionsOf(store, text)) ?? (await run('none')).sections;
  }

  /** Renders every file; applies them as `mode` says: none, those that changed or did not apply, or all. */
  async function run(mode: 'none' | 'changed' | 'all'): Promise<PdconfReport> {
    const { config, chutes } = await options.source();
    const rendered = renderPdconf(config, chutes);
    const status: StatusDocument = (await readStatus()) ?? { files: {} };
    const runs = (status.runs ?? 0) + (mode === 'none' ? 0 : 1);
    status.runs = runs;
    const applied: AppliedFile[] = [];
    for (const file of PDCONF_FILES) {
      const { text, sections: fileSections } = rendered[file];
      const previous = status.files[file];
      const changed = (await store.read(file)) !== text;
      if (changed && mode !== 'none') {
        // Recorded before the file is replaced: a crash before its apply ends leaves it due, not `applied`.
        status.files[file] = { state: 'unapplied', comment: NOT_APPLIED, time: now(), run: runs, sections: fileSections };
        await store.write(STATUS_FILE, `${JSON.stringify(status, null, 2)}\n`);
      }
      if (changed) await store.write(file, text);
      if (mode === 'none') {
        status.files[file] = { state: 'unapplied', comment: NOT_APPLIED, time: now(), run: runs, sections: fileSections };
        continue;
      }
      const due = mode === 'all' || changed || previous === undefined || previous.state === 'failed' || previous.state === 'unapplied';
      if (!due) {
        status.files[file] = { ...previous!, sections: fileSections };
        continue;
      }
      const outcome = await apply(file);
      const state: FileState = outcome === null ? 'rendered' : outcome.success ? 'applied' : 'failed';
      const comment = outcome?.comment ?? NO_COMMAND;
      status.files[file] = { state, comment, time: now(), run: runs, sections: fileSections };
      applied.push({ file, success: state === 'applied', comment: `${file}: ${comment}` });
    }
    await store.write(STATUS_FILE, `${JSON.stringify(status, null, 2)}\n`);
    const failures = applied.filter((entry) => status.files[entry.file]!.state === 'failed').map((entry) => entry.comment);
    return { sections: sections(status), applied, failures };
  }

  return {
    status: () => {
      if (pending > 0) return exclusive(() => renderedSections());
      // Nothing runs: the stored status as read now, ahead of any operation asked for meanwhile.
      const read = store.read(STATUS_FILE);
      return exclusive(() => renderedSections(read));
    },
    update: () => exclusive(() => run('changed')),
    reload: () => exclusive(() => run('all')),
    clear: () =>
      exclusive(async () => {
        for (const name of PDCONF_STORE_FILES) await store.remove(name);
      }),
  };
}
