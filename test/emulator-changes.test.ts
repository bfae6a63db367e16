import { readFile } from 'node:fs/promises';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { useChutebox, type Started } from './support/spawn.ts';
import { callApi as call, changeOver as change, finalChange } from './support/http-client.ts';
import type { ChangeRecord } from '../functions/core/device/index.ts';
import type { Problem } from '../functions/core/problem.ts';
import type { InputProblem } from './support/call-function.ts';
import type { CachedNetworks } from './support/chute-state.ts';
import type { ChangeAccepted, ChuteList, ChuteRecord } from '../functions/chutes/schemas.ts';
import type { ChuteConfig } from '../functions/chutes/chute-config.ts';
import type { Telemetry } from '../functions/info/schemas.ts';
import { dockerSaveArchive } from './support/tar.ts';

/**
 * The chute changes of issue 4 over HTTP, on `chutebox emulate --no-auth` with the default scenario
 * (chutes hello-world and hotspot, both running): the lifecycle calls and PUT config queue changes,
 * which go through their states in the emulator's runner and change what the chute endpoints answer.
 * Each describe block starts its own emulator, so what one changes does not leak into another.
 */

const SCENARIO = new URL('../fixtures/scenarios/default/', import.meta.url);
const scenarioYaml = async (file: string) => parse(await readFile(new URL(file, SCENARIO), 'utf8')) as Record<string, unknown>;

const start = useChutebox();
const emulate = (...args: string[]) => start(['emulate', '--port', '0', '--no-auth', '--change-delay', '5', ...args]);

async function chuteState(server: Started, chute: string): Promise<string> {
  const answer = await call<ChuteRecord>(server, 'GET', `/chutes/${chute}`);
  expect(answer.status).toBe(200);
  return answer.body.state;
}

