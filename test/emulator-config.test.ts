import { spawnSync } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { HostConfig } from '../functions/config/host-config.ts';
import type { FactoryResetResult, ProvisionStatus, SettingsRecord } from '../functions/config/schemas.ts';
import type { ChangeRecord } from '../functions/core/device/index.ts';
import type { Telemetry } from '../functions/info/schemas.ts';
import type { InputProblem } from './support/call-function.ts';
import { loadScenario } from '../emulator/scenario/device.ts';
import { CLEAN_ENV, CLI, useChutebox, type Started } from './support/spawn.ts';
import { callApi as call, changeOver as change, type HttpAnswer, getJson } from './support/http-client.ts';
import { keyLine, sshKey, wireFields } from './support/ssh-keys.ts';
import { useHttpController } from './support/http-controller.ts';
import { useTempDir } from './support/temp-dir.ts';
import { EDITED_HOST_CONFIG } from './support/config-devices.ts';

/**
 * The device configuration of issue 5 over HTTP, on `chutebox emulate --no-auth --change-delay 0`
 * with the default scenario (a PC Engines apu2: Ethernet eth0, eth1, eth2, radios pci-wifi-0 and
 * pci-wifi-1, chutes hello-world and hotspot, the system user paradrop with one key). Each describe
 * block starts its own emulator, so what one changes does not leak into another.
 */

const SCENARIO = new URL('../fixtures/scenarios/default/', import.meta.url);
const MANIFEST = new URL('../dist/manifest.json', import.meta.url);

const temp = useTempDir('chutebox-emulator-config-');
const start = useChutebox();
const emulate = (args: string[] = [], env: NodeJS.ProcessEnv = CLEAN_ENV) =>
  start(['emulate', '--port', '0', '--no-auth', '--change-delay', '0', ...args], env);

/** What the device shows of its configuration: a bad request must leave all of it as it was. */
async function snapshot(server: Started): Promise<Record<string, unknown>> {
  const endpoints = ['/config/hostconfig', '/config/provision', '/config/pdid', '/config/sshKeys/paradrop', '/changes', '/chutes'];
  const answers = await Promise.all(endpoints.map((endpoint) => getJson(server, endpoint)));
  return Object.fromEntries(endpoints.map((endpoint, i) => [endpoint, answers[i]]));
}

/** The 422 problem's paths. */
function paths(answer: HttpAnswer): string[] {
  expect(answer, answer.text).toMatchObject({ status: 422, type: 'application/problem+json' });
  return (answer.body as InputProblem).errors.map((error) => error.path);
}

/** The scenario's radios, by the ids GET /api/v1/info/hardware gives them. */
async function radioIds(server: Started): Promise<string[]> {
  return (await getJson<{ wifi: { id: string }[] }>(server, '/info/hardware')).wifi.map((radio) => radio.id);
}

const PROVISION = { routerId: '5c3f2e91a7', apitoken: 'tok-4f1d9a7e-very-secret', pdserver: 'https://paradrop.org', wampRouter: 'ws://paradrop.org:9086/ws' };

describe("the default scenario's network interfaces", () => {
  it('are the interfaces of proc/net/dev, the Ethernet ports linked to the i210 NICs', async () => {
    const { device } = await loadScenario('default');
    const dev = await readFile(new URL('proc/net/dev', SCENARIO), 'utf8');
    const counted = dev
      .split('\n')
      .slice(2)
      .map((line) => line.split(':')[0]!.trim())
      .filter((name) => name !== '');
    expect(await device.readDir('/sys/class/net')).toEqual([...counted].sort());
    expect(await Promise.all(['eth0', 'eth1', 'eth2'].map((name) => device.realPath(`/sys/class/net/${name}/device`)))).toEqual([
      '/sys/devices/pci0000:00/0000:00:02.1/0000:01:00.0',
      '/sys/devices/pci0000:00/0000:00:02.2/0000:02:00.0',
      '/sys/devices/pci0000:00/0000:00:02.3/0000:03:00.0',
    ]);
    expect(await device.readFile('/sys/class/net/eth0/device/vendor')).toBe('0x8086\n');
    expect(await device.realPath('/sys/class/net/phy1-ap1/phy80211')).toBe('/sys/devices/pci0000:00/0000:00:02.5/0000:05:00.0/ieee80211/phy1');
  });
});

