import type { DeviceEventBody } from '../../../functions/core/device/index.ts';

/** Where a source hands each event it sees: the device's event buffer (functions/core/device/events.ts). */
export type Publish = (body: DeviceEventBody) => void;

/** A running source of device events. */
export interface EventSource {
  /**
   * Settles once the source has had its first look (what it starts from, which is no news): what
   * changes from then on is told.
   */
  ready: Promise<void>;
  /** Stops it: no event comes after; resolves once whatever it ran (processes, watches, timers) is gone. */
  stop(): Promise<void>;
}

/**
 * Runs `work` one at a time: `run()` while it runs makes it run once more afterwards, however many
 * calls came meanwhile. A failure is handed to `onError` (the next run happens all the same).
 *
 * @example
 * const rescan = oneAtATime(async () => { … }, (error) => console.error(error));
 * rescan.run(); rescan.run(); // one run now, one after it
 * await rescan.idle();
 */
export function oneAtATime(work: () => Promise<void>, onError: (error: unknown) => void): { run(): void; idle(): Promise<void> } {
  let running: Promise<void> | null = null;
  let again = false;
  const loop = async () => {
    do {
      again = false;
      await work().catch(onError);
    } while (again);
    running = null;
  };
  return {
    run() {
      if (running !== null) again = true;
      else running = loop();
    },
    idle: () => running ?? Promise.resolve(),
  };
}
