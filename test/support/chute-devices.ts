import { HttpProblem } from '../../functions/core/problem.ts';
import { rawFixture } from './info-devices.ts';
import { memoryDevice, type MemoryDevice, type MemoryDeviceSpec, type MemoryNetwork } from './memory-device.ts';

/*
 * A device with chutes and networks for the chute handler tests. Tool outputs copied from real
 * devices come from fixtures/raw/ (provenance in fixtures/raw/SOURCES.tsv); the rest is written here
 * in the tools' formats.
 */

/** The three stations of the 5 GHz access point's dump (fixtures/raw/station_dump/rust_…). */
export const STATIONS = ['08:66:98:b6:bd:6d', '5c:f7:e6:1c:36:f7', '54:88:0e:ab:fb:81'] as const;

/**
 * The access point's lease file: leases for the first two stations (the second without a host
 * name), one for a client that has left, and an IPv6 lease after dnsmasq's `duid` line.
 */
export const AP_LEASES = [
  `1645660000 ${STATIONS[0]} 192.168.128.23 phone 01:${STATIONS[0]}`,
  `0 ${STATIONS[1].toUpperCase()} 192.168.128.40 * *`,
  '1645660100 02:00:00:00:00:99 192.168.128.99 gone *',
  'duid 00:01:00:01:2c:4a:5b:6c:02:00:00:00:00:01',
  '1645660200 1234567 fd00:128::23 phone 00:01:00:01:2c:4a:5b:6c:08:66:98:b6:bd:6d',
  '',
].join('\n');

/** hostapd's GET_CONFIG of the access point, its SSID escaped as hostapd prints one (`café 5G`). */
export const AP_CONFIG = 'bssid=24:05:0f:f7:30:9f\nssid=caf\\xc3\\xa9 5G\nwps_state=disabled\nwpa=2\nkey_mgmt=WPA-PSK\nrsn_pairwise_cipher=CCMP\n';

/** The host side of chute `hello`'s access point `wlan`. */
export function accessPoint(overrides: MemoryNetwork = {}): MemoryNetwork {
  return {
    stationDump: rawFixture('station_dump/rust_test_three_stations_4space.txt'),
    leases: AP_LEASES,
    hostapdStatus: rawFixture('hostapd_status/morrownr_8812au_vht80_partial.txt'),
    hostapdConfig: AP_CONFIG,
    ...overrides,
  };
}

/** The wired 802.1X station of fixtures/raw/hostapd_all_sta/chutebox_lab_wired_8021x_md5_authorized.txt. */
export const WIRED_STATION = '02:cb:00:00:01:02';

/** What serve's host side answers for iw on a machine without Wi-Fi (runtime/network/host.ts). */
export const NO_WIFI_STACK = new HttpProblem(503, 'this machine has no WiFi stack (iw: nl80211 not found.)');

/**
 * The host side of `wlan` on a lab link: iw cannot answer (no nl80211), hostapd runs its wired
 * driver and knows one 802.1X station (`WIRED_STATION`), which has a lease.
 */
export function labAccessPoint(overrides: MemoryNetwork = {}): MemoryNetwork {
  return accessPoint({
    stationDump: undefined,
    hostapdStations: rawFixture('hostapd_all_sta/chutebox_lab_wired_8021x_md5_authorized.txt'),
    leases: `1645660000 ${WIRED_STATION} 192.168.128.50 probe 01:${WIRED_STATION}\n`,
    fails: { stationDump: NO_WIFI_STACK, stationGet: NO_WIFI_STACK, stationDel: NO_WIFI_STACK },
    ...overrides,
  });
}

/**
 * A device with two chutes: `hello`, with a Wi-Fi access point `wlan` (default mode), a VLAN
 * network `guest` whose dnsmasq has written no lease file yet, a monitor interface `mon`, a mesh
 * point `mesh` and a broken `net` entry; and `bare`, without networks.
 */
export function chuteDevice(spec: MemoryDeviceSpec = {}): MemoryDevice {
  return memoryDevice({ ...chuteDeviceSpec(), ...spec });
}

/** The chutes and networks of `chuteDevice`, new objects on each call (a test may change them in place). */
export function chuteDeviceSpec(): Pick<MemoryDeviceSpec, 'chutes' | 'networks'> {
  return {
    chutes: {
      hello: {
        record: { name: 'hello', version: '1', state: 'running' },
        config: {
          net: {
            wlan: { type: 'wifi', intfName: 'wlan0', ssid: 'café 5G', dhcp: { start: 4, limit: 200, leasetime: '12h' } },
            guest: { type: 'vlan', intfName: 'eth1', vlan_id: 10 },
            mon: { type: 'wifi', mode: 'monitor', intfName: 'mon0' },
            mesh: { type: 'wifi', mode: 'mesh', intfName: 'mesh0' },
            broken: 'not a mapping',
          },
        },
        cache: {
          networks: {
            wlan: { hostInterface: 'vwlan3f2a', hostapdControl: '/var/run/hostapd/vwlan3f2a', leaseFile: '/var/lib/chutebox/dnsmasq/hello-wlan.leases' },
          },
        },
      },
      bare: { config: {} },
    },
    networks: { 'hello/wlan': accessPoint(), 'hello/guest': { leases: null } },
  };
}

/** The hostapd commands a handler sent. */
export function hostapdCommands(device: MemoryDevice): string[][] {
  return device.calls.filter((call) => call.operation === 'hostapd').map((call) => call.args);
}
