import type { Device } from '../../functions/core/device/index.ts';
import { parseUptime } from '../../functions/parsers/uptime.ts';
import { CLOCK_FILES } from '../scenario/clock.ts';
import { normalizePosix } from '../scenario/tree.ts';
import type { DeviceFault } from './device-fault.ts';

/** The reboot windows of a device without an active fault. */
const NO_WINDOWS: readonly [number, number][] = Object.freeze([]);

/** How long a `reboot` keeps the device silent when its fault gives no `seconds`. */
export const DEFAULT_REBOOT_SECONDS = 30;

/** The reboots of a device: whether it is silent now, and its files as after its last boot. */
export interface Reboots {
  /** Whether a reboot is under way: the device answers nothing. */
  silent(): boolean;
  /** The device's files, with /proc/uptime and /proc/stat counting from its last boot once a reboot has ended. */
  files: Pick<Device, 'readFile'>;
}

/**
 * The `reboot` faults of a device on its clock `now`: one that began at `at` (else when first met)
 * keeps the device silent for `seconds` (default 30), then the device has booted: /proc/uptime counts
 * from 0 there and its idle time at the rate of the recording, /proc/stat's `btime` is that moment and
 * its counters since boot (CPU times, interrupts, context switches, processes forked) shrink with the
 * uptime. The last boot is kept once its fault is gone, as a device keeps its uptime.
 *
 * @example
 * const reboots = rebootsOf(active, device.now);
 * reboots.silent(); // true for 30 s after a { device: 'reboot' } fault began
 */
export function rebootsOf(files: Pick<Device, 'readFile'>, active: () => readonly DeviceFault[], now: () => number): Reboots {
  /** When each reboot without `at` was first met. */
  const met = new WeakMap<DeviceFault, number>();
  /** The end of the last reboot that has ended: when the device booted. */
  let booted: number | null = null;

  /** The reboots active now, as [start, end) in ms; notes the last boot among them that has passed. */
  function windows(at: number): readonly [number, number][] {
    const faults = active();
    // Asked at every request (`silent()`): nothing is made while no fault is active.
    if (faults.length === 0) return NO_WINDOWS;
    const spans = faults
      .filter((fault) => fault.device === 'reboot')
      .map((fault): [number, number] => {
        const start = fault.at ?? met.get(fault) ?? (met.set(fault, at), at);
        return [start, start + (fault.seconds ?? DEFAULT_REBOOT_SECONDS) * 1000];
      });
    for (const [start, end] of spans) if (start <= at && end <= at && (booted === null || end > booted)) booted = end;
    return spans;
  }

  /** /proc/uptime or /proc/stat as they read at `at` on a device that booted at `bootedAt` (ms). */
  async function clockFileSinceBoot(which: string, at: number, bootedAt: number): Promise<string | null> {
    const [text, uptimeText] = await Promise.all([files.readFile(which), files.readFile(CLOCK_FILES.uptime)]);
    const times = uptimeText === null ? null : parseUptime(uptimeText);
    if (text === null || times === null || times.uptime <= 0) return text;
    const sinceBoot = Math.max(0, Math.floor((at - bootedAt) / 10)) / 100;
    const ratio = Math.min(1, sinceBoot / times.uptime);
    return which === CLOCK_FILES.uptime ? uptimeSince(times, sinceBoot, ratio) : statSince(text, bootedAt, ratio);
  }

  return {
    silent() {
      const at = now();
      return windows(at).some(([start, end]) => start <= at && at < end);
    },
    files: {
      readFile(file) {
        const at = now();
        windows(at);
        if (booted === null) return files.readFile(file);
        const which = normalizePosix(file);
        if (which !== CLOCK_FILES.uptime && which !== CLOCK_FILES.stat) return files.readFile(file);
        return clockFileSinceBoot(which, at, booted);
      },
    },
  };
}

/** /proc/uptime of a device up `uptime` seconds, idle at the recorded rate. */
function uptimeSince(recorded: { uptime: number; idle: number | null }, uptime: number, ratio: number): string {
  const idle = recorded.idle === null ? '' : ` ${(Math.floor(recorded.idle * ratio * 100) / 100).toFixed(2)}`;
  return `${uptime.toFixed(2)}${idle}\n`;
}

/** /proc/stat of a device booted at `booted` (ms): `btime` moved there, every counter since boot times `ratio`. */
function statSince(text: string, booted: number, ratio: number): string {
  return text
    .split('\n')
    .map((line) => {
      if (line.startsWith('btime ')) return `btime ${Math.floor(booted / 1000)}`;
      if (!/^(cpu\d*|intr|ctxt|processes|softirq) /.test(line)) return line;
      return line.replace(/ \d+/g, (number) => ` ${Math.floor(Number(number) * ratio)}`);
    })
    .join('\n');
}
