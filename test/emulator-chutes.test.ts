import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { callApi, getJson, problemOf } from './support/http-client.ts';
import { parse } from 'yaml';
import { useChutebox, type Started } from './support/spawn.ts';
import { useTempDir } from './support/temp-dir.ts';

/**
 * The chute read endpoints of issue 4 (list, read, configuration, cache), over HTTP, on
 * `chutebox emulate --no-auth`: the default scenario (two chutes whose containers run), and a scenario
 * written here whose engine recordings hold a container in each other state.
 */

const SCENARIO = new URL('../fixtures/scenarios/default/', import.meta.url);
const scenarioYaml = async (file: string) => parse(await readFile(new URL(file, SCENARIO), 'utf8')) as Record<string, unknown>;

const temp = useTempDir('chutebox-emulator-chutes-');
const start = useChutebox();
const emulate = (scenario = 'default') => start(['emulate', '--port', '0', '--no-auth', '--scenario', scenario]);

type ChuteRecord = { name: string; state: string } & Record<string, unknown>;

describe('chutebox emulate: the chutes of the default scenario', () => {
  let server: Started;

  beforeAll(async () => {
    server = await emulate();
  });

  describe('GET /api/v1/chutes/', () => {
    it("responds with 200 and both chutes' records, sorted by name, running as their containers are", async () => {
      const chutes = await getJson<ChuteRecord[]>(server, '/chutes/');
      expect(chutes).toEqual([
        {
          name: 'hello-world',
          version: '1',
          state: 'running',
          environment: { GREETING: 'Hello from a chute' },
          allocation: { cpu_shares: 1024, prioritize_traffic: false },
          resources: null,
          services: { main: { state: 'running', allocation: { cpu_shares: 1024, prioritize_traffic: false } } },
          owner: null,
        },
        {
          name: 'hotspot',
          version: '2.1',
          state: 'running',
          environment: { PORTAL_TITLE: 'Café Guest Wi-Fi', SESSION_MINUTES: '60' },
          allocation: { cpu_shares: 512, prioritize_traffic: true },
          resources: null,
          services: { main: { state: 'running', allocation: { cpu_shares: 512, prioritize_traffic: true } } },
          owner: null,
        },
      ]);
    });

    it('answers the same without the trailing slash', async () => {
      expect(await getJson(server, '/chutes')).toEqual(await getJson(server, '/chutes/'));
    });
  });

  describe('GET /api/v1/chutes/:chute', () => {
    it("responds with 200 and the chute's record, as the list has it", async () => {
      const list = await getJson<ChuteRecord[]>(server, '/chutes/');
      expect(await getJson(server, '/chutes/hotspot')).toEqual(list.find((chute) => chute.name === 'hotspot'));
      expect(await getJson(server, '/chutes/hello-world/')).toEqual(list.find((chute) => chute.name === 'hello-world'));
    });

    it('responds with 404 for a chute that is not installed, and 400 naming params.chute for a bad name', async () => {
      expect((await problemOf(server, 'GET', '/chutes/nosuch', 404)).detail).toContain('nosuch');
      expect((await problemOf(server, 'GET', '/chutes/-bad', 400)).errors).toEqual([expect.objectContaining({ path: 'params.chute' })]);
      expect((await problemOf(server, 'GET', '/chutes/..%2Fetc', 400)).errors).toEqual([expect.objectContaining({ path: 'params.chute' })]);
    });
  });

  describe('GET /api/v1/chutes/:chute/config', () => {
    /** service.yaml as a GET answers it: hello-world's Wi-Fi passphrase is hidden. */
    async function answered(chute: string) {
      const config = (await scenarioYaml(`chutes/${chute}/service.yaml`)) as { net?: Record<string, Record<string, unknown>> };
      for (const entry of Object.values(config.net ?? {})) if ('key' in entry) entry.key = '[redacted]';
      return config;
    }

    it("responds with 200 and service.yaml's configuration in JSON by default, the Wi-Fi key hidden", async () => {
      expect(await getJson(server, '/chutes/hotspot/config')).toEqual(await answered('hotspot'));
      const helloWorld = (await getJson(server, '/chutes/hello-world/config')) as { net: { wifi: { key: string } } };
      expect(helloWorld).toEqual(await answered('hello-world'));
      expect(helloWorld.net.wifi.key).toBe('[redacted]');
    });

    it('responds in YAML when Accept asks for it, and says it varies with Accept', async () => {
      const answer = await callApi(server, 'GET', '/chutes/hello-world/config', undefined, undefined, { accept: 'application/yaml' });
      expect(answer).toMatchObject({ status: 200, type: 'application/yaml' });
      expect(answer.headers.get('vary')).toBe('accept');
      expect(parse(answer.text)).toEqual(await answered('hello-world'));
      expect(answer.text).toContain('net:\n  wifi:\n    type: wifi\n');
      expect((await callApi(server, 'GET', '/chutes/hello-world/config', undefined, undefined, { accept: 'text/yaml' })).type).toBe('text/yaml; charset=utf-8');
      expect(
        (await callApi(server, 'GET', '/chutes/hello-world/config', undefined, undefined, { accept: 'application/x-yaml;q=0.9, application/json;q=0.8' })).type,
      ).toBe('application/x-yaml');
    });

    it('responds in JSON when the client prefers JSON to YAML', async () => {
      const answer = await callApi(server, 'GET', '/chutes/hello-world/config', undefined, undefined, { accept: 'application/yaml;q=0.5, application/json' });
      expect(answer).toMatchObject({ status: 200, type: 'application/json' });
      expect(JSON.parse(answer.text)).toEqual(await answered('hello-world'));
    });

    it('responds with 404 for a chute that is not installed', async () => {
      await problemOf(server, 'GET', '/chutes/nosuch/config', 404);
    });
  });

  describe('GET /api/v1/chutes/:chute/cache', () => {
    it("responds with 200 and cache.yaml's contents as a JSON object", async () => {
      expect(await getJson(server, '/chutes/hotspot/cache')).toEqual(await scenarioYaml('chutes/hotspot/cache.yaml'));
    });

    it('responds with 404 for a chute that is not installed', async () => {
      await problemOf(server, 'GET', '/chutes/nosuch/cache', 404);
    });
  });
});