describe('chutebox emulate: GET and PUT /api/v1/config/hostconfig', () => {
  let server: Started;
  let generated: HostConfig;

  beforeAll(async () => {
    server = await emulate();
  });

  it('GET responds with 200 and the configuration generated from the hardware: WAN eth0, LAN eth1 and eth2, one wifi entry per radio', async () => {
    generated = await getJson<HostConfig>(server, '/config/hostconfig');
    expect(generated).toMatchObject({
      firewall: { defaults: { input: 'ACCEPT', output: 'ACCEPT', forward: 'REJECT' } },
      wan: { interface: 'eth0', proto: 'dhcp' },
      lan: { interfaces: ['eth1', 'eth2'], proto: 'static', ipaddr: '192.168.1.1', netmask: '255.255.255.0' },
      'wifi-interfaces': [],
      telemetry: { enabled: true, interval: 60 },
    });
    expect(generated.wifi?.map((entry: { id: string }) => entry.id)).toEqual(await radioIds(server));
    expect(generated.wifi).toEqual([
      { id: 'pci-wifi-0', channel: 36, hwmode: '11a', htmode: 'VHT80' },
      { id: 'pci-wifi-1', channel: 1, hwmode: '11g', htmode: 'HT20' },
    ]);
  });

  it('GET answers YAML when Accept asks for it', async () => {
    const answer = await call(server, 'GET', '/config/hostconfig', undefined, undefined, { accept: 'application/yaml' });
    expect(answer).toMatchObject({ status: 200, type: expect.stringContaining('yaml') });
    expect(parse(answer.text)).toEqual(generated);
  });

  it('GET /api/v1/config/new-config and /api/v1/config/new_config respond with the same configuration, and change nothing', async () => {
    const before = await snapshot(server);
    expect(await getJson(server, '/config/new-config')).toEqual(generated);
    expect(await getJson(server, '/config/new_config')).toEqual(generated);
    expect(await snapshot(server)).toEqual(before);
  });

  it('PUT of a bad configuration responds with 422 naming each path, queues no change and changes nothing', async () => {
    const before = await snapshot(server);
    const bad = {
      ...EDITED_HOST_CONFIG,
      firewall: { defaults: { input: 'ALLOW', output: 'ACCEPT' } },
      lan: { ...EDITED_HOST_CONFIG.lan, ipaddr: '10.20.0.300' },
      wifi: [{ id: 'pci-wifi-0', channel: 999 }],
      telemetry: { enabled: 'yes', interval: 1 },
    };
    expect(paths(await call(server, 'PUT', '/config/hostconfig', bad))).toEqual(
      expect.arrayContaining([
        'body.firewall.defaults.input',
        'body.firewall.defaults.forward',
        'body.lan.ipaddr',
        'body.wifi[0].channel',
        'body.telemetry.enabled',
        'body.telemetry.interval',
      ]),
    );
    // The same in ParaDrop's wrapper, and in YAML.
    expect(paths(await call(server, 'PUT', '/config/hostconfig', { config: bad }))).toContain('body.config.firewall.defaults.input');
    expect(
      paths(await call(server, 'PUT', '/config/hostconfig', 'firewall:\n  defaults: {input: ALLOW, output: ACCEPT, forward: DROP}\n', 'application/yaml')),
    ).toEqual(expect.arrayContaining(['body.firewall.defaults.input', 'body.lan']));
    // A Wi-Fi network on a radio the configuration does not set up.
    expect(paths(await call(server, 'PUT', '/config/hostconfig', { ...EDITED_HOST_CONFIG, wifi: [] }))).toEqual(['body.wifi-interfaces[0].device']);
    expect(await snapshot(server)).toEqual(before);
  });

  it('PUT of a body that is not JSON or YAML responds with 400 or 415, and changes nothing', async () => {
    const before = await snapshot(server);
    expect(await call(server, 'PUT', '/config/hostconfig', '{"firewall":', 'application/json')).toMatchObject({
      status: 400,
      type: 'application/problem+json',
    });
    expect(await call(server, 'PUT', '/config/hostconfig', 'firewall: [', 'application/yaml')).toMatchObject({ status: 400, type: 'application/problem+json' });
    expect(await call(server, 'PUT', '/config/hostconfig', 'firewall=DROP', 'text/plain')).toMatchObject({ status: 415, type: 'application/problem+json' });
    expect(await snapshot(server)).toEqual(before);
  });

  it('PUT with JSON responds with a change id; the change succeeds and GET responds with the new configuration, keys redacted', async () => {
    const applied = await change(server, 'PUT', '/config/hostconfig', EDITED_HOST_CONFIG);
    expect(applied).toMatchObject({ action: 'update-hostconfig', chute: null, state: 'succeeded' });
    const answer = await call(server, 'GET', '/config/hostconfig');
    expect(answer.body).toEqual({ ...EDITED_HOST_CONFIG, 'wifi-interfaces': [{ ...EDITED_HOST_CONFIG['wifi-interfaces'][0], key: '[redacted]' }] });
    expect(answer.text).not.toContain('a-secret-passphrase');
    // The generated configuration is still the hardware's.
    expect(await getJson(server, '/config/new-config')).toEqual(generated);
  });

  it("PUT with ParaDrop's {config} wrapper in YAML applies that configuration", async () => {
    const yaml = [
      'config:',
      '  firewall:',
      '    defaults: {input: ACCEPT, output: ACCEPT, forward: DROP}',
      '  lan: {interfaces: [eth2], proto: static, ipaddr: 172.16.5.1, netmask: 255.255.0.0}',
      '  wifi:',
      '    - {id: pci-wifi-1, channel: 6}',
      '  telemetry: {enabled: false}',
      '',
    ].join('\n');
    expect((await change(server, 'PUT', '/config/hostconfig', yaml, 'application/yaml')).state).toBe('succeeded');
    expect(await getJson(server, '/config/hostconfig')).toEqual({
      firewall: { defaults: { input: 'ACCEPT', output: 'ACCEPT', forward: 'DROP' } },
      lan: { interfaces: ['eth2'], proto: 'static', ipaddr: '172.16.5.1', netmask: '255.255.0.0' },
      wifi: [{ id: 'pci-wifi-1', channel: 6 }],
      telemetry: { enabled: false },
    });
  });

  it('a GET, edit and PUT back keeps the redacted key in effect', async () => {
    expect((await change(server, 'PUT', '/config/hostconfig', EDITED_HOST_CONFIG)).state).toBe('succeeded');
    const edited = await getJson<HostConfig>(server, '/config/hostconfig');
    edited.system = { ...edited.system, hostname: 'renamed' };
    expect((await change(server, 'PUT', '/config/hostconfig', edited)).state).toBe('succeeded');
    expect(await getJson(server, '/config/hostconfig')).toMatchObject({ system: { hostname: 'renamed' }, 'wifi-interfaces': [{ key: '[redacted]' }] });
    // A placeholder with no secret behind it is refused.
    const before = await snapshot(server);
    const orphan = {
      ...edited,
      'wifi-interfaces': [...(edited['wifi-interfaces'] ?? []), { device: 'pci-wifi-1', ssid: 'new', encryption: 'psk2', key: '[redacted]' }],
    };
    expect(paths(await call(server, 'PUT', '/config/hostconfig', orphan))).toEqual(['body.wifi-interfaces[1].key']);
    expect(await snapshot(server)).toEqual(before);
  });

  it('a change of telemetry shows in GET /api/v1/config/provision', async () => {
    expect((await change(server, 'PUT', '/config/hostconfig', { ...EDITED_HOST_CONFIG, telemetry: { enabled: true, interval: 900 } })).state).toBe('succeeded');
    expect((await getJson<ProvisionStatus>(server, '/config/provision')).telemetry).toMatchObject({ enabled: false, interval: 900 });
    expect((await change(server, 'PUT', '/config/hostconfig', { config: { ...EDITED_HOST_CONFIG, telemetry: { enabled: false, interval: 120 } } })).state).toBe(
      'succeeded',
    );
    expect((await getJson<ProvisionStatus>(server, '/config/provision')).telemetry).toMatchObject({ enabled: false, interval: 120 });
  });

  it('GET /api/v1/changes lists every host configuration change, with no chute', async () => {
    const changes = await getJson<ChangeRecord[]>(server, '/changes');
    expect(changes.length).toBeGreaterThanOrEqual(5);
    expect(changes.every((c) => c.action === 'update-hostconfig' && c.chute === null && c.state === 'succeeded')).toBe(true);
  });
});

