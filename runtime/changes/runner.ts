import {
  changeQueue,
  changeSubject,
  type ChangeAction,
  type ChangeRecord,
  type ChangeRequest,
  type ChuteAction,
  type Device,
} from '../../functions/core/device/index.ts';
import { HttpProblem } from '../../functions/core/problem.ts';
import type { PublishEvent } from '../events/buffer.ts';
import { DEFAULT_CHANGE_LOG_BOUND, recordsBeyond, type ChangeLogBound } from './bound.ts';
import type { ChangeLog } from './log.ts';

/** Adds a timestamped message to the running change's record (and writes it). */
export type Note = (text: string) => Promise<void>;

/**
 * What a change leaves to do once its `succeeded` is saved: what must not happen before its outcome is
 * on disk, such as removing what would undo it after a crash (the host configuration's rollback file).
 */
export type AfterSucceeded = () => Promise<void>;

/** The request of a change that asks for `action`. */
export type ChangeRequestOf<A extends ChangeAction> = ChangeRequest & { action: A };

/**
 * What one action does, on the device or in the emulator: does what change `id` asks, noting what it
 * did; throws to fail it (the error's message goes into the record). It may answer an
 * `AfterSucceeded`, which the runner calls once the change's `succeeded` is saved, before the next
 * change of its queue begins.
 */
// biome-ignore lint/suspicious/noConfusingVoidType: `void` lets a plain async function with no return be an effect; `undefined` would not.
export type ChangeEffect<A extends ChangeAction = ChangeAction> = (request: ChangeRequestOf<A>, note: Note, id: number) => Promise<void | AfterSucceeded>;

/**
 * An effect for every action: a table that lacks one does not compile, so a new action in
 * `ChangeRequest` is a compile error until every device (host, emulator, memory) says what it does.
 *
 * @example
 * const effects: ChangeEffects = { ...chuteEffects, 'update-hostconfig': applyHostConfig, reboot: power, shutdown: power };
 */
export type ChangeEffects = { [A in ChangeAction]: ChangeEffect<A> };

/**
 * The effects of every chute action, each made by `make(action)`: for a device that runs all of them
 * through one function of its own (the host loads the chute-lifecycle bundle first, the emulator edits its
 * state). A chute action added to `ChangeRequest` is a compile error here until it is listed.
 *
 * @example
 * const effects: ChangeEffects = { ...chuteEffectsBy((action) => async (request, note) => note(`${action} ${request.chute}`)), … };
 */
export function chuteEffectsBy(make: <A extends ChuteAction>(action: A) => ChangeEffect<A>): Pick<ChangeEffects, ChuteAction> {
  return {
    install: make('install'),
    start: make('start'),
    stop: make('stop'),
    restart: make('restart'),
    delete: make('delete'),
    'update-config': make('update-config'),
    update: make('update'),
  };
}

export interface ChangeRunnerOptions {
  /**
   * Opens the log, on first use and again after `exclusive(work, true)`: on the device the files of
   * `<state-dir>/changes` (`openChangeLog`), in the emulator and in tests one in memory (`memoryChangeLog`).
   */
  openLog: () => Promise<ChangeLog>;
  /** What each action does. */
  effects: ChangeEffects;
  /** The clock, in ms since the epoch; default `Date.now`. */
  now?: () => number;
  /**
   * What change `id` waits for once it is its turn, before it runs (`running`); by default nothing: the
   * emulator's pace (`--change-delay`), a test device's hold until the test lets changes run.
   */
  turn?: (id: number) => Promise<void>;
  /** How many records the log keeps, and for how long; default `DEFAULT_CHANGE_LOG_BOUND`. */
  bound?: ChangeLogBound;
  /** Where each record saved goes as an event (`change.queued`, `change.progressed`, `change.ended`); the log's own record, not to be changed. */
  publish?: PublishEvent;
}

/** The Device's change methods, and `idle()` for whoever must wait until every change is final. */
export type ChangeRunner = Pick<Device, 'submitChange' | 'change' | 'changes'> & {
  /** Resolves once every change submitted so far is final, and the log within its bound. */
  idle(): Promise<void>;
  /**
   * Opens the log now rather than on first use, and answers the changes that an earlier runtime left
   * `queued` or `running`, which opening marked `failed` (copies, oldest first).
   */
  open(): Promise<ChangeRecord[]>;
  /** Adds a timestamped message to change `id`'s record, whatever its state; an unknown id is ignored. */
  annotate(id: number, text: string): Promise<void>;
  /**
   * Runs `work` once every change submitted so far is final (a factory reset). Until it is done, a
   * new change is refused (HttpProblem 409). With `reopen`, the log is read from disk again
   * afterwards, for work that replaced it.
   */
  exclusive<T>(work: () => Promise<T>, reopen?: boolean): Promise<T>;
};

