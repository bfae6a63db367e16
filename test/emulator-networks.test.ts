import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { callApi, changeOver, getJson, problemOf } from './support/http-client.ts';
import { openWebSocket, opened } from './support/websocket-client.ts';
import { useChutebox, type Started } from './support/spawn.ts';
import { useStillScenario } from './support/still-scenario.ts';
import { useTempDir } from './support/temp-dir.ts';

/**
 * The chute network endpoints of issue 3, over HTTP, on `chutebox emulate --no-auth` serving the
 * default scenario without its living network (`useStillScenario`): its recordings are what the answers
 * are checked against.
 */

const SCENARIO = new URL('../fixtures/scenarios/default/', import.meta.url);
const raw = (file: string) => readFile(new URL(file, SCENARIO), 'utf8');
const recording = (chute: string, network: string, file: string) => raw(`chutes/${chute}/networks/${network}/${file}`);

const temp = useTempDir('chutebox-emulator-networks-');
const start = useChutebox();
const stillDefault = useStillScenario('default');
const emulate = async (scenario?: string) => start(['emulate', '--port', '0', '--no-auth', '--scenario', scenario ?? (await stillDefault())]);

/** A hostapd reply as hostapd_cli shows it: `key=value` lines, split at the first `=`. */
function hostapdFields(text: string): Record<string, string> {
  const lines = text.split('\n').filter((line) => line.includes('='));
  return Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]));
}

type Station = Record<string, unknown> & { mac_addr: string };
type Lease = { expires: string; mac_addr?: string; ip_addr: string; hostname: string; client_id?: string };

