import { afterEach, describe, expect, it, vi } from 'vitest';
import { okBody } from '../../test/support/call-function.ts';
import { accessPoint, AP_LEASES, chuteDevice, chuteDeviceSpec, labAccessPoint, NO_WIFI_STACK, STATIONS } from '../../test/support/chute-devices.ts';
import { chuteEngine, combine, pciRouter, rawFixture } from '../../test/support/info-devices.ts';
import { memoryDevice } from '../../test/support/memory-device.ts';
import { CREDENTIALS, provisioningDevice } from '../../test/support/provisioning-devices.ts';
import type { ChangeRecord, Device } from '../core/device/index.ts';
import { HttpProblem } from '../core/problem.ts';
import { PACKAGE_VERSION } from '../core/version.ts';
import * as leases from '../networks/leases.get.ts';
import * as stations from '../networks/stations.get.ts';
import { DEVICE_FAMILIES, deviceMetrics, type Sample } from './device-metrics.ts';

/** The samples of one family, each as its labels with its value. */
function series(samples: readonly Sample[], name: string): Record<string, string | number>[] {
  return samples.filter((s) => s.family.name === name).map((s) => ({ ...s.labels, value: s.value }));
}

/** The value of the one sample of `name` with exactly these labels. */
function sampled(samples: readonly Sample[], name: string, labels: Record<string, string> = {}): number | undefined {
  const found = samples.filter((s) => s.family.name === name && JSON.stringify(s.labels) === JSON.stringify(labels));
  expect(found.length, `${name}${JSON.stringify(labels)}`).toBeLessThanOrEqual(1);
  return found[0]?.value;
}

function collectorSuccess(samples: readonly Sample[]): Record<string, number> {
  return Object.fromEntries(series(samples, 'chutebox_scrape_collector_success').map((s) => [s.collector, s.value]));
}

const WLAN = { chute: 'hello', network: 'wlan', ifname: 'vwlan3f2a' };

afterEach(() => {
  vi.useRealTimers();
});

describe('deviceMetrics', () => {
  it("gives every sample a family of DEVICE_FAMILIES, with exactly the family's labels, and one sample per set of label values", async () => {
    const samples = await deviceMetrics(memoryDevice(combine(pciRouter, chuteEngine, chuteDeviceSpec())));
    const families = new Set(DEVICE_FAMILIES);
    const seen = new Set<string>();
    for (const s of samples) {
      expect(families.has(s.family), s.family.name).toBe(true);
      expect(Object.keys(s.labels).sort(), s.family.name).toEqual([...s.family.labels].sort());
      const key = `${s.family.name}${JSON.stringify(s.labels)}`;
      expect(seen.has(key), key).toBe(false);
      seen.add(key);
    }
    expect(new Set(DEVICE_FAMILIES.map((family) => family.name)).size).toBe(DEVICE_FAMILIES.length);
  });

  it("names chutebox's version and says that every collector read its sources", async () => {
    const samples = await deviceMetrics(chuteDevice());
    expect(series(samples, 'chutebox_build_info')).toEqual([{ version: PACKAGE_VERSION, value: 1 }]);
    expect(collectorSuccess(samples)).toEqual({ node: 1, chutes: 1, stations: 1, leases: 1, changes: 1, telemetry: 1 });
  });
});