describe('chutebox emulate: GET and PUT /api/v1/config/pdconf', () => {
  let server: Started;

  beforeAll(async () => {
    server = await emulate();
  });

  type Section = { type: string; name: string; comment: string; success: boolean; age: number | null };
  const names = (sections: Section[]) => sections.map((section) => `${section.type} ${section.name}`);

  it('GET responds with the sections rendered from the generated configuration, and a firewall zone for the chute networks, applied at start', async () => {
    const sections = await getJson<Section[]>(server, '/config/pdconf');
    expect(names(sections)).toEqual(
      expect.arrayContaining([
        'interface loopback',
        'interface lan',
        'interface wan',
        'wifi-device pci_wifi_0',
        'wifi-device pci_wifi_1',
        'defaults defaults',
        // The chutes' networks, which the device makes itself, are only let through its firewall.
        'zone chutes',
      ]),
    );
    expect(names(sections).filter((name) => name.includes('hotspot') || name.includes('hello_world'))).toEqual([]);
    expect(new Set(sections.map((section) => section.comment.split(':')[0]))).toEqual(new Set(['network', 'wireless', 'dhcp', 'firewall']));
    // As on a device's first start, the emulator rendered and applied them (emulated), without a change.
    for (const section of sections)
      expect(section, section.name).toMatchObject({ success: true, age: expect.any(Number), comment: expect.stringMatching(/: applied \(emulated\)$/) });
    expect(await getJson(server, '/changes')).toEqual([]);
  });

  it('PUT renders and applies every file, and responds with the same sections, applied', async () => {
    const before = await getJson<Section[]>(server, '/config/pdconf');
    const answer = await call(server, 'PUT', '/config/pdconf');
    expect(answer).toMatchObject({ status: 200, type: 'application/json' });
    const sections = answer.body as Section[];
    expect(names(sections)).toEqual(names(before));
    expect(sections.every((section) => section.success && section.age === 0 && /^(network|wireless|dhcp|firewall): /.test(section.comment))).toBe(true);
    expect(await getJson(server, '/config/pdconf')).toMatchObject(sections.map((section) => ({ type: section.type, name: section.name, success: true })));
  });

  it('follows the host configuration: a host Wi-Fi network is a wifi-iface, a removed WAN is gone', async () => {
    const { wan: _wan, ...noWan } = EDITED_HOST_CONFIG;
    expect((await change(server, 'PUT', '/config/hostconfig', noWan)).state).toBe('succeeded');
    const sections = names(await getJson<Section[]>(server, '/config/pdconf'));
    expect(sections).toEqual(expect.arrayContaining(['wifi-iface wifinet0', 'zone chutes']));
    expect(sections).not.toContain('interface wan');
  });
});

