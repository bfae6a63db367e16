import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { okBody as info } from '../../test/support/call-function.ts';
import * as leases from '../../functions/networks/leases.get.ts';
import type { Device } from '../../functions/core/device/index.ts';
import * as software from '../../functions/info/software.get.ts';
import * as telemetry from '../../functions/info/telemetry.get.ts';
import type { Software, Telemetry } from '../../functions/info/schemas.ts';
import type { LeaseRecord } from '../../functions/parsers/dnsmasq-leases.ts';
import { parseUptime } from '../../functions/parsers/uptime.ts';
import { useTempDir } from '../../test/support/temp-dir.ts';
import { loadScenario, type ScenarioOptions } from './device.ts';

const temp = useTempDir('chutebox-scenario-clock-');

/** The recording: booted at BOOT (`btime`), recorded UPTIME seconds later. */
const BOOT = 1_700_000_000;
const UPTIME = 1000;
const RECORDED_AT = BOOT + UPTIME;
/** When the emulator starts, in milliseconds: long after the recording. */
const START = 2_000_000_000_000;

const STAT =
  'cpu  1000 0 500 300000 20 0 10 0 0 0\ncpu0 500 0 250 150000 10 0 5 0 0 0\ncpu1 500 0 250 150000 10 0 5 0 0 0\nctxt 12345\nbtime 1700000000\nprocesses 321\n';
const LEASES =
  `${RECORDED_AT + 3600} 02:00:00:00:00:01 10.0.0.2 laptop 01:02:00:00:00:00:01\n` +
  '0 02:00:00:00:00:02 10.0.0.3 printer *\n' +
  // A lease length, as dnsmasq built for boards without a real-time clock writes it: no time to move.
  '43200 02:00:00:00:00:03 10.0.0.4 tv *\n' +
  'duid 00:01:00:01:2e:b3:4c:1a:02:00:00:00:00:09\n' +
  `${RECORDED_AT + 60} 2864513491 fd00::2 laptop 00:01:00:01:2c:9e:13:f4:02:00:00:00:00:01\n`;

const FILES = {
  'device.yaml': 'uname: { sysname: Linux, release: 6.1.0, version: "#1 SMP", machine: x86_64 }\n',
  'proc/uptime': '1000.00 1500.00\n',
  'proc/stat': STAT,
  'chutes/lab/chute.yaml':
    'name: lab\nversion: "1"\nstate: running\nenvironment: {}\nallocation: { cpu_shares: 1024, prioritize_traffic: false }\nresources: null\n',
  'chutes/lab/service.yaml': 'net:\n  wifi: { type: wifi, intfName: wlan0, ssid: lab }\n',
  'chutes/lab/cache.yaml': 'networks:\n  wifi: { hostInterface: wlan0-1, leaseFile: /var/run/lab-wifi.leases }\n',
  'chutes/lab/networks/wifi/dnsmasq.leases': LEASES,
};

/** A scenario folder with FILES, changed by `files` (a null entry is left out). */
async function scenario(name: string, files: Record<string, string | null> = {}): Promise<string> {
  const dir = await temp.folder(name);
  for (const [file, text] of Object.entries({ ...FILES, ...files })) {
    if (text === null) continue;
    await mkdir(path.dirname(path.join(dir, file)), { recursive: true });
    await writeFile(path.join(dir, file), text);
  }
  return dir;
}

/** The scenario device of `dir`, its clock standing at `startMs` until the test advances it by `seconds`. */
async function emulated(dir: string, startMs: number, options: ScenarioOptions = {}): Promise<{ device: Device; advance(seconds: number): Promise<unknown> }> {
  const scenario = await loadScenario(dir, undefined, { changeDelayMs: 0, clock: { now: startMs, speed: 0 }, ...options });
  return { device: scenario.device, advance: (seconds) => scenario.clock.set({ advanceMs: Math.round(seconds * 1000) }) };
}

async function leasesOf(device: Device): Promise<LeaseRecord[]> {
  return info<LeaseRecord[]>(leases, device, { chute: 'lab', network: 'wifi' });
}

/** Seconds a lease has left at the device's `now()`. */
const secondsLeft = (lease: LeaseRecord, device: Device) => Number(lease.expires) - device.now() / 1000;

