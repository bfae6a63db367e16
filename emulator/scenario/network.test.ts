import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import type { DeviceEventBody, NetworkTarget } from '../../functions/core/device/index.ts';
import { isHttpProblem } from '../../functions/core/problem.ts';
import { useTempDir } from '../../test/support/temp-dir.ts';
import { scenarioFiles } from './files.ts';
import { scenarioNetworks as networksOf } from './network.ts';

/** The networks of a scenario folder, read through its files as the emulator reads them. */
const scenarioNetworks = (dir: string) => networksOf(scenarioFiles(dir));
const DEFAULT = fileURLToPath(new URL('../../fixtures/scenarios/default/', import.meta.url));
const recorded = (chute: string, network: string, file: string) => readFile(path.join(DEFAULT, 'chutes', chute, 'networks', network, file), 'utf8');

const target = (chute: string, network: string, hostInterface: string | null = null): NetworkTarget => ({
  chute,
  network,
  hostInterface,
  hostapdControl: null,
  leaseFile: null,
});
/** hostapd_cli all_sta of two stations of a lab link (hostapd's wired driver), as hostapd 2.10 prints them. */
const WIRED_ALL_STA = [
  '02:cb:00:00:01:02\nflags=[AUTHORIZED]\naid=0\ncapability=0x0\nlisten_interval=0\nsupported_rates=\ntimeout_next=NULLFUNC POLL\n',
  '02:cb:00:00:01:03\nflags=\naid=0\ncapability=0x0\nlisten_interval=0\nsupported_rates=\ntimeout_next=NULLFUNC POLL\n',
].join('');
const WIFI = target('hello-world', 'wifi', 'phy1-ap1');
const GUEST = target('hotspot', 'guest', 'phy0-ap0');

/** The value of `key=` in a hostapd reply. */
const field = (reply: string, key: string) =>
  reply
    .split('\n')
    .find((line) => line.startsWith(`${key}=`))
    ?.slice(key.length + 1);

async function problemOf(promise: Promise<unknown>): Promise<{ status: number; message: string }> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(isHttpProblem(error)).toBe(true);
  return error as { status: number; message: string };
}

describe('a recorded network: stations', () => {
  it('answers the station dump verbatim', async () => {
    const network = scenarioNetworks(DEFAULT)(WIFI);
    expect(await network.stationDump()).toBe(await recorded('hello-world', 'wifi', 'iw-station-dump.txt'));
  });

  it("answers one station's block of the dump, by MAC in any case, and null for a station not in it", async () => {
    const dump = await recorded('hello-world', 'wifi', 'iw-station-dump.txt');
    const start = dump.indexOf('Station 24:0a:c4:11:8b:3e');
    const block = dump.slice(start, dump.indexOf('Station ', start + 1));
    const network = scenarioNetworks(DEFAULT)(WIFI);
    expect(await network.stationGet('24:0A:C4:11:8B:3E')).toBe(block);
    expect(block).toMatch(/^Station 24:0a:c4:11:8b:3e \(on phy1-ap1\)\n\tinactive time:/);
    expect(block).toMatch(/\tcurrent time:\t\d+ ms\n$/);
    expect(await network.stationGet('02:00:00:00:00:01')).toBeNull();
  });

  it('disconnects a station until the emulator restarts', async () => {
    const networks = scenarioNetworks(DEFAULT);
    expect(await networks(WIFI).stationDel('24:0a:c4:11:8b:3e')).toBe(true);
    expect(await networks(WIFI).stationDel('24:0a:c4:11:8b:3e')).toBe(false);
    expect(await networks(WIFI).stationGet('24:0a:c4:11:8b:3e')).toBeNull();
    const stations = (await networks(WIFI).stationDump()).match(/^Station \S+/gm);
    expect(stations).toEqual(['Station 6e:8d:3a:5f:21:c4', 'Station a4:c3:f0:7e:19:d2', 'Station f4:39:09:2d:5e:71']);
    // The same station is still on the other network, and back after a restart.
    expect(await networks(GUEST).stationDel('24:0a:c4:11:8b:3e')).toBe(false);
    expect(await scenarioNetworks(DEFAULT)(WIFI).stationGet('24:0a:c4:11:8b:3e')).not.toBeNull();
  });

  it('answers an empty dump, and no station, for a network without a recorded dump', async () => {
    const network = scenarioNetworks(DEFAULT)(target('hotspot', 'staff'));
    expect(await network.stationDump()).toBe('');
    expect(await network.stationGet('00:15:65:8a:3c:11')).toBeNull();
    expect(await network.stationDel('00:15:65:8a:3c:11')).toBe(false);
  });
});

