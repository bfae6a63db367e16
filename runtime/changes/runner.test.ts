import { readFile, readdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { changeSubject, type ChangeRecord, type ChangeRequest, type DeviceEvent } from '../../functions/core/device/index.ts';
import { useTempDir } from '../../test/support/temp-dir.ts';
import { heldSaves } from '../../test/support/held-saves.ts';
import { markNextId, NEXT_ID_FILE, openChangeLog, type ChangeLog } from './log.ts';
import { memoryChangeLog } from './memory-log.ts';
import { everyAction } from '../../test/support/change-effects.ts';
import { endedChange } from '../../test/support/change-log.ts';
import { eventBuffer } from '../events/buffer.ts';
import { changeRunner, MOST_CHANGES_UNDER_WAY, type ChangeEffect } from './runner.ts';

const temp = useTempDir('chutebox-changes-');

/** A perform that waits until the test releases each change, and logs what ran when. */
function gatedPerform() {
  const events: string[] = [];
  const gates = new Map<string, () => void>();
  const perform: ChangeEffect = async (request, note) => {
    const key = `${request.action} ${changeSubject(request) ?? 'device'}`;
    events.push(`begin ${key}`);
    await new Promise<void>((resolve) => gates.set(key, resolve));
    await note(`did ${key}`);
    events.push(`end ${key}`);
  };
  const until = async (done: () => boolean) => {
    while (!done()) await new Promise((resolve) => setTimeout(resolve, 1));
  };
  /** Releases a change once it has begun, and waits until its work has ended. */
  async function release(key: string): Promise<void> {
    await until(() => gates.has(key));
    gates.get(key)!();
    gates.delete(key);
    await until(() => events.includes(`end ${key}`));
  }
  return { perform, events, release };
}

const stop = (chute: string): ChangeRequest => ({ action: 'stop', chute });

/** The runner over the change files of `dir` (or the log `openLog` opens there), with `perform` as the effect of every action. */
function diskRunner(options: { dir: string; perform: ChangeEffect; now?: () => number; openLog?: (dir: string, now: () => number) => Promise<ChangeLog> }) {
  const now = options.now ?? Date.now;
  return changeRunner({ openLog: () => (options.openLog ?? openChangeLog)(options.dir, now), effects: everyAction(options.perform), now });
}

/** What the record file of change `id` in `dir` holds. */
const onDisk = async (dir: string, id: number) => JSON.parse(await readFile(path.join(dir, `${id}.json`), 'utf8')) as ChangeRecord;

describe('the runtime change log', () => {
  it('answers a queued record at once, then runs it to succeeded with timestamped messages, each transition on disk', async () => {
    const dir = await temp.folder('simple');
    let clock = Date.parse('2026-01-02T03:04:05Z');
    const runner = diskRunner({ dir, perform: async (_request, note) => note('stopped container abc'), now: () => (clock += 1000) });

    const queued = await runner.submitChange(stop('hello'));
    expect(queued).toMatchObject({ id: 1, action: 'stop', chute: 'hello', state: 'queued', messages: [{ text: 'queued' }] });
    await runner.idle();

    const done = await runner.change(1);
    expect(done).toEqual({
      id: 1,
      action: 'stop',
      chute: 'hello',
      state: 'succeeded',
      created: '2026-01-02T03:04:06.000Z',
      updated: '2026-01-02T03:04:09.000Z',
      messages: [
        { time: '2026-01-02T03:04:06.000Z', text: 'queued' },
        { time: '2026-01-02T03:04:07.000Z', text: 'running' },
        { time: '2026-01-02T03:04:08.000Z', text: 'stopped container abc' },
        { time: '2026-01-02T03:04:09.000Z', text: 'succeeded' },
      ],
    });
    expect(JSON.parse(await readFile(path.join(dir, '1.json'), 'utf8'))).toEqual(done);
    expect(await readdir(dir)).toEqual(['1.json']);
    expect(await runner.change(2)).toBeNull();
  });

  it('fails a change whose work throws, with the reason as its last message', async () => {
    const dir = await temp.folder('failing');
    const runner = diskRunner({
      dir,
      perform: async () => {
        throw new Error('No such image: hello:1');
      },
    });
    await runner.submitChange({ action: 'start', chute: 'hello' });
    await runner.idle();
    const change = (await runner.change(1))!;
    expect(change.state).toBe('failed');
    expect(change.messages.map((m) => m.text)).toEqual(['queued', 'running', 'failed: No such image: hello:1']);
  });

  it('runs the changes to one chute one after the other, and changes to other chutes meanwhile', async () => {
    const dir = await temp.folder('queues');
    const { perform, events, release } = gatedPerform();
    const runner = diskRunner({ dir, perform });
    await runner.submitChange({ action: 'start', chute: 'a' });
    await runner.submitChange(stop('a'));
    await runner.submitChange(stop('b'));

    await release('stop b');
    await release('start a');
    await release('stop a');
    await runner.idle();

    // b ran to its end while a's first change was held (release waits for each change to begin, so b
    // could not have waited for a); a's second change began only after its first ended.
    const at = (event: string) => events.indexOf(event);
    expect(events).toHaveLength(6);
    expect(at('begin start a')).toBeLessThan(at('end stop b'));
    expect(at('begin stop a')).toBeGreaterThan(at('end start a'));
    expect((await runner.changes()).map((c) => [c.id, c.state])).toEqual([
      [1, 'succeeded'],
      [2, 'succeeded'],
      [3, 'succeeded'],
    ]);
  });

  it('runs host configuration changes one after the other, recorded without a chute', async () => {
    const dir = await temp.folder('device');
    const { perform, events, release } = gatedPerform();
    const runner = diskRunner({ dir, perform });
    const first = await runner.submitChange({ action: 'update-hostconfig', config: { a: 1 } });
    await runner.submitChange({ action: 'update-hostconfig', config: { a: 2 } });
    expect(first.chute).toBeNull();

    await release('update-hostconfig device');
    await release('update-hostconfig device');
    await runner.idle();

    expect(events).toEqual([
      'begin update-hostconfig device',
      'end update-hostconfig device',
      'begin update-hostconfig device',
      'end update-hostconfig device',
    ]);
    expect((await runner.changes()).map((c) => [c.chute, c.state])).toEqual([
      [null, 'succeeded'],
      [null, 'succeeded'],
    ]);
  });

  it('runs exclusive work after every earlier change, refuses changes with 409 meanwhile, and reopens the log from disk', async () => {
    const dir = await temp.folder('exclusive');
    const { perform, events, release } = gatedPerform();
    const runner = diskRunner({ dir, perform });
    await runner.submitChange(stop('a'));
    let workStarted = false;
    const work = runner.exclusive(async () => {
      workStarted = true;
      expect(events).toEqual(['begin stop a', 'end stop a']);
      await rm(dir, { recursive: true });
      return 'reset';
    }, true);

    await expect(runner.submitChange(stop('b'))).rejects.toMatchObject({ status: 409 });
    expect(workStarted).toBe(false);
    await release('stop a');
    await expect(work).resolves.toBe('reset');

    expect(await runner.changes()).toEqual([]);
    expect((await runner.submitChange(stop('b'))).id).toBe(1);
    await release('stop b');
    await runner.idle();
  });

  it('numbers on above the old ids after a reset that marks the next id and removes the records, in this runner and in the next one', async () => {
    const dir = await temp.folder('reset-ids');
    const runner = diskRunner({ dir, perform: async () => undefined });
    await runner.submitChange(stop('a'));
    const old = await runner.submitChange(stop('b'));
    await runner.idle();
    await runner.exclusive(async () => {
      await markNextId(dir);
      for (const name of await readdir(dir)) if (name !== NEXT_ID_FILE) await rm(path.join(dir, name));
    }, true);

    expect(await runner.change(old.id)).toBeNull();
    const next = await runner.submitChange(stop('a'));
    expect(next.id).toBe(old.id + 1);
    await runner.idle();
    const restarted = diskRunner({ dir, perform: async () => undefined });
    expect((await restarted.submitChange(stop('a'))).id).toBe(next.id + 1);
    await restarted.idle();
  });

  it('shows a waiting change as queued and a begun one as running', async () => {
    const dir = await temp.folder('states');
    const { perform, release } = gatedPerform();
    const runner = diskRunner({ dir, perform });
    await runner.submitChange({ action: 'start', chute: 'a' });
    await runner.submitChange(stop('a'));
    while ((await runner.change(1))!.state !== 'running') await new Promise((resolve) => setTimeout(resolve, 1));
    expect((await runner.change(2))!.state).toBe('queued');
    await release('start a');
    await release('stop a');
    await runner.idle();
  });

  it('after a restart keeps every record, numbers on from the largest id, and fails what was left queued or running', async () => {
    const dir = await temp.folder('restart');
    const record = (id: number, state: ChangeRecord['state']): ChangeRecord => ({
      id,
      action: 'stop',
      chute: 'hello',
      state,
      created: '2026-01-20T00:00:00.000Z',
      updated: '2026-01-20T00:00:00.000Z',
      messages: [{ time: '2026-01-20T00:00:00.000Z', text: 'queued' }],
    });
    await writeFile(path.join(dir, '3.json'), JSON.stringify(record(3, 'succeeded')));
    await writeFile(path.join(dir, '7.json'), JSON.stringify(record(7, 'running')));
    await writeFile(path.join(dir, '8.json'), JSON.stringify(record(8, 'queued')));
    await writeFile(path.join(dir, '9.json'), 'not json');
    await writeFile(path.join(dir, 'notes.txt'), 'ignored');

    const now = () => Date.parse('2026-02-01T00:00:00Z');
    const runner = diskRunner({ dir, perform: async () => {}, now });
    expect((await runner.changes()).map((c) => [c.id, c.state])).toEqual([
      [3, 'succeeded'],
      [7, 'failed'],
      [8, 'failed'],
    ]);
    expect((await runner.change(7))!.messages.at(-1)).toEqual({
      time: '2026-02-01T00:00:00.000Z',
      text: 'failed: the runtime stopped while the change was running',
    });
    expect(JSON.parse(await readFile(path.join(dir, '8.json'), 'utf8')).state).toBe('failed');

    expect((await runner.submitChange(stop('hello'))).id).toBe(10);
    await runner.idle();
    const again = diskRunner({ dir, perform: async () => {}, now });
    expect((await again.changes()).map((c) => c.id)).toEqual([3, 7, 8, 10]);
    expect((await again.submitChange(stop('hello'))).id).toBe(11);
    await again.idle();
  });

  it('open() fails at once what was left queued or running, answers those changes, and annotate() adds to any record on disk', async () => {
    const dir = await temp.folder('open');
    const record = (id: number, state: ChangeRecord['state']): ChangeRecord => ({
      id,
      action: 'update-config',
      chute: 'hello',
      state,
      created: '2026-01-20T00:00:00.000Z',
      updated: '2026-01-20T00:00:00.000Z',
      messages: [{ time: '2026-01-20T00:00:00.000Z', text: 'queued' }],
    });
    await writeFile(path.join(dir, '2.json'), JSON.stringify(record(2, 'failed')));
    await writeFile(path.join(dir, '4.json'), JSON.stringify(record(4, 'running')));
    const now = () => Date.parse('2026-02-01T00:00:00Z');
    const runner = diskRunner({ dir, perform: async () => {}, now });

    const interrupted = await runner.open();
    expect(interrupted.map((c) => [c.id, c.state])).toEqual([[4, 'failed']]);
    expect(JSON.parse(await readFile(path.join(dir, '4.json'), 'utf8')).state).toBe('failed');

    await runner.annotate(4, 'repaired at the next start: restored the previous configuration');
    await runner.annotate(99, 'no such change: ignored');
    const stored = JSON.parse(await readFile(path.join(dir, '4.json'), 'utf8')) as ChangeRecord;
    expect(stored.state).toBe('failed');
    expect(stored.messages.at(-1)).toEqual({ time: '2026-02-01T00:00:00.000Z', text: 'repaired at the next start: restored the previous configuration' });
    expect((await readdir(dir)).sort()).toEqual(['2.json', '4.json']);
  });

  it('hands out copies: changing an answer changes nothing stored', async () => {
    const dir = await temp.folder('copies');
    const runner = diskRunner({ dir, perform: async () => {} });
    const queued = await runner.submitChange(stop('hello'));
    queued.messages.push({ time: 'x', text: 'tampered' });
    await runner.idle();
    const [listed] = await runner.changes();
    listed!.state = 'failed';
    expect((await runner.change(1))!.state).toBe('succeeded');
    expect((await runner.change(1))!.messages.map((m) => m.text)).not.toContain('tampered');
  });
});

describe('how many changes may wait', () => {
  it(`answers 429 with Retry-After beyond ${MOST_CHANGES_UNDER_WAY} changes queued or running, records nothing of it, and takes changes again once one ended`, async () => {
    const { perform, release } = gatedPerform();
    const runner = changeRunner({ openLog: async () => memoryChangeLog(), effects: everyAction(perform) });
    // Submitted at once: the bound holds against concurrent submissions too.
    const submitted = await Promise.allSettled(Array.from({ length: MOST_CHANGES_UNDER_WAY + 5 }, () => runner.submitChange(stop('busy'))));
    const refused = submitted.filter((outcome) => outcome.status === 'rejected').map((outcome) => (outcome as PromiseRejectedResult).reason);
    expect(refused).toHaveLength(5);
    expect(refused[0]).toMatchObject({ status: 429, headers: { 'retry-after': '1' } });
    expect((await runner.changes()).map((change) => change.id)).toEqual(Array.from({ length: MOST_CHANGES_UNDER_WAY }, (_, i) => i + 1));
    await release('stop busy');
    expect(await runner.submitChange(stop('busy'))).toMatchObject({ id: MOST_CHANGES_UNDER_WAY + 1, state: 'queued' });
  });
});

describe('the bound of the runtime change log', () => {
  /** The record files, the removal file and temporary files in `dir`. */
  const filesIn = async (dir: string) => {
    const names = await readdir(dir);
    return { records: names.filter((name) => /^[0-9]+\.json$/.test(name)).length, other: names.filter((name) => !/^[0-9]+\.json$/.test(name)) };
  };

  it('stays within its bound across 2,000 changes, the oldest removed as later ones end, and ids go on', async () => {
    const log = memoryChangeLog();
    // One time for every change: they end in the order of their ids, as each wave ran them.
    const now = () => Date.parse('2026-01-02T03:04:05Z');
    const runner = changeRunner({
      openLog: async () => log,
      effects: everyAction(async (_request, note) => note('done')),
      now,
      bound: { records: 50, days: 30 },
    });
    for (let wave = 0; wave < 50; wave++) {
      await Promise.all(Array.from({ length: 40 }, (_, chute) => runner.submitChange(stop(`chute-${chute}`))));
      await runner.idle();
      const kept = (await runner.changes()).map((change) => change.id);
      expect(kept.length).toBeLessThanOrEqual(50);
      expect(kept).toEqual(Array.from({ length: kept.length }, (_, i) => 40 * (wave + 1) - kept.length + 1 + i));
    }
    expect(log.records.size).toBeGreaterThanOrEqual(45);
    expect((await runner.submitChange(stop('hello'))).id).toBe(2001);
    await runner.idle();
  });

  it('never removes a queued or running change: the oldest change, held running, outlives 60 later ones', async () => {
    const dir = await temp.folder('held-running');
    const { perform, release } = gatedPerform();
    const runner = changeRunner({
      openLog: () => openChangeLog(dir, Date.now),
      effects: everyAction((request, note, id) => (request.action === 'start' ? perform(request, note, id) : note('done'))),
      bound: { records: 10, days: 30 },
    });
    await runner.submitChange({ action: 'start', chute: 'slow' });
    await runner.submitChange(stop('slow'));
    for (let i = 0; i < 60; i++) await runner.submitChange(stop(`chute-${i % 20}`));
    // Every change but the two of `slow` ends (idle() would wait for those too): wait for the 60 and their removals.
    const settled = (kept: ChangeRecord[]) => kept.length <= 12 && kept.at(-1)!.id === 62 && kept.slice(2).every((change) => change.state === 'succeeded');
    let kept = await runner.changes();
    while (!settled(kept)) {
      await new Promise((resolve) => setTimeout(resolve, 5));
      kept = await runner.changes();
    }
    expect(kept.slice(0, 2).map((change) => [change.id, change.state])).toEqual([
      [1, 'running'],
      [2, 'queued'],
    ]);

    await release('start slow');
    await runner.idle();
    expect((await runner.change(1))?.state).toBe('succeeded');
    const ended = await runner.changes();
    expect(ended.length).toBeLessThanOrEqual(10);
    expect(await filesIn(dir)).toEqual({ records: ended.length, other: [] });
  });

  it('removes the records of changes that ended more than its days ago when it opens the log, and keeps those the start repairs', async () => {
    const dir = await temp.folder('aged');
    const now = () => Date.parse('2026-03-01T00:00:00Z');
    const old = { created: '2026-01-01T00:00:00.000Z', updated: '2026-01-01T00:00:00.000Z' };
    for (const id of [1, 2]) await writeFile(path.join(dir, `${id}.json`), JSON.stringify({ ...endedChange(id), ...old }));
    await writeFile(path.join(dir, '3.json'), JSON.stringify({ ...endedChange(3), ...old, state: 'running' }));
    await writeFile(path.join(dir, '4.json'), JSON.stringify(endedChange(4, '2026-02-15T00:00:00.000Z')));
    const runner = diskRunner({ dir, perform: async () => {}, now });

    expect((await runner.open()).map((change) => change.id)).toEqual([3]);
    expect((await runner.changes()).map((change) => [change.id, change.state])).toEqual([
      [3, 'failed'],
      [4, 'succeeded'],
    ]);
    expect((await readdir(dir)).sort()).toEqual(['3.json', '4.json']);
  });
});

describe('the bound of the runtime change log, and the changes under repair and notes', () => {
  it('keeps every change the start repairs, even beyond the bound, until a change ends', async () => {
    const dir = await temp.folder('repaired');
    for (const id of [1, 2, 3])
      await writeFile(path.join(dir, `${id}.json`), JSON.stringify({ ...endedChange(id, new Date().toISOString()), state: 'running' }));
    const runner = changeRunner({ openLog: () => openChangeLog(dir, Date.now), effects: everyAction(async () => {}), bound: { records: 1, days: 30 } });

    expect((await runner.open()).map((change) => [change.id, change.state])).toEqual([
      [1, 'failed'],
      [2, 'failed'],
      [3, 'failed'],
    ]);
    await runner.submitChange(stop('hello'));
    await runner.idle();
    expect((await runner.changes()).map((change) => change.id)).toEqual([4]);
  });

  it('writes nothing more of a record a removal takes: a note asked of it meanwhile waits, and finds it gone', async () => {
    const dir = await temp.folder('note-removed');
    const saved: string[] = [];
    let releaseRemoval = () => {};
    let removing: number[] = [];
    const openLog = async (dir: string, now: () => number): Promise<ChangeLog> => {
      const log = await openChangeLog(dir, now);
      return {
        ...log,
        save: async (record) => (saved.push(`${record.id} ${record.messages.at(-1)!.text}`), log.save(record)),
        async remove(ids) {
          if (ids.length === 0) return;
          removing = [...ids];
          await new Promise<void>((release) => (releaseRemoval = release));
          await log.remove(ids);
        },
      };
    };
    const runner = changeRunner({ openLog: () => openLog(dir, Date.now), effects: everyAction(async () => {}), bound: { records: 1, days: 30 } });
    await runner.submitChange(stop('a'));
    await runner.idle();
    await runner.submitChange(stop('b'));
    while (removing.length === 0) await new Promise((resolve) => setTimeout(resolve, 1));
    expect(removing).toEqual([1]);

    saved.length = 0;
    const annotated = runner.annotate(1, 'a note from elsewhere');
    await new Promise((resolve) => setTimeout(resolve, 20));
    releaseRemoval();
    await annotated;
    await runner.idle();
    expect(saved).toEqual([]);
    expect(await runner.change(1)).toBeNull();
    expect(await readdir(dir)).toEqual(['2.json']);
  });
});

describe('GET /api/v1/changes/<id> of the runtime: only what is saved', () => {
  it('answers a state only once it is on disk: while a save is under way, the record as last saved', async () => {
    const dir = await temp.folder('held');
    const saves = heldSaves();
    const runner = diskRunner({ dir, perform: async (_request, note) => note('stopped container abc'), openLog: saves.openLog });

    const submitted = runner.submitChange(stop('hello'));
    const queued = await saves.next();
    expect(queued.text).toBe('queued');
    expect(await runner.change(1)).toBeNull();
    expect(await runner.changes()).toEqual([]);
    queued.release();
    expect((await submitted).state).toBe('queued');

    for (const [text, served] of [
      ['running', 'queued'],
      ['stopped container abc', 'running'],
      ['succeeded', 'running'],
    ] as const) {
      const save = await saves.next();
      expect(save.text).toBe(text);
      expect((await runner.change(1))!.state).toBe(served);
      expect(await runner.change(1)).toEqual(await onDisk(dir, 1));
      expect(await runner.changes()).toEqual([await onDisk(dir, 1)]);
      save.release();
    }
    await runner.idle();
    expect((await runner.change(1))!.state).toBe('succeeded');
    expect(await runner.change(1)).toEqual(await onDisk(dir, 1));
  });

  it('goes on answering the last state saved when saving the outcome fails', async () => {
    const dir = await temp.folder('disk-full');
    const openLog = async (dir: string, now: () => number): Promise<ChangeLog> => {
      const log = await openChangeLog(dir, now);
      return {
        ...log,
        async save(record) {
          if (record.state === 'succeeded' || record.state === 'failed') throw new Error('ENOSPC: no space left on device');
          await log.save(record);
        },
      };
    };
    const logged = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      const runner = diskRunner({ dir, perform: async () => {}, openLog });
      await runner.submitChange(stop('hello'));
      await runner.idle();
      const served = (await runner.change(1))!;
      expect(served.state).toBe('running');
      expect(served).toEqual(await onDisk(dir, 1));
      expect(logged).toHaveBeenCalledWith('change 1:', expect.objectContaining({ message: 'ENOSPC: no space left on device' }));
    } finally {
      logged.mockRestore();
    }
  });

  it('keeps every message when a change is annotated while one of its saves is under way', async () => {
    const dir = await temp.folder('annotated');
    const saves = heldSaves();
    const runner = diskRunner({ dir, perform: async (_request, note) => note('did it'), openLog: saves.openLog });
    const submitted = runner.submitChange(stop('hello'));
    for (const text of ['queued', 'running']) {
      const save = await saves.next();
      expect(save.text).toBe(text);
      save.release();
    }
    await submitted;
    const held = await saves.next();
    expect(held.text).toBe('did it');
    const annotated = runner.annotate(1, 'a note from elsewhere');
    held.release();
    saves.flow();
    await annotated;
    await runner.idle();
    const done = (await runner.change(1))!;
    expect(done.messages.map((message) => message.text)).toEqual(['queued', 'running', 'did it', 'a note from elsewhere', 'succeeded']);
    expect(done).toEqual(await onDisk(dir, 1));
  });

  it('calls what a change leaves for after its success once succeeded is saved, before the next change of its queue begins', async () => {
    const dir = await temp.folder('after');
    const events: string[] = [];
    const openLog = async (dir: string, now: () => number): Promise<ChangeLog> => {
      const log = await openChangeLog(dir, now);
      return { ...log, save: async (record) => (await log.save(record), void events.push(`saved ${record.id} ${record.state}`)) };
    };
    const runner = diskRunner({
      dir,
      openLog,
      perform: async (request, _note, id) => {
        events.push(`perform ${id}`);
        if (request.action === 'start') throw new Error('no image');
        return async () => void events.push(`after ${id}`);
      },
    });
    await runner.submitChange(stop('a'));
    await runner.submitChange(stop('a'));
    await runner.submitChange({ action: 'start', chute: 'a' });
    await runner.idle();
    const ofChange = (id: number) => events.filter((event) => event.split(' ')[1] === String(id));
    expect(ofChange(1)).toEqual(['saved 1 queued', 'saved 1 running', 'perform 1', 'saved 1 succeeded', 'after 1']);
    expect(ofChange(3)).toEqual(['saved 3 queued', 'saved 3 running', 'perform 3', 'saved 3 failed']);
    expect(events.indexOf('after 1')).toBeLessThan(events.indexOf('saved 2 running'));
    expect(events.indexOf('after 2')).toBeLessThan(events.indexOf('saved 3 running'));
  });
});