describe('chutebox emulate: chute states from engine recordings, and a cache with secrets', () => {
  let server: Started;

  /** A recorded container of a chute, in an engine state. */
  const container = (chute: string, State: string, Status: string, Id: string) => ({
    Id,
    Names: [`/${chute}`],
    Labels: { 'io.chutebox.chute': chute },
    State,
    Status,
    Created: 1763536210,
  });

  beforeAll(async () => {
    const dir = await temp.folder('states');
    const chute = (name: string, state: string) => `name: ${name}\nversion: "1"\nstate: ${state}\n`;
    const files: Record<string, string> = {
      'device.yaml': 'uname: { sysname: Linux, release: 6.6.73, version: "#0 SMP", machine: aarch64 }\n',
      'chutes/done/chute.yaml': chute('done', 'running'),
      'chutes/crashed/chute.yaml': chute('crashed', 'running'),
      'chutes/dead/chute.yaml': chute('dead', 'running'),
      'chutes/paused/chute.yaml': chute('paused', 'running'),
      'chutes/gone/chute.yaml': chute('gone', 'running'),
      'chutes/portal/chute.yaml': chute('portal', 'running'),
      'chutes/portal/cache.yaml': [
        'containerId: 0a1b2c',
        'apiToken: pd_live_0123456789',
        'networks:',
        '  guest:',
        '    hostInterface: phy0-ap0',
        '    key: hunter2hunter2',
        '    options: { acct_server: 10.0.0.2, acct_secret: "radius!" }',
        '',
      ].join('\n'),
      'engine/containers.json': JSON.stringify([
        container('done', 'exited', 'Exited (0) 5 minutes ago', '01'),
        container('crashed', 'exited', 'Exited (139) 2 hours ago', '02'),
        container('dead', 'dead', 'Dead', '03'),
        container('paused', 'paused', 'Up 3 hours (Paused)', '04'),
        container('portal', 'restarting', 'Restarting (1) 4 seconds ago', '05'),
      ]),
    };
    for (const [file, text] of Object.entries(files)) {
      await mkdir(path.dirname(path.join(dir, file)), { recursive: true });
      await writeFile(path.join(dir, file), text);
    }
    server = await emulate(dir);
  });

  it('GET /api/v1/chutes/ shows each chute in the state its container is in; no container: missing', async () => {
    const chutes = await getJson<ChuteRecord[]>(server, '/chutes/');
    expect(chutes.map(({ name, state }) => [name, state])).toEqual([
      ['crashed', 'failed'],
      ['dead', 'failed'],
      ['done', 'stopped'],
      ['gone', 'missing'],
      ['paused', 'stopped'],
      ['portal', 'restarting'],
    ]);
    expect(await getJson(server, '/chutes/crashed')).toMatchObject({ name: 'crashed', state: 'failed' });
  });

  it('GET /api/v1/chutes/:chute/cache never shows a secret', async () => {
    const answer = await callApi(server, 'GET', '/chutes/portal/cache');
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.text)).toEqual({
      containerId: '0a1b2c',
      apiToken: '[redacted]',
      networks: { guest: { hostInterface: 'phy0-ap0', key: '[redacted]', options: { acct_server: '10.0.0.2', acct_secret: '[redacted]' } } },
    });
    expect(answer.text).not.toMatch(/pd_live|hunter2|radius!/);
  });

  it('GET /api/v1/chutes/:chute/config answers {} for a chute without service.yaml', async () => {
    expect(await getJson(server, '/chutes/gone/config')).toEqual({});
  });
});