describe('a recorded network: leases', () => {
  it('answers the lease file verbatim, and null without one', async () => {
    const networks = scenarioNetworks(DEFAULT);
    expect(await networks(GUEST).leases()).toBe(await recorded('hotspot', 'guest', 'dnsmasq.leases'));
    expect(await networks(target('hotspot', 'staff')).leases()).toBe(await recorded('hotspot', 'staff', 'dnsmasq.leases'));
    expect(await networks(target('hotspot', 'survey')).leases()).toBeNull();
  });
});

describe('a recorded network: hostapd', () => {
  it('answers STATUS and GET_CONFIG with the recorded replies', async () => {
    const network = scenarioNetworks(DEFAULT)(GUEST);
    expect(await network.hostapd(['STATUS'])).toBe(await recorded('hotspot', 'guest', 'hostapd-status.txt'));
    expect(await network.hostapd(['GET_CONFIG'])).toBe(await recorded('hotspot', 'guest', 'hostapd-get-config.txt'));
  });

  it("sets the SSID of this network's BSS, printed as hostapd prints it, until the emulator restarts", async () => {
    const networks = scenarioNetworks(DEFAULT);
    expect(await networks(WIFI).hostapd(['SET', 'ssid', 'Café "lab"\\net'])).toBe('OK\n');
    expect(await networks(WIFI).hostapd(['RELOAD'])).toBe('OK\n');
    const status = await networks(WIFI).hostapd(['STATUS']);
    // The radio's other BSS (the device's own access point) keeps its SSID.
    expect(field(status, 'ssid[0]')).toBe('OpenWrt');
    expect(field(status, 'ssid[1]')).toBe('Caf\\xc3\\xa9 \\"lab\\"\\\\net');
    expect(field(await networks(WIFI).hostapd(['GET_CONFIG']), 'ssid')).toBe('Caf\\xc3\\xa9 \\"lab\\"\\\\net');
    // Only that line changed.
    const original = await recorded('hello-world', 'wifi', 'hostapd-status.txt');
    expect(status.split('\n').filter((line, i) => line !== original.split('\n')[i])).toEqual(['ssid[1]=Caf\\xc3\\xa9 \\"lab\\"\\\\net']);
    expect(await networks(GUEST).hostapd(['GET_CONFIG'])).toBe(await recorded('hotspot', 'guest', 'hostapd-get-config.txt'));
    expect(await scenarioNetworks(DEFAULT)(WIFI).hostapd(['STATUS'])).toBe(original);
  });

  it('refuses an empty SSID and one over 32 bytes, as hostapd does, and changes nothing', async () => {
    const network = scenarioNetworks(DEFAULT)(WIFI);
    expect(await network.hostapd(['SET', 'ssid', ''])).toBe('FAIL\n');
    expect(await network.hostapd(['SET', 'ssid', `${'é'.repeat(16)}x`])).toBe('FAIL\n');
    expect(await network.hostapd(['SET', 'ssid'])).toBe('FAIL\n');
    expect(await network.hostapd(['SET', 'ssid', 'é'.repeat(16)])).toBe('OK\n');
    expect(field(await network.hostapd(['GET_CONFIG']), 'ssid')).toBe('\\xc3\\xa9'.repeat(16));
  });

  it('refuses with FAIL an SSID that PUT …/ssid refuses: a line break, CR, NUL, ESC or C1 control in it, and changes nothing', async () => {
    const network = scenarioNetworks(DEFAULT)(WIFI);
    for (const ssid of ['a\nDISABLE', 'a\rb', 'a\0b', 'a\u001bb', 'a\u0085b', 'tab\tbed']) {
      expect(await network.hostapd(['SET', 'ssid', ssid]), JSON.stringify(ssid)).toBe('FAIL\n');
    }
    expect(await network.hostapd(['GET_CONFIG'])).toBe(await recorded('hello-world', 'wifi', 'hostapd-get-config.txt'));
  });

  it('answers other SET fields with FAIL and unknown commands with UNKNOWN COMMAND', async () => {
    const network = scenarioNetworks(DEFAULT)(WIFI);
    expect(await network.hostapd(['SET', 'wpa_passphrase', 'secret123'])).toBe('FAIL\n');
    expect(await network.hostapd(['PING'])).toBe('PONG\n');
    expect(await network.hostapd(['DISABLE'])).toBe('UNKNOWN COMMAND\n');
    expect(await network.hostapd(['status'])).toBe('UNKNOWN COMMAND\n');
    expect(await network.hostapd(['GET_CONFIG'])).toBe(await recorded('hello-world', 'wifi', 'hostapd-get-config.txt'));
  });

  it("disconnects a station of the station dump with DEAUTHENTICATE, as hostapd's deauthentication removes it on a radio", async () => {
    const network = scenarioNetworks(DEFAULT)(WIFI);
    expect(await network.hostapd(['DEAUTHENTICATE', '24:0a:c4:11:8b:3e'])).toBe('OK\n');
    expect(await network.stationGet('24:0a:c4:11:8b:3e')).toBeNull();
    expect(await network.stationDel('24:0a:c4:11:8b:3e')).toBe(false);
  });

  it('answers every command with a 503 problem for a network without hostapd recordings', async () => {
    const network = scenarioNetworks(DEFAULT)(target('hotspot', 'staff', 'br-lan.20'));
    for (const command of [['STATUS'], ['GET_CONFIG'], ['SET', 'ssid', 'lab'], ['RELOAD']]) {
      const problem = await problemOf(network.hostapd(command));
      expect(problem.status).toBe(503);
      expect(problem.message).toContain("hostapd's control interface is not recorded for hotspot/staff");
    }
  });
});

