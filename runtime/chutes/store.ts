import { randomBytes } from 'node:crypto';
import { mkdir, readdir, rename, rm } from 'node:fs/promises';
import type { Dirent } from 'node:fs';
import path from 'node:path';
import { CHUTE_NAME, type Device, type StoredChute } from '../../functions/core/device/index.ts';
import { removeInterruptedWrites, syncDir, writeFileAtomic } from '../state/atomic-write.ts';
import { readIfExists } from '../state/read-if-exists.ts';

/** How a chute folder's documents are written: JSON in the runtime's state dir, YAML in a scenario. */
export interface ChuteFormat {
  /** `.json` or `.yaml`: `chute<ext>`, `service<ext>`, `cache<ext>`. */
  extension: string;
  decode(text: string): unknown;
}

/** The runtime's state dir keeps chutes as JSON (machine-written; no YAML parser in the runtime). */
export const JSON_FORMAT: ChuteFormat = { extension: '.json', decode: (text) => JSON.parse(text) };

/**
 * The chutes of a folder holding one sub-folder per chute (`<dir>/<chute>/chute<ext>`, `service<ext>`,
 * optional `cache<ext>`). The runtime serves `<state-dir>/chutes` in JSON, the emulator a scenario's
 * `chutes/` in YAML; both through this code.
 *
 * @example
 * const store = chuteStore('/var/lib/chutebox/chutes', JSON_FORMAT);
 * await store.chuteNames();          // ['hello-world']
 * await store.chute('hello-world');  // { name, record, config, cache }
 */
export function chuteStore(dir: string, format: ChuteFormat): Pick<Device, 'chuteNames' | 'chute'> {
  async function document(chute: string, base: string, required: boolean): Promise<Record<string, unknown> | null> {
    const file = path.join(dir, chute, `${base}${format.extension}`);
    const text = await readIfExists(file);
    if (text === null) return required ? null : {};
    const value = text.trim() === '' ? {} : format.decode(text);
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      throw new Error(`${file} must hold a mapping (an object), not ${Array.isArray(value) ? 'a list' : typeof value}`);
    }
    return value as Record<string, unknown>;
  }

  return {
    async chuteNames() {
      let entries: Dirent[];
      try {
        entries = await readdir(dir, { withFileTypes: true });
      } catch {
        return [];
      }
      return entries
        .filter((entry) => entry.isDirectory() && CHUTE_NAME.test(entry.name))
        .map((entry) => entry.name)
        .sort();
    },
    async chute(name) {
      if (!CHUTE_NAME.test(name)) return null;
      const record = await document(name, 'chute', true);
      if (record === null) return null;
      const config = (await document(name, 'service', false)) ?? {};
      const cache = (await document(name, 'cache', false)) ?? {};
      return { name, record, config, cache } satisfies StoredChute;
    },
  };
}

/**
 * The documents of a chute that the runtime writes: `chute.json` (the record), `service.json` (the
 * configuration) and `cache.json` (the runtime's key-value store for it).
 */
export type ChuteDocument = 'chute' | 'service' | 'cache';

/**
 * The files the runtime keeps in a chute's folder: its documents, and `rollback.json`, which a
 * configuration update writes before it touches anything, to undo it after a crash (see `Rollback` in
 * replace-chute.ts), and removes when it is over.
 */
export type ChuteFile = ChuteDocument | 'rollback';

/** Every file the writer keeps in a chute's folder, by name. */
const CHUTE_FILE_NAMES: readonly string[] = (['chute', 'service', 'cache', 'rollback'] satisfies ChuteFile[]).map((file) => `${file}${JSON_FORMAT.extension}`);

/** Writes to the runtime's chutes (JSON, `<state-dir>/chutes`); see `chuteWriter`. */
export interface ChuteWriter {
  /** Replaces `<chute>/<file>.json` atomically (mode 0600). */
  write(chute: string, file: ChuteFile, value: Record<string, unknown>): Promise<void>;
  /** The contents of `<chute>/<file>.json`, or null when there is no such file. */
  read(chute: string, file: ChuteFile): Promise<Record<string, unknown> | null>;
  /** Removes `<chute>/<file>.json` (flushing the folder); no such file is fine. */
  discard(chute: string, file: ChuteFile): Promise<void>;
  /**
   * Removes from `<chute>/` the temporary files that a crash left of the writes of its files
   * (`removeInterruptedWrites`), and nothing else; for the start, while nothing writes.
   */
  removeInterruptedWrites(chute: string): Promise<void>;
  /**
   * Adds a chute that is not there yet, with all its documents at once: they are written (each
   * flushed to disk) into a hidden folder that no listing shows, which is then renamed
   * `<dir>/<chute>`. A reader sees no chute or the whole chute, never a part of one.
   *
   * @throws Error when a chute by that name is there already (its folder is left as it is; an empty
   *   folder by that name is replaced).
   */
  create(chute: string, documents: Record<ChuteDocument, Record<string, unknown>>): Promise<void>;
  /**
   * Removes the chute's folder: first renamed away (to a hidden name no listing shows), then deleted,
   * so the chute is gone at once even when the deletion is cut short.
   */
  remove(chute: string): Promise<void>;
}

