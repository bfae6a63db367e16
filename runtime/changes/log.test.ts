import { readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ChangeRecord } from '../../functions/core/device/index.ts';
import { useTempDir } from '../../test/support/temp-dir.ts';
import { DEFAULT_CHANGE_LOG_BOUND, recordsBeyond } from './bound.ts';
import { markNextId, NEXT_ID_FILE, openChangeLog, POWER_NOTES, REMOVING_FILE } from './log.ts';

const temp = useTempDir('chutebox-change-log-');
const now = () => Date.parse('2026-01-02T03:04:05Z');

/** A final change record with id `id`. */
function record(id: number): ChangeRecord {
  const time = '2026-01-02T03:04:05.000Z';
  return { id, action: 'stop', chute: 'hello', state: 'succeeded', created: time, updated: time, messages: [{ time, text: 'succeeded' }] };
}

/** Writes records with the given ids into `dir`. */
async function withRecords(dir: string, ...ids: number[]): Promise<void> {
  for (const id of ids) await writeFile(path.join(dir, `${id}.json`), JSON.stringify(record(id)));
}

describe('the change log high-water mark', () => {
  it('writes 1 + the largest id on disk as next-id (0600), and the log then starts there once the records are gone', async () => {
    const dir = await temp.folder('mark');
    await withRecords(dir, 1, 2, 7);
    await markNextId(dir);
    expect(await readFile(path.join(dir, NEXT_ID_FILE), 'utf8')).toBe('8\n');
    expect((await stat(path.join(dir, NEXT_ID_FILE))).mode & 0o777).toBe(0o600);

    for (const id of [1, 2, 7]) await rm(path.join(dir, `${id}.json`));
    const log = await openChangeLog(dir, now);
    expect(log.records.size).toBe(0);
    expect(log.nextId).toBe(8);
  });

  it('keeps the larger of an earlier mark and the records: a second reset with no new change does not lower it', async () => {
    const dir = await temp.folder('second');
    await writeFile(path.join(dir, NEXT_ID_FILE), '12\n');
    await withRecords(dir, 3);
    await markNextId(dir);
    expect(await readFile(path.join(dir, NEXT_ID_FILE), 'utf8')).toBe('12\n');
    await withRecords(dir, 12, 13);
    await markNextId(dir);
    expect(await readFile(path.join(dir, NEXT_ID_FILE), 'utf8')).toBe('14\n');
  });

  it('writes nothing when no change was ever made, so the folder stays as a fresh install has it', async () => {
    const dir = await temp.folder('empty');
    await markNextId(dir);
    expect(await readdir(dir)).toEqual([]);
  });

  it('gives the next id above both the mark and the records when the log is opened', async () => {
    const dir = await temp.folder('open');
    await writeFile(path.join(dir, NEXT_ID_FILE), '5\n');
    expect((await openChangeLog(dir, now)).nextId).toBe(5);
    await withRecords(dir, 5, 6);
    expect((await openChangeLog(dir, now)).nextId).toBe(7);
  });

  it('ignores a mark that is not an id, and counts the records', async () => {
    const dir = await temp.folder('garbage');
    await writeFile(path.join(dir, NEXT_ID_FILE), 'twelve\n');
    await withRecords(dir, 2);
    expect((await openChangeLog(dir, now)).nextId).toBe(3);
  });
});

describe('opening the change log after the runtime stopped', () => {
  const time = '2026-01-02T03:04:05.000Z';
  /** A change record of `action` left in `state`, its messages those given. */
  function left(id: number, action: ChangeRecord['action'], state: ChangeRecord['state'], ...texts: string[]): ChangeRecord {
    return { id, action, chute: null, state, created: time, updated: time, messages: texts.map((text) => ({ time, text })) };
  }

  it('marks a reboot or shutdown that was running its command succeeded: the command stopped the runtime, as it must', async () => {
    const dir = await temp.folder('power-ran');
    await writeFile(path.join(dir, '1.json'), JSON.stringify(left(1, 'reboot', 'running', 'queued', 'running', `${POWER_NOTES.reboot}/sbin/reboot`)));
    await writeFile(path.join(dir, '2.json'), JSON.stringify(left(2, 'shutdown', 'running', 'queued', 'running', `${POWER_NOTES.shutdown}/sbin/poweroff`)));
    const log = await openChangeLog(dir, now);
    expect(log.interrupted).toEqual([]);
    expect(log.records.get(1)).toMatchObject({ state: 'succeeded', updated: '2026-01-02T03:04:05.000Z' });
    expect(log.records.get(1)!.messages.at(-1)!.text).toBe('succeeded: the runtime stopped while the reboot command ran, as the reboot stops it');
    expect(log.records.get(2)!.messages.at(-1)!.text).toBe('succeeded: the runtime stopped while the shutdown command ran, as the shutdown stops it');
    // On disk too: the next start finds it final.
    expect(JSON.parse(await readFile(path.join(dir, '1.json'), 'utf8')).state).toBe('succeeded');
  });

  it('marks a reboot failed when the runtime stopped before it ran its command, and any other change left running', async () => {
    const dir = await temp.folder('power-not-ran');
    await writeFile(path.join(dir, '1.json'), JSON.stringify(left(1, 'reboot', 'queued', 'queued')));
    await writeFile(path.join(dir, '2.json'), JSON.stringify(left(2, 'reboot', 'running', 'queued', 'running')));
    await writeFile(
      path.join(dir, '3.json'),
      JSON.stringify({ ...left(3, 'stop', 'running', 'queued', 'running', `${POWER_NOTES.reboot}/sbin/reboot`), chute: 'hello' }),
    );
    const log = await openChangeLog(dir, now);
    expect(log.interrupted).toEqual([1, 2, 3]);
    for (const id of [1, 2, 3]) expect(log.records.get(id)!.state).toBe('failed');
    expect(log.records.get(2)!.messages.at(-1)!.text).toBe('failed: the runtime stopped while the change was running');
  });
});