describe('a recorded network: hostapd events', () => {
  it('sends AP-STA-DISCONNECTED <mac> to the subscribers of the network when a station is disconnected, until they stop', async () => {
    const networks = scenarioNetworks(DEFAULT);
    const wifi: string[] = [];
    const guest: string[] = [];
    const subscription = await networks(WIFI).hostapdEvents(
      (text) => wifi.push(text),
      () => expect.unreachable('no end'),
    );
    await networks(GUEST).hostapdEvents(
      (text) => guest.push(text),
      () => expect.unreachable('no end'),
    );
    expect(await networks(WIFI).stationDel('24:0A:C4:11:8B:3E')).toBe(true);
    // Not connected (any more): no event.
    expect(await networks(WIFI).stationDel('24:0a:c4:11:8b:3e')).toBe(false);
    expect(wifi).toEqual(['AP-STA-DISCONNECTED 24:0a:c4:11:8b:3e']);
    expect(guest).toEqual([]);
    await subscription.stop();
    expect(await networks(WIFI).stationDel('6e:8d:3a:5f:21:c4')).toBe(true);
    expect(wifi).toEqual(['AP-STA-DISCONNECTED 24:0a:c4:11:8b:3e']);
  });

  it("publishes the device's station.disconnected, lower-case MAC, for a station DELETE and a DEAUTHENTICATE alike, once each", async () => {
    const published: DeviceEventBody[] = [];
    const networks = networksOf(scenarioFiles(DEFAULT), undefined, (body) => published.push(body));
    expect(await networks(WIFI).stationDel('24:0A:C4:11:8B:3E')).toBe(true);
    expect(await networks(WIFI).stationDel('24:0a:c4:11:8b:3e')).toBe(false);
    expect(await networks(WIFI).hostapd(['DEAUTHENTICATE', '6E:8D:3A:5F:21:C4'])).toBe('OK\n');
    expect(published).toEqual([
      { kind: 'station.disconnected', chute: 'hello-world', network: 'wifi', mac: '24:0a:c4:11:8b:3e' },
      { kind: 'station.disconnected', chute: 'hello-world', network: 'wifi', mac: '6e:8d:3a:5f:21:c4' },
    ]);
  });

  it('answers a 503 problem for a network without hostapd recordings', async () => {
    const problem = await problemOf(
      scenarioNetworks(DEFAULT)(target('hotspot', 'staff', 'br-lan.20')).hostapdEvents(
        () => undefined,
        () => undefined,
      ),
    );
    expect(problem).toMatchObject({ status: 503, message: expect.stringContaining("hostapd's control interface is not recorded for hotspot/staff") });
  });
});

