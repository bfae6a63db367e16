import { rm } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accessPoint, chuteDevice } from '../../test/support/chute-devices.ts';
import { functionsFolder } from '../../test/support/test-bundles.ts';
import { fixedAuth } from '../auth/index.ts';
import { createApp } from './app.ts';
import { DURATION_BUCKETS, requestCounter } from './request-counts.ts';

let dir: string;
beforeAll(async () => {
  dir = await functionsFolder([], ['info-features-get.mjs']);
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const authorization = `Basic ${Buffer.from('paradrop:secret').toString('base64')}`;

/** The app on a device with one access point, whose lease file has a host name with a quote and a backslash; its requests counted. */
async function metricsApp() {
  const requests = requestCounter();
  const leases = '1645660000 02:00:00:00:00:07 192.168.128.7 say"hi\\there *\n';
  const device = chuteDevice({ networks: { 'hello/wlan': accessPoint({ leases }) } });
  const auth = await fixedAuth({ username: 'paradrop', password: 'secret' });
  return createApp({ functionsDir: dir, device, auth, answered: requests.count, requestCounts: requests.counts });
}

/** The lines of an exposition that are samples, not comments. */
const sampleLines = (text: string) => text.split('\n').filter((line) => line !== '' && !line.startsWith('#'));

describe('GET /metrics', () => {
  it("answers Prometheus' text format by default, with the device's metrics and the requests answered so far", async () => {
    const app = await metricsApp();
    for (let i = 0; i < 3; i++) expect((await app.request('/api/v1/info/features', { headers: { authorization } })).status).toBe(200);
    expect((await app.request('/api/v1/nothing', { headers: { authorization } })).status).toBe(404);
    const answer = await app.request('/metrics', { headers: { authorization } });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(answer.headers.get('cache-control')).toBe('no-store');
    expect(answer.headers.get('vary')).toBe('Accept');
    const text = await answer.text();
    expect(text).toContain('# TYPE wifi_stations gauge\nwifi_stations{chute="hello",network="wlan",ifname="vwlan3f2a"} 3\n');
    expect(text).toContain('# TYPE chutebox_http_requests_total counter\n');
    const lines = sampleLines(text);
    expect(lines).toContain('chutebox_http_requests_total{method="GET",route="/api/v1/info/features",status="200"} 3');
    expect(lines).toContain('chutebox_http_requests_total{method="GET",route="",status="404"} 1');
    expect(lines).toContain('chutebox_http_request_duration_seconds_count{method="GET",route="/api/v1/info/features"} 3');
    expect(lines).toContain('chutebox_http_request_duration_seconds_bucket{method="GET",route="/api/v1/info/features",le="+Inf"} 3');
  });

  it('gives cumulative buckets, one per bound and +Inf, that end at the count', async () => {
    const app = await metricsApp();
    for (let i = 0; i < 5; i++) await app.request('/api/v1/info/features', { headers: { authorization } });
    const lines = sampleLines(await (await app.request('/metrics', { headers: { authorization } })).text());
    const buckets = lines
      .filter((line) => line.startsWith('chutebox_http_request_duration_seconds_bucket{method="GET",route="/api/v1/info/features"'))
      .map((line) => ({ le: /le="([^"]+)"/.exec(line)![1], count: Number(line.split(' ').at(-1)) }));
    expect(buckets.map((bucket) => bucket.le)).toEqual([...DURATION_BUCKETS.map(String), '+Inf']);
    for (let i = 1; i < buckets.length; i++) expect(buckets[i]!.count).toBeGreaterThanOrEqual(buckets[i - 1]!.count);
    expect(buckets.at(-1)!.count).toBe(5);
  });

  it('counts a scrape as a request once it is answered', async () => {
    const app = await metricsApp();
    await app.request('/metrics', { headers: { authorization } });
    const lines = sampleLines(await (await app.request('/metrics', { headers: { authorization } })).text());
    expect(lines).toContain('chutebox_http_requests_total{method="GET",route="/metrics",status="200"} 1');
  });

  it('answers OpenMetrics when Accept prefers it, as Prometheus asks: counters typed without _total, and # EOF at the end', async () => {
    const app = await metricsApp();
    const accept = 'application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1';
    const answer = await app.request('/metrics', { headers: { authorization, accept } });
    expect(answer.headers.get('content-type')).toBe('application/openmetrics-text; version=1.0.0; charset=utf-8');
    const text = await answer.text();
    expect(text.endsWith('\n# EOF\n')).toBe(true);
    expect(text).toContain('# TYPE wifi_station_receive_bytes counter\nwifi_station_receive_bytes_total{');
    expect(text).not.toContain('# TYPE wifi_station_receive_bytes_total');
    const text2 = await (await app.request('/metrics', { headers: { authorization, accept: 'text/plain;version=0.0.4' } })).text();
    expect(text2).toContain('# TYPE wifi_station_receive_bytes_total counter\n');
  });

  it('escapes a label value as the format wants: a quote and a backslash of a lease host name', async () => {
    const app = await metricsApp();
    const text = await (await app.request('/metrics', { headers: { authorization } })).text();
    expect(sampleLines(text)).toContain(
      'dnsmasq_dhcp_lease_expiry_time_seconds{chute="hello",network="wlan",mac="02:00:00:00:00:07",ip="192.168.128.7",hostname="say\\"hi\\\\there"} 1645660000',
    );
  });

  it('asks for credentials as every route does: 401 without them or with wrong ones, a bearer token or Basic taken', async () => {
    const app = await metricsApp();
    const refused = await app.request('/metrics');
    expect(refused.status).toBe(401);
    expect(refused.headers.get('content-type')).toBe('application/problem+json');
    expect((await app.request('/metrics', { headers: { authorization: `Basic ${Buffer.from('paradrop:wrong').toString('base64')}` } })).status).toBe(401);
    const login = await app.request('/api/v1/auth/local', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'paradrop', password: 'secret' }),
    });
    const { token } = (await login.json()) as { token: string };
    expect((await app.request('/metrics', { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
  });

  it('answers another method with 405, naming GET', async () => {
    const app = await metricsApp();
    const answer = await app.request('/metrics', { method: 'POST', headers: { authorization } });
    expect(answer.status).toBe(405);
    expect(answer.headers.get('allow')).toBe('GET');
  });
});
