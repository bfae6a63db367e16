import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtInScenarios, loadScenario, resolveScenario, ScenarioError } from './device.ts';

const UNAME = 'uname: { sysname: Linux, release: 6.1.0-18-amd64, version: "#1 SMP PREEMPT_DYNAMIC", machine: x86_64 }\n';

let tmp: string;

beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'chutebox-scenario-'));
});

afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

/** A scenario folder under the test's temp dir with the given files (relative path → contents). */
async function scenario(name: string, files: Record<string, string>): Promise<string> {
  const dir = path.join(tmp, name);
  for (const [file, text] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(dir, file)), { recursive: true });
    await writeFile(path.join(dir, file), text);
  }
  return dir;
}

async function loadError(nameOrDir: string, builtIn?: URL): Promise<ScenarioError> {
  const error = await loadScenario(nameOrDir, builtIn).then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ScenarioError);
  return error as ScenarioError;
}

describe('scenario names', () => {
  it('lists the built-in scenarios of fixtures/scenarios', async () => {
    expect(await builtInScenarios()).toEqual(expect.arrayContaining(['default', 'gl-ar150']));
  });

  it('resolves a name without a slash to the built-in folder', async () => {
    const dir = await resolveScenario('gl-ar150');
    expect(dir).toBe(path.resolve(new URL('../../fixtures/scenarios/gl-ar150', import.meta.url).pathname));
  });

  it('resolves anything with a slash as a folder path, relative to the working directory', async () => {
    const dir = await scenario('by-path', { 'device.yaml': UNAME });
    expect(await resolveScenario(dir)).toBe(dir);
    expect(await resolveScenario(`./${path.relative(process.cwd(), dir)}`)).toBe(dir);
  });

  it('refuses an unknown name and lists the built-in ones', async () => {
    const error = await loadError('apu3');
    expect(error.message).toContain('unknown scenario "apu3"');
    expect(error.message).toContain('default, gl-ar150');
  });

  it('does not take names that could leave the scenarios folder', async () => {
    for (const name of ['..', '.', '.hidden']) expect((await loadError(name)).message).toContain('unknown scenario');
  });

  it('finds built-in names in another folder when asked to', async () => {
    await scenario('builtins/lab', { 'device.yaml': UNAME });
    const builtIn = pathToFileURL(`${path.join(tmp, 'builtins')}/`);
    expect(await builtInScenarios(builtIn)).toEqual(['lab']);
    expect((await loadScenario('lab', builtIn)).dir).toBe(path.join(tmp, 'builtins', 'lab'));
  });

  it('refuses a folder without device.yaml, and a missing folder', async () => {
    const dir = await scenario('no-yaml', { 'proc/uptime': '1.00 2.00\n' });
    expect((await loadError(dir)).message).toContain('has no device.yaml');
    expect((await loadError(path.join(tmp, 'missing'))).message).toContain('no scenario folder');
  });
});

