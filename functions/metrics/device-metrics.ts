import { installedChutes } from '../chutes/lookup.ts';
import type { Device } from '../core/device/index.ts';
import { PACKAGE_VERSION } from '../core/version.ts';
import { CHUTE_FAMILIES, chuteMetrics } from './chutes.ts';
import { CHUTEBOX_FAMILIES, changeMetrics, telemetryMetrics } from './chutebox.ts';
import { NODE_FAMILIES, nodeMetrics } from './node.ts';
import { type Collector, gauge, type MetricFamily, type Sample, sample } from './samples.ts';
import { leaseMetrics, stationMetrics, WIFI_FAMILIES } from './wifi.ts';

export type { MetricFamily, MetricType, Sample } from './samples.ts';

/** The collectors of a scrape, by the name `chutebox_scrape_collector_success` gives each. */
const COLLECTORS: Readonly<Record<string, Collector>> = {
  node: nodeMetrics,
  chutes: chuteMetrics,
  stations: stationMetrics,
  leases: leaseMetrics,
  changes: changeMetrics,
  telemetry: telemetryMetrics,
};

const BUILD_INFO = gauge('chutebox_build_info', "Always 1; the label is chutebox's version", ['version']);
const COLLECTOR_SUCCESS = gauge(
  'chutebox_scrape_collector_success',
  '1 when every source a collector read answered, 0 when one did not (its other sources are still exposed)',
  ['collector'],
);

/** Every family `deviceMetrics` gives samples of, in the order the exposition lists them. */
export const DEVICE_FAMILIES: readonly MetricFamily[] = [
  BUILD_INFO,
  COLLECTOR_SUCCESS,
  ...NODE_FAMILIES,
  ...CHUTE_FAMILIES,
  ...WIFI_FAMILIES,
  ...CHUTEBOX_FAMILIES,
];

/**
 * Everything `GET /metrics` exposes of a device, read through the `Device` and parsed as the API's
 * endpoints parse it: the system, the chutes and their containers, the chutes' Wi-Fi stations and
 * DHCP leases, the change log and telemetry. Every collector runs at once; one whose source does not
 * answer (an access point whose iw and hostapd cannot list the stations) leaves that source out and
 * says so in `chutebox_scrape_collector_success`. It reads what the API's reads cost: a running
 * chute's stats take the engine about a second.
 *
 * @example
 * await deviceMetrics(device) // [{ family: { name: 'chutebox_build_info', … }, labels: { version: '0.1.0' }, value: 1 }, …]
 */
export async function deviceMetrics(device: Device): Promise<Sample[]> {
  const chutes = installedChutes(device);
  // A collector that does not take the chutes does not wait for them: their failure is the chute collectors' to report.
  chutes.catch(() => {});
  const collected = await Promise.all(
    Object.entries(COLLECTORS).map(async ([name, collect]) => {
      let success = 1;
      const fail = () => void (success = 0);
      const samples = await collect({ device, chutes, fail }).catch(() => {
        fail();
        return [];
      });
      return [...samples, sample(COLLECTOR_SUCCESS, { collector: name }, success)];
    }),
  );
  return [sample(BUILD_INFO, { version: PACKAGE_VERSION }, 1), ...collected.flat()];
}
