// The declaration of prom-client's registry module, which ships none, for every tsc program that takes this module (the package's declarations too).
/// <reference path="./prom-client-registry.d.ts" />
import type { Context } from 'hono';
import type { Metric, RegistryContentType } from 'prom-client';
import Registry from 'prom-client/lib/registry.js';
import type { Device } from '../../functions/core/device/index.ts';
import { preferredMediaType } from '../../functions/core/negotiate.ts';
import { DEVICE_FAMILIES, deviceMetrics, type MetricFamily, type Sample } from '../../functions/metrics/device-metrics.ts';
import { DURATION_BUCKETS, type RequestCount } from './request-counts.ts';
import { requestHeaders } from './request-headers.ts';

/** The formats a scrape may ask for by `Accept`, the text format (what a client that asks for neither gets) first. */
const FORMATS = ['text/plain', 'application/openmetrics-text'] as const;

/** The HTTP requests the app answered, by method, route and status (`RequestCount`). */
const REQUESTS = { name: 'chutebox_http_requests_total', help: 'HTTP requests answered, by method, route (empty when none matched) and status' };
/** How long they took, by method and route. */
const DURATIONS = { name: 'chutebox_http_request_duration_seconds', help: 'Time from taking an HTTP request to its answer, by method and route' };

/**
 * `GET /metrics`: the device's metrics (`deviceMetrics`: the system, the chutes, their Wi-Fi stations
 * and leases, the change log, telemetry) and the requests the app answered (`requests`), in
 * Prometheus' text format, or OpenMetrics when `Accept` prefers it. A bundle of its own
 * (dist/metrics.mjs, with prom-client's registry), loaded on the first scrape; each scrape reads the
 * device anew into a registry of its own, so that scrapes at once do not mix
 * (docs/decisions/0046-metrics.md).
 *
 * @example
 * app.get('/metrics', async (c) => (await import('./metrics.ts')).metrics(c, device, requests.counts));
 */
export async function metrics(c: Context, device: Device, requests: () => readonly RequestCount[] = () => []): Promise<Response> {
  const openMetrics = preferredMediaType(requestHeaders(c).accept, FORMATS) === 'application/openmetrics-text';
  const registry = new Registry<RegistryContentType>();
  registry.setContentType(openMetrics ? Registry.OPENMETRICS_CONTENT_TYPE : Registry.PROMETHEUS_CONTENT_TYPE);
  const samples = await deviceMetrics(device);
  for (const family of DEVICE_FAMILIES) registry.registerMetric(collected(family, samples));
  const counts = requests();
  registry.registerMetric(requestTotals(counts));
  registry.registerMetric(requestDurations(counts));
  return new Response(await registry.metrics(), {
    status: 200,
    headers: { 'content-type': registry.contentType, 'cache-control': 'no-store', vary: 'Accept' },
  });
}

/** One line of a metric: its labels and value, and its name when it is not the family's (`_bucket`, `_sum`, `_count`). */
interface Line {
  labels: Record<string, string>;
  value: number;
  metricName?: string;
}

/**
 * A metric whose lines are already known, as prom-client's `Registry` reads a metric: `get()` and its
 * `name` and `type` (the registry takes `_total` off a counter's name for OpenMetrics). The registry
 * writes the lines, escaping included: chutebox writes none itself.
 */
function known(name: string, help: string, type: MetricFamily['type'] | 'histogram', lines: readonly Line[]): Metric {
  const metric = {
    name,
    type,
    get: async () => ({ name: metric.name, help, type, aggregator: 'sum', values: lines }),
    reset() {},
  };
  // The registry reads only what is above: the classes of prom-client's own metrics would add a label check and a hash per line.
  return metric as unknown as Metric;
}

/** A device family, with its samples among `samples`. */
function collected(family: MetricFamily, samples: readonly Sample[]): Metric {
  const lines = samples.filter((sample) => sample.family === family).map((sample) => ({ labels: sample.labels, value: sample.value }));
  return known(family.name, family.help, family.type, lines);
}

function requestTotals(counts: readonly RequestCount[]): Metric {
  const lines = counts.map((count) => ({
    labels: { method: count.method, route: count.route ?? '', status: String(count.status) },
    value: count.buckets.reduce((sum, n) => sum + n, 0),
  }));
  return known(REQUESTS.name, REQUESTS.help, 'counter', lines);
}

/** The duration histogram by method and route: the counts of every status added up, each bucket counting those below it too. */
function requestDurations(counts: readonly RequestCount[]): Metric {
  const byRoute = new Map<string, { labels: Record<string, string>; buckets: number[]; seconds: number }>();
  for (const count of counts) {
    const labels = { method: count.method, route: count.route ?? '' };
    const key = `${labels.method} ${labels.route}`;
    const sum = byRoute.get(key) ?? { labels, buckets: count.buckets.map(() => 0), seconds: 0 };
    for (const [i, n] of count.buckets.entries()) sum.buckets[i]! += n;
    sum.seconds += count.seconds;
    byRoute.set(key, sum);
  }
  const lines = [...byRoute.values()].flatMap(({ labels, buckets, seconds }) => {
    let below = 0;
    const bounds = [...DURATION_BUCKETS.map(String), '+Inf'];
    const bucketLines = bounds.map((le, i) => ({ metricName: `${DURATIONS.name}_bucket`, labels: { ...labels, le }, value: (below += buckets[i]!) }));
    return [...bucketLines, { metricName: `${DURATIONS.name}_sum`, labels, value: seconds }, { metricName: `${DURATIONS.name}_count`, labels, value: below }];
  });
  return known(DURATIONS.name, DURATIONS.help, 'histogram', lines);
}