describe('chutebox emulate: POST and GET /api/v1/config/provision with the built-in controller', () => {
  let server: Started;

  beforeAll(async () => {
    server = await emulate();
  });

  it('GET responds with not provisioned, and GET /api/v1/config/pdid with null', async () => {
    expect(await getJson<ProvisionStatus>(server, '/config/provision')).toMatchObject({
      provisioned: false,
      routerId: null,
      pdserver: null,
      wampRouter: null,
      httpConnected: false,
    });
    expect(await getJson(server, '/config/pdid')).toEqual({ pdid: '' });
  });

  it('POST responds with 422 naming body.apitoken when the controller refuses the token, and stores nothing', async () => {
    const before = await snapshot(server);
    const refused = await call<InputProblem>(server, 'POST', '/config/provision', { ...PROVISION, apitoken: 'refuse' });
    expect(paths(refused)).toEqual(['body.apitoken']);
    expect(refused.body.detail).toContain('refused');
    expect(paths(await call(server, 'POST', '/config/provision', { ...PROVISION, routerId: 'unknown-router' }))).toEqual(['body.routerId']);
    expect(await snapshot(server)).toEqual(before);
    expect((await getJson<ProvisionStatus>(server, '/config/provision')).provisioned).toBe(false);
  });

  it('POST responds with 422 naming every bad or missing field, and stores nothing', async () => {
    const before = await snapshot(server);
    const bad = await call(server, 'POST', '/config/provision', { routerId: '../x', pdserver: 'ftp://paradrop.org', wampRouter: 'https://paradrop.org' });
    expect(paths(bad)).toEqual(['body.routerId', 'body.apitoken', 'body.pdserver', 'body.wampRouter']);
    expect(paths(await call(server, 'POST', '/config/provision', { ...PROVISION, pdserver: 'https://user:pw@paradrop.org' }))).toEqual(['body.pdserver']);
    expect(paths(await call(server, 'POST', '/config/provision', { ...PROVISION, apitoken: 'has a space' }))).toEqual(['body.apitoken']);
    expect(paths(await call(server, 'POST', '/config/provision', [PROVISION]))).toEqual(['body']);
    expect(await call(server, 'POST', '/config/provision', 'routerId=x', 'application/x-www-form-urlencoded')).toMatchObject({ status: 415 });
    expect(await snapshot(server)).toEqual(before);
  });

  it('POST responds with the provision status; GET /api/v1/config/provision and /pdid then show the router id', async () => {
    const answer = await call(server, 'POST', '/config/provision', PROVISION);
    expect(answer).toMatchObject({ status: 200, type: 'application/json' });
    const expected = {
      provisioned: true,
      routerId: PROVISION.routerId,
      pdserver: PROVISION.pdserver,
      wampRouter: PROVISION.wampRouter,
      httpConnected: true,
      wampConnected: false,
      provisionedAt: expect.any(String),
      telemetry: { enabled: true, interval: 60 },
    };
    expect(answer.body).toMatchObject(expected);
    expect(answer.text).not.toContain(PROVISION.apitoken);
    expect(await getJson<ProvisionStatus>(server, '/config/provision')).toMatchObject(expected);
    expect(await getJson(server, '/config/pdid')).toEqual({ pdid: PROVISION.routerId });
  });

  it('no GET answers the apitoken: every config endpoint, the changes and the info endpoints, as JSON and YAML', async () => {
    const manifest = JSON.parse(await readFile(MANIFEST, 'utf8')) as { functions: { method: string; path: string; aliases?: string[] }[] };
    const endpoints = manifest.functions
      .filter((fn) => fn.method === 'GET')
      .flatMap((fn) => [fn.path, ...(fn.aliases ?? [])])
      .filter((path) => /^\/api\/v1\/(config|changes|info)\b/.test(path))
      .map((path) => path.replace(':user', 'paradrop').replace(':id', '1').slice('/api/v1'.length));
    expect(endpoints).toEqual(
      expect.arrayContaining([
        '/config/hostconfig',
        '/config/new-config',
        '/config/new_config',
        '/config/provision',
        '/config/pdid',
        '/config/settings',
        '/config/pdconf',
        '/config/sshKeys/paradrop',
      ]),
    );
    for (const endpoint of endpoints) {
      for (const accept of ['application/json', 'application/yaml']) {
        const answer = await call(server, 'GET', endpoint, undefined, undefined, { accept });
        expect(answer.status, endpoint).toBeLessThan(500);
        expect(answer.text, `${endpoint} (${accept})`).not.toContain(PROVISION.apitoken);
      }
    }
  });

  it('a second POST whose token the controller refuses keeps the stored credentials', async () => {
    const before = await snapshot(server);
    expect(paths(await call(server, 'POST', '/config/provision', { ...PROVISION, routerId: 'another', apitoken: 'refuse' }))).toEqual(['body.apitoken']);
    expect(await snapshot(server)).toEqual(before);
    expect(await getJson(server, '/config/pdid')).toEqual({ pdid: PROVISION.routerId });
  });
});

