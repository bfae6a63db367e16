import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { call, getJson } from './support/http-client.ts';
import { ADOPTED_NAME_PROBLEMS, checkMetrics, skipWithoutPromtool, startPrometheus } from './support/prometheus.ts';
import { serveArgs, type Started, useChutebox } from './support/spawn.ts';
import { useStillScenario } from './support/still-scenario.ts';
import { useTempDir } from './support/temp-dir.ts';

/*
 * GET /metrics over HTTP on `chutebox emulate` (the default scenario) and `chutebox serve` (this
 * machine), checked by Prometheus' own parser (`promtool check metrics`) and against what the API
 * answers for the same device.
 */

const promtoolSkipped = skipWithoutPromtool('test/metrics.test.ts');
const temp = useTempDir('chutebox-metrics-');
const stillDefault = useStillScenario('default');
const start = useChutebox();

/** The emulator's account, paradrop with an empty password, as Prometheus' basic_auth sends it. */
const EMULATOR_BASIC = { authorization: `Basic ${Buffer.from('paradrop:').toString('base64')}` };

/** One sample line of the text format: its name, labels and value. */
interface SampleLine {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The sample lines of an exposition (which promtool has parsed), without the comments. */
function samplesOf(text: string): SampleLine[] {
  return text
    .split('\n')
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line)!;
      const labels = Object.fromEntries([...(match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1]!, m[2]!]));
      return { name: match[1]!, labels, value: Number(match[3]) };
    });
}

/** The value of the one sample of `name` whose labels include `labels`. */
function valueIn(samples: readonly SampleLine[], name: string, labels: Record<string, string> = {}): number | undefined {
  const found = samples.filter((s) => s.name === name && Object.entries(labels).every(([key, value]) => s.labels[key] === value));
  expect(found.length, `${name}${JSON.stringify(labels)}`).toBeLessThanOrEqual(1);
  return found[0]?.value;
}

async function scrape(server: Started, headers: Record<string, string>, accept?: string): Promise<{ status: number; type: string | null; text: string }> {
  const answer = await call(server.url, 'GET', '/metrics', { headers: { ...headers, ...(accept === undefined ? {} : { accept }) } });
  return { status: answer.status, type: answer.type, text: answer.text };
}

/**
 * promtool parses the exposition, and its lint finds fault only with names taken as they are from
 * other exporters (of the families that have samples): it answers their problems.
 */
async function expectPromtoolPasses(text: string): Promise<string[]> {
  const verdict = await checkMetrics(text);
  expect(verdict.problems.filter((problem) => !ADOPTED_NAME_PROBLEMS.includes(problem))).toEqual([]);
  expect(verdict.code).toBe(verdict.problems.length === 0 ? 0 : 3);
  return verdict.problems;
}