describe('a network folder written by hand', () => {
  const temp = useTempDir('chutebox-scenario-network-');
  let dir: string;

  beforeAll(async () => {
    dir = await temp.folder('scenario');
    const write = async (file: string, text: string) => {
      await mkdir(path.dirname(path.join(dir, file)), { recursive: true });
      await writeFile(path.join(dir, file), text);
    };
    await write('chutes/lab/networks/ap/hostapd-status.txt', 'state=ENABLED\nbss[0]=wlan0\nssid[0]=main\nbss[1]=wlan0-1\nssid[1]=lab\n');
    await write('chutes/lab/networks/solo/hostapd-get-config.txt', 'bssid=02:00:00:00:00:01\nssid=solo\n');
    await write('chutes/lab/networks/wired/hostapd-all-sta.txt', WIRED_ALL_STA);
  });

  it("answers iw with a 503 problem where only hostapd's all_sta is recorded, as on the device where iw could not answer", async () => {
    const network = scenarioNetworks(dir)(target('lab', 'wired'));
    for (const read of [network.stationDump(), network.stationGet('02:cb:00:00:01:02'), network.stationDel('02:cb:00:00:01:02')]) {
      expect(await problemOf(read)).toMatchObject({ status: 503, message: expect.stringContaining("iw's station dump is not recorded for lab/wired") });
    }
    // Neither recorded: no station, as before.
    expect(await scenarioNetworks(dir)(target('lab', 'ap')).stationDump()).toBe('');
  });

  it("deauthenticates a station of all_sta with hostapd's DEAUTHENTICATE: OK, gone from the list, its event sent", async () => {
    const network = scenarioNetworks(dir)(target('lab', 'wired'));
    const events: string[] = [];
    const subscription = await network.hostapdEvents(
      (text) => events.push(text),
      () => {},
    );
    expect(await network.hostapd(['DEAUTHENTICATE', '02:CB:00:00:01:02'])).toBe('OK\n');
    expect(await network.hostapdStations()).toBe(WIRED_ALL_STA.slice(WIRED_ALL_STA.indexOf('02:cb:00:00:01:03')));
    // hostapd answers OK for a station it does not know, and FAIL for what is no MAC; neither sends an event.
    expect(await network.hostapd(['DEAUTHENTICATE', '02:cb:00:00:01:02'])).toBe('OK\n');
    expect(await network.hostapd(['DEAUTHENTICATE', 'nobody'])).toBe('FAIL\n');
    expect(events).toEqual(['AP-STA-DISCONNECTED 02:cb:00:00:01:02']);
    await subscription.stop();
  });

  it("answers hostapd's all_sta verbatim where it is recorded, and a 503 problem naming the file where not", async () => {
    expect(await scenarioNetworks(dir)(target('lab', 'wired')).hostapdStations()).toBe(WIRED_ALL_STA);
    const problem = await problemOf(scenarioNetworks(dir)(target('lab', 'ap')).hostapdStations());
    expect(problem).toMatchObject({ status: 503, message: expect.stringContaining("hostapd's all_sta is not recorded for lab/ap (no hostapd-all-sta.txt)") });
  });

  it("finds this network's BSS in STATUS by its host interface when GET_CONFIG is not recorded", async () => {
    const network = scenarioNetworks(dir)(target('lab', 'ap', 'wlan0-1'));
    expect(await network.hostapd(['SET', 'ssid', 'new'])).toBe('OK\n');
    expect(await network.hostapd(['STATUS'])).toBe('state=ENABLED\nbss[0]=wlan0\nssid[0]=main\nbss[1]=wlan0-1\nssid[1]=new\n');
    expect((await problemOf(network.hostapd(['GET_CONFIG']))).message).toContain("hostapd's GET_CONFIG is not recorded for lab/ap");
  });

  it('answers a 503 problem for STATUS when only GET_CONFIG is recorded', async () => {
    const network = scenarioNetworks(dir)(target('lab', 'solo'));
    expect(await network.hostapd(['GET_CONFIG'])).toBe('bssid=02:00:00:00:00:01\nssid=solo\n');
    const problem = await problemOf(network.hostapd(['STATUS']));
    expect(problem.status).toBe(503);
    expect(problem.message).toContain("hostapd's STATUS is not recorded for lab/solo");
  });

  it('reads nothing outside the chutes folder for names that are not chute names', async () => {
    const network = scenarioNetworks(dir)(target('..', '..'));
    expect(await network.stationDump()).toBe('');
    expect(await network.leases()).toBeNull();
    expect((await problemOf(network.hostapd(['STATUS']))).status).toBe(503);
  });
});