describe('deviceMetrics: the Wi-Fi stations', () => {
  it('counts the stations of each access point, labelled with its chute, network and host interface', async () => {
    const samples = await deviceMetrics(chuteDevice());
    expect(series(samples, 'wifi_stations')).toEqual([{ ...WLAN, value: 3 }]);
  });

  it('gives the signal, inactive time, rates and counters that GET …/stations answers for each station', async () => {
    const device = chuteDevice();
    const samples = await deviceMetrics(device);
    const listed = await okBody(stations, device, { chute: 'hello', network: 'wlan' });
    expect(listed.map((station) => station.mac_addr)).toEqual(STATIONS);
    /** The number a field of the station's record begins with. */
    const leading = (station: (typeof listed)[number], key: string) => Number(String(station[key]).split(' ')[0]);
    for (const station of listed) {
      const labels = { ...WLAN, mac: station.mac_addr };
      expect(sampled(samples, 'wifi_station_signal_dbm', labels)).toBe(leading(station, 'signal'));
      expect(sampled(samples, 'wifi_station_inactive_milliseconds', labels)).toBe(leading(station, 'inactive_time'));
      expect(sampled(samples, 'wifi_station_transmit_kilobits_per_second', labels)).toBe(leading(station, 'tx_bitrate') * 1000);
      expect(sampled(samples, 'wifi_station_receive_kilobits_per_second', labels)).toBe(leading(station, 'rx_bitrate') * 1000);
      expect(sampled(samples, 'wifi_station_receive_bytes_total', labels)).toBe(leading(station, 'rx_bytes'));
      expect(sampled(samples, 'wifi_station_transmit_bytes_total', labels)).toBe(leading(station, 'tx_bytes'));
      expect(sampled(samples, 'wifi_station_receive_packets_total', labels)).toBe(leading(station, 'rx_packets'));
      expect(sampled(samples, 'wifi_station_transmit_packets_total', labels)).toBe(leading(station, 'tx_packets'));
    }
    expect(sampled(samples, 'wifi_station_signal_dbm', { ...WLAN, mac: STATIONS[0] })).toBe(-63);
    expect(sampled(samples, 'wifi_station_transmit_kilobits_per_second', { ...WLAN, mac: STATIONS[0] })).toBe(702_000);
  });

  it("has no hostapd_station_* sample for stations iw listed: hostapd's station data was not read", async () => {
    const samples = await deviceMetrics(chuteDevice());
    expect(samples.filter((s) => s.family.name.startsWith('hostapd_station_'))).toEqual([]);
  });

  it("gives hostapd's station data where iw cannot answer and hostapd lists the stations", async () => {
    const hostapd = rawFixture('hostapd_all_sta/firewalla_test_two_he_stations.txt');
    const device = chuteDevice({ networks: { 'hello/wlan': labAccessPoint({ hostapdStations: hostapd }) } });
    const samples = await deviceMetrics(device);
    const first = { ...WLAN, mac: '30:d5:3e:cf:f8:76' };
    expect(series(samples, 'wifi_stations')).toEqual([{ ...WLAN, value: 2 }]);
    expect(sampled(samples, 'wifi_station_signal_dbm', first)).toBe(-58);
    expect(sampled(samples, 'wifi_station_receive_kilobits_per_second', first)).toBe(648_500);
    expect(sampled(samples, 'hostapd_station_signal_dbm', first)).toBe(-58);
    expect(sampled(samples, 'hostapd_station_receive_packets_total', first)).toBe(3572);
    expect(sampled(samples, 'hostapd_station_transmit_bytes_total', first)).toBe(737984);
    expect(sampled(samples, 'hostapd_station_connected_seconds_total', first)).toBe(604);
    expect(sampled(samples, 'hostapd_station_inactive_seconds', first)).toBe(9.84);
    expect(sampled(samples, 'hostapd_station_flag_he', first)).toBe(1);
    expect(sampled(samples, 'hostapd_station_flag_authorized', first)).toBe(1);
    expect(sampled(samples, 'hostapd_station_flag_mfp', first)).toBe(0);
    expect(sampled(samples, 'hostapd_station_flag_short_preamble', first)).toBe(0);
  });

  it('gives the flags of a wired 802.1X station, which has no signal or counters', async () => {
    const samples = await deviceMetrics(chuteDevice({ networks: { 'hello/wlan': labAccessPoint() } }));
    const wired = { ...WLAN, mac: '02:cb:00:00:01:02' };
    expect(samples.filter((s) => s.family.labels.includes('ifname') && s.labels.mac === wired.mac).map((s) => [s.family.name, s.value])).toEqual([
      ...['auth', 'assoc', 'authorized', 'short_preamble', 'ht', 'vht', 'he', 'wmm', 'mfp'].map((flag) => [
        `hostapd_station_flag_${flag}`,
        flag === 'authorized' ? 1 : 0,
      ]),
    ]);
  });

  it('leaves out an access point whose stations neither iw nor hostapd can list, says so, and keeps the others', async () => {
    const spec = chuteDeviceSpec();
    const hello = spec.chutes!.hello!;
    const net = hello.config!.net as Record<string, unknown>;
    net.wlan2 = { type: 'wifi', intfName: 'wlan1' };
    const cache = hello.cache!.networks as Record<string, unknown>;
    cache.wlan2 = { hostInterface: 'vwlan77aa' };
    spec.networks!['hello/wlan2'] = { fails: { stationDump: NO_WIFI_STACK, hostapdStations: new HttpProblem(503, 'hostapd is not running') } };
    const samples = await deviceMetrics(memoryDevice(spec));
    expect(series(samples, 'wifi_stations')).toEqual([{ ...WLAN, value: 3 }]);
    expect(collectorSuccess(samples)).toMatchObject({ stations: 0, leases: 1, node: 1 });
  });
});