describe('the change log within its bound', () => {
  const BOUND = DEFAULT_CHANGE_LOG_BOUND;
  /** The names in `dir` that are not change records. */
  const notRecords = async (dir: string) => (await readdir(dir)).filter((name) => !/^[0-9]+\.json$/.test(name));
  /** The ids of the record files in `dir`, in order. */
  const recordFiles = async (dir: string) =>
    (await readdir(dir))
      .filter((name) => /^[0-9]+\.json$/.test(name))
      .map((name) => Number.parseInt(name, 10))
      .sort((a, b) => a - b);

  it('stays within its bound across 2,000 changes: each removal takes its records from memory and disk, and the log opens again as it was', async () => {
    const dir = await temp.folder('bound');
    let log = await openChangeLog(dir, now);
    for (let id = 1; id <= 2000; id++) {
      // Written as a save writes it, but not flushed to disk one by one: 2,000 changes in a few seconds.
      await writeFile(path.join(dir, `${id}.json`), JSON.stringify(record(id)));
      log.records.set(id, record(id));
      await log.remove(recordsBeyond(log.records, BOUND, now(), () => false));
      expect(log.records.size).toBeLessThanOrEqual(BOUND.records);
      if (id % 250 === 0) {
        expect(await recordFiles(dir)).toEqual([...log.records.keys()].sort((a, b) => a - b));
        log = await openChangeLog(dir, now);
        expect(log.records.size).toBeGreaterThanOrEqual(BOUND.records * 0.9);
      }
    }
    expect(await recordFiles(dir)).toEqual(Array.from({ length: log.records.size }, (_, i) => 2001 - log.records.size + i));
    expect(await notRecords(dir)).toEqual([]);
    expect(log.nextId).toBe(2001);
  });

  it('marks the next id before it removes the newest record, so no id is given twice', async () => {
    const dir = await temp.folder('all-aged');
    await withRecords(dir, 1, 2, 3);
    const log = await openChangeLog(dir, () => Date.parse('2026-03-01T00:00:00Z'));
    await log.remove(recordsBeyond(log.records, BOUND, Date.parse('2026-03-01T00:00:00Z'), () => false));
    expect(log.records.size).toBe(0);
    expect(await readdir(dir)).toEqual([NEXT_ID_FILE]);
    expect((await openChangeLog(dir, now)).nextId).toBe(4);
  });

  it('finishes a removal a crash cut short when it opens the log: every record the removal names is gone, and nothing of it is left', async () => {
    const dir = await temp.folder('cut-short');
    await withRecords(dir, 3, 4, 5, 6);
    // The crash came after the removal file was written and 1.json and 2.json were removed.
    await writeFile(path.join(dir, REMOVING_FILE), '1.json\n2.json\n3.json\n4.json\n');
    const log = await openChangeLog(dir, now);
    expect([...log.records.keys()].sort()).toEqual([5, 6]);
    expect(await readdir(dir)).toEqual(['5.json', '6.json']);
    expect(log.nextId).toBe(7);
  });

  it('keeps every record when the crash came while the removal file was being written, and removes what that write left', async () => {
    const dir = await temp.folder('not-begun');
    await withRecords(dir, 1, 2, 3);
    await writeFile(path.join(dir, `.${REMOVING_FILE}.0123456789ab.tmp`), '1.json\n');
    const log = await openChangeLog(dir, now);
    expect([...log.records.keys()].sort()).toEqual([1, 2, 3]);
    expect((await readdir(dir)).sort()).toEqual(['1.json', '2.json', '3.json']);
  });
});
