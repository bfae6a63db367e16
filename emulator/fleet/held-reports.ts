import type { ProvisionStatus } from '../../functions/core/device/index.ts';
import type { EmulatedClock } from '../emulated-clock.ts';

/** How often the reports of held devices are looked at, in real ms: a report is sent within this of its time. */
export const HELD_REPORTS_LOOK_MS = 1000;

/** The telemetry reports of a fleet's held devices, each sent when it falls due on the device's clock. */
export interface HeldReports {
  /** The held device `id` reports at `at`, in ms on its clock (replacing what it was told before). */
  schedule(id: string, at: number): void;
  /** Every report forgotten: the fleet was reset or restored. */
  clear(): void;
  /** Every report forgotten, and none scheduled from now on: the fleet stopped. */
  stop(): void;
}

export interface HeldReportsOptions {
  /** The clock of a device while it is held; undefined once it is built again or forgotten (its report is then dropped). */
  clockOf(id: string): EmulatedClock | undefined;
  /** Sends the device's report: builds it, reports, and lets it leave again. */
  report(id: string): Promise<void>;
  /** At most this many reports at once. */
  concurrency: number;
}

/**
 * A held device sends no telemetry of its own: it has no timers, only its state. Its next report is
 * kept here by the time on its clock, looked at every `HELD_REPORTS_LOOK_MS`; once due, `report`
 * builds the device, which reports as a built one does. A timer runs only while a report waits.
 *
 * @example
 * const reports = heldReports({ clockOf: (id) => held.get(id)?.clock, report: (id) => reportHeld(id), concurrency: 64 });
 * reports.schedule('router-7', Date.parse(status.telemetry.lastSuccess) + 60_000);
 */
export function heldReports(options: HeldReportsOptions): HeldReports {
  const due = new Map<string, number>();
  const waiting: string[] = [];
  let running = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let stopped = false;

  function look(): void {
    timer = undefined;
    for (const [id, at] of due) {
      const clock = options.clockOf(id);
      if (clock !== undefined && clock.now() < at) continue;
      due.delete(id);
      if (clock !== undefined) waiting.push(id);
    }
    pump();
    arm();
  }

  function pump(): void {
    while (running < options.concurrency && waiting.length > 0) {
      running += 1;
      // A report that fails is the device's to tell (its telemetry status); the next is scheduled as it leaves again.
      void options
        .report(waiting.shift()!)
        .catch(() => {})
        .finally(() => {
          running -= 1;
          pump();
        });
    }
  }

  function arm(): void {
    if (timer !== undefined || due.size === 0) return;
    timer = setTimeout(look, HELD_REPORTS_LOOK_MS);
    timer.unref();
  }

  function clear(): void {
    due.clear();
    waiting.length = 0;
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
  }

  return {
    schedule(id, at) {
      if (stopped) return;
      due.set(id, at);
      arm();
    },
    clear,
    stop() {
      stopped = true;
      clear();
    },
  };
}

/**
 * When a device's next telemetry report falls due, in ms on its clock: an interval after its last
 * report, delivered or not, or after it provisioned; null when it sends none (not provisioned, or
 * telemetry disabled by its host configuration).
 *
 * @example
 * nextReportAt(await device.provisioning.status()); // Date.parse(lastSuccess) + 60_000
 */
export function nextReportAt(status: ProvisionStatus): number | null {
  if (!status.provisioned || !status.telemetry.enabled) return null;
  const { interval, lastSuccess, lastError } = status.telemetry;
  const last = Math.max(...[status.provisionedAt, lastSuccess, lastError?.time].map((time) => (time ? Date.parse(time) : 0)));
  return last + interval * 1000;
}