describe('chutebox emulate: POST /api/v1/chutes/:chute/stop, start and restart', () => {
  let server: Started;

  beforeAll(async () => {
    server = await emulate();
  });

  it('stop: responds with 200 and a change_id; the change succeeds and the chute reads stopped', async () => {
    const stopped = await change(server, 'POST', '/chutes/hotspot/stop');
    expect(stopped).toMatchObject({ action: 'stop', chute: 'hotspot', state: 'succeeded' });
    expect(stopped.messages.map((m) => m.text)).toEqual(['queued', 'running', expect.stringMatching(/^stopped container [0-9a-f]{12}$/), 'succeeded']);
    for (const { time } of stopped.messages) expect(Number.isNaN(Date.parse(time))).toBe(false);
    expect(await chuteState(server, 'hotspot')).toBe('stopped');
    const list = await call<ChuteList>(server, 'GET', '/chutes/');
    expect(list.body.map((chute: { name: string; state: string }) => [chute.name, chute.state])).toEqual([
      ['hello-world', 'running'],
      ['hotspot', 'stopped'],
    ]);
  });

  it('start: the change succeeds and the chute reads running again', async () => {
    expect(await change(server, 'POST', '/chutes/hotspot/start')).toMatchObject({ action: 'start', chute: 'hotspot', state: 'succeeded' });
    expect(await chuteState(server, 'hotspot')).toBe('running');
  });

  it('restart with an environment: the change succeeds, the chute runs, and its environment is the new one from then on', async () => {
    const restarted = await change(server, 'POST', '/chutes/hello-world/restart', { environment: { MODE: 'demo' } });
    expect(restarted).toMatchObject({ action: 'restart', chute: 'hello-world', state: 'succeeded' });
    expect(restarted.messages.map((m) => m.text)).toContainEqual(expect.stringMatching(/^started container [0-9a-f]{12} with the new environment \(MODE; /));
    expect(await chuteState(server, 'hello-world')).toBe('running');
    expect((await call<ChuteRecord>(server, 'GET', '/chutes/hello-world')).body.environment).toEqual({ MODE: 'demo' });
    await change(server, 'POST', '/chutes/hello-world/restart');
    expect((await call<ChuteRecord>(server, 'GET', '/chutes/hello-world')).body.environment).toEqual({ MODE: 'demo' });
  });

  it('responds with 422 for a start body whose environment is not strings, and queues nothing', async () => {
    const before = (await call<ChangeRecord[]>(server, 'GET', '/changes/')).body.length;
    const answer = await call(server, 'POST', '/chutes/hotspot/start', { environment: { PORT: 8080 } });
    expect(answer).toMatchObject({
      status: 422,
      type: 'application/problem+json',
      body: { errors: [{ path: 'body.environment.PORT', message: 'must be a string' }] },
    });
    expect((await call(server, 'GET', '/changes/')).body).toHaveLength(before);
  });

  it('responds with 404 for a chute that is not installed and 400 for a bad name, and queues nothing', async () => {
    const before = (await call<ChangeRecord[]>(server, 'GET', '/changes')).body.length;
    for (const action of ['start', 'stop', 'restart']) {
      expect((await call(server, 'POST', `/chutes/nosuch/${action}`)).status).toBe(404);
      expect((await call(server, 'POST', `/chutes/-bad/${action}`)).body).toMatchObject({ status: 400, errors: [{ path: 'params.chute' }] });
    }
    expect((await call(server, 'DELETE', '/chutes/nosuch')).status).toBe(404);
    expect((await call(server, 'GET', '/changes')).body).toHaveLength(before);
  });
});

describe('chutebox emulate: GET /api/v1/changes/ and /api/v1/changes/:id', () => {
  let server: Started;

  beforeAll(async () => {
    server = await emulate();
  });

  it('lists no change at first, then every change newest first, each as GET /api/v1/changes/:id answers it', async () => {
    expect(await call(server, 'GET', '/changes/')).toMatchObject({ status: 200, type: 'application/json', body: [] });
    const first = await change(server, 'POST', '/chutes/hotspot/stop');
    const second = await change(server, 'POST', '/chutes/hello-world/stop');
    expect(second.id).toBe(first.id + 1);
    const list = await call(server, 'GET', '/changes/');
    expect(list.body).toEqual([second, first]);
    expect((await call(server, 'GET', '/changes')).body).toEqual(list.body);
  });

  it('answers a change queued with a delay as queued, running or finished, and finished in the end', async () => {
    const answer = await call<ChangeAccepted>(server, 'POST', '/chutes/hotspot/start');
    const now = await call<ChangeRecord>(server, 'GET', `/changes/${answer.body.change_id}`);
    expect(['queued', 'running', 'succeeded']).toContain(now.body.state);
    expect((await finalChange(server.url, answer.body.change_id)).state).toBe('succeeded');
  });

  it('responds with 404 for an id no change has and 400 naming params.id for one that is not a whole number', async () => {
    expect(await call(server, 'GET', '/changes/9999')).toMatchObject({ status: 404, type: 'application/problem+json' });
    for (const id of ['abc', '-1', '1.5']) {
      expect(await call(server, 'GET', `/changes/${id}`)).toMatchObject({ status: 400, body: { errors: [{ path: 'params.id' }] } });
    }
  });
});

describe('chutebox emulate: PUT /api/v1/chutes/:chute/config', () => {
  let server: Started;

  beforeAll(async () => {
    server = await emulate();
  });

  const NEW_CONFIG_YAML = `# hello-world, version 2
environment:
  GREETING: Hello again
  DEBUG: yes
web:
  port: 8001
net:
  wifi:
    type: wifi
    intfName: wlan0
    ssid: hello-world-2
    key: another-passphrase
    dhcp: { start: 10, limit: 20, leasetime: 30m }
`;

  it('takes a YAML configuration: the change succeeds and GET config answers the new one, its key hidden', async () => {
    const updated = await change(server, 'PUT', '/chutes/hello-world/config', NEW_CONFIG_YAML, 'application/yaml');
    expect(updated).toMatchObject({ action: 'update-config', chute: 'hello-world', state: 'succeeded' });
    const config = await call<ChuteConfig>(server, 'GET', '/chutes/hello-world/config');
    expect(config.body).toEqual({ ...parse(NEW_CONFIG_YAML, { version: '1.1' }), net: { wifi: { ...parse(NEW_CONFIG_YAML).net.wifi, key: '[redacted]' } } });
    expect(config.body.environment?.DEBUG).toBe(true);
    expect(await chuteState(server, 'hello-world')).toBe('running');
  });

  it('takes JSON, and the GET, edit, PUT round trip with the [redacted] key', async () => {
    const edited = (await call<{ net: { wifi: { ssid: string; key: string } } }>(server, 'GET', '/chutes/hello-world/config')).body;
    edited.net.wifi.ssid = 'round-trip';
    expect(edited.net.wifi.key).toBe('[redacted]');
    expect((await change(server, 'PUT', '/chutes/hello-world/config', edited)).state).toBe('succeeded');
    const after = (await call(server, 'GET', '/chutes/hello-world/config')).body;
    expect(after).toEqual(edited);
    // The key behind the placeholder is still stored: a second round trip is accepted as well.
    expect((await change(server, 'PUT', '/chutes/hello-world/config', after, 'text/yaml')).state).toBe('succeeded');
  });

  it('responds with 422 listing every violation with its path, in JSON and YAML, and changes nothing', async () => {
    const before = (await call(server, 'GET', '/chutes/hotspot/config')).body;
    const changes = (await call<ChangeRecord[]>(server, 'GET', '/changes/')).body.length;
    const bad = {
      ...(await scenarioYaml('chutes/hotspot/service.yaml')),
      web: { port: 0 },
      net: {
        guest: { type: 'wifi', intfName: 'wlan0', ssid: 'x'.repeat(33), key: 'short', dhcp: { limit: 0 } },
        staff: { type: 'vlan', intfName: 'eth1', vlan_id: 4095 },
      },
    };
    const paths = ['body.net.guest.dhcp.limit', 'body.net.guest.key', 'body.net.guest.ssid', 'body.net.staff.vlan_id', 'body.web.port'];
    const json = await call<InputProblem>(server, 'PUT', '/chutes/hotspot/config', bad);
    expect(json).toMatchObject({ status: 422, type: 'application/problem+json' });
    expect(json.body.errors.map((error: { path: string }) => error.path).sort()).toEqual(paths);
    const yaml = await call<InputProblem>(server, 'PUT', '/chutes/hotspot/config', JSON.stringify(bad), 'application/x-yaml');
    expect(yaml.status).toBe(422);
    expect(yaml.body.errors.map((error: { path: string }) => error.path).sort()).toEqual(paths);
    const placeholder = await call<Problem>(server, 'PUT', '/chutes/hotspot/config', {
      net: { guest: { type: 'wifi', intfName: 'wlan0', key: '[redacted]' } },
    });
    expect(placeholder.body.errors).toEqual([{ path: 'body.net.guest.key', message: expect.stringContaining('no secret here to keep') }]);
    expect((await call(server, 'GET', '/chutes/hotspot/config')).body).toEqual(before);
    expect((await call(server, 'GET', '/changes/')).body).toHaveLength(changes);
  });

  it('responds with 415 for another media type, 400 for a malformed body, 404 and 400 for the chute, and changes nothing', async () => {
    const changes = (await call<ChangeRecord[]>(server, 'GET', '/changes/')).body.length;
    expect((await call(server, 'PUT', '/chutes/hotspot/config', 'web: {port: 80}', 'text/plain')).status).toBe(415);
    expect((await call(server, 'PUT', '/chutes/hotspot/config', 'web: [1', 'application/yaml')).status).toBe(400);
    expect((await call(server, 'PUT', '/chutes/nosuch/config', { web: { port: 80 } })).status).toBe(404);
    expect((await call(server, 'PUT', '/chutes/-bad/config', { web: { port: 80 } })).body).toMatchObject({ status: 400, errors: [{ path: 'params.chute' }] });
    expect((await call(server, 'GET', '/changes/')).body).toHaveLength(changes);
  });
});

describe('chutebox emulate: DELETE /api/v1/chutes/:chute', () => {
  let server: Started;

  beforeAll(async () => {
    server = await emulate();
  });

  it('responds with 200 and a change_id; once the change succeeds the chute is gone everywhere', async () => {
    expect(await change(server, 'DELETE', '/chutes/hotspot')).toMatchObject({ action: 'delete', chute: 'hotspot', state: 'succeeded' });
    expect((await call(server, 'GET', '/chutes/hotspot')).status).toBe(404);
    expect((await call(server, 'GET', '/chutes/hotspot/config')).status).toBe(404);
    expect((await call<ChuteList>(server, 'GET', '/chutes/')).body.map((chute: { name: string }) => chute.name)).toEqual(['hello-world']);
    expect((await call(server, 'POST', '/chutes/hotspot/start')).status).toBe(404);
    const telemetry = await call<Telemetry>(server, 'GET', '/info/telemetry');
    expect(telemetry.body.chutes.map((chute: { name: string }) => chute.name)).toEqual(['hello-world']);
  });

  it('fails a change queued for the chute before it was deleted', async () => {
    // Steps slow enough that the start is queued while the delete still runs.
    const slow = await start(['emulate', '--port', '0', '--no-auth', '--change-delay', '300']);
    const deleted = await call<ChangeAccepted>(slow, 'DELETE', '/chutes/hello-world');
    const started = await call<ChangeAccepted>(slow, 'POST', '/chutes/hello-world/start');
    expect(started.status).toBe(200);
    expect((await finalChange(slow.url, deleted.body.change_id)).state).toBe('succeeded');
    const failed = await finalChange(slow.url, started.body.change_id);
    expect(failed.state).toBe('failed');
    expect(failed.messages.at(-1)!.text).toBe('failed: chute hello-world is not installed');
  });
});

describe('chutebox emulate: POST /api/v1/chutes/', () => {
  let server: Started;

  beforeAll(async () => {
    server = await emulate();
  });

  const CONFIG = {
    environment: { GREETING: 'hi' },
    web: { port: 8080 },
    net: { wlan: { type: 'wifi', intfName: 'wlan0', ssid: 'new-lab', key: 'a-passphrase' } },
  };

  it('installs a chute: the change succeeds, the chute lists as running and its configuration reads back', async () => {
    const body = {
      name: 'newcomer',
      image: 'chutebox/newcomer:1',
      version: '1',
      config: CONFIG,
      environment: { MODE: 'demo' },
      allocation: { cpu_shares: 512 },
    };
    const installed = await change(server, 'POST', '/chutes/', body);
    expect(installed).toMatchObject({ action: 'install', chute: 'newcomer', state: 'succeeded' });
    expect(installed.messages.map((m) => m.text)).toContainEqual(expect.stringMatching(/^created container [0-9a-f]{12} from image chutebox\/newcomer:1$/));
    const list = await call<ChuteList>(server, 'GET', '/chutes/');
    expect(list.body.map((chute: { name: string; state: string }) => [chute.name, chute.state])).toEqual([
      ['hello-world', 'running'],
      ['hotspot', 'running'],
      ['newcomer', 'running'],
    ]);
    expect((await call(server, 'GET', '/chutes/newcomer')).body).toEqual({
      name: 'newcomer',
      version: '1',
      state: 'running',
      environment: { MODE: 'demo' },
      allocation: { cpu_shares: 512, prioritize_traffic: false },
      resources: null,
      services: { main: { state: 'running', allocation: { cpu_shares: 512, prioritize_traffic: false } } },
      owner: null,
    });
    expect((await call(server, 'GET', '/chutes/newcomer/config')).body).toEqual({ ...CONFIG, net: { wlan: { ...CONFIG.net.wlan, key: '[redacted]' } } });
    // As on a device, its network holds a subnet of the pool (the scenario's WAN is not in 10/8) off the other chutes' and the host's,
    // and the first radio of the scenario's host configuration (the ath10k, on 5 GHz).
    const { wlan } = (await call<CachedNetworks<'wlan'>>(server, 'GET', '/chutes/newcomer/cache')).body.networks;
    expect(wlan).toEqual({
      hostInterface: expect.stringMatching(/^vwlan[0-9a-f]{4}$/),
      ipv4Network: '10.128.0.0/24',
      gateway: '10.128.0.1',
      chuteAddress: '10.128.0.2',
      hostapdControl: `/var/lib/chutebox/networks/hostapd/${wlan.hostInterface}`,
      leaseFile: null,
      vlanId: null,
      radio: 'pci-wifi-0',
    });
    expect(installed.messages.map((m) => m.text)).toContain(`networks: wlan 10.128.0.0/24 on ${wlan.hostInterface}`);
    expect((await call(server, 'GET', '/chutes/newcomer/networks/wlan/leases')).body).toEqual([]);
  });

  it('refuses an install whose network overlaps the LAN or another chute, naming the field, and installs nothing', async () => {
    const body = { name: 'clashing', image: 'busybox:latest', config: { net: { wlan: { ...CONFIG.net.wlan, ipv4_network: '192.168.1.0/24' } } } };
    const refused = await call<Problem>(server, 'POST', '/chutes/', body);
    expect(refused.status).toBe(422);
    expect(refused.body.errors).toEqual([
      { path: 'body.config.net.wlan.ipv4_network', message: "192.168.1.0/24 overlaps 192.168.1.0/24, the host's network on br-lan" },
    ]);
    const taken = await call<Problem>(server, 'POST', '/chutes/', {
      ...body,
      config: { net: { wlan: { ...CONFIG.net.wlan, ipv4_network: '192.168.128.128/25' } } },
    });
    expect(taken.body.errors).toEqual([
      { path: 'body.config.net.wlan.ipv4_network', message: '192.168.128.128/25 overlaps 192.168.128.0/24, network wifi of chute hello-world' },
    ]);
    expect((await call(server, 'GET', '/chutes/clashing')).status).toBe(404);
  });

  it("installs a VLAN network, as the scenario's device has br-lan and tags VLANs (proc/net/vlan/config)", async () => {
    const net = { office: { type: 'vlan', intfName: 'vlan0', vlan_id: 30, dhcp: {} } };
    expect((await change(server, 'POST', '/chutes/', { name: 'tagged', image: 'busybox:latest', config: { net } })).state).toBe('succeeded');
    expect((await call<CachedNetworks<'office'>>(server, 'GET', '/chutes/tagged/cache')).body.networks.office).toMatchObject({
      hostInterface: 'br-lan.30',
      vlanId: 30,
    });
  });

  it('takes YAML; then the chute can be stopped like any other', async () => {
    const yaml = 'name: from-yaml\nimage: busybox:latest\nconfig:\n  environment:\n    DEBUG: yes\n';
    expect((await change(server, 'POST', '/chutes', yaml, 'application/yaml')).state).toBe('succeeded');
    expect((await call(server, 'GET', '/chutes/from-yaml/config')).body).toEqual({ environment: { DEBUG: true } });
    expect((await change(server, 'POST', '/chutes/from-yaml/stop')).state).toBe('succeeded');
    expect(await chuteState(server, 'from-yaml')).toBe('stopped');
  });

  it('responds with 409 for a name that is taken and 422 listing every violation, and queues nothing', async () => {
    const changes = (await call<ChangeRecord[]>(server, 'GET', '/changes/')).body.length;
    expect(await call(server, 'POST', '/chutes/', { name: 'hotspot', image: 'busybox' })).toMatchObject({ status: 409, type: 'application/problem+json' });
    const bad = await call<InputProblem>(server, 'POST', '/chutes/', {
      name: '-bad',
      image: 'Busybox',
      config: { web: { port: 0 }, net: { wlan: { type: 'wifi', intfName: 'wlan0', ssid: 'x'.repeat(33) } } },
    });
    expect(bad).toMatchObject({ status: 422, type: 'application/problem+json' });
    expect(bad.body.errors.map((error: { path: string }) => error.path).sort()).toEqual([
      'body.config.net.wlan.ssid',
      'body.config.web.port',
      'body.image',
      'body.name',
    ]);
    expect((await call(server, 'GET', '/chutes/-bad')).status).toBe(400);
    expect((await call(server, 'GET', '/changes/')).body).toHaveLength(changes);
  });
});

describe('chutebox emulate: POST /api/v1/chutes/ with an image tar', () => {
  let server: Started;

  beforeAll(async () => {
    server = await emulate('--upload-limit', '1');
  });

  const upload = (query: string, body: Uint8Array, type = 'application/x-tar') =>
    fetch(`${server.url}/api/v1/chutes/?${query}`, { method: 'POST', headers: { 'content-type': type }, body });

  it('installs a chute from the first tag of an uploaded docker-save archive, with an empty configuration', async () => {
    const res = await upload('name=uploaded&version=3', dockerSaveArchive(['uploaded/web:3', 'uploaded/web:latest']));
    expect(res.status).toBe(200);
    const installed = await finalChange(server.url, ((await res.json()) as { change_id: number }).change_id);
    expect(installed).toMatchObject({ action: 'install', chute: 'uploaded', state: 'succeeded' });
    expect(installed.messages.map((m) => m.text)).toContain('image uploaded/web:3 was loaded from an uploaded archive');
    expect((await call(server, 'GET', '/chutes/uploaded')).body).toMatchObject({ name: 'uploaded', version: '3', state: 'running' });
    expect((await call(server, 'GET', '/chutes/uploaded/config')).body).toEqual({});
  });

  it('responds with 422 naming body for bytes that are not a tar, 413 above --upload-limit, and queues nothing', async () => {
    const changes = (await call<ChangeRecord[]>(server, 'GET', '/changes/')).body.length;
    const notTar = await upload('name=other', new TextEncoder().encode('name: other\n'));
    expect(notTar.status).toBe(422);
    expect(((await notTar.json()) as { errors: { path: string }[] }).errors.map((error) => error.path)).toEqual(['body']);
    expect((await call(server, 'GET', '/chutes/other')).status).toBe(404);
    expect((await call(server, 'GET', '/changes/')).body).toHaveLength(changes);
    // Last: the server closes the connection after a 413 it did not read to the end.
    expect((await upload('name=other', new Uint8Array(1024 * 1024 + 1))).status).toBe(413);
  });
});

describe('chutebox emulate --change-delay', () => {
  it('refuses a delay that is not a whole number of milliseconds', async () => {
    await expect(start(['emulate', '--port', '0', '--change-delay', 'soon'])).rejects.toThrow(/--change-delay must be a whole number of milliseconds/);
  });
});