const LEFTOVER_INSTALL = 'installing';
const LEFTOVER_REMOVAL = 'removed';
const LEFTOVER = /^\.(.+)\.(installing|removed)-[0-9a-f]{12}$/;

/** A hidden folder of the writer's that a crash left in the chutes folder. */
export interface Leftover {
  chute: string;
  /** `install`: the staging folder of a `create` cut short; `delete`: the folder of a `remove` cut short. */
  cutShort: 'install' | 'delete';
}

/**
 * What a folder name in the chutes folder is, when it is one of the writer's hidden folders: only a
 * crash (of `create` or `remove`) leaves one behind.
 *
 * @example
 * leftover('.hello.installing-0123456789ab') // { chute: 'hello', cutShort: 'install' }
 * leftover('hello')                          // null
 */
export function leftover(name: string): Leftover | null {
  const match = LEFTOVER.exec(name);
  if (match === null || !CHUTE_NAME.test(match[1]!)) return null;
  return { chute: match[1]!, cutShort: match[2] === LEFTOVER_INSTALL ? 'install' : 'delete' };
}

/**
 * Writes the chutes of the runtime's state dir (`<dir>/<chute>/…`, JSON), the counterpart of
 * `chuteStore(dir, JSON_FORMAT)`. Chute names must be valid (`CHUTE_NAME`); others are refused.
 *
 * @example
 * const chutes = chuteWriter('/var/lib/chutebox/chutes');
 * await chutes.write('hello', 'service', { environment: { PORT: 80 } });
 * await chutes.remove('hello');
 */
export function chuteWriter(dir: string): ChuteWriter {
  function folder(chute: string): string {
    if (!CHUTE_NAME.test(chute)) throw new Error(`${JSON.stringify(chute)} is not a chute name`);
    return path.join(dir, chute);
  }
  return {
    async write(chute, file, value) {
      await writeFileAtomic(path.join(folder(chute), `${file}${JSON_FORMAT.extension}`), `${JSON.stringify(value, null, 2)}\n`, 0o600);
    },
    async read(chute, file) {
      const text = await readIfExists(path.join(folder(chute), `${file}${JSON_FORMAT.extension}`));
      return text === null ? null : (JSON.parse(text) as Record<string, unknown>);
    },
    async discard(chute, file) {
      await rm(path.join(folder(chute), `${file}${JSON_FORMAT.extension}`), { force: true });
      await syncDir(folder(chute));
    },
    async removeInterruptedWrites(chute) {
      await removeInterruptedWrites(folder(chute), CHUTE_FILE_NAMES);
    },
    async create(chute, documents) {
      const target = folder(chute);
      await mkdir(dir, { recursive: true, mode: 0o700 });
      const staging = path.join(dir, `.${chute}.${LEFTOVER_INSTALL}-${randomBytes(6).toString('hex')}`);
      try {
        await mkdir(staging, { mode: 0o700 });
        for (const [document, value] of Object.entries(documents)) {
          await writeFileAtomic(path.join(staging, `${document}${JSON_FORMAT.extension}`), `${JSON.stringify(value, null, 2)}\n`, 0o600);
        }
        await rename(staging, target);
      } catch (error) {
        await rm(staging, { recursive: true, force: true });
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'ENOTEMPTY' || code === 'EEXIST') throw new Error(`a chute named ${chute} is already installed`);
        throw error;
      }
      await syncDir(dir);
    },
    async remove(chute) {
      const doomed = path.join(dir, `.${chute}.${LEFTOVER_REMOVAL}-${randomBytes(6).toString('hex')}`);
      try {
        await rename(folder(chute), doomed);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
        throw error;
      }
      await rm(doomed, { recursive: true, force: true });
    },
  };
}
