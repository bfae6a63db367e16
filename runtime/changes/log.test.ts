import { readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ChangeRecord } from '../../functions/core/device.ts';
import { useTempDir } from '../../test/temp-dir.ts';
import { markNextId, NEXT_ID_FILE, openChangeLog } from './log.ts';

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