describe('chutebox emulate --controller URL', () => {
  const controller = useHttpController({ apitoken: PROVISION.apitoken });

  // Registered after the controller's clean-up: the emulators stop before the controller does.
  const startHere = useChutebox();

  it('POST /api/v1/config/provision checks the credentials with that controller, whatever pdserver says, with the token as a bearer', async () => {
    const server = await startHere(['emulate', '--port', '0', '--no-auth', '--change-delay', '0', '--controller', controller().url]);
    const answer = await call(server, 'POST', '/config/provision', PROVISION);
    expect(answer.body).toMatchObject({ provisioned: true, routerId: PROVISION.routerId, pdserver: PROVISION.pdserver, httpConnected: true });
    expect(controller().requests[0]).toMatchObject({
      method: 'GET',
      path: `/api/routers/${PROVISION.routerId}`,
      authorization: `Bearer ${PROVISION.apitoken}`,
    });
    expect((await getJson<SettingsRecord>(server, '/config/settings')).controller).toBe(controller().url);
  });

  it('exits with code 2 and a message naming --controller for a URL that is not http(s)', () => {
    for (const url of ['ftp://controller.example', 'http://user:pw@controller.example', 'not a url']) {
      const result = spawnSync(process.execPath, [CLI, 'emulate', '--port', '0', '--no-auth', '--controller', url], {
        env: CLEAN_ENV,
        encoding: 'utf8',
        timeout: 30_000,
      });
      expect(result.status, url).toBe(2);
      expect(result.stderr).toContain('--controller');
      expect(result.stdout).not.toContain('listening on');
    }
  });
});