/** A runner's changes under way, to carry on in another runner (a fleet's device on Lambda, its state restored on each invocation). */
export interface ChangesUnderWay {
  /**
   * Carries on change `id`, which the log holds as `queued` or `running`, with the request it was
   * submitted with: it waits in its queue behind the changes resumed before it, then goes on from the
   * step its record is at. A record that is not there or has ended is left alone.
   */
  resume(id: number, request: ChangeRequest): Promise<void>;
  /** The changes queued or running now, oldest first, with the requests they were submitted with. */
  underWay(): { id: number; request: ChangeRequest }[];
}

/**
 * The one change pipeline, of the device, the emulator and the test devices alike: each record saved
 * in the log on every transition and message (on the device, as `<dir>/<id>.json`),
 * ids 1 + the largest on disk or the high-water mark a factory reset left (no id is given twice),
 * changes to one chute run one after the other, changes to different chutes concurrently; changes to
 * the device (`update-hostconfig`) run one after the other too. The log is opened by `open()` or on
 * first use; a change left `queued` or `running` by an earlier runtime is then marked `failed`.
 *
 * A state is served only once it is saved: each transition and message is written as a new copy of
 * the record, which `change()` and `changes()` answer only after the write is done (saves of one
 * record run one after the other). A client that read `succeeded` reads it after any crash, too.
 *
 * Messages: `queued`, `running`, what the action's effect notes, then `succeeded` or `failed: <reason>`.
 * Each record saved is published once served: `change.queued` for the first, `change.ended` for the
 * one that makes it `succeeded` or `failed`, `change.progressed` for every other message.
 *
 * The log stays within `bound`: when it is opened, and in the background after each change ends, the
 * records beyond it (`recordsBeyond`: of ended changes only, those that ended longest ago first) are
 * removed, one removal after the other; `idle()` and `exclusive()` wait for them too.
 *
 * @example
 * const runner = changeRunner({ openLog: () => openChangeLog('/var/lib/chutebox/changes', Date.now), effects });
 * const { id } = await runner.submitChange({ action: 'stop', chute: 'hello' }); // state 'queued'
 */
/**
 * How many changes may be queued or running at once: each holds its request (a chute's whole
 * configuration) in memory until it ends, so a client that queues faster than the device works is
 * told to wait (429 with `Retry-After`) rather than let the queue grow without bound.
 */
export const MOST_CHANGES_UNDER_WAY = 100;