describe('a network whose hostapd was started anew', () => {
  it('forgets the SSID set and the stations disconnected of the networks named, and only theirs', async () => {
    const networks = scenarioNetworks(DEFAULT);
    await networks(WIFI).hostapd(['SET', 'ssid', 'set']);
    await networks(WIFI).stationDel('24:0a:c4:11:8b:3e');
    await networks(GUEST).hostapd(['SET', 'ssid', 'kept']);
    networks.forget('hello-world', ['wifi']);
    expect(field(await networks(WIFI).hostapd(['GET_CONFIG']), 'ssid')).toBe('hello-world');
    expect(await networks(WIFI).stationGet('24:0a:c4:11:8b:3e')).not.toBeNull();
    expect(networks.snapshot()).toEqual([{ chute: 'hotspot', network: 'guest', ssid: 'kept', disconnected: [] }]);
  });
});

describe('a recorded network asked for on every request', () => {
  it('answers the same host for the same target, and asks the scenario files for its recordings on each request', async () => {
    const files = scenarioFiles(DEFAULT);
    const reads: string[] = [];
    const networks = networksOf({ readFile: (file) => (reads.push(file), files.readFile(file)) });
    const host = networks(WIFI);
    for (let request = 0; request < 3; request++) {
      expect(networks(WIFI)).toBe(host);
      await networks(WIFI).hostapd(['STATUS']);
      await networks(WIFI).hostapd(['GET_CONFIG']);
      await networks(WIFI).leases();
    }
    // The files keep what they read (`scenarioFiles`, `treeFiles`); the network keeps no copy, which a
    // fleet's device would hold of its own (it rewrites each recording as it is read).
    expect(new Set(reads)).toEqual(
      new Set(
        ['dnsmasq.leases', 'hostapd-all-sta.txt', 'hostapd-get-config.txt', 'hostapd-status.txt'].map((file) => `/chutes/hello-world/networks/wifi/${file}`),
      ),
    );
    expect(reads.filter((file) => file.endsWith('/dnsmasq.leases'))).toHaveLength(3);
  });

  it('answers a new host for a target whose fields changed since', async () => {
    const networks = scenarioNetworks(DEFAULT);
    const changing = { ...WIFI };
    const wifi = networks(changing);
    changing.network = 'guest';
    changing.chute = 'hotspot';
    expect(networks(changing)).not.toBe(wifi);
    expect(await networks(changing).hostapd(['GET_CONFIG'])).toBe(await recorded('hotspot', 'guest', 'hostapd-get-config.txt'));
  });
});
