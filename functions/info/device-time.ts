import type { Device } from '../core/device/index.ts';
import { parseStat } from '../parsers/stat.ts';
import { parseUptime } from '../parsers/uptime.ts';

/**
 * What a device's own clock says, in milliseconds since the epoch: its boot time (`btime` of
 * /proc/stat) plus its uptime; null without either. A scenario served as recorded answers the time it
 * was recorded: the clock of the OpenAPI document's examples, so that every build writes the same
 * document, and of the chute logs `chutebox record` keeps.
 *
 * @example
 * await deviceTime(device) // 1795520845000
 */
export async function deviceTime(device: Pick<Device, 'readFile'>): Promise<number | null> {
  const [stat, uptime] = await Promise.all([device.readFile('/proc/stat'), device.readFile('/proc/uptime')]);
  const bootTime = stat === null ? null : parseStat(stat).bootTime;
  const times = uptime === null ? null : parseUptime(uptime);
  return bootTime === null || times === null ? null : Math.round((bootTime + times.uptime) * 1000);
}