/** The change record a change event carries. */
const changeOf = (event: DeviceEvent | undefined) => (event as Extract<DeviceEvent, { change: ChangeRecord }> | undefined)?.change;

describe('the events of the runtime change log', () => {
  it('publishes each record once it is saved: queued, progressed for each message, ended with the final state', async () => {
    const dir = await temp.folder('events');
    const saves = heldSaves();
    const events = eventBuffer(Date.now);
    const seen: DeviceEvent[] = [];
    events.followEvents((event) => seen.push(event));
    const runner = changeRunner({
      openLog: () => saves.openLog(dir, Date.now),
      effects: everyAction(async (_request, note) => note('stopped container abc')),
      publish: events.publish,
    });
    const lastText = () => changeOf(seen.at(-1))?.messages.at(-1)?.text;
    void runner.submitChange(stop('hello'));
    for (const text of ['queued', 'running', 'stopped container abc', 'succeeded']) {
      const save = await saves.next();
      expect(save.text).toBe(text);
      // Not before it is saved: a client that reads the change when the event comes finds it so.
      expect(lastText()).not.toBe(text);
      save.release();
      while (lastText() !== text) await new Promise((resolve) => setTimeout(resolve, 1));
    }
    await runner.idle();
    expect(seen.map((event) => [event.kind, 'chute' in event ? event.chute : undefined, changeOf(event)!.state])).toEqual([
      ['change.queued', 'hello', 'queued'],
      ['change.progressed', 'hello', 'running'],
      ['change.progressed', 'hello', 'running'],
      ['change.ended', 'hello', 'succeeded'],
    ]);
    expect(changeOf(seen.at(-1))).toEqual(await runner.change(1));
  });

  it('ends a change that fails with change.ended, its reason the last message, and a device change with chute null', async () => {
    const events = eventBuffer(Date.now);
    const seen: DeviceEvent[] = [];
    events.followEvents((event) => seen.push(event));
    const runner = changeRunner({
      openLog: async () => memoryChangeLog(),
      effects: everyAction(async () => {
        throw new Error('no space left');
      }),
      publish: events.publish,
    });
    await runner.submitChange({ action: 'update-hostconfig', config: {} });
    await runner.idle();
    expect(seen.map((event) => event.kind)).toEqual(['change.queued', 'change.progressed', 'change.ended']);
    expect(seen.at(-1)).toMatchObject({ chute: null, change: { state: 'failed' } });
    expect(changeOf(seen.at(-1))!.messages.at(-1)!.text).toBe('failed: no space left');
  });
});