describe('device.yaml', () => {
  it('gives uname, statfs by mount point and the description', async () => {
    const dir = await scenario('good', {
      'device.yaml':
        'description: a lab box\n' +
        UNAME +
        'statfs:\n  /boot: { type: 61267, bsize: 1024, blocks: 15863, bfree: 9938, bavail: 9938, files: 4096, ffree: 4070 }\n',
    });
    const { device, description } = await loadScenario(dir);
    expect(description).toBe('a lab box');
    expect(await device.uname()).toEqual({ sysname: 'Linux', release: '6.1.0-18-amd64', version: '#1 SMP PREEMPT_DYNAMIC', machine: 'x86_64' });
    expect(await device.statfs('/boot')).toEqual({ type: 61267, bsize: 1024, blocks: 15863, bfree: 9938, bavail: 9938, files: 4096, ffree: 4070 });
    expect(await device.statfs('/boot/')).toEqual(await device.statfs('/boot'));
    expect(await device.statfs('/')).toBeNull();
    // The same frozen answers while nothing changed, as a parse of them is reused by identity (`reusingLast`).
    expect(await device.statfs('/boot')).toBe(await device.statfs('/boot/'));
    expect(Object.isFrozen(await device.statfs('/boot'))).toBe(true);
    expect(await device.uname()).toBe(await device.uname());
  });

  it('gives the programs listed, and none without a list', async () => {
    const listed = await scenario('programs', { 'device.yaml': `${UNAME}programs: [ip, hostapd, dnsmasq, nsenter, iptables]\n` });
    expect(await (await loadScenario(listed)).device.programs()).toEqual(['ip', 'hostapd', 'dnsmasq', 'nsenter', 'iptables']);
    const unlisted = await scenario('no-programs', { 'device.yaml': UNAME });
    expect(await (await loadScenario(unlisted)).device.programs()).toEqual([]);
  });

  it('names the file and the entry of a program it does not know', async () => {
    const dir = await scenario('bad-program', { 'device.yaml': `${UNAME}programs: [ip, bash]\n` });
    const { message } = await loadError(dir);
    expect(message).toContain(path.join(dir, 'device.yaml'));
    expect(message).toMatch(/expected one of "ip"\|"iw"\|.*\s+→ at programs\[1\]/);
  });

  it('names the file and the field that is missing', async () => {
    const dir = await scenario('no-machine', { 'device.yaml': 'uname: { sysname: Linux, release: "6.1", version: "#1" }\n' });
    const { message } = await loadError(dir);
    expect(message).toContain(path.join(dir, 'device.yaml'));
    expect(message).toMatch(/expected string, received undefined\s+→ at uname\.machine/);
  });

  it('names a statfs field of the wrong type and a mount point that is not absolute', async () => {
    const dir = await scenario('bad-statfs', {
      'device.yaml': `${UNAME}statfs:\n  /: { type: 61267, bsize: "4k", blocks: 1, bfree: 1, bavail: 1, files: 1, ffree: 1 }\n  tmp: { type: 1, bsize: 1, blocks: 1, bfree: 1, bavail: 1, files: 1, ffree: 1 }\n`,
    });
    const { message } = await loadError(dir);
    expect(message).toContain('→ at statfs["/"].bsize');
    expect(message).toContain('Invalid key in record\n  → at statfs.tmp');
  });

  it("names an SSID marked as each fleet device's own that no access point could have", async () => {
    const dir = await scenario('bad-ssid', { 'device.yaml': `${UNAME}identity:\n  ssids: [OpenWrt, "${'x'.repeat(33)}"]\n` });
    expect((await loadError(dir)).message).toMatch(/must be at most 32 bytes in UTF-8\s+→ at identity\.ssids\[1\]/);
    const typo = await scenario('identity-typo', { 'device.yaml': `${UNAME}identity:\n  ssid: [OpenWrt]\n` });
    expect((await loadError(typo)).message).toMatch(/Unrecognized key: "ssid"\s+→ at identity/);
  });

  it('refuses unknown keys, which are most likely typos', async () => {
    const dir = await scenario('typo', { 'device.yaml': `${UNAME}statsfs: {}\n` });
    expect((await loadError(dir)).message).toContain('Unrecognized key: "statsfs"');
  });

  it('refuses a file that is not YAML', async () => {
    const dir = await scenario('not-yaml', { 'device.yaml': 'uname: { sysname: Linux\n' });
    expect((await loadError(dir)).message).toContain('is not valid YAML');
  });
});