describe('GET /metrics on chutebox emulate (default scenario)', () => {
  let server: Started;

  beforeAll(async () => {
    // Without its living network: the stations and their counters are compared across reads.
    server = await start(['emulate', '--port', '0', '--scenario', await stillDefault()]);
  });

  it.skipIf(promtoolSkipped)("is Prometheus' text format, which promtool check metrics parses", async () => {
    const { status, type, text } = await scrape(server, EMULATOR_BASIC);
    expect(status).toBe(200);
    expect(type).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect((await expectPromtoolPasses(text)).sort()).toEqual([...ADOPTED_NAME_PROBLEMS].sort());
  });

  it("holds each access point's stations with the signal and counters GET …/stations answers", async () => {
    const samples = samplesOf((await scrape(server, EMULATOR_BASIC)).text);
    for (const [chute, network] of [
      ['hello-world', 'wifi'],
      ['hotspot', 'guest'],
    ] as const) {
      const stations = await getJson<Record<string, string>[]>(server, `/chutes/${chute}/networks/${network}/stations`, EMULATOR_BASIC);
      expect(stations.length).toBeGreaterThan(0);
      expect(valueIn(samples, 'wifi_stations', { chute, network })).toBe(stations.length);
      for (const station of stations) {
        const labels = { chute, network, mac: station.mac_addr! };
        expect(valueIn(samples, 'wifi_station_signal_dbm', labels)).toBe(Number(station.signal!.split(' ')[0]));
        expect(valueIn(samples, 'wifi_station_receive_bytes_total', labels)).toBe(Number(station.rx_bytes));
        expect(valueIn(samples, 'wifi_station_transmit_bytes_total', labels)).toBe(Number(station.tx_bytes));
        expect(valueIn(samples, 'wifi_station_receive_packets_total', labels)).toBe(Number(station.rx_packets));
        expect(valueIn(samples, 'wifi_station_transmit_packets_total', labels)).toBe(Number(station.tx_packets));
      }
    }
  });

  it('holds the DHCP leases GET …/leases answers, of the access points and of the VLAN network', async () => {
    const samples = samplesOf((await scrape(server, EMULATOR_BASIC)).text);
    for (const [chute, network] of [
      ['hello-world', 'wifi'],
      ['hotspot', 'guest'],
      ['hotspot', 'staff'],
    ] as const) {
      const leases = await getJson<{ expires: string; ip_addr: string }[]>(server, `/chutes/${chute}/networks/${network}/leases`, EMULATOR_BASIC);
      const exposed = samples.filter((s) => s.name === 'dnsmasq_dhcp_lease_expiry_time_seconds' && s.labels.chute === chute && s.labels.network === network);
      expect(exposed.map((s) => [s.labels.ip, s.value])).toEqual(leases.map((lease) => [lease.ip_addr, Number(lease.expires)]));
    }
  });

  it("holds the chutes GET /api/v1/chutes answers, each with its state and its container's use", async () => {
    const samples = samplesOf((await scrape(server, EMULATOR_BASIC)).text);
    const chutes = await getJson<{ name: string; state: string }[]>(server, '/chutes', EMULATOR_BASIC);
    expect(chutes.map((chute) => chute.name)).toEqual(['hello-world', 'hotspot']);
    for (const chute of chutes) {
      expect(valueIn(samples, 'chutebox_chute_state', { chute: chute.name, state: chute.state })).toBe(1);
      expect(valueIn(samples, 'container_cpu_usage_seconds_total', { chute: chute.name })).toBeGreaterThan(0);
      expect(valueIn(samples, 'container_memory_working_set_bytes', { chute: chute.name })).toBeGreaterThan(0);
    }
    expect(samples.filter((s) => s.name === 'chutebox_scrape_collector_success').every((s) => s.value === 1)).toBe(true);
  });

  it('answers OpenMetrics when Accept asks for it, as Prometheus does', async () => {
    const accept = 'application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1';
    const { status, type, text } = await scrape(server, EMULATOR_BASIC, accept);
    expect(status).toBe(200);
    expect(type).toBe('application/openmetrics-text; version=1.0.0; charset=utf-8');
    expect(text.endsWith('\n# EOF\n')).toBe(true);
    expect(text).toMatch(/^# TYPE wifi_station_receive_bytes counter\nwifi_station_receive_bytes_total\{/m);
  });

  it.skipIf(promtoolSkipped)(
    "is scraped by Prometheus with basic auth, which asks for OpenMetrics and parses it: a station's signal as GET …/stations answers it",
    async () => {
      const prometheus = await startPrometheus(await temp.folder('prometheus'), new URL(server.url).host, {
        basic_auth: { username: 'paradrop', password: '' },
      });
      try {
        const signals = 'wifi_station_signal_dbm{job="chutebox",chute="hotspot",network="guest"}';
        const deadline = Date.now() + 30_000;
        while ((await prometheus.query(signals)).length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 250));
        expect(await prometheus.query('up{job="chutebox"}')).toEqual([{ metric: expect.objectContaining({ job: 'chutebox' }), value: 1 }]);
        const stations = await getJson<Record<string, string>[]>(server, '/chutes/hotspot/networks/guest/stations', EMULATOR_BASIC);
        const scraped = Object.fromEntries((await prometheus.query(signals)).map((s) => [s.metric.mac, s.value]));
        expect(scraped).toEqual(Object.fromEntries(stations.map((station) => [station.mac_addr, Number(station.signal!.split(' ')[0])])));
      } finally {
        await prometheus.stop();
      }
    },
  );

  it('has every metric docs/api/metrics.md lists, and no other', async () => {
    const { text } = await scrape(server, EMULATOR_BASIC);
    const exposed = [...text.matchAll(/^# TYPE (\S+) /gm)].map((m) => m[1]!);
    const page = await readFile(new URL('../docs/api/metrics.md', import.meta.url), 'utf8');
    const listed = [...page.matchAll(/`((?:wifi|hostapd|dnsmasq|container|node|chutebox)_[A-Za-z0-9_]+)`/g)].map((m) => m[1]!);
    expect([...new Set(listed)].sort()).toEqual([...new Set(exposed)].sort());
  });

  it('answers 401 without credentials, as every route', async () => {
    const { status, type } = await scrape(server, {});
    expect(status).toBe(401);
    expect(type).toBe('application/problem+json');
  });
});

describe('GET /metrics on chutebox serve (this machine)', () => {
  let server: Started;

  beforeAll(async () => {
    const dir = await temp.folder('serve');
    server = await start(serveArgs(path.join(dir, 'state'), path.join(dir, 'no-docker.sock')));
  });

  it.skipIf(promtoolSkipped)('is an exposition promtool check metrics parses', async () => {
    const { status, text } = await scrape(server, {});
    expect(status).toBe(200);
    await expectPromtoolPasses(text);
  });

  it("holds this machine's load and memory, and the requests it answered, which move with each request", async () => {
    const before = samplesOf((await scrape(server, {})).text);
    expect(valueIn(before, 'node_memory_MemTotal_bytes')).toBeGreaterThan(0);
    expect(valueIn(before, 'node_load1')).toBeGreaterThanOrEqual(0);
    const features = { method: 'GET', route: '/api/v1/info/features', status: '200' };
    const counted = (samples: SampleLine[]) => valueIn(samples, 'chutebox_http_requests_total', features) ?? 0;
    for (let i = 0; i < 3; i++) expect((await call(server.url, 'GET', '/api/v1/info/features')).status).toBe(200);
    expect((await call(server.url, 'GET', '/api/v1/no/such/thing')).status).toBe(404);
    const after = samplesOf((await scrape(server, {})).text);
    expect(counted(after) - counted(before)).toBe(3);
    expect(valueIn(after, 'chutebox_http_request_duration_seconds_count', { method: 'GET', route: '/api/v1/info/features' })).toBe(counted(after));
    expect(valueIn(after, 'chutebox_http_requests_total', { method: 'GET', route: '', status: '404' })).toBeGreaterThanOrEqual(1);
    expect(valueIn(after, 'chutebox_http_requests_total', { method: 'GET', route: '/metrics', status: '200' })).toBeGreaterThanOrEqual(1);
  });
});