describe('deviceMetrics: the DHCP leases', () => {
  it('gives the expiry of every lease that GET …/leases answers, labelled with its chute, network, MAC, IP and host name', async () => {
    const device = chuteDevice();
    const samples = await deviceMetrics(device);
    const listed = await okBody<{ expires: string; mac_addr?: string; ip_addr: string; hostname: string }[]>(leases, device, {
      chute: 'hello',
      network: 'wlan',
    });
    expect(listed).toHaveLength(AP_LEASES.split('\n').filter((line) => /^\d/.test(line)).length);
    expect(series(samples, 'dnsmasq_dhcp_lease_expiry_time_seconds')).toEqual(
      listed.map((lease) => ({
        chute: 'hello',
        network: 'wlan',
        mac: lease.mac_addr?.toLowerCase() ?? '',
        ip: lease.ip_addr,
        hostname: lease.hostname === '*' ? '' : lease.hostname,
        value: Number(lease.expires),
      })),
    );
    expect(
      sampled(samples, 'dnsmasq_dhcp_lease_expiry_time_seconds', { chute: 'hello', network: 'wlan', mac: STATIONS[1], ip: '192.168.128.40', hostname: '' }),
    ).toBe(0);
  });

  it('reads the leases of a VLAN network too, and none of a network whose dnsmasq wrote no file yet', async () => {
    const device = chuteDevice({
      networks: { 'hello/wlan': accessPoint({ leases: null }), 'hello/guest': { leases: '1645660000 02:00:00:00:00:07 192.168.10.7 printer *\n' } },
    });
    expect(series(await deviceMetrics(device), 'dnsmasq_dhcp_lease_expiry_time_seconds')).toEqual([
      { chute: 'hello', network: 'guest', mac: '02:00:00:00:00:07', ip: '192.168.10.7', hostname: 'printer', value: 1645660000 },
    ]);
  });
});

describe('deviceMetrics: the system', () => {
  it('gives the load, memory, boot time, clock, CPU times and network counters under node exporter names', async () => {
    const now = Date.UTC(2026, 10, 21, 12, 0, 0, 500);
    const samples = await deviceMetrics(memoryDevice({ ...pciRouter, now }));
    expect([1, 5, 15].map((minutes) => sampled(samples, `node_load${minutes}`))).toEqual([0.42, 0.35, 0.3]);
    expect(sampled(samples, 'node_memory_MemTotal_bytes')).toBe(16314532 * 1024);
    expect(sampled(samples, 'node_memory_MemAvailable_bytes')).toBe(13011232 * 1024);
    expect(sampled(samples, 'node_memory_SwapFree_bytes')).toBe(750332 * 1024);
    expect(sampled(samples, 'node_boot_time_seconds')).toBe(1763640000);
    expect(sampled(samples, 'node_time_seconds')).toBe(now / 1000);
    expect(sampled(samples, 'node_cpu_seconds_total', { cpu: '1', mode: 'user' })).toBe(48.84);
    expect(sampled(samples, 'node_cpu_seconds_total', { cpu: '0', mode: 'idle' })).toBe(600.04);
    expect(series(samples, 'node_cpu_seconds_total')).toHaveLength(2 * 8);
    expect(sampled(samples, 'node_network_receive_bytes_total', { device: 'enp1s0' })).toBe(12345678901);
    expect(sampled(samples, 'node_network_transmit_packets_total', { device: 'enp1s0' })).toBe(654321);
    expect(sampled(samples, 'node_network_receive_drop_total', { device: 'wlp4s0' })).toBe(10);
    expect(series(samples, 'node_network_transmit_bytes_total').map((s) => s.device)).toEqual(['lo', 'enp1s0', 'wlp4s0', 'docker0']);
  });

  it('gives no sample of a file the device does not have, and still counts that as read', async () => {
    const samples = await deviceMetrics(memoryDevice({ now: 1000 }));
    expect(samples.filter((s) => s.family.name.startsWith('node_')).map((s) => s.family.name)).toEqual(['node_time_seconds']);
    expect(collectorSuccess(samples).node).toBe(1);
  });
});