describe('chutebox emulate: the networks of the default scenario', () => {
  let server: Started;
  /** Epoch seconds before the emulator was started and once it listened: its start is between. */
  let startedAfter: number;
  let startedBefore: number;

  beforeAll(async () => {
    startedAfter = Date.now() / 1000;
    server = await emulate();
    startedBefore = Date.now() / 1000;
  });

  /**
   * Checks a served expiry: the recorded one moved by (the emulator's start − the recording's time,
   * `btime` + uptime) in whole seconds, so the lease has as long left as when it was recorded.
   */
  async function expectMoved(served: string, recorded: number): Promise<void> {
    const recordedAt = Number(/^btime (\d+)$/m.exec(await raw('proc/stat'))![1]) + Number((await raw('proc/uptime')).split(' ')[0]);
    expect(Number(served) - recorded).toBeGreaterThanOrEqual(Math.round(startedAfter - recordedAt));
    expect(Number(served) - recorded).toBeLessThanOrEqual(Math.round(startedBefore - recordedAt));
  }

  describe('GET /api/v1/chutes/:chute/networks', () => {
    it('responds with 200 and one summary per entry of the chute configuration net', async () => {
      expect(await getJson(server, '/chutes/hello-world/networks')).toEqual([{ name: 'wifi', type: 'wifi', interface: 'wlan0' }]);
      expect(await getJson(server, '/chutes/hotspot/networks')).toEqual([
        { name: 'guest', type: 'wifi', interface: 'wlan0' },
        { name: 'staff', type: 'vlan', interface: 'eth1' },
        { name: 'survey', type: 'wifi', interface: 'mon0' },
      ]);
    });

    it('responds with 404 for a chute that is not installed', async () => {
      await problemOf(server, 'GET', '/chutes/nosuch/networks', 404);
    });
  });

  describe('GET /api/v1/chutes/:chute/networks/:network', () => {
    it('responds with 200 and the summary of that network', async () => {
      expect(await getJson(server, '/chutes/hotspot/networks/staff')).toEqual({ name: 'staff', type: 'vlan', interface: 'eth1' });
      expect(await getJson(server, '/chutes/hotspot/networks/survey')).toEqual({ name: 'survey', type: 'wifi', interface: 'mon0' });
    });

    it('responds with 404 for a network the chute does not have', async () => {
      await problemOf(server, 'GET', '/chutes/hello-world/networks/guest', 404);
      await problemOf(server, 'GET', '/chutes/nosuch/networks/wifi', 404);
    });
  });

  describe('GET /api/v1/chutes/:chute/networks/:network/ssid', () => {
    it("responds with 200 and the access point's SSID and BSSID, the SSID decoded from hostapd's escapes", async () => {
      expect(await recording('hotspot', 'guest', 'hostapd-get-config.txt')).toContain('ssid=Caf\\xc3\\xa9 Guest\n');
      expect(await getJson(server, '/chutes/hotspot/networks/guest/ssid')).toEqual({ ssid: 'Café Guest', bssid: '04:f0:21:34:5a:9e' });
      expect(await getJson(server, '/chutes/hello-world/networks/wifi/ssid')).toEqual({ ssid: 'hello-world', bssid: '06:f0:21:1c:27:b3' });
    });

    it('responds with 409 for a network that is no access point', async () => {
      await problemOf(server, 'GET', '/chutes/hotspot/networks/staff/ssid', 409);
      await problemOf(server, 'GET', '/chutes/hotspot/networks/survey/ssid', 409);
    });
  });

  describe('GET /api/v1/chutes/:chute/networks/:network/hostapd_status', () => {
    it("responds with 200 and hostapd's STATUS fields as strings", async () => {
      const status = await getJson<Record<string, string>>(server, '/chutes/hotspot/networks/guest/hostapd_status');
      expect(status).toEqual(hostapdFields(await recording('hotspot', 'guest', 'hostapd-status.txt')));
      expect(status).toMatchObject({ state: 'ENABLED', phy: 'phy0', channel: '36', ieee80211ac: '1', 'bss[0]': 'phy0-ap0', 'num_sta[0]': '3' });
    });

    it('lists every BSS of the radio, the chute network among them', async () => {
      const status = await getJson<Record<string, string>>(server, '/chutes/hello-world/networks/wifi/hostapd_status');
      expect(status).toMatchObject({ 'bss[0]': 'phy1-ap0', 'ssid[0]': 'OpenWrt', 'bss[1]': 'phy1-ap1', 'ssid[1]': 'hello-world', 'num_sta[1]': '4' });
    });

    it('responds with 409 for a VLAN network', async () => {
      await problemOf(server, 'GET', '/chutes/hotspot/networks/staff/hostapd_status', 409);
    });
  });

  describe('GET /api/v1/chutes/:chute/networks/:network/stations', () => {
    it('responds with 200 and one record per station of the dump, in its order', async () => {
      const stations = await getJson<Station[]>(server, '/chutes/hello-world/networks/wifi/stations');
      const macs = [...(await recording('hello-world', 'wifi', 'iw-station-dump.txt')).matchAll(/^Station (\S+) \(on phy1-ap1\)$/gm)].map((m) => m[1]);
      expect(stations.map((station) => station.mac_addr)).toEqual(macs);
      expect(macs).toHaveLength(4);
      expect((await getJson<Station[]>(server, '/chutes/hotspot/networks/guest/stations')).map((station) => station.mac_addr)).toEqual([
        'c8:5e:a9:3d:71:0b',
        'd2:19:7f:a4:e5:38',
        '5a:0e:c3:92:4b:d6',
      ]);
    });

    it("keeps iw's values verbatim under the keys of the seed's station record", async () => {
      const stations = await getJson<Station[]>(server, '/chutes/hotspot/networks/guest/stations');
      expect(stations[0]).toMatchObject({
        mac_addr: 'c8:5e:a9:3d:71:0b',
        rx_packets: '171022',
        tx_packets: '2011876',
        rx_bytes: '188317445',
        tx_bytes: '2901348812',
        tx_retries: '31290',
        tx_failed: '2',
        tdls_peer: 'no',
        authenticated: 'yes',
        authorized: 'yes',
        mfp: 'no',
        wmm_wme: 'yes',
        preamble: 'long',
        tx_bitrate: '866.7 MBit/s VHT-MCS 9 80MHz short GI VHT-NSS 2',
        rx_bitrate: '780.0 MBit/s VHT-MCS 9 80MHz VHT-NSS 2',
        signal: '-44 [-47, -49, -53] dBm',
        signal_avg: '-45 [-48, -50, -53] dBm',
        inactive_time: '310 ms',
        beacon_interval: '100',
        short_slot_time: 'yes',
        connected_time: '1873 seconds',
      });
    });

    it('responds with 409 for a VLAN network and a monitor interface', async () => {
      await problemOf(server, 'GET', '/chutes/hotspot/networks/staff/stations', 409);
      await problemOf(server, 'GET', '/chutes/hotspot/networks/survey/stations', 409);
    });
  });

  describe('GET /api/v1/chutes/:chute/networks/:network/stations/:mac', () => {
    it('responds with 200 and the record of that station, for a MAC in any case', async () => {
      const all = await getJson<Station[]>(server, '/chutes/hello-world/networks/wifi/stations');
      const one = await getJson<Station>(server, '/chutes/hello-world/networks/wifi/stations/24:0A:C4:11:8B:3E');
      expect(one).toEqual(all.find((station) => station.mac_addr === '24:0a:c4:11:8b:3e'));
      expect(one).toMatchObject({ tx_bitrate: '65.0 MBit/s MCS 7', expected_throughput: '35.625Mbps', last_ack_signal: '-72 dBm' });
    });

    it('responds with 404 for a station that is not connected', async () => {
      await problemOf(server, 'GET', '/chutes/hello-world/networks/wifi/stations/3a:b1:5c:0e:77:9a', 404);
    });

    it('responds with 400 naming params.mac for a malformed MAC', async () => {
      for (const mac of ['24-0a-c4-11-8b-3e', '24:0a:c4:11:8b', 'zz:0a:c4:11:8b:3e']) {
        const body = await problemOf(server, 'GET', `/chutes/hello-world/networks/wifi/stations/${mac}`, 400);
        expect(body.errors?.map((error) => error.path)).toEqual(['params.mac']);
      }
    });
  });

  describe('GET /api/v1/chutes/:chute/networks/:network/leases', () => {
    it('responds with 200 and the leases of the lease file, expiries moved to the start: an infinite one, one without client id', async () => {
      const leases = await getJson<Lease[]>(server, '/chutes/hello-world/networks/wifi/leases');
      expect(leases).toHaveLength((await recording('hello-world', 'wifi', 'dnsmasq.leases')).trim().split('\n').length);
      const iphone = leases.find((lease) => lease.hostname === 'iPhone')!;
      expect(iphone).toEqual({
        expires: expect.stringMatching(/^\d+$/),
        mac_addr: '6e:8d:3a:5f:21:c4',
        ip_addr: '192.168.128.117',
        hostname: 'iPhone',
        client_id: '01:6e:8d:3a:5f:21:c4',
      });
      await expectMoved(iphone.expires, 1763757432);
      expect(leases).toContainEqual({ expires: '0', mac_addr: 'f4:39:09:2d:5e:71', ip_addr: '192.168.128.20', hostname: 'HP2D5E71' });
    });

    it('returns IPv6 leases with their address and no MAC, and never the duid line', async () => {
      const leases = await getJson<Lease[]>(server, '/chutes/hotspot/networks/guest/leases');
      expect(leases.map((lease) => lease.ip_addr)).toEqual(['192.168.129.118', '192.168.129.142', 'fd5c:7a1e:92b0:1::76']);
      expect(leases[2]).toEqual({
        expires: expect.stringMatching(/^\d+$/),
        ip_addr: 'fd5c:7a1e:92b0:1::76',
        hostname: 'MacBook-Air',
        client_id: '00:01:00:01:2c:9e:13:f4:c8:5e:a9:3d:71:0b',
      });
      await expectMoved(leases[2]!.expires, 1763722310);
    });

    it('responds with 200 for a VLAN network, which has a DHCP server', async () => {
      expect((await getJson<Lease[]>(server, '/chutes/hotspot/networks/staff/leases')).map((lease) => lease.hostname)).toEqual(['SIP-T46U', 'ws-frontdesk']);
    });

    it('responds with 409 for a monitor interface', async () => {
      await problemOf(server, 'GET', '/chutes/hotspot/networks/survey/leases', 409);
    });
  });

  describe('GET /api/v1/chutes/:chute/networks/:network/clients', () => {
    it('responds with 200 and each station joined with its lease by MAC; no lease, no address', async () => {
      const clients = await getJson<Record<string, unknown>[]>(server, '/chutes/hello-world/networks/wifi/clients');
      expect(clients.map((client) => client.mac_addr)).toEqual(['6e:8d:3a:5f:21:c4', 'a4:c3:f0:7e:19:d2', '24:0a:c4:11:8b:3e', 'f4:39:09:2d:5e:71']);
      expect(clients.find((client) => client.mac_addr === '6e:8d:3a:5f:21:c4')).toEqual({
        mac_addr: '6e:8d:3a:5f:21:c4',
        ip_addr: '192.168.128.117',
        hostname: 'iPhone',
        signal: '-48 [-51, -53, -56] dBm',
        signal_avg: '-47 [-50, -52, -55] dBm',
        tx_bitrate: '144.4 MBit/s MCS 15 short GI',
        rx_bitrate: '130.0 MBit/s MCS 15',
        inactive_time: '1380 ms',
        connected_time: '5231 seconds',
      });
      expect(clients.find((client) => client.mac_addr === '24:0a:c4:11:8b:3e')).toMatchObject({
        ip_addr: null,
        hostname: null,
        signal: '-71 [-74, -76, -79] dBm',
      });
    });

    it('responds with 409 for a VLAN network', async () => {
      await problemOf(server, 'GET', '/chutes/hotspot/networks/staff/clients', 409);
    });
  });

  describe('GET /api/v1/network/devices', () => {
    it("lists every IPv4 lease of every chute network, each with the station …/clients joins to it (ParaDrop's list-devices)", async () => {
      const devices = await getJson<Record<string, unknown>[]>(server, '/network/devices');
      const expected = [];
      for (const [chute, network] of [
        ['hello-world', 'wifi'],
        ['hotspot', 'guest'],
        ['hotspot', 'staff'],
      ] as const) {
        const base = `/chutes/${chute}/networks/${network}`;
        const clients = network === 'staff' ? [] : await getJson<Record<string, unknown>[]>(server, `${base}/clients`);
        for (const lease of await getJson<Lease[]>(server, `${base}/leases`)) {
          if (lease.mac_addr === undefined) continue;
          const { mac_addr: _, ip_addr: __, hostname: ___, ...station } = clients.find((client) => client.mac_addr === lease.mac_addr) ?? {};
          expected.push({
            ...lease,
            client_id: lease.client_id ?? null,
            expires: Number(lease.expires),
            as_of: expect.any(Number),
            chute,
            network,
            station: Object.keys(station).length === 0 ? null : station,
          });
        }
      }
      expect(devices).toEqual(expected);
      expect(devices.filter((device) => device.station !== null).length).toBeGreaterThan(1);
    });
  });
});