export function changeRunner(options: ChangeRunnerOptions): ChangeRunner & ChangesUnderWay {
  const now = options.now ?? Date.now;
  const bound = options.bound ?? DEFAULT_CHANGE_LOG_BOUND;
  let opening: Promise<ChangeLog> | undefined;
  /**
   * The log, opened on first use and brought within the bound (the changes the start repairs stay
   * until a change ends).
   */
  const log = () =>
    (opening ??= options.openLog().then(async (changes) => {
      await trim(changes, (id) => changes.interrupted.includes(id));
      return changes;
    }));
  /** The tail of each chute's queue. */
  const queues = new Map<string, Promise<void>>();
  const running = new Set<Promise<void>>();
  /** The tail of each record's saves: the next one starts from what the last one saved. */
  const saves = new Map<number, Promise<void>>();
  /** Exclusive work asked for and not yet done. */
  let exclusive = 0;
  /** Settles when the last exclusive work is done: the next one waits for it. */
  let exclusiveTurns: Promise<unknown> = Promise.resolve();
  /** Settles when the last removal of records beyond the bound is done: the next one waits for it. */
  let trimmed: Promise<void> = Promise.resolve();
  /** The request of each change queued or running. */
  const requests = new Map<number, ChangeRequest>();
  /** Submissions past the bound's check whose record is not saved yet. */
  let submitting = 0;

  /** Runs `work` on record `id` once the work queued on it before is done: its saves, or its removal. */
  function afterSaves(id: number, work: () => Promise<void>): Promise<void> {
    const save = (saves.get(id) ?? Promise.resolve()).then(work);
    const tail = save.catch(() => {});
    saves.set(id, tail);
    void tail.then(() => {
      if (saves.get(id) === tail) saves.delete(id);
    });
    return save;
  }

  /**
   * Adds a timestamped message (and the new state) to a copy of the saved record `id`, saves the copy,
   * and only then serves it. After a save that fails, the record served is still the last one saved.
   * A record removed meanwhile (beyond the bound: a change that ended) gets nothing.
   */
  function note(changes: ChangeLog, id: number, text: string, state?: ChangeRecord['state']): Promise<void> {
    return afterSaves(id, async () => {
      const saved = changes.records.get(id);
      if (saved === undefined) return;
      const record = structuredClone(saved);
      const time = new Date(now()).toISOString();
      record.messages.push({ time, text });
      if (state !== undefined) record.state = state;
      record.updated = time;
      await changes.save(record);
      changes.records.set(id, record);
      published(state === 'succeeded' || state === 'failed' ? 'change.ended' : 'change.progressed', record);
    });
  }

  /** Publishes a record as it is served now. */
  function published(kind: 'change.queued' | 'change.progressed' | 'change.ended', record: ChangeRecord): void {
    options.publish?.({ kind, chute: record.chute, change: record });
  }

  /**
   * Removes the records beyond the bound (`recordsBeyond`) once the removal before is done, but none
   * with a save under way or that `keep` names. A save asked of a removed record afterwards waits for
   * the removal and finds the record gone (`note`), so it cannot write it again. Never rejects: a
   * failure is logged, and the next change tries again.
   */
  function trim(changes: ChangeLog, keep: (id: number) => boolean = () => false): Promise<void> {
    trimmed = trimmed
      .then(() => {
        if (changes.records.size === 0) return;
        const ids = recordsBeyond(changes.records, bound, now(), (id) => saves.has(id) || keep(id));
        const removal = changes.remove(ids);
        for (const id of ids) void afterSaves(id, () => removal);
        return removal;
      })
      .catch((error: unknown) => console.error('trimming the change log failed:', error));
    return trimmed;
  }

  /** `trim` in the background: `idle()` and `exclusive()` wait for it as for a change. */
  function trimSoon(changes: ChangeLog): void {
    const trimming = trim(changes);
    running.add(trimming);
    void trimming.finally(() => running.delete(trimming));
  }

  /** Runs the effect of the request's action. */
  const perform = <A extends ChangeAction>(request: ChangeRequestOf<A>, note: Note, id: number) =>
    (options.effects[request.action] as ChangeEffect<A>)(request, note, id);

  /** Runs change `id` from its step `from`: a queued change waits its turn, a running one goes on with its effect. */
  async function run(changes: ChangeLog, id: number, request: ChangeRequest, from: 'queued' | 'running'): Promise<void> {
    let after: Awaited<ReturnType<ChangeEffect>>;
    try {
      if (from === 'queued') {
        await options.turn?.(id);
        await note(changes, id, 'running', 'running');
      }
      after = await perform(request, (text) => note(changes, id, text), id);
      await note(changes, id, 'succeeded', 'succeeded');
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      await note(changes, id, `failed: ${reason}`, 'failed').catch((failure: unknown) => console.error(`change ${id}:`, failure));
      return;
    }
    try {
      await after?.();
    } catch (error) {
      console.error(`change ${id}, after it succeeded:`, error);
    }
  }

  /** Runs change `id` from `from` once the changes before it in its queue are done. */
  function enqueue(changes: ChangeLog, id: number, request: ChangeRequest, from: 'queued' | 'running'): void {
    const queue = changeQueue(request);
    const previous = queues.get(queue) ?? Promise.resolve();
    requests.set(id, request);
    const done = previous
      .then(() => run(changes, id, request, from))
      .finally(() => requests.delete(id))
      .then(() => trimSoon(changes));
    queues.set(queue, done);
    running.add(done);
    void done.finally(() => {
      running.delete(done);
      if (queues.get(queue) === done) queues.delete(queue);
    });
  }

  return {
    async submitChange(request) {
      if (exclusive > 0) throw new HttpProblem(409, 'a factory reset is in progress: no change is accepted until it is done');
      const changes = await log();
      // Counted from here, before its record is saved: concurrent submissions cannot overshoot the bound.
      if (requests.size + submitting >= MOST_CHANGES_UNDER_WAY) {
        throw new HttpProblem(429, `${MOST_CHANGES_UNDER_WAY} changes are queued or running: submit this one once some have ended`, {
          headers: { 'retry-after': '1' },
        });
      }
      submitting += 1;
      try {
        const time = new Date(now()).toISOString();
        const record: ChangeRecord = {
          id: changes.nextId++,
          action: request.action,
          chute: changeSubject(request),
          state: 'queued',
          created: time,
          updated: time,
          messages: [{ time, text: 'queued' }],
        };
        await changes.save(record);
        changes.records.set(record.id, record);
        published('change.queued', record);
        const answer = structuredClone(record);
        enqueue(changes, record.id, request, 'queued');
        return answer;
      } finally {
        submitting -= 1;
      }
    },
    change: (id) =>
      log().then((changes) => {
        const record = changes.records.get(id);
        return record === undefined ? null : structuredClone(record);
      }),
    changes: () => log().then((changes) => [...changes.records.values()].sort((a, b) => a.id - b.id).map((record) => structuredClone(record))),
    async idle() {
      while (running.size > 0) await Promise.all(running);
    },
    async open() {
      const changes = await log();
      return changes.interrupted.map((id) => structuredClone(changes.records.get(id)!));
    },
    async exclusive(work, reopen = false) {
      exclusive++;
      const turn = exclusiveTurns.then(async () => {
        while (running.size > 0) await Promise.allSettled(running);
        try {
          return await work();
        } finally {
          if (reopen) opening = undefined;
        }
      });
      exclusiveTurns = turn.catch(() => undefined);
      try {
        return await turn;
      } finally {
        exclusive--;
      }
    },
    async annotate(id, text) {
      const changes = await log();
      if (changes.records.has(id)) await note(changes, id, text);
    },
    async resume(id, request) {
      const changes = await log();
      const state = changes.records.get(id)?.state;
      if ((state === 'queued' || state === 'running') && !requests.has(id)) enqueue(changes, id, request, state);
    },
    underWay: () => [...requests].sort(([a], [b]) => a - b).map(([id, request]) => ({ id, request })),
  };
}
