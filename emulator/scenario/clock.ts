import type { Device } from '../../functions/core/device/index.ts';
import { reusingLast } from '../../functions/core/reusing-last.ts';
import { parseStat } from '../../functions/parsers/stat.ts';
import { parseUptime } from '../../functions/parsers/uptime.ts';
import type { ClockReading } from '../emulated-clock.ts';
import { normalizePosix } from './tree.ts';

/** The raw files whose numbers follow the emulator's clock. */
export const CLOCK_FILES = { uptime: '/proc/uptime', stat: '/proc/stat' } as const;

/** A scenario's files, replayed as if recorded when the replay started. */
export interface ScenarioClock {
  /** The scenario's `readFile`, with `/proc/uptime` and `/proc/stat`'s `btime` moved to the emulator's clock. */
  readFile: Device['readFile'];
  /** A recorded dnsmasq lease file with each non-zero expiry shifted by (replay start − recording time). */
  leases(recorded: string): Promise<string>;
  /** (replay start − recording time) in whole seconds: how far every recorded time moves; 0 when the recording time is unknown. */
  shift(): Promise<number>;
  /**
   * When the recording was taken and when that device booted, from its files (`btime` + uptime), in
   * ms since the epoch: the living network (emulator/living/) times recorded stations and leases from
   * it. Null when the recording time is unknown.
   */
  recording(): Promise<{ atMs: number; bootMs: number } | null>;
  /** How long the device has run since the replay started, in whole centiseconds (as ms): the emulated clock's `elapsedMs`. */
  elapsedMs(): number;
  /** When the replay started (epoch ms) and `elapsedMs()`, both in whole centiseconds and read at one moment: their sum is the wall time. */
  replayTime(): { startMs: number; elapsedMs: number };
}

/** What the recording says about its time, in centiseconds (the resolution of /proc/uptime). */
interface Recorded {
  /** `btime` of /proc/stat, in seconds since the epoch. */
  bootTime: number;
  uptimeCs: number;
  /** The idle time of all CPUs together, or null when /proc/uptime has no second number. */
  idleCs: number | null;
}

/**
 * Replays a recording as if it had been taken when the replay started: at the emulated clock's wall
 * time less its elapsed time (`clock.read()`: `now − elapsedMs`, which a set of either moves). The
 * recording's time is `btime` of /proc/stat plus the first number of /proc/uptime, and
 * - `/proc/uptime` answers the recorded uptime and idle time plus the elapsed time, in the kernel's
 *   format (two decimals, cut as the kernel cuts them);
 * - `/proc/stat`'s `btime` answers (start − recorded uptime), so `btime` + uptime is `now`, as on a
 *   device;
 * - `leases(text)` moves each non-zero expiry of a lease file (its first field, epoch seconds; `0` is
 *   an infinite lease) by (start − recording time) in whole seconds: a lease that had an hour left
 *   when recorded has an hour left at the start, and counts down from there;
 * - `shift()` answers that move, (start − recording time) in whole seconds, for any other recorded
 *   time to follow (a chute's log lines).
 * Only those numbers are rewritten; every other byte is as recorded, for the same parsers to read.
 * The numbers are worked out on each call, from the files as `files` answers then (the emulator's
 * `scenarioFiles` reads each file once and keeps it in memory) and the clock as it reads then. A
 * scenario without `btime` in /proc/stat or without /proc/uptime has no known recording time: all
 * three are served as recorded.
 *
 * @param files the scenario's raw files (`scenarioFiles(dir)`, or `rootedFiles(dir)` to read them on each call).
 * @param clock the device's emulated clock (emulator/emulated-clock.ts).
 * @example
 * // recorded: /proc/stat `btime 1700000000`, /proc/uptime `1000.00 3000.00`; the clock at now 2000000600000, elapsedMs 600000
 * const clock = scenarioClock(scenarioFiles(dir), emulated);
 * await clock.readFile('/proc/uptime')                    // '1600.00 4800.00\n'
 * await clock.readFile('/proc/stat')                      // '…btime 1999999000\n…'
 * await clock.leases('1700004600 aa:… 10.0.0.2 pc *\n')   // '2000003600 aa:… 10.0.0.2 pc *\n'
 */