describe('chutebox emulate: GET and POST /api/v1/config/sshKeys/:user', () => {
  let server: Started;
  let recorded: string[];

  beforeAll(async () => {
    server = await emulate();
    recorded = (await readFile(new URL('home/paradrop/.ssh/authorized_keys', SCENARIO), 'utf8')).split('\n').filter((line) => line.startsWith('ssh-'));
  });

  it("GET responds with the scenario's one key of paradrop", async () => {
    expect(recorded).toHaveLength(1);
    expect(await getJson(server, '/config/sshKeys/paradrop')).toEqual(recorded);
  });

  it('POST of a new ed25519 key responds with both keys, and GET lists both', async () => {
    const answer = await call(server, 'POST', '/config/sshKeys/paradrop', { key: sshKey('ed25519') });
    expect(answer).toMatchObject({ status: 200, body: [...recorded, sshKey('ed25519')] });
    expect(await getJson(server, '/config/sshKeys/paradrop')).toEqual([...recorded, sshKey('ed25519')]);
  });

  it('POST of the same key again responds with 409 and leaves the list unchanged', async () => {
    const before = await snapshot(server);
    expect(await call(server, 'POST', '/config/sshKeys/paradrop', { key: sshKey('ed25519') })).toMatchObject({ status: 409, type: 'application/problem+json' });
    // The same key with another comment is the same key.
    expect(await call(server, 'POST', '/config/sshKeys/paradrop', { key: sshKey('ed25519').replace(/ \S+$/, ' alice@desktop') })).toMatchObject({
      status: 409,
    });
    expect(await snapshot(server)).toEqual(before);
  });

  it('POST of an invalid key responds with 422 naming body.key and leaves the list unchanged', async () => {
    const before = await snapshot(server);
    const mismatched = keyLine('ssh-ed25519', ['ssh-rsa', wireFields(sshKey('ed25519'))[1]!]);
    for (const key of ['ssh-ed25519 AAAA', sshKey('rsa-1024'), sshKey('dsa'), mismatched, `${sshKey('ed25519')}\n${sshKey('ecdsa-256')}`]) {
      expect(paths(await call(server, 'POST', '/config/sshKeys/paradrop', { key })), key).toEqual(['body.key']);
    }
    expect(paths(await call(server, 'POST', '/config/sshKeys/paradrop', {}))).toEqual(['body.key']);
    expect(await snapshot(server)).toEqual(before);
  });

  it('responds with 404 for a user the passwd database does not have, and 400 for a name with a path in it', async () => {
    const before = await snapshot(server);
    expect(await call(server, 'GET', '/config/sshKeys/nobody-here')).toMatchObject({ status: 404, type: 'application/problem+json' });
    expect(await call(server, 'POST', '/config/sshKeys/nobody-here', { key: sshKey('ecdsa-256') })).toMatchObject({ status: 404 });
    for (const user of ['..%2Fetc', '..%2F..%2Froot', 'paradrop%2F..']) {
      expect(await call(server, 'GET', `/config/sshKeys/${user}`), user).toMatchObject({ status: 400, type: 'application/problem+json' });
      expect(await call(server, 'POST', `/config/sshKeys/${user}`, { key: sshKey('ecdsa-256') }), user).toMatchObject({ status: 400 });
    }
    expect(await snapshot(server)).toEqual(before);
  });

  it('GET responds with [] for a user of the passwd database without keys', async () => {
    expect(await getJson(server, '/config/sshKeys/root')).toEqual([]);
  });
});