describe('files of a scenario', () => {
  let dir: string;
  let outside: string;

  beforeAll(async () => {
    outside = await scenario('outside', { secret: 'not for the emulator\n' });
    dir = await scenario('files', { 'device.yaml': UNAME, 'proc/uptime': '12.50 40.00\n', 'etc/hostname': 'lab\n' });
    await symlink(path.relative(path.join(dir, 'etc'), path.join(outside, 'secret')), path.join(dir, 'etc', 'escape'));
    await symlink('/etc/hostname', path.join(dir, 'etc', 'absolute'));
  });

  it('serves files at their device paths and lists folders', async () => {
    const { device } = await loadScenario(dir);
    expect(await device.readFile('/proc/uptime')).toBe('12.50 40.00\n');
    expect(await device.readFile('/proc/loadavg')).toBeNull();
    expect(await device.readDir('/etc')).toEqual(['absolute', 'escape', 'hostname']);
    expect(await device.readDir('/sys/class/ieee80211')).toEqual([]);
  });

  it('refuses paths that leave the scenario: .. segments and links pointing outside', async () => {
    const { device } = await loadScenario(dir);
    expect(await device.readFile('/../outside/secret')).toBeNull();
    expect(await device.readFile('/proc/../../outside/secret')).toBeNull();
    expect(await device.readFile('/etc/escape')).toBeNull();
    expect(await device.realPath('/etc/escape')).toBeNull();
    expect(await device.readDir('/..')).toEqual([]);
  });

  it('does not let an absolute link reach the host file system', async () => {
    const { device } = await loadScenario(dir);
    expect(await device.readFile('/etc/absolute')).toBeNull();
  });

  it('uses the real clock', async () => {
    const { device } = await loadScenario(dir);
    const before = Date.now();
    const now = device.now();
    expect(now).toBeGreaterThanOrEqual(before);
    expect(now).toBeLessThanOrEqual(Date.now());
  });
});

describe('engine recordings', () => {
  const chute = (id: string, name: string, state = 'running') => ({ Id: id, Names: [`/${name}`], State: state, Labels: { 'io.chutebox.chute': name } });

  it('has no engine without engine/containers.json', async () => {
    const dir = await scenario('no-engine', { 'device.yaml': UNAME });
    expect(await (await loadScenario(dir)).device.containers()).toBeNull();
  });

  it('lists the labelled containers, ignoring other containers, and answers the stats recorded for an id', async () => {
    const dir = await scenario('engine', {
      'device.yaml': UNAME,
      'engine/containers.json': JSON.stringify([chute('a1', 'web'), { Id: 'b2', Labels: {} }, chute('c3', 'old', 'exited')]),
      'engine/stats/a1.json': '{"memory_stats":{"usage":1024}}',
    });
    const { device } = await loadScenario(dir);
    expect(await device.containers()).toEqual([chute('a1', 'web'), chute('c3', 'old', 'exited')]);
    expect(await device.containerStats('a1')).toEqual({ memory_stats: { usage: 1024 } });
    expect(await device.containerStats('c3')).toBeNull();
    expect(await device.containerStats('../../device')).toBeNull();
  });

  it('has no stats without an engine, even when stats files exist', async () => {
    const dir = await scenario('stats-no-engine', { 'device.yaml': UNAME, 'engine/stats/a1.json': '{}' });
    expect(await (await loadScenario(dir)).device.containerStats('a1')).toBeNull();
  });

  it('never lets a caller change what the next caller gets: the recordings are shared read-only', async () => {
    const dir = await scenario('engine-copy', {
      'device.yaml': UNAME,
      'engine/containers.json': JSON.stringify([chute('a1', 'web')]),
      'engine/stats/a1.json': '{"pids_stats":{"current":3}}',
    });
    const { device } = await loadScenario(dir);
    const list = (await device.containers())!;
    expect(() => (list[0]!.State = 'dead')).toThrow(TypeError);
    expect((await device.containers())![0]!.State).toBe('running');
    const stats = (await device.containerStats('a1'))!;
    expect(() => (stats.pids_stats = null)).toThrow(TypeError);
    expect(await device.containerStats('a1')).toEqual({ pids_stats: { current: 3 } });
  });

  it('refuses a container id that could name a file outside engine/stats', async () => {
    const dir = await scenario('engine-escape', { 'device.yaml': UNAME, 'engine/containers.json': JSON.stringify([chute('../../device', 'x')]) });
    expect((await loadError(dir)).message).toMatch(/containers\.json is not a container list[\s\S]*→ at \[0\]\.Id/);
  });

  it('refuses a containers.json that is not JSON', async () => {
    const dir = await scenario('engine-bad', { 'device.yaml': UNAME, 'engine/containers.json': '[{"Id": ' });
    expect((await loadError(dir)).message).toContain('containers.json is not valid JSON');
  });

  it('refuses a stats file that is not a JSON object', async () => {
    const dir = await scenario('stats-bad', { 'device.yaml': UNAME, 'engine/containers.json': '[]', 'engine/stats/a1.json': '[1, 2]' });
    expect((await loadError(dir)).message).toContain('a1.json is not a stats body');
  });
});

