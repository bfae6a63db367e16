import { lstat, readFile, readlink } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTempDir } from '../../test/temp-dir.ts';
import type { FunctionInput } from '../../functions/core/invoke.ts';
import { handle as environment } from '../../functions/info/environment.ts';
import { handle as features } from '../../functions/info/features.ts';
import { handle as hardware } from '../../functions/info/hardware.ts';
import { handle as software } from '../../functions/info/software.ts';
import { handle as telemetry } from '../../functions/info/telemetry.ts';
import { loadScenario } from '../../emulator/scenario-device.ts';
import { memoryDevice } from '../../test/memory-device.ts';
import { recordingDevice, type Recording } from './recording-device.ts';
import { writeScenario } from './write-scenario.ts';

const INPUT: FunctionInput = { params: {}, query: {}, headers: {}, body: undefined };
const UNAME = { sysname: 'Linux', release: '6.6.73', version: '#0 SMP', machine: 'aarch64' };

const { folder } = useTempDir('chutebox-record-');

function recording(parts: Partial<Recording>): Recording {
  return { files: new Map(), dirs: new Map(), links: new Map(), statfs: new Map(), uname: UNAME, containers: undefined, stats: new Map(), ...parts };
}

describe('recordingDevice', () => {
  it('logs each question with its answer and asks the device only once', async () => {
    let reads = 0;
    const inner = memoryDevice({ files: { '/proc/uptime': '10.00 20.00\n' } });
    const { device, recording: log } = recordingDevice({ ...inner, readFile: (p) => (reads++, inner.readFile(p)) });
    expect(await device.readFile('/proc/uptime')).toBe('10.00 20.00\n');
    expect(await device.readFile('/proc/uptime')).toBe('10.00 20.00\n');
    expect(await device.readFile('/proc/missing')).toBeNull();
    expect(reads).toBe(2);
    expect([...log.files]).toEqual([['/proc/uptime', '10.00 20.00\n']]);
    expect(await device.containers()).toBeNull();
    expect(log.containers).toBeNull();
  });

  it('logs the container list and each stats answer by container id', async () => {
    const web = { Id: 'abc123', State: 'running', Labels: { 'io.chutebox.chute': 'web' } };
    const { device, recording: log } = recordingDevice(memoryDevice({ containers: [web], stats: { abc123: { pids_stats: { current: 2 } } } }));
    expect(await device.containers()).toEqual([web]);
    expect(await device.containerStats('abc123')).toEqual({ pids_stats: { current: 2 } });
    expect(await device.containerStats('gone')).toBeNull();
    expect(log.containers).toEqual([web]);
    expect([...log.stats]).toEqual([['abc123', { pids_stats: { current: 2 } }], ['gone', null]]);
  });
});

