import { changeQueue, changeSubject, type ChangeRecord, type ChangeRequest, type Device } from '../../functions/core/device.ts';
import { HttpProblem } from '../../functions/core/problem.ts';
import { openChangeLog, type ChangeLog } from './log.ts';

/** Adds a timestamped message to the running change's record (and writes it). */
export type Note = (text: string) => Promise<void>;

/** Does what change `id` asks; throws to fail it (the error's message goes into the record). */
export type PerformChange = (request: ChangeRequest, note: Note, id: number) => Promise<void>;

export interface ChangeRunnerOptions {
  /** Where the records are kept: `<state-dir>/changes`. */
  dir: string;
  perform: PerformChange;
  /** The clock, in ms since the epoch; default `Date.now`. */
  now?: () => number;
}

/** The Device's change methods, and `idle()` for whoever must wait until every change is final. */
export type ChangeRunner = Pick<Device, 'submitChange' | 'change' | 'changes'> & {
  /** Resolves once every change submitted so far is final. */
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


/**
 * The runtime's changes: each record persisted as `<dir>/<id>.json` on every transition and message,
 * ids 1 + the largest on disk or the high-water mark a factory reset left (no id is given twice),
 * changes to one chute run one after the other, changes to different chutes concurrently; changes to
 * the device (`update-hostconfig`) run one after the other too. The log is opened by `open()` or on
 * first use; a change left `queued` or `running` by an earlier runtime is then marked `failed`.
 *
 * Messages: `queued`, `running`, what `perform` notes, then `succeeded` or `failed: <reason>`.
 *
 * @example
 * const runner = changeRunner({ dir: '/var/lib/chutebox/changes', perform: chuteLifecycle(…) });
 * const { id } = await runner.submitChange({ action: 'stop', chute: 'hello' }); // state 'queued'
 */
export function changeRunner(options: ChangeRunnerOptions): ChangeRunner {
  const now = options.now ?? Date.now;
  let opening: Promise<ChangeLog> | undefined;
  const log = () => (opening ??= openChangeLog(options.dir, now));
  /** The tail of each chute's queue. */
  const queues = new Map<string, Promise<void>>();
  const running = new Set<Promise<void>>();
  /** Exclusive work asked for and not yet done. */
  let exclusive = 0;
  /** Settles when the last exclusive work is done: the next one waits for it. */
  let exclusiveTurns: Promise<unknown> = Promise.resolve();

  async function note(log: ChangeLog, record: ChangeRecord, text: string, state = record.state): Promise<void> {
    const time = new Date(now()).toISOString();
    record.messages.push({ time, text });
    record.state = state;
    record.updated = time;
    await log.save(record);
  }

  async function run(log: ChangeLog, record: ChangeRecord, request: ChangeRequest): Promise<void> {
    try {
      await note(log, record, 'running', 'running');
      await options.perform(request, (text) => note(log, record, text), record.id);
      await note(log, record, 'succeeded', 'succeeded');
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      await note(log, record, `failed: ${reason}`, 'failed').catch((failure: unknown) => console.error(`change ${record.id}:`, failure));
    }
  }

  return {
    async submitChange(request) {
      if (exclusive > 0) throw new HttpProblem(409, 'a factory reset is in progress: no change is accepted until it is done');
      const changes = await log();
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
      changes.records.set(record.id, record);
      try {
        await changes.save(record);
      } catch (error) {
        changes.records.delete(record.id);
        throw error;
      }
      const answer = structuredClone(record);
      const queue = changeQueue(request);
      const previous = queues.get(queue) ?? Promise.resolve();
      const done = previous.then(() => run(changes, record, request));
      queues.set(queue, done);
      running.add(done);
      void done.finally(() => {
        running.delete(done);
        if (queues.get(queue) === done) queues.delete(queue);
      });
      return answer;
    },
    async change(id) {
      const record = (await log()).records.get(id);
      return record === undefined ? null : structuredClone(record);
    },
    async changes() {
      return [...(await log()).records.values()].sort((a, b) => a.id - b.id).map((record) => structuredClone(record));
    },
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
      const record = changes.records.get(id);
      if (record !== undefined) await note(changes, record, text);
    },
  };
}
