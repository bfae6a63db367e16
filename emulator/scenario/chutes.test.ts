import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTempDir } from '../../test/support/temp-dir.ts';
import { readChutes, storedChutes } from './chutes.ts';
import { loadScenario, ScenarioError } from './device.ts';

const temp = useTempDir('chutebox-scenario-chutes-');

/** The chutes of a scenario folder as the emulator serves them: read and checked once, then from memory. */
const loadChutes = async (dir: string) => storedChutes(await readChutes(dir));

const CHUTE = 'name: lab\nversion: "1"\nstate: running\nenvironment: {}\nallocation: { cpu_shares: 1024, prioritize_traffic: false }\nresources: null\n';
const SERVICE = 'net:\n  wifi: { type: wifi, intfName: wlan0, ssid: lab }\n  uplink: { type: vlan, intfName: eth1, vlan_id: 20 }\n';

/** A scenario folder with the given files (relative path → contents). */
async function scenario(name: string, files: Record<string, string>): Promise<string> {
  const dir = await temp.folder(name);
  for (const [file, text] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(dir, file)), { recursive: true });
    await writeFile(path.join(dir, file), text);
  }
  return dir;
}

async function loadError(dir: string): Promise<string> {
  const error = await loadChutes(dir).then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ScenarioError);
  return (error as ScenarioError).message;
}

describe('the chutes of a scenario', () => {
  it('default: hello-world and hotspot, with their records, configurations and caches', async () => {
    const { device } = await loadScenario('default');
    expect(await device.chuteNames()).toEqual(['hello-world', 'hotspot']);
    const hotspot = await device.chute('hotspot');
    expect(hotspot).toMatchObject({
      name: 'hotspot',
      record: { name: 'hotspot', version: '2.1', state: 'running', allocation: { cpu_shares: 512, prioritize_traffic: true }, resources: null },
      config: {
        web: { port: 8080 },
        net: { guest: { type: 'wifi', ssid: 'Café Guest' }, staff: { type: 'vlan', vlan_id: 20 }, survey: { type: 'wifi', mode: 'monitor' } },
      },
      cache: { networks: { guest: { hostInterface: 'phy0-ap0', hostapdControl: '/var/run/hostapd/phy0-ap0' }, staff: { hostInterface: 'br-lan.20' } } },
    });
    expect(await device.chute('nosuch')).toBeNull();
    expect(await device.chute('../hotspot')).toBeNull();
  });

  it('has no chutes without a chutes folder', async () => {
    const chutes = await loadChutes(await scenario('none', {}));
    expect(await chutes.chuteNames()).toEqual([]);
  });

  it('reads a chute without service.yaml or cache.yaml as an empty configuration and cache', async () => {
    const chutes = await loadChutes(await scenario('bare', { 'chutes/lab/chute.yaml': CHUTE }));
    expect(await chutes.chute('lab')).toEqual({
      name: 'lab',
      record: { name: 'lab', version: '1', state: 'running', environment: {}, allocation: { cpu_shares: 1024, prioritize_traffic: false }, resources: null },
      config: {},
      cache: {},
    });
  });

  it('reads the chute documents once: an edit shows from the next load on', async () => {
    const dir = await scenario('live', { 'chutes/lab/chute.yaml': CHUTE });
    const chutes = await loadChutes(dir);
    await writeFile(path.join(dir, 'chutes/lab/chute.yaml'), CHUTE.replace('running', 'stopped'));
    expect((await chutes.chute('lab'))!.record.state).toBe('running');
    expect((await (await loadChutes(dir)).chute('lab'))!.record.state).toBe('stopped');
  });
});

