import { mkdir, readdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import type { ChangeRecord, DevicePowerAction } from '../../functions/core/device/index.ts';
import { removeInterruptedWrites, syncDir, writeFileAtomic } from '../state/atomic-write.ts';
import { readIfExists } from '../state/read-if-exists.ts';
import { daemonLog } from '../log/log.ts';

/** The change log's folder in the runtime's state dir: `<state>/changes/`. */
export const CHANGES_DIR = 'changes';

/** A change record file: `<id>.json`. */
const RECORD_FILE = /^([1-9][0-9]*)\.json$/;

/**
 * The change log's high-water mark, `<dir>/next-id`: the lowest id the next change may get. A factory
 * reset writes it before it removes the records, and keeps it, so no id is ever given twice on a device.
 */
export const NEXT_ID_FILE = 'next-id';

/**
 * The removal under way, `<dir>/removing`: the files of the records it removes, one a line. Written
 * (atomically) before the first of their files goes and removed after the last, so that a removal a
 * crash cut short is finished when the log is opened: it took every record it names, or none.
 */
export const REMOVING_FILE = 'removing';

/**
 * What a reboot or shutdown change notes just before it runs its command, followed by the command
 * (`rebooting: /sbin/reboot`). That command stops the runtime with the device, so a change found
 * `running` with this as its last message did what it was asked: opening the log marks it
 * `succeeded`, not `failed` (decision 0016).
 */
export const POWER_NOTES: Record<DevicePowerAction, string> = { reboot: 'rebooting: ', shutdown: 'shutting down: ' };

/** The change log on disk: every record, and where the next one goes. */
export interface ChangeLog {
  /** Every record on disk, by id. */
  records: Map<number, ChangeRecord>;
  /** 1 + the largest id on disk (1 when there is none), or the high-water mark (`NEXT_ID_FILE`) when it is larger. */
  nextId: number;
  /** The ids of the changes found `queued` or `running` that opening marked `failed`, in id order. */
  interrupted: number[];
  /** Writes a record atomically as `<dir>/<id>.json`. */
  save(record: ChangeRecord): Promise<void>;
  /**
   * Removes the records `ids` (of ended changes, none being saved) from `records` and from disk: all
   * of them or none, whenever a crash comes (`REMOVING_FILE`).
   */
  remove(ids: readonly number[]): Promise<void>;
}

/**
 * Opens the change log in `dir` (created 0700): removes the temporary files that a crash left of its
 * writes (of `<id>.json`, `next-id` and `removing`: `removeInterruptedWrites`), finishes a removal a
 * crash cut short (`REMOVING_FILE`), reads every `<id>.json`, and
 * marks a record found `queued` or `running` as `failed`, since the runtime that ran it has stopped;
 * but a reboot or shutdown that was running its command (`POWER_NOTES`) as `succeeded`. A file that
 * cannot be read as a change record is skipped (logged), but its id still counts, so no id is ever
 * reused.
 *
 * @example
 * const log = await openChangeLog('/var/lib/chutebox/changes', Date.now);
 * log.nextId // 8 after changes 1 to 7
 */
export async function openChangeLog(dir: string, now: () => number): Promise<ChangeLog> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await removeInterruptedWrites(dir, (name) => RECORD_FILE.test(name) || name === NEXT_ID_FILE || name === REMOVING_FILE);
  const removing = (await readIfExists(path.join(dir, REMOVING_FILE)))?.split('\n').filter((name) => RECORD_FILE.test(name));
  if (removing !== undefined) await finishRemoval(dir, removing);
  const save = (record: ChangeRecord) => writeFileAtomic(path.join(dir, `${record.id}.json`), `${JSON.stringify(record)}\n`, 0o600);
  const records = new Map<number, ChangeRecord>();
  const interrupted: number[] = [];
  let largest = 0;
  for (const name of await readdir(dir)) {
    const match = RECORD_FILE.exec(name);
    if (match === null) continue;
    const id = Number(match[1]);
    largest = Math.max(largest, id);
    const record = await readRecord(path.join(dir, name), id);
    if (record === null) continue;
    if (record.state === 'queued' || record.state === 'running') {
      const time = new Date(now()).toISOString();
      const power = POWER_NOTES[record.action as DevicePowerAction];
      const stopped = record.state === 'running' && power !== undefined && record.messages.at(-1)?.text.startsWith(power);
      record.messages.push({
        time,
        text: stopped
          ? `succeeded: the runtime stopped while the ${record.action} command ran, as the ${record.action} stops it`
          : `failed: the runtime stopped while the change was ${record.state}`,
      });
      record.state = stopped ? 'succeeded' : 'failed';
      record.updated = time;
      await save(record);
      if (!stopped) interrupted.push(id);
    }
    records.set(id, record);
  }
  return {
    records,
    nextId: Math.max(largest + 1, await readNextIdMark(dir)),
    interrupted: interrupted.sort((a, b) => a - b),
    save,
    remove: (ids) => removeRecords(dir, records, ids),
  };
}