describe('the emulator replays a recording as if it had been taken when it started', () => {
  it('GET /api/v1/info/software responds with the recorded uptime at the start, grown by the seconds since', async () => {
    const { device, advance } = await emulated(await scenario('software'), START);
    expect((await info<Software>(software, device)).uptime).toBe(UPTIME);
    await advance(600);
    expect((await info<Software>(software, device)).uptime).toBe(UPTIME + 600);
    await advance(0.99);
    expect((await info<Software>(software, device)).uptime).toBe(UPTIME + 600);
  });

  it('GET /api/v1/info/telemetry responds with a boot_time that, plus the uptime of /proc/uptime, is its time', async () => {
    // A start that is no whole second, so that both numbers are cut as on a device.
    const { device, advance } = await emulated(await scenario('telemetry'), START + 123_456);
    for (const seconds of [0, 600, 0.75]) {
      await advance(seconds);
      const report = await info<Telemetry>(telemetry, device);
      const uptime = parseUptime((await device.readFile('/proc/uptime'))!)!.uptime;
      expect(report.time).toBe(device.now() / 1000);
      expect(report.system.boot_time).toBe(Math.floor(START / 1000 + 123.456 - UPTIME));
      expect(report.system.boot_time! + uptime).toBeGreaterThan(report.time - 1);
      expect(report.system.boot_time! + uptime).toBeLessThanOrEqual(report.time);
    }
  });

  it('GET …/leases responds with expiries that keep the time left at the recording, counting down from the start', async () => {
    const { device, advance } = await emulated(await scenario('leases'), START);
    const [laptop, printer, tv, ipv6] = await leasesOf(device);
    expect(secondsLeft(laptop!, device)).toBe(3600);
    expect(printer).toEqual({ expires: '0', mac_addr: '02:00:00:00:00:02', ip_addr: '10.0.0.3', hostname: 'printer' });
    expect(tv!.expires).toBe('43200');
    expect(secondsLeft(ipv6!, device)).toBe(60);

    await advance(600);
    const later = await leasesOf(device);
    expect(secondsLeft(later[0]!, device)).toBe(3000);
    expect(later[1]!.expires).toBe('0');
    expect(secondsLeft(later[3]!, device)).toBe(-540);
  });

  it('rewrites only the numbers that follow the clock: the rest of each raw file is as recorded', async () => {
    const dir = await scenario('raw');
    const { device, advance } = await emulated(dir, START);
    await advance(600.257);
    // Idle time grows at the recorded rate: 1.5 idle CPUs (1500 s idle in 1000 s of uptime).
    expect(await device.readFile('/proc/uptime')).toBe('1600.25 2400.37\n');
    expect(await device.readFile('/proc/stat')).toBe(STAT.replace('btime 1700000000', `btime ${START / 1000 - UPTIME}`));
    const shift = START / 1000 - RECORDED_AT;
    const lease = await device.network({ chute: 'lab', network: 'wifi', hostInterface: null, hostapdControl: null, leaseFile: null }).leases();
    expect(lease).toBe(
      LEASES.replace(`${RECORDED_AT + 3600} `, `${RECORDED_AT + 3600 + shift} `).replace(`${RECORDED_AT + 60} `, `${RECORDED_AT + 60 + shift} `),
    );
    expect(await device.readFile('/chutes/lab/chute.yaml')).toBe(FILES['chutes/lab/chute.yaml']);
  });

  it('serves the files as recorded when the recording has no btime or no /proc/uptime: its time is unknown', async () => {
    const { device: noBtime, advance: advanceNoBtime } = await emulated(
      await scenario('no-btime', { 'proc/stat': STAT.replace('btime 1700000000\n', '') }),
      START,
    );
    const { device: noUptime, advance: advanceNoUptime } = await emulated(await scenario('no-uptime', { 'proc/uptime': null }), START);
    await advanceNoBtime(600);
    await advanceNoUptime(600);
    expect(await noBtime.readFile('/proc/uptime')).toBe(FILES['proc/uptime']);
    expect((await leasesOf(noBtime))[0]!.expires).toBe(String(RECORDED_AT + 3600));
    expect(await noUptime.readFile('/proc/stat')).toBe(STAT);
    expect((await info<Software>(software, noUptime)).uptime).toBeNull();
    expect((await leasesOf(noUptime))[0]!.expires).toBe(String(RECORDED_AT + 3600));
  });

  it('serves the files as recorded with asRecorded, as `chutebox record` checks a recording', async () => {
    const { device, advance } = await emulated(await scenario('as-recorded'), START, { asRecorded: true });
    await advance(600);
    expect(await device.readFile('/proc/uptime')).toBe(FILES['proc/uptime']);
    expect(await device.readFile('/proc/stat')).toBe(STAT);
    expect((await leasesOf(device))[0]!.expires).toBe(String(RECORDED_AT + 3600));
  });
});