describe('chutebox emulate --scenario gl-ar150: the configuration of a router with two platform Ethernet ports', () => {
  let server: Started;

  beforeAll(async () => {
    server = await emulate(['--scenario', 'gl-ar150']);
  });

  it('GET /api/v1/config/new-config responds with WAN eth0, LAN eth1 and the built-in radio at 2.4 GHz', async () => {
    expect(await getJson(server, '/config/new-config')).toMatchObject({
      wan: { interface: 'eth0', proto: 'dhcp' },
      lan: { interfaces: ['eth1'] },
      wifi: [{ id: 'platform-wifi-0', channel: 1, hwmode: '11g', htmode: 'HT20' }],
    });
  });

  it('GET /api/v1/config/sshKeys/paradrop responds with no key, and ftp is a user too', async () => {
    expect(await getJson(server, '/config/sshKeys/paradrop')).toEqual([]);
    expect(await getJson(server, '/config/sshKeys/ftp')).toEqual([]);
    expect(await call(server, 'GET', '/config/sshKeys/dnsmasq')).toMatchObject({ status: 404 });
  });
});

describe('chutebox emulate: GET /api/v1/config/settings', () => {
  it('responds with the port it really listens on, values of --settings FILE, and environment variables winning over the file', async () => {
    const dir = await temp.folder('settings');
    const file = path.join(dir, 'chutebox.settings');
    await writeFile(file, '# emulator settings\nportal_server_port=1\ncors_origin="https://portal.example"\nupload_limit=64\nchange_delay=250\n');
    const server = await emulate(['--settings', file], { ...CLEAN_ENV, CHUTEBOX_UPLOAD_LIMIT: '128' });
    const settings = await getJson<SettingsRecord>(server, '/config/settings');
    expect(settings).toMatchObject({
      portal_server_port: Number(new URL(server.url).port),
      cors_origin: 'https://portal.example',
      upload_limit: 128,
      // The flag wins over the file.
      change_delay: 0,
      settings_file: file,
      scenario: 'default',
      scenario_dir: expect.stringMatching(/fixtures\/scenarios\/default$/),
    });
    expect(Object.keys(settings).every((name) => name === name.toLowerCase())).toBe(true);
  });

  it('exits with code 2 naming a name in the settings file that is no setting', async () => {
    const file = path.join(await temp.folder('bad-settings'), 'chutebox.settings');
    await writeFile(file, 'portal_server_prot=8080\n');
    const result = spawnSync(process.execPath, [CLI, 'emulate', '--port', '0', '--settings', file], { env: CLEAN_ENV, encoding: 'utf8', timeout: 30_000 });
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('"portal_server_prot" is not a setting');
  });
});