describe('chutebox emulate: changing a network', () => {
  let server: Started;

  beforeAll(async () => {
    server = await emulate();
  });

  it('PUT …/ssid responds with 200 and a message; ssid and hostapd_status then show the new SSID', async () => {
    const put = await callApi(server, 'PUT', '/chutes/hello-world/networks/wifi/ssid', { ssid: 'Lab ☕ 2' });
    expect(put.status).toBe(200);
    expect(put.body).toEqual({ message: 'OK' });
    expect(await getJson(server, '/chutes/hello-world/networks/wifi/ssid')).toEqual({ ssid: 'Lab ☕ 2', bssid: '06:f0:21:1c:27:b3' });
    const status = await getJson<Record<string, string>>(server, '/chutes/hello-world/networks/wifi/hostapd_status');
    expect(status).toMatchObject({ 'ssid[0]': 'OpenWrt', 'ssid[1]': 'Lab \\xe2\\x98\\x95 2' });
    // The other access point is untouched.
    expect(await getJson(server, '/chutes/hotspot/networks/guest/ssid')).toEqual({ ssid: 'Café Guest', bssid: '04:f0:21:34:5a:9e' });
  });

  it('PUT …/ssid with a 33-byte SSID responds with 422 naming body.ssid, and changes nothing', async () => {
    const before = await getJson(server, '/chutes/hotspot/networks/guest/ssid');
    const body = await problemOf(server, 'PUT', '/chutes/hotspot/networks/guest/ssid', 422, { ssid: 'x'.repeat(33) });
    expect(body.errors?.map((error) => error.path)).toEqual(['body.ssid']);
    expect(await getJson(server, '/chutes/hotspot/networks/guest/ssid')).toEqual(before);
    expect(await getJson<Record<string, string>>(server, '/chutes/hotspot/networks/guest/hostapd_status')).toMatchObject({ 'ssid[0]': 'Caf\\xc3\\xa9 Guest' });
  });

  it('PUT …/ssid responds with 409 for a VLAN network', async () => {
    await problemOf(server, 'PUT', '/chutes/hotspot/networks/staff/ssid', 409, { ssid: 'staff' });
  });

  it('DELETE …/stations/:mac responds with 200 and a message; the station is then gone', async () => {
    const del = await callApi(server, 'DELETE', '/chutes/hotspot/networks/guest/stations/D2:19:7F:A4:E5:38');
    expect(del.status).toBe(200);
    expect(del.body).toEqual({ message: expect.any(String) });
    await problemOf(server, 'GET', '/chutes/hotspot/networks/guest/stations/d2:19:7f:a4:e5:38', 404);
    expect((await getJson<Station[]>(server, '/chutes/hotspot/networks/guest/stations')).map((station) => station.mac_addr)).toEqual([
      'c8:5e:a9:3d:71:0b',
      '5a:0e:c3:92:4b:d6',
    ]);
    expect((await getJson<{ mac_addr: string }[]>(server, '/chutes/hotspot/networks/guest/clients')).map((client) => client.mac_addr)).toEqual([
      'c8:5e:a9:3d:71:0b',
      '5a:0e:c3:92:4b:d6',
    ]);
    // Its lease stays: dnsmasq keeps a lease until it expires.
    expect((await getJson<Lease[]>(server, '/chutes/hotspot/networks/guest/leases')).map((lease) => lease.mac_addr)).toContain('d2:19:7f:a4:e5:38');
  });

  it('DELETE …/stations/:mac responds with 404 for a station that is not connected', async () => {
    await problemOf(server, 'DELETE', '/chutes/hotspot/networks/guest/stations/d2:19:7f:a4:e5:38', 404);
    await problemOf(server, 'DELETE', '/chutes/hotspot/networks/guest/stations/02:00:00:00:00:01', 404);
  });

  it('a restarted emulator serves the recordings again: the original SSID and every station', async () => {
    const again = await emulate();
    expect(await getJson(again, '/chutes/hello-world/networks/wifi/ssid')).toEqual({ ssid: 'hello-world', bssid: '06:f0:21:1c:27:b3' });
    expect(await getJson(again, '/chutes/hotspot/networks/guest/stations/d2:19:7f:a4:e5:38')).toMatchObject({ mac_addr: 'd2:19:7f:a4:e5:38' });
  });
});