describe('built-in scenarios', () => {
  it('default: the radios resolve through sysfs-style relative links', async () => {
    const { device } = await loadScenario('default');
    expect(await device.readDir('/sys/class/ieee80211')).toEqual(['phy0', 'phy1']);
    expect(await device.realPath('/sys/class/ieee80211/phy0/device')).toBe('/sys/devices/pci0000:00/0000:00:02.4/0000:04:00.0');
    expect(await device.realPath('/sys/devices/pci0000:00/0000:00:02.5/0000:05:00.0/subsystem')).toBe('/sys/bus/pci');
    expect(await device.readFile('/sys/class/ieee80211/phy1/device/device')).toBe('0x0033\n');
    expect(await device.readFile('/sys/class/dmi/id/sys_vendor')).toBe('PC Engines\n');
    expect((await device.containers())!.map((container) => container.Names)).toEqual([['/hotspot'], ['/hello-world']]);
    expect(await device.programs()).toEqual(['ip', 'iw', 'hostapd', 'hostapd_cli', 'dnsmasq', 'nsenter', 'nft']);
  });

  it('gl-ar150: a MIPS board without DMI or engine, with a platform radio', async () => {
    const { device } = await loadScenario('gl-ar150');
    expect((await device.uname()).machine).toBe('mips');
    expect(await device.readFile('/proc/device-tree/model')).toBe('GL.iNet GL-AR150\0');
    expect(await device.readFile('/sys/class/dmi/id/sys_vendor')).toBeNull();
    expect(await device.realPath('/sys/class/ieee80211/phy0/device/subsystem')).toBe('/sys/bus/platform');
    expect(await device.containers()).toBeNull();
    expect(await device.programs()).toEqual([]);
  });
});

describe('a factory reset of the emulator', () => {
  it('answers 409 to provisioning, a pdconf reload and a second reset while it runs, and leaves the device unprovisioned', async () => {
    const { device } = await loadScenario('default', undefined, { changeDelayMs: 0 });
    const reset = device.factoryReset();
    const credentials = { routerId: 'r1', apitoken: 't0k3n', pdserver: 'https://paradrop.org', wampRouter: 'ws://paradrop.org:9086/ws' };
    await expect(device.provisioning.provision(credentials)).rejects.toMatchObject({ status: 409 });
    await expect(device.hostConfig.reloadPdconf()).rejects.toMatchObject({ status: 409 });
    await expect(device.factoryReset()).rejects.toMatchObject({ status: 409 });
    await expect(reset).resolves.toMatchObject({ success: true });
    expect((await device.provisioning.status()).provisioned).toBe(false);
    await expect(device.provisioning.provision(credentials)).resolves.toMatchObject({ provisioned: true });
  });

  it('forgets the changes but gives new ones ids above the old ones, so an old id answers null, never another change', async () => {
    const { device } = await loadScenario('default', undefined, { changeDelayMs: 0 });
    await device.submitChange({ action: 'stop', chute: 'hello-world' });
    const old = await device.submitChange({ action: 'start', chute: 'hello-world' });
    await expect(device.factoryReset()).resolves.toMatchObject({ success: true });

    expect(await device.change(old.id)).toBeNull();
    const next = await device.submitChange({ action: 'stop', chute: 'hotspot' });
    expect(next.id).toBeGreaterThan(old.id);
    expect((await device.changes()).map((change) => change.id)).toEqual([next.id]);
  });
});