describe('chutebox emulate: POST /api/v1/config/factoryReset', () => {
  let server: Started;
  let generated: unknown;

  beforeAll(async () => {
    server = await emulate();
    generated = await getJson(server, '/config/new-config');
    // A device in use: a chute installed, one deleted, one stopped, the host configured, provisioned, a key added.
    expect((await change(server, 'POST', '/chutes', { name: 'newcomer', image: 'chutebox/newcomer:1', config: { web: { port: 8080 } } })).state).toBe(
      'succeeded',
    );
    expect((await change(server, 'DELETE', '/chutes/hello-world')).state).toBe('succeeded');
    expect((await change(server, 'POST', '/chutes/hotspot/stop')).state).toBe('succeeded');
    expect((await change(server, 'PUT', '/config/hostconfig', EDITED_HOST_CONFIG)).state).toBe('succeeded');
    expect((await call(server, 'POST', '/config/provision', PROVISION)).status).toBe(200);
  });

  it('responds with 422 naming body for a body other than none or {}, and resets nothing', async () => {
    const before = await snapshot(server);
    expect((before['/chutes'] as { name: string }[]).map((chute) => chute.name)).toEqual(['hotspot', 'newcomer']);
    for (const body of [{ x: 1 }, [], '"yes"']) {
      expect(paths(await call(server, 'POST', '/config/factoryReset', body)), JSON.stringify(body)).toEqual(['body']);
    }
    expect(await snapshot(server)).toEqual(before);
    expect(await getJson<ProvisionStatus>(server, '/config/provision')).toMatchObject({ provisioned: true });
  });

  it('responds with {success, message} when done: every chute gone, provisioning cleared, the generated configuration back, no changes', async () => {
    const answer = await call<FactoryResetResult>(server, 'POST', '/config/factoryReset', {});
    expect(answer).toMatchObject({ status: 200, type: 'application/json', body: { success: true, message: expect.any(String) } });
    expect(Object.keys(answer.body).sort()).toEqual(['message', 'success']);
    expect(await getJson(server, '/chutes')).toEqual([]);
    expect(await getJson(server, '/changes')).toEqual([]);
    expect(await getJson<ProvisionStatus>(server, '/config/provision')).toMatchObject({
      provisioned: false,
      routerId: null,
      pdserver: null,
      httpConnected: false,
      telemetry: { enabled: false },
    });
    expect(await getJson(server, '/config/pdid')).toEqual({ pdid: '' });
    expect(await getJson(server, '/config/hostconfig')).toEqual(generated);
    expect((await getJson<Telemetry>(server, '/info/telemetry')).chutes).toEqual([]);
  });

  it('responds with 200 without a body too, and the device works as a fresh one afterwards', async () => {
    const res = await fetch(`${server.url}/api/v1/config/factoryReset`, { method: 'POST' });
    expect(res.status).toBe(200);
    expect((await change(server, 'POST', '/chutes', { name: 'after-reset', image: 'busybox:latest' })).state).toBe('succeeded');
    expect((await getJson<{ name: string }[]>(server, '/chutes')).map((chute) => chute.name)).toEqual(['after-reset']);
    expect((await getJson<ChangeRecord[]>(server, '/changes')).map((c) => c.id)).toHaveLength(1);
  });
});