describe('writeScenario', () => {
  it('lays out links inside linked folders as sysfs does, shortest path first', async () => {
    const dir = await folder('links');
    const pci = '/sys/devices/platform/soc/1b500000.pci/pci0000:00/0000:00:00.0/0000:01:00.0';
    await writeScenario(
      recording({
        files: new Map([
          ['/sys/class/ieee80211/phy0/macaddress', '04:f0:21:aa:bb:01\n'],
          [`${pci}/vendor`, '0x168c\n'],
        ]),
        links: new Map<string, string | null>([
          ['/sys/class/ieee80211/phy0/device', pci],
          ['/sys/class/ieee80211/phy0', `${pci}/ieee80211/phy0`],
          [`${pci}/subsystem`, '/sys/bus/pci'],
          ['/sys/class/ieee80211/phy9', null],
        ]),
        dirs: new Map([['/sys/class/ieee80211', ['phy0']]]),
      }),
      dir,
      'a test recording',
    );
    expect(await readlink(path.join(dir, 'sys/class/ieee80211/phy0'))).toBe(`../../devices/platform/soc/1b500000.pci/pci0000:00/0000:00:00.0/0000:01:00.0/ieee80211/phy0`);
    expect(await readlink(path.join(dir, `${pci}/ieee80211/phy0/device`))).toBe('../..');
    expect(await readlink(path.join(dir, `${pci}/subsystem`))).toBe('../../../../../../../bus/pci');
    expect(await readFile(path.join(dir, `${pci}/ieee80211/phy0/macaddress`), 'utf8')).toBe('04:f0:21:aa:bb:01\n');
    expect((await lstat(path.join(dir, 'sys/bus/pci'))).isDirectory()).toBe(true);

    const { device } = await loadScenario(dir);
    expect(await device.readDir('/sys/class/ieee80211')).toEqual(['phy0']);
    expect(await device.realPath('/sys/class/ieee80211/phy0/device')).toBe(pci);
    expect(await device.realPath(`${pci}/subsystem`)).toBe('/sys/bus/pci');
    expect(await device.realPath('/sys/class/ieee80211/phy9')).toBeNull();
    expect(await device.readFile('/sys/class/ieee80211/phy0/device/vendor')).toBe('0x168c\n');
  });

  it('writes a file read through a link where the link points', async () => {
    const dir = await folder('file-link');
    await writeScenario(
      recording({
        files: new Map([['/etc/os-release', 'NAME="OpenWrt"\n']]),
        links: new Map([['/etc/os-release', '/usr/lib/os-release']]),
      }),
      dir,
      'a test recording',
    );
    expect(await readlink(path.join(dir, 'etc/os-release'))).toBe('../usr/lib/os-release');
    expect(await readFile(path.join(dir, 'usr/lib/os-release'), 'utf8')).toBe('NAME="OpenWrt"\n');
  });

  it('puts uname, readable statfs answers and the description in device.yaml, and containers in engine/', async () => {
    const dir = await folder('yaml');
    const stats = { type: 61267, bsize: 4096, blocks: 10, bfree: 5, bavail: 4, files: 100, ffree: 90 };
    const container = { Id: 'abc123', Labels: { 'io.chutebox.chute': 'web' }, State: 'running' };
    await writeScenario(
      recording({
        statfs: new Map([['/', stats], ['/proc', null]]),
        containers: [container],
        stats: new Map([['abc123', { memory_stats: { usage: 1 } }], ['def456', null]]),
      }),
      dir,
      'a test recording',
    );
    const { device, description } = await loadScenario(dir);
    expect(description).toBe('a test recording');
    expect(await device.uname()).toEqual(UNAME);
    expect(await device.statfs('/')).toEqual(stats);
    expect(await device.statfs('/proc')).toBeNull();
    expect(await device.containers()).toEqual([container]);
    expect(await device.containerStats('abc123')).toEqual({ memory_stats: { usage: 1 } });
    expect(await device.containerStats('def456')).toBeNull();
    expect(JSON.parse(await readFile(path.join(dir, 'engine/containers.json'), 'utf8'))).toEqual([container]);
  });

  it('refuses a stats answer whose container id cannot name a file', async () => {
    const bad = recording({ containers: [], stats: new Map([['../escape', { pids_stats: {} }]]) });
    await expect(writeScenario(bad, await folder('bad-stats-id'), 'x')).rejects.toThrow(/"\.\.\/escape" cannot name a stats file/);
  });

  it('writes no engine when the device has none', async () => {
    const dir = await folder('no-engine');
    await writeScenario(recording({ containers: null }), dir, 'a test recording');
    expect(await (await loadScenario(dir)).device.containers()).toBeNull();
  });

  it('refuses a recording without uname', async () => {
    await expect(writeScenario(recording({ uname: undefined }), await folder('no-uname'), 'x')).rejects.toThrow(/no uname answer/);
  });

  it('records the default scenario so that every info handler answers the same on the copy', async () => {
    const handlers = { environment, hardware, software, features, telemetry };
    const { device, recording: log } = recordingDevice((await loadScenario('default')).device);
    const answers = await Promise.all(Object.values(handlers).map((handle) => handle(INPUT, device)));
    const dir = await folder('copy-of-default');
    await writeScenario(log, dir, 'a copy of default');
    const copy = (await loadScenario(dir)).device;
    const again = await Promise.all(Object.values(handlers).map((handle) => handle(INPUT, copy)));
    const withoutTime = (values: unknown[]) => values.map((v) => (v && typeof v === 'object' && 'time' in v ? { ...v, time: 0 } : v));
    expect(withoutTime(again)).toEqual(withoutTime(answers));
    expect((answers[1] as { wifi: unknown[] }).wifi).toHaveLength(2);
    expect([...log.stats.keys()]).toEqual(['cbafb046481ff1fa349d0b39af2e2b07c90cd96610dcf03a85b9aac2ec822186']);
    expect((answers[4] as { chutes: { pids: number }[] }).chutes[0]!.pids).toBeGreaterThan(0);
  });
});