describe('a scenario with bad chutes fails to load, naming the file', () => {
  it('a document that is not YAML', async () => {
    const dir = await scenario('bad-yaml', { 'chutes/lab/chute.yaml': CHUTE, 'chutes/lab/service.yaml': 'net: { wifi: \n' });
    expect(await loadError(dir)).toContain(`${path.join(dir, 'chutes/lab/service.yaml')} is not valid YAML`);
  });

  it('a document that is not a mapping', async () => {
    const dir = await scenario('list', { 'chutes/lab/chute.yaml': '- lab\n' });
    expect(await loadError(dir)).toContain(`${path.join(dir, 'chutes/lab/chute.yaml')} must hold a mapping (an object), not a list`);
  });

  it('a chute folder without chute.yaml', async () => {
    const dir = await scenario('no-record', { 'chutes/lab/service.yaml': SERVICE });
    expect(await loadError(dir)).toContain(`${path.join(dir, 'chutes/lab')} is not a chute: it has no chute.yaml`);
  });

  it('a chute folder whose name is not a chute name', async () => {
    const dir = await scenario('bad-name', { 'chutes/my lab/chute.yaml': CHUTE });
    expect(await loadError(dir)).toContain('"my lab" is not a chute name');
  });

  it('a net that is not a mapping of networks', async () => {
    const dir = await scenario('bad-net', { 'chutes/lab/chute.yaml': CHUTE, 'chutes/lab/service.yaml': 'net: [wifi]\n' });
    const message = await loadError(dir);
    expect(message).toContain(`${path.join(dir, 'chutes/lab/service.yaml')} is not a chute configuration`);
    expect(message).toContain('→ at net');
  });

  it('a configuration that PUT …/config refuses, which a state could not import: an SSID with a line break', async () => {
    const service = 'net:\n  wifi: { type: wifi, intfName: wlan0, ssid: "lab\\nDISABLE" }\n';
    const dir = await scenario('bad-ssid', { 'chutes/lab/chute.yaml': CHUTE, 'chutes/lab/service.yaml': service });
    const message = await loadError(dir);
    expect(message).toContain(`${path.join(dir, 'chutes/lab/service.yaml')} is not a chute configuration`);
    expect(message).toContain('→ at net.wifi.ssid');
  });

  it('a cache whose network resources are not strings', async () => {
    const dir = await scenario('bad-cache', {
      'chutes/lab/chute.yaml': CHUTE,
      'chutes/lab/service.yaml': SERVICE,
      'chutes/lab/cache.yaml': 'networks:\n  wifi: { hostInterface: 7 }\n',
    });
    const message = await loadError(dir);
    expect(message).toContain(`${path.join(dir, 'chutes/lab/cache.yaml')} is not a chute cache`);
    expect(message).toContain('→ at networks.wifi.hostInterface');
  });

  it('recordings of a network that net does not have', async () => {
    const dir = await scenario('stray-network', {
      'chutes/lab/chute.yaml': CHUTE,
      'chutes/lab/service.yaml': SERVICE,
      'chutes/lab/networks/wlan/dnsmasq.leases': '',
    });
    expect(await loadError(dir)).toContain(
      `${path.join(dir, 'chutes/lab/networks/wlan')} records a network that service.yaml's net does not have (it has: wifi, uplink)`,
    );
  });

  it('a log with a line that is not a log line', async () => {
    const logs = '{"time":"2025-11-21T09:00:00Z","stream":"stdout","message":"up"}\n\n{"time":"2025-11-21T09:00:01Z","stream":"console","message":"x"}\n';
    const dir = await scenario('bad-log', { 'chutes/lab/chute.yaml': CHUTE, 'chutes/lab/logs': logs });
    const message = await loadError(dir);
    expect(message).toContain(`${path.join(dir, 'chutes/lab/logs')} line 3 is not a log line`);
    expect(message).toContain('→ at stream');
  });

  it('a log with a line that is not JSON', async () => {
    const dir = await scenario('log-text', { 'chutes/lab/chute.yaml': CHUTE, 'chutes/lab/logs': 'listening on :8000\n' });
    expect(await loadError(dir)).toContain(`${path.join(dir, 'chutes/lab/logs')} line 1 is not JSON`);
  });

  it('a recording by a name the emulator does not read', async () => {
    const dir = await scenario('stray-file', {
      'chutes/lab/chute.yaml': CHUTE,
      'chutes/lab/service.yaml': SERVICE,
      'chutes/lab/networks/wifi/station-dump.txt': '',
    });
    expect(await loadError(dir)).toContain(
      `${path.join(dir, 'chutes/lab/networks/wifi/station-dump.txt')} is not a network recording; their names are iw-station-dump.txt, dnsmasq.leases, hostapd-status.txt, hostapd-get-config.txt`,
    );
  });
});
