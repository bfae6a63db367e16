import type { Device, StoredChute } from '../core/device/index.ts';

/*
 * What `GET /metrics` exposes of a device, runtime-neutral: metric families (Prometheus' name, help,
 * type and label names) and their samples, gathered from the `Device` with the parsers the API uses.
 * The runtime writes them in Prometheus' formats (runtime/http/metrics.ts, with prom-client);
 * docs/decisions/0046-metrics.md says why the split is here.
 */

/** A Prometheus metric type that a device's samples have: a counter only grows (until a restart), a gauge goes up and down. */
export type MetricType = 'counter' | 'gauge';

/** One metric family: every sample of one name. A counter's name ends in `_total`. */
export interface MetricFamily<L extends string = string> {
  name: string;
  help: string;
  type: MetricType;
  labels: readonly L[];
}

/** One sample of a family: its value for one set of label values. */
export interface Sample<L extends string = string> {
  family: MetricFamily<L>;
  labels: Readonly<Record<L, string>>;
  value: number;
}

/**
 * A gauge family.
 *
 * @example
 * const WIFI_STATIONS = gauge('wifi_stations', 'Stations connected to an access point', ['chute', 'network', 'ifname']);
 */
export function gauge<const L extends string>(name: string, help: string, labels: readonly L[]): MetricFamily<L> {
  return { name, help, type: 'gauge', labels };
}

/** A counter family; its name ends in `_total`, as Prometheus' text format and OpenMetrics want. */
export function counter<const L extends string>(name: `${string}_total`, help: string, labels: readonly L[]): MetricFamily<L> {
  return { name, help, type: 'counter', labels };
}

/**
 * A sample of `family`, with a value for each of its labels.
 *
 * @example
 * sample(WIFI_STATIONS, { chute: 'hotspot', network: 'guest', ifname: 'phy0-ap0' }, 3)
 */
export function sample<L extends string>(family: MetricFamily<L>, labels: Readonly<Record<L, string>>, value: number): Sample {
  return { family, labels, value };
}

/** One scrape of a device, as each collector sees it. */
export interface Scrape {
  device: Device;
  /** The installed chutes, read once for every collector. */
  chutes: Promise<readonly StoredChute[]>;
  /** Marks the collector's part of the scrape failed (a source did not answer); what it read of the others stays. */
  fail(): void;
}

/** Gathers the samples of some families from a scrape; a source that does not answer is `fail()`ed, or thrown. */
export type Collector = (scrape: Scrape) => Promise<Sample[]>;