export function scenarioClock(files: Pick<Device, 'readFile'>, clock: { read(): ClockReading }): ScenarioClock {
  /** The files `recorded` last read, and what they said: parsed again only when either text changed. */
  let last: { uptime: string | null; stat: string | null; at: Recorded | null } | undefined;

  /** The recording's clock, read from its files now; null when either file or `btime` is missing. */
  function recorded(): Promise<{ at: Recorded; uptime: string; stat: string } | null> {
    return Promise.all([files.readFile(CLOCK_FILES.uptime), files.readFile(CLOCK_FILES.stat)]).then(([uptime, stat]) => {
      if (last === undefined || last.uptime !== uptime || last.stat !== stat) last = { uptime, stat, at: recordedAt(uptime, stat) };
      return uptime === null || stat === null || last.at === null ? null : { at: last.at, uptime, stat };
    });
  }

  /** When the replay started and how long ago, in whole centiseconds, read at one moment. */
  function replay(): { startCs: number; elapsedCs: number } {
    const { now, elapsedMs } = clock.read();
    return { startCs: Math.floor((now - elapsedMs) / 10), elapsedCs: Math.floor(elapsedMs / 10) };
  }

  /** (start − recording time) in whole seconds; 0 without a recording time. */
  const shift = () => recorded().then((at) => (at === null ? 0 : Math.round((replay().startCs - (at.at.bootTime * 100 + at.at.uptimeCs)) / 100)));

  return {
    readFile(devicePath) {
      const file = clockFile(devicePath);
      if (file === null) return files.readFile(devicePath);
      return recorded().then((at) => {
        if (at === null) return files.readFile(devicePath);
        const { startCs, elapsedCs } = replay();
        return file === CLOCK_FILES.uptime
          ? uptimeNow(clock, at.uptime, at.at, elapsedCs)
          : statNow(clock, at.stat, Math.floor((startCs - at.at.uptimeCs) / 100));
      });
    },
    shift,
    elapsedMs: () => replay().elapsedCs * 10,
    replayTime() {
      const { startCs, elapsedCs } = replay();
      return { startMs: startCs * 10, elapsedMs: elapsedCs * 10 };
    },
    recording: () =>
      recorded().then((clock) => (clock === null ? null : { atMs: clock.at.bootTime * 1000 + clock.at.uptimeCs * 10, bootMs: clock.at.bootTime * 1000 })),
    leases: (text) =>
      Promise.all([recorded(), shift()]).then(([at, seconds]) => (at === null || seconds === 0 ? text : leasesNow(clock, text, seconds, at.at.bootTime))),
  };
}

// Each file as moved, kept with the device's clock: the text of a file is made again only when the recording or the time moved.
const uptimeNow = reusingLast(movedUptime);
const statNow = reusingLast(movedBootTime);
const leasesNow = reusingLast(shiftedLeases);

/** Which of CLOCK_FILES a device path names, however it is spelled (`/proc//uptime`, `/proc/./stat`), or null. */
function clockFile(devicePath: string): string | null {
  const file = normalizePosix(devicePath);
  return file === CLOCK_FILES.uptime || file === CLOCK_FILES.stat ? file : null;
}

/** What /proc/uptime and /proc/stat say about the recording's time; null when either or `btime` is missing. */
function recordedAt(uptime: string | null, stat: string | null): Recorded | null {
  const times = uptime === null ? null : parseUptime(uptime);
  const bootTime = stat === null ? null : parseStat(stat).bootTime;
  if (times === null || bootTime === null) return null;
  return { bootTime, uptimeCs: centiseconds(times.uptime), idleCs: times.idle === null ? null : centiseconds(times.idle) };
}

/**
 * /proc/uptime with both numbers moved on by `elapsedCs`. The idle time grows at the recorded rate
 * (idle ÷ uptime, the mean number of idle CPUs), not by `elapsedCs` × the CPU count: the emulated
 * device stays as busy as it was when recorded rather than drifting to all CPUs idle, and the idle
 * time stays below uptime × CPU count, as the kernel's does, without reading the CPU count.
 */
function movedUptime(text: string, at: Recorded, elapsedCs: number): string {
  const uptime = format(at.uptimeCs + elapsedCs);
  const idle = at.idleCs === null ? null : format(at.idleCs + (at.uptimeCs > 0 ? Math.floor((elapsedCs * at.idleCs) / at.uptimeCs) : 0));
  return text.replace(/^(\s*)(\S+)(?:(\s+)(\S+))?/, (_match, lead: string, _uptime: string, gap: string | undefined, recordedIdle: string | undefined) =>
    gap === undefined || idle === null ? `${lead}${uptime}${gap ?? ''}${recordedIdle ?? ''}` : `${lead}${uptime}${gap}${idle}`,
  );
}

/** /proc/stat with the number of its `btime` line replaced. */
function movedBootTime(text: string, bootTime: number): string {
  return text.replace(/^(btime[ \t]+)\S+/m, (_match, key: string) => `${key}${bootTime}`);
}

/**
 * A dnsmasq lease file with each line's expiry (a leading number, IPv4 or IPv6 lease) moved by
 * `shift` seconds when it is a time after the recorded boot (`bootTime`): `0` (an infinite lease) and
 * the lease *lengths* that dnsmasq built for boards without a real-time clock writes instead
 * (HAVE_BROKEN_RTC: `43200`, far below any epoch time after boot) are kept, as are the `duid` line and
 * anything that is not a lease.
 */
function shiftedLeases(text: string, shift: number, bootTime: number): string {
  return text.replace(/^([ \t]*)(\d+)(?=[ \t])/gm, (match, lead: string, expiry: string) =>
    Number(expiry) < bootTime ? match : `${lead}${Number(expiry) + shift}`,
  );
}

/** Seconds with up to two decimals as whole centiseconds. */
function centiseconds(seconds: number): number {
  return Math.round(seconds * 100);
}

/** Centiseconds as the kernel prints them in /proc/uptime: `%lu.%02lu`. */
function format(cs: number): string {
  return `${Math.floor(cs / 100)}.${String(cs % 100).padStart(2, '0')}`;
}
