import type { ChangeRecord } from '../../functions/core/device/index.ts';
import { openChangeLog, type ChangeLog } from '../../runtime/changes/log.ts';

/**
 * The runtime's change log files (`openChangeLog`) with each save held until the test lets it go, as
 * a slow disk holds it: pass `openLog` to `changeRunner`; `next()` waits for the next save and answers
 * the record it writes, its last message and how to let it go; after `flow()`, saves go at once.
 *
 * @example
 * const saves = heldSaves();
 * const runner = changeRunner({ openLog: () => saves.openLog(dir, Date.now), effects });
 * const save = await saves.next(); // { text: 'queued', release, … }
 */
export function heldSaves() {
  const waiting: { record: ChangeRecord; release: () => void }[] = [];
  let flowing = false;
  const openLog = async (dir: string, now: () => number): Promise<ChangeLog> => {
    const log = await openChangeLog(dir, now);
    return {
      ...log,
      async save(record) {
        const copy = structuredClone(record);
        if (!flowing) await new Promise<void>((release) => waiting.push({ record: copy, release }));
        await log.save(record);
      },
    };
  };
  async function next(): Promise<{ record: ChangeRecord; text: string; release: () => void }> {
    while (waiting.length === 0) await new Promise((resolve) => setTimeout(resolve, 1));
    const save = waiting.shift()!;
    return { ...save, text: save.record.messages.at(-1)!.text };
  }
  function flow(): void {
    flowing = true;
    for (const save of waiting.splice(0)) save.release();
  }
  return { openLog, next, flow };
}
