import type { ChangeRecord } from '../../functions/core/device/index.ts';
import type { ChangeLog } from './log.ts';

/** A change log in memory, and what a factory reset does to it. */
export type MemoryChangeLog = ChangeLog & {
  /** Forgets every record but keeps the next id, as a device's reset does: no id is given twice. */
  clear(): void;
};

/**
 * The change log of the emulator and of test devices: the records given (copies, as an earlier run
 * left them: final, not marked), the next id after the largest, saves kept in memory only.
 *
 * @example
 * const runner = changeRunner({ openLog: async () => log, effects });
 * const log = memoryChangeLog();
 */
export function memoryChangeLog(records: readonly ChangeRecord[] = []): MemoryChangeLog {
  const log: MemoryChangeLog = {
    records: new Map(records.map((record) => [record.id, structuredClone(record)])),
    nextId: Math.max(0, ...records.map((record) => record.id)) + 1,
    interrupted: [],
    async save() {},
    async remove(ids) {
      for (const id of ids) log.records.delete(id);
    },
    clear() {
      log.records.clear();
    },
  };
  return log;
}