/**
 * Removes the records `ids` from `records` and their files from `dir`: the high-water mark first when
 * the largest id on record goes (no id is given twice), then `REMOVING_FILE`, the moment the removal is
 * done; only then are they gone from `records`, so what is served never comes back after a crash.
 */
async function removeRecords(dir: string, records: Map<number, ChangeRecord>, ids: readonly number[]): Promise<void> {
  if (ids.length === 0) return;
  const largest = Math.max(...records.keys());
  if (ids.includes(largest)) await writeFileAtomic(path.join(dir, NEXT_ID_FILE), `${largest + 1}\n`, 0o600);
  const files = ids.map((id) => `${id}.json`);
  await writeFileAtomic(path.join(dir, REMOVING_FILE), `${files.join('\n')}\n`, 0o600);
  for (const id of ids) records.delete(id);
  await finishRemoval(dir, files);
}

/**
 * Removes the record `files` from `dir`, flushes that to disk, then removes `REMOVING_FILE`. That last
 * step needs no flush of its own: a removal file that a crash brings back is finished again, and
 * finds nothing left to remove.
 */
async function finishRemoval(dir: string, files: readonly string[]): Promise<void> {
  for (const file of files) await rm(path.join(dir, file), { force: true });
  await syncDir(dir);
  await rm(path.join(dir, REMOVING_FILE), { force: true });
}

/**
 * Writes the high-water mark (`NEXT_ID_FILE`, atomically) in the change log `dir`: 1 + the largest id
 * ever given there, the records' and an earlier mark's. A factory reset calls it before it removes the
 * records; nothing is written when no change was ever made. Makes `dir` (0700) when missing, as
 * `openChangeLog` does.
 *
 * @example
 * await markNextId('/var/lib/chutebox/changes') // after changes 1 to 7: next-id holds "8"
 */
export async function markNextId(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  let next = await readNextIdMark(dir);
  for (const name of await readdir(dir)) {
    const match = RECORD_FILE.exec(name);
    if (match !== null) next = Math.max(next, Number(match[1]) + 1);
  }
  if (next > 1) await writeFileAtomic(path.join(dir, NEXT_ID_FILE), `${next}\n`, 0o600);
}

/** The high-water mark in `dir`; 1 when there is none (or it cannot be read as an id, logged). */
async function readNextIdMark(dir: string): Promise<number> {
  const text = await readIfExists(path.join(dir, NEXT_ID_FILE));
  if (text === null) return 1;
  if (/^[1-9][0-9]*\n?$/.test(text)) return Number(text);
  daemonLog.warn(`ignoring the change id mark ${path.join(dir, NEXT_ID_FILE)}: not an id`);
  return 1;
}

async function readRecord(file: string, id: number): Promise<ChangeRecord | null> {
  try {
    const record = JSON.parse(await readFile(file, 'utf8')) as ChangeRecord;
    if (record?.id !== id || !Array.isArray(record.messages)) throw new Error('not a change record');
    return record;
  } catch (error) {
    daemonLog.warn(`skipping change record ${file}: ${(error as Error).message}`);
    return null;
  }
}