describe('deviceMetrics: the chutes', () => {
  it("gives each chute's state as a set of every state, 1 for its own", async () => {
    const samples = await deviceMetrics(memoryDevice({ ...chuteEngine, chutes: { 'hello-world': { record: { state: 'running' } }, 'sensor-log': {} } }));
    const states = (chute: string) =>
      Object.fromEntries(
        series(samples, 'chutebox_chute_state')
          .filter((s) => s.chute === chute)
          .map((s) => [s.state, s.value]),
      );
    expect(states('hello-world')).toEqual({ installing: 0, running: 1, stopping: 0, stopped: 0, restarting: 0, failed: 0, missing: 0 });
    expect(states('sensor-log')).toMatchObject({ stopped: 1, running: 0 });
  });

  it("gives what each running chute's container uses under cAdvisor's names, and nothing of a container without stats", async () => {
    const samples = await deviceMetrics(memoryDevice(chuteEngine));
    const hello = { chute: 'hello-world', service: 'main' };
    expect(sampled(samples, 'container_cpu_usage_seconds_total', hello)).toBe(152);
    expect(sampled(samples, 'container_memory_working_set_bytes', hello)).toBe(52_428_800 - 10_485_760);
    expect(sampled(samples, 'container_network_receive_bytes_total', hello)).toBe(123_456 + 1_000);
    expect(sampled(samples, 'container_network_transmit_bytes_total', hello)).toBe(65_432 + 2_000);
    expect(samples.filter((s) => s.family.name.startsWith('container_') && s.labels.chute !== 'hello-world')).toEqual([]);
  });
});

describe('deviceMetrics: changes and telemetry', () => {
  const change = (id: number, action: ChangeRecord['action'], state: ChangeRecord['state']): ChangeRecord => ({
    id,
    action,
    chute: 'hello',
    state,
    created: '2026-11-21T12:00:00.000Z',
    updated: '2026-11-21T12:00:01.000Z',
    messages: [],
  });

  it('counts the changes of the log by action and state, for the pairs it has', async () => {
    const changes = [change(1, 'install', 'succeeded'), change(2, 'stop', 'failed'), change(3, 'stop', 'failed'), change(4, 'start', 'queued')];
    const samples = await deviceMetrics(memoryDevice({ changes }));
    expect(sampled(samples, 'chutebox_changes', { action: 'stop', state: 'failed' })).toBe(2);
    expect(sampled(samples, 'chutebox_changes', { action: 'install', state: 'succeeded' })).toBe(1);
    expect(series(samples, 'chutebox_changes')).toHaveLength(3);
  });

  it('gives no telemetry delivery time before one, and whether telemetry is sent', async () => {
    const samples = await deviceMetrics(provisioningDevice().device);
    expect(sampled(samples, 'chutebox_telemetry_enabled')).toBe(0);
    expect(sampled(samples, 'chutebox_telemetry_queued_reports')).toBe(0);
    expect(sampled(samples, 'chutebox_telemetry_dropped_reports_total')).toBe(0);
    expect(series(samples, 'chutebox_telemetry_deliveries_total')).toEqual([
      { result: 'success', value: 0 },
      { result: 'failure', value: 0 },
    ]);
    expect(series(samples, 'chutebox_telemetry_last_delivery_timestamp_seconds')).toEqual([]);
  });

  it('gives when a report was last delivered, and when a report last failed after it', async () => {
    vi.useFakeTimers({ now: Date.UTC(2026, 10, 21, 12, 0, 0) });
    let failing = false;
    const report = async () => {
      if (failing) throw new Error('no stats');
      return { cpu: 1 };
    };
    const { device, provisioning } = provisioningDevice({ report, telemetry: { enabled: true, interval: 60 } });
    await provisioning.provision(CREDENTIALS);
    await vi.advanceTimersByTimeAsync(60_000);
    failing = true;
    await vi.advanceTimersByTimeAsync(60_000);
    const samples = await deviceMetrics(device);
    provisioning.stop();
    expect(sampled(samples, 'chutebox_telemetry_enabled')).toBe(1);
    expect(series(samples, 'chutebox_telemetry_last_delivery_timestamp_seconds')).toEqual([
      { result: 'success', value: Date.UTC(2026, 10, 21, 12, 1, 0) / 1000 },
      { result: 'failure', value: Date.UTC(2026, 10, 21, 12, 2, 0) / 1000 },
    ]);
    // A report that could not be made is no delivery: one delivered, none failed.
    expect(series(samples, 'chutebox_telemetry_deliveries_total')).toEqual([
      { result: 'success', value: 1 },
      { result: 'failure', value: 0 },
    ]);
  });

  it('says which collector failed when a source throws, and keeps the others', async () => {
    const device = memoryDevice({ ...pciRouter });
    const broken: Device = { ...device, changes: () => Promise.reject(new Error('the log cannot be read')) };
    const samples = await deviceMetrics(broken);
    expect(collectorSuccess(samples)).toMatchObject({ changes: 0, node: 1, telemetry: 1 });
    expect(series(samples, 'chutebox_changes')).toEqual([]);
    expect(sampled(samples, 'node_load1')).toBe(0.42);
  });
});
