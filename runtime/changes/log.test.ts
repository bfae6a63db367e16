import { readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ChangeRecord } from '../../functions/core/device.ts';
import { useTempDir } from '../../test/support/temp-dir.ts';
import { markNextId, NEXT_ID_FILE, openChangeLog, POWER_NOTES } from './log.ts';

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