describe('chutebox emulate: a configuration put back as GET gave it', () => {
  it("keeps the recorded access point and its stations, as pdtools' edit-chute-configuration does it", async () => {
    const server = await emulate();
    const stations = await getJson<unknown[]>(server, '/chutes/hello-world/networks/wifi/stations');
    const config = await getJson(server, '/chutes/hello-world/config');
    const updated = await changeOver(server, 'PUT', '/chutes/hello-world/config', config);
    expect(updated.state, JSON.stringify(updated.messages)).toBe('succeeded');
    expect(await getJson(server, '/chutes/hello-world/networks/wifi/stations')).toEqual(stations);
    expect(await getJson(server, '/chutes/hello-world/networks/wifi/ssid')).toMatchObject({ ssid: 'hello-world' });
  });

  it('rebuilds the recorded access point on a radio of the device when its SSID changes, as serve makes one', async () => {
    const server = await emulate();
    const config = await getJson<{ net: { wifi: Record<string, unknown> } }>(server, '/chutes/hello-world/config');
    const edited = { ...config, net: { ...config.net, wifi: { ...config.net.wifi, ssid: 'hello-again' } } };
    const updated = await changeOver(server, 'PUT', '/chutes/hello-world/config', edited);
    expect(updated.state, JSON.stringify(updated.messages)).toBe('succeeded');
    expect(await getJson(server, '/chutes/hello-world/networks/wifi/ssid')).toMatchObject({ ssid: 'hello-again' });
    expect(await getJson(server, '/chutes/hello-world/networks/wifi/stations')).toEqual([]);
  });
});

describe('chutebox emulate: a network without hostapd recordings', () => {
  it('GET …/hostapd_status and …/ssid respond with 503 naming what is missing', async () => {
    const dir = await temp.folder('no-hostapd');
    const files: Record<string, string> = {
      'device.yaml': 'uname: { sysname: Linux, release: 6.6.73, version: "#0 SMP", machine: aarch64 }\n',
      'chutes/lab/chute.yaml':
        'name: lab\nversion: "1"\nstate: running\nenvironment: {}\nallocation: { cpu_shares: 1024, prioritize_traffic: false }\nresources: null\n',
      'chutes/lab/service.yaml': 'net:\n  wifi: { type: wifi, intfName: wlan0, ssid: lab }\n',
      'chutes/lab/cache.yaml': 'networks:\n  wifi: { hostInterface: phy0-ap0, hostapdControl: /var/run/hostapd/phy0-ap0 }\n',
    };
    for (const [file, text] of Object.entries(files)) {
      await mkdir(path.dirname(path.join(dir, file)), { recursive: true });
      await writeFile(path.join(dir, file), text);
    }
    const server = await emulate(dir);
    for (const endpoint of ['lab/networks/wifi/hostapd_status', 'lab/networks/wifi/ssid']) {
      expect((await problemOf(server, 'GET', `/chutes/${endpoint}`, 503)).detail).toContain("hostapd's control interface is not recorded for lab/wifi");
    }
    expect(await getJson(server, '/chutes/lab/networks/wifi/stations')).toEqual([]);
    expect(await getJson(server, '/chutes/lab/networks/wifi/leases')).toEqual([]);
    // An expected problem is one line of the log each, with no stack trace.
    expect(server.output().match(/^answered 503 Service Unavailable: hostapd's control interface is not recorded for lab\/wifi/gm)).toHaveLength(2);
    expect(server.output()).not.toMatch(/^\s+at /m);
  });
});

describe('chutebox emulate: the networks of a chute installed through the API', () => {
  let server: Started;
  const WLAN = { type: 'wifi', intfName: 'wlan0', ssid: 'My Lab', key: 'password1', dhcp: { start: 100, limit: 50, lease: '1h' } };
  const wlan = (endpoint: string) => `/chutes/lab/networks/wlan${endpoint}`;

  beforeAll(async () => {
    server = await start(['emulate', '--port', '0', '--no-auth', '--change-delay', '0']);
    const installed = await changeOver(server, 'POST', '/chutes', { name: 'lab', image: 'hello-world:1', config: { net: { wlan: WLAN } } });
    expect(installed.state, JSON.stringify(installed.messages)).toBe('succeeded');
  });

  it("answers its access point as hostapd started with the hostapd.conf serve writes: SSID, hostapd's STATUS, no station, an empty lease file", async () => {
    const { networks } = await getJson<{ networks: { wlan: { hostInterface: string } } }>(server, '/chutes/lab/cache');
    const ssid = await getJson<{ ssid: string; bssid: string }>(server, wlan('/ssid'));
    expect(ssid).toEqual({ ssid: 'My Lab', bssid: expect.stringMatching(/^[0-9a-f]{2}(:[0-9a-f]{2}){5}$/) });
    expect(await getJson(server, wlan('/hostapd_status'))).toMatchObject({
      state: 'ENABLED',
      'bss[0]': networks.wlan.hostInterface,
      'bssid[0]': ssid.bssid,
      'ssid[0]': 'My Lab',
      'num_sta[0]': '0',
    });
    for (const endpoint of ['/stations', '/clients', '/leases']) expect(await getJson(server, wlan(endpoint))).toEqual([]);
    await problemOf(server, 'GET', wlan('/stations/02:00:00:00:00:01'), 404);
  });

  it('answers its hostapd control websocket as the HTTP endpoints, and SET ssid changes both', async () => {
    const ws = opened(await openWebSocket(`${server.url}/api/v1${wlan('/hostapd_control/ws')}`));
    ws.send('GET_CONFIG');
    expect(hostapdFields(await ws.next())).toMatchObject({ ssid: 'My Lab', wpa: '2', key_mgmt: 'WPA-PSK' });
    ws.send('SET ssid Lab two');
    expect(await ws.next()).toBe('OK\n');
    ws.send('STATUS');
    expect(hostapdFields(await ws.next())).toMatchObject({ 'ssid[0]': 'Lab two' });
    ws.close();
    expect(await getJson(server, wlan('/ssid'))).toMatchObject({ ssid: 'Lab two' });
  });

  it('answers the SSID of a configuration update (hostapd started anew forgets the SSID set), and nothing once the chute is deleted', async () => {
    expect((await callApi(server, 'PUT', wlan('/ssid'), { ssid: 'set by PUT' })).status).toBe(200);
    const updated = await changeOver(server, 'PUT', '/chutes/lab/config', { net: { wlan: { ...WLAN, ssid: 'Renamed' } } });
    expect(updated.state, JSON.stringify(updated.messages)).toBe('succeeded');
    expect(await getJson(server, wlan('/ssid'))).toMatchObject({ ssid: 'Renamed' });
    expect(await getJson(server, wlan('/hostapd_status'))).toMatchObject({ 'ssid[0]': 'Renamed' });
    expect((await changeOver(server, 'DELETE', '/chutes/lab')).state).toBe('succeeded');
    expect((await problemOf(server, 'GET', wlan('/ssid'), 404)).detail).toBe('there is no chute named lab');
    const again = await changeOver(server, 'POST', '/chutes', { name: 'lab', image: 'hello-world:1', config: { net: { wlan: WLAN } } });
    expect(again.state).toBe('succeeded');
    expect(await getJson(server, wlan('/ssid'))).toMatchObject({ ssid: 'My Lab' });
  });

  it('answers 503 for hostapd where serve could not start it (an access point without an SSID), logging one line without a stack', async () => {
    const installed = await changeOver(server, 'POST', '/chutes', {
      name: 'nossid',
      image: 'hello-world:1',
      config: { net: { wlan: { type: 'wifi', intfName: 'wlan0' } } },
    });
    expect(installed.state).toBe('succeeded');
    const problem = await problemOf(server, 'GET', '/chutes/nossid/networks/wlan/hostapd_status', 503);
    expect(problem.detail).toMatch(/does not exist: hostapd could not be started for this network \(ssid is required/);
    expect(server.output().match(/^answered 503 .*ssid is required.*$/gm)).toHaveLength(1);
    expect(server.output()).not.toMatch(/^\s+at /m);
  });
});
