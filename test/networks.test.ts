import { spawnSync } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HostapdStatus, NetworkList, StationList } from '../functions/chutes/schemas.ts';
import type { Problem } from '../functions/core/problem.ts';
import type { InputProblem } from './support/call-function.ts';
import { callApi, getJson } from './support/http-client.ts';
import { writeChute } from './support/chute-state.ts';
import { findOnPath } from './support/dockerd.ts';
import { STATION_DUMP, STATION_MACS, writeFakeIw, writeSilentIw, type FakeIw } from './support/fake-iw.ts';
import { createNamespacePair, networkUnavailableReason, startDaemon, waitUntil, type Daemon, type NamespacePair } from './support/netns.ts';
import { CLI, startChutebox, type Started } from './support/spawn.ts';
import { useTempDir } from './support/temp-dir.ts';

/**
 * The chute network endpoints of `chutebox serve` against real host resources: a dnsmasq lease file,
 * hostapd's control socket (hostapd with the wired driver, a real 802.1X station), and for stations
 * a stand-in for iw (this machine has no WiFi). The runtime reads the chute from a fresh state dir.
 */

const temp = useTempDir('chutebox-networks-test-');

/** Exactly the environment the server gets: no CHUTEBOX_* setting leaks in from the test runner. */
const SERVER_ENV = { PATH: process.env.PATH ?? '/usr/bin:/bin' };
const CHUTE = 'netprobe';
/** The chute configuration's `net`: a WiFi access point, and one whose host resources are not recorded. */
const NET = {
  wifi: { type: 'wifi', mode: 'ap', intfName: 'wlan0', ssid: 'chutebox-test' },
  guest: { type: 'wifi', intfName: 'wlan1', ssid: 'chutebox-guest' },
};
const WIFI = `/chutes/${CHUTE}/networks/wifi`;

describe('chute networks on chutebox serve, stations from an iw stand-in', () => {
  const servers: Started[] = [];
  let server: Started;
  let iw: FakeIw;
  let leaseFile: string;

  /** `chutebox serve` with a fresh state dir holding the chute, and extra flags. */
  async function serve(name: string, flags: string[]): Promise<Started> {
    const stateDir = await temp.folder(`state-${name}`);
    await writeChute(stateDir, CHUTE, NET, { wifi: { hostInterface: 'vwlan0', hostapdControl: path.join(stateDir, 'no-hostapd', 'vwlan0'), leaseFile } });
    const started = await startChutebox(['serve', '--host', '127.0.0.1', '--port', '0', '--state-dir', stateDir, ...flags], SERVER_ENV);
    servers.push(started);
    return started;
  }

  beforeAll(async () => {
    iw = await writeFakeIw(await temp.folder('iw'), 'vwlan0', STATION_DUMP);
    leaseFile = path.join(temp.path(), 'dnsmasq.leases');
    await writeFile(leaseFile, `1700040000 ${STATION_MACS[0]} 192.168.33.20 laptop 01:${STATION_MACS[0]}\n`);
    server = await serve('main', ['--iw', iw.path]);
  });

  afterAll(async () => {
    await Promise.all(servers.map((started) => started.stop()));
  });

  it('GET …/networks lists the networks of the chute configuration in the state dir', async () => {
    const answer = await callApi<NetworkList>(server, 'GET', `/chutes/${CHUTE}/networks`);
    expect(answer.status).toBe(200);
    expect([...answer.body].sort((a: { name: string }, b: { name: string }) => a.name.localeCompare(b.name))).toEqual([
      { name: 'guest', type: 'wifi', interface: 'wlan1' },
      { name: 'wifi', type: 'wifi', interface: 'wlan0' },
    ]);
    expect((await callApi(server, 'GET', `/chutes/${CHUTE}/networks/wifi`)).body).toEqual({ name: 'wifi', type: 'wifi', interface: 'wlan0' });
  });

  it('GET …/stations responds with 200 and one record per station of `iw dev <host interface> station dump`', async () => {
    const answer = await callApi<StationList>(server, 'GET', `${WIFI}/stations`);
    expect(answer.status).toBe(200);
    expect(answer.body.map((station: { mac_addr: string }) => station.mac_addr)).toEqual(STATION_MACS);
    expect(answer.body[0]).toMatchObject({
      signal: '-48 [-50, -52] dBm',
      tx_bitrate: '866.7 MBit/s VHT-MCS 9 80MHz short GI VHT-NSS 2',
      beacon_interval: '100',
      wmm_wme: 'yes',
    });
    expect(await iw.calls()).toContain('dev vwlan0 station dump');
  });

  it('GET …/stations/<MAC> responds with 200 and the station from `iw … station get`, for a MAC in any case', async () => {
    const answer = await callApi(server, 'GET', `${WIFI}/stations/${STATION_MACS[1]!.toUpperCase()}`);
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ mac_addr: STATION_MACS[1], signal: '-71 [-73, -74] dBm', expected_throughput: '101.318Mbps' });
    expect(await iw.calls()).toContain(`dev vwlan0 station get ${STATION_MACS[1]}`);
  });

  it('GET …/stations/<MAC> responds with 404 for a station iw does not know, and 400 for a malformed MAC', async () => {
    expect((await callApi(server, 'GET', `${WIFI}/stations/02:00:00:00:00:99`)).status).toBe(404);
    const malformed = await callApi(server, 'GET', `${WIFI}/stations/02-00-00-00-00-99`);
    expect(malformed.status).toBe(400);
    expect(JSON.stringify(malformed.body)).toContain('params.mac');
  });

  it('DELETE …/stations/<MAC> runs `iw … station del <mac>` and responds with a message; 404 for an unknown station', async () => {
    const answer = await callApi(server, 'DELETE', `${WIFI}/stations/${STATION_MACS[0]}`);
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ message: expect.any(String) });
    expect(await iw.calls()).toContain(`dev vwlan0 station del ${STATION_MACS[0]}`);
    expect((await callApi(server, 'DELETE', `${WIFI}/stations/02:00:00:00:00:99`)).status).toBe(404);
  });

  it('GET …/clients joins the stations with the lease file: an IP and hostname only for the station with a lease', async () => {
    const answer = await callApi(server, 'GET', `${WIFI}/clients`);
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual([
      expect.objectContaining({ mac_addr: STATION_MACS[0], ip_addr: '192.168.33.20', hostname: 'laptop', signal: '-48 [-50, -52] dBm' }),
      expect.objectContaining({ mac_addr: STATION_MACS[1], ip_addr: null, hostname: null, signal: '-71 [-73, -74] dBm' }),
    ]);
  });

  it("GET /api/v1/network/devices lists the lease with its station, in ParaDrop's shape; the network without a lease file adds none", async () => {
    expect(await getJson(server, '/network/devices')).toEqual([
      {
        mac_addr: STATION_MACS[0],
        ip_addr: '192.168.33.20',
        hostname: 'laptop',
        client_id: `01:${STATION_MACS[0]}`,
        expires: 1700040000,
        as_of: expect.any(Number),
        chute: CHUTE,
        network: 'wifi',
        station: expect.objectContaining({ signal: '-48 [-50, -52] dBm' }),
      },
    ]);
  });

  it('responds with 503 naming hostInterface for a network whose host interface is not recorded', async () => {
    const answer = await callApi<Problem>(server, 'GET', `/chutes/${CHUTE}/networks/guest/stations`);
    expect(answer.status).toBe(503);
    expect(answer.body.detail).toContain('hostInterface');
  });

  // The control socket is only reached through hostapd_cli: without it the answer names the missing tool instead.
  const noHostapdCli = findOnPath('hostapd_cli') === null && !process.env.CHUTEBOX_REQUIRE_NETWORK;
  if (noHostapdCli)
    console.warn(
      'test/networks.test.ts: the hostapd_status test is skipped: hostapd_cli is not on PATH (apt-get install -y hostapd); set CHUTEBOX_REQUIRE_NETWORK=1 to make this a failure',
    );
  it.skipIf(noHostapdCli)('GET …/hostapd_status responds with 503 naming the control socket when no hostapd runs for the network', async () => {
    const answer = await callApi<Problem>(server, 'GET', `${WIFI}/hostapd_status`);
    expect(answer.status).toBe(503);
    expect(answer.body.detail).toMatch(/hostapd control socket \S+\/no-hostapd\/vwlan0 does not exist/);
  });

  it('responds with 503 naming iw and --iw when the iw path does not exist', async () => {
    const missing = path.join(temp.path(), 'no-such-dir', 'iw');
    const answer = await callApi<Problem>(await serve('missing-iw', ['--iw', missing]), 'GET', `${WIFI}/stations`);
    expect(answer.status).toBe(503);
    expect(answer.body.detail).toContain(missing);
    expect(answer.body.detail).toContain('--iw');
  });

  it('responds with 504 naming iw when iw runs past --tool-timeout', async () => {
    const silent = await writeSilentIw(await temp.folder('silent-iw'));
    const answer = await callApi<Problem>(await serve('silent-iw', ['--iw', silent, '--tool-timeout', '1']), 'GET', `${WIFI}/stations`);
    expect(answer.status).toBe(504);
    expect(answer.body.detail).toMatch(/\biw\b.*1 s/);
  });

  it('chutebox serve --help lists --iw, --hostapd-cli, --hostapd-event-program and --tool-timeout with their variables', () => {
    const help = spawnSync(process.execPath, [CLI, 'serve', '--help'], { encoding: 'utf8', env: SERVER_ENV });
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(/--iw PATH .*CHUTEBOX_IW.*default iw/);
    expect(help.stdout).toMatch(/--hostapd-cli PATH .*CHUTEBOX_HOSTAPD_CLI.*default hostapd_cli/);
    expect(help.stdout).toMatch(/--hostapd-event-program PATH .*CHUTEBOX_HOSTAPD_EVENT_PROGRAM.*default \/bin\/echo/);
    expect(help.stdout).toMatch(/--tool-timeout SECONDS .*CHUTEBOX_TOOL_TIMEOUT.*default 5/);
  });

  it('chutebox serve exits 2 naming --tool-timeout for a timeout that is not a positive number of seconds', async () => {
    const stateDir = path.join(temp.path(), 'never-used');
    const result = spawnSync(process.execPath, [CLI, 'serve', '--state-dir', stateDir, '--port', '0'], {
      encoding: 'utf8',
      env: { ...SERVER_ENV, CHUTEBOX_TOOL_TIMEOUT: '0' },
    });
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('--tool-timeout');
  });
});

/*
 * The real components need root (network namespaces) and dnsmasq, hostapd, wpa_supplicant, busybox
 * and ip, which `.ci/run` installs. Without them the tests are skipped, unless CHUTEBOX_REQUIRE_NETWORK
 * is set (as in CI): then they fail.
 */
const unavailable = networkUnavailableReason();
const skipped = unavailable !== null && !process.env.CHUTEBOX_REQUIRE_NETWORK;
if (skipped) console.warn(`test/networks.test.ts (real components) skipped: ${unavailable}; set CHUTEBOX_REQUIRE_NETWORK=1 to make this a failure`);

/** The MACs the test gives the veth ends: hostapd's (the BSSID) and the 802.1X station's, the DHCP client's. */
const AP_MAC = '02:cb:00:00:01:01';
const STATION_MAC = '02:cb:00:00:01:02';
const DHCP_CLIENT_MAC = '02:cb:00:00:02:02';

describe.skipIf(skipped)(
  `chute networks on chutebox serve with dnsmasq, hostapd and wpa_supplicant in network namespaces${skipped ? ` (skipped: ${unavailable})` : ''}`,
  () => {
    let dir: string;
    let namespaces: NamespacePair | undefined;
    const daemons: Daemon[] = [];
    let server: Started | undefined;
    let eap: { a: string; b: string };
    let dhcp: { a: string; b: string };
    let hostapd: Daemon;
    let controlDir: string;
    let leaseFile: string;
    const hostapdCli = () => findOnPath('hostapd_cli')!;

    /** hostapd_cli as an operator would run it, on the test's control socket. */
    const operatorCli = (...command: string[]) => spawnSync(hostapdCli(), ['-p', controlDir, '-i', eap.a, ...command], { encoding: 'utf8', timeout: 15_000 });

    function daemon(name: string, ns: string, command: string, args: string[]): Daemon {
      const started = startDaemon(ns, command, args, path.join(dir, `${name}.log`));
      daemons.push(started);
      return started;
    }

    beforeAll(async () => {
      if (unavailable !== null) throw new Error(`no network namespaces here: ${unavailable}`);
      dir = await temp.folder('real');
      controlDir = path.join(dir, 'hostapd');
      leaseFile = path.join(dir, 'dnsmasq.leases');
      namespaces = createNamespacePair('chutebox-test');
      const stem = `cb${process.pid.toString(36)}`;
      // Two links: hostapd's wired driver counts any frame as a station, so DHCP gets a link of its own.
      eap = namespaces.link(`${stem}e`);
      dhcp = namespaces.link(`${stem}d`);
      namespaces.exec(namespaces.a, 'ip', ['link', 'set', eap.a, 'address', AP_MAC]);
      namespaces.exec(namespaces.b, 'ip', ['link', 'set', eap.b, 'address', STATION_MAC]);
      namespaces.exec(namespaces.b, 'ip', ['link', 'set', dhcp.b, 'address', DHCP_CLIENT_MAC]);
      namespaces.exec(namespaces.a, 'ip', ['addr', 'add', '10.99.0.1/24', 'dev', dhcp.a]);

      const dnsmasq = daemon('dnsmasq', namespaces.a, 'dnsmasq', [
        '--no-daemon',
        '--conf-file=/dev/null',
        '--no-resolv',
        '--no-hosts',
        '--log-facility=-',
        '--port=0',
        `--interface=${dhcp.a}`,
        '--bind-interfaces',
        '--dhcp-range=10.99.0.100,10.99.0.150,255.255.255.0,12h',
        `--dhcp-leasefile=${leaseFile}`,
        `--pid-file=${path.join(dir, 'dnsmasq.pid')}`,
        '--user=root',
      ]);

      await writeFile(path.join(dir, 'eap_users'), '"probe" MD5 "probe-secret"\n');
      await writeFile(
        path.join(dir, 'hostapd.conf'),
        [
          `interface=${eap.a}`,
          'driver=wired',
          'ieee8021x=1',
          'eap_server=1',
          `eap_user_file=${path.join(dir, 'eap_users')}`,
          `ctrl_interface=${controlDir}`,
          'ssid=chutebox-test',
          '',
        ].join('\n'),
      );
      hostapd = daemon('hostapd', namespaces.a, 'hostapd', [path.join(dir, 'hostapd.conf')]);

      await waitUntil('dnsmasq listening', async () => (await dnsmasq.output()).includes('DHCP, sockets bound'), 20_000, dnsmasq.output);
      await waitUntil(
        'hostapd answering PING on its control socket',
        () => hostapd.exited() === null && operatorCli('ping').stdout.trim() === 'PONG',
        20_000,
        hostapd.output,
      );

      const stateDir = path.join(dir, 'state');
      await writeChute(stateDir, CHUTE, NET, { wifi: { hostInterface: eap.a, hostapdControl: path.join(controlDir, eap.a), leaseFile } });
      server = await startChutebox(['serve', '--host', '127.0.0.1', '--port', '0', '--state-dir', stateDir, '--hostapd-cli', hostapdCli()], SERVER_ENV);
    });

    afterAll(async () => {
      await server?.stop();
      await Promise.all(daemons.map((started) => started.stop()));
      namespaces?.remove();
    });

    it('GET …/leases responds with the lease dnsmasq gave to busybox udhcpc in the other namespace', async () => {
      const script = path.join(dir, 'udhcpc.script');
      await writeFile(script, '#!/bin/sh\nexit 0\n', { mode: 0o755 });
      namespaces!.exec(namespaces!.b, 'busybox', ['udhcpc', '-i', dhcp.b, '-f', '-n', '-q', '-s', script, '-x', 'hostname:probeclient']);
      await expect
        .poll(async () => (await callApi(server!, 'GET', `${WIFI}/leases`)).body, { timeout: 15_000, interval: 200 })
        .toEqual([expect.objectContaining({ mac_addr: DHCP_CLIENT_MAC, ip_addr: expect.stringMatching(/^10\.99\.0\.1\d\d$/), hostname: 'probeclient' })]);
    });

    it('GET …/hostapd_status responds with hostapd STATUS: state ENABLED, the BSS and no station', async () => {
      const answer = await callApi(server!, 'GET', `${WIFI}/hostapd_status`);
      expect(answer.status).toBe(200);
      expect(answer.body).toMatchObject({ state: 'ENABLED', 'bss[0]': eap.a, 'bssid[0]': AP_MAC, 'ssid[0]': 'chutebox-test', 'num_sta[0]': '0' });
    });

    it('GET …/ssid responds with the SSID and BSSID of hostapd GET_CONFIG', async () => {
      expect(await getJson(server!, `${WIFI}/ssid`)).toEqual({ ssid: 'chutebox-test', bssid: AP_MAC });
    });

    it('PUT …/ssid responds with a message, and then GET …/ssid and hostapd_cli get_config show the new SSID', async () => {
      const answer = await callApi(server!, 'PUT', `${WIFI}/ssid`, { ssid: 'café lab' });
      expect(answer.status, answer.text).toBe(200);
      expect(answer.body).toEqual({ message: 'OK' });
      expect(await getJson(server!, `${WIFI}/ssid`)).toEqual({ ssid: 'café lab', bssid: AP_MAC });
      // hostapd prints bytes outside printable ASCII as \xNN.
      expect(operatorCli('get_config').stdout).toContain('ssid=caf\\xc3\\xa9 lab\n');
    });

    it('PUT …/ssid with an SSID over 32 bytes responds with 422 and leaves hostapd as it was', async () => {
      const answer = await callApi<InputProblem>(server!, 'PUT', `${WIFI}/ssid`, { ssid: 'x'.repeat(33) });
      expect(answer.status).toBe(422);
      expect(answer.body.errors).toEqual([expect.objectContaining({ path: 'body.ssid' })]);
      expect(operatorCli('get_config').stdout).toContain('ssid=caf\\xc3\\xa9 lab\n');
    });

    it('GET …/hostapd_status counts the station once wpa_supplicant (wired, EAP-MD5) has authenticated', async () => {
      await writeFile(
        path.join(dir, 'wpa_supplicant.conf'),
        'ap_scan=0\nnetwork={\n\tkey_mgmt=IEEE8021X\n\teap=MD5\n\tidentity="probe"\n\tpassword="probe-secret"\n\teapol_flags=0\n}\n',
      );
      const supplicant = daemon('wpa_supplicant', namespaces!.b, 'wpa_supplicant', ['-D', 'wired', '-i', eap.b, '-c', path.join(dir, 'wpa_supplicant.conf')]);
      await waitUntil('wpa_supplicant authenticated', async () => (await supplicant.output()).includes('CTRL-EVENT-EAP-SUCCESS'), 30_000, supplicant.output);
      await expect
        .poll(async () => (await callApi<HostapdStatus>(server!, 'GET', `${WIFI}/hostapd_status`)).body['num_sta[0]'], { timeout: 15_000, interval: 200 })
        .toBe('1');
      expect(operatorCli('all_sta').stdout).toContain(STATION_MAC);
    });

    it('GET …/stations, …/stations/<MAC> and …/clients respond with the 802.1X station as hostapd knows it, where iw cannot answer', async () => {
      const answer = await callApi(server!, 'GET', `${WIFI}/stations`);
      expect(answer.status, answer.text).toBe(200);
      expect(answer.body).toEqual([
        expect.objectContaining({ mac_addr: STATION_MAC, flags: '[AUTHORIZED]', authorized: 'yes', dot1xAuthSessionUserName: 'probe' }),
      ]);
      expect(await getJson(server!, `${WIFI}/stations/${STATION_MAC.toUpperCase()}`)).toMatchObject({ mac_addr: STATION_MAC, authorized: 'yes' });
      // The wired driver reads no radio data: the client has no signal or rate, rather than a made-up one.
      expect(await getJson(server!, `${WIFI}/clients`)).toEqual([
        expect.objectContaining({ mac_addr: STATION_MAC, ip_addr: null, signal: null, tx_bitrate: null }),
      ]);
    });

    it('DELETE …/stations/<MAC> deauthenticates the station in hostapd, and 404 for one hostapd does not know', async () => {
      expect((await callApi(server!, 'DELETE', `${WIFI}/stations/02:cb:00:00:01:99`)).status).toBe(404);
      const answer = await callApi(server!, 'DELETE', `${WIFI}/stations/${STATION_MAC}`);
      expect(answer.status, answer.text).toBe(200);
      // hostapd keeps the station for a few seconds, no longer authorized, before it drops it.
      const authorized = async () =>
        (await callApi<StationList>(server!, 'GET', `${WIFI}/stations`)).body.find((s: { mac_addr: string }) => s.mac_addr === STATION_MAC)?.authorized;
      expect([undefined, 'no']).toContain(await authorized());
      expect(await hostapd.output()).toContain(`AP-STA-DISCONNECTED ${STATION_MAC}`);
    });

    it('responds with 503 naming the control socket once hostapd has stopped', async () => {
      await hostapd.stop();
      const answer = await callApi<Problem>(server!, 'GET', `${WIFI}/hostapd_status`);
      expect(answer.status).toBe(503);
      expect(answer.body.detail).toContain(path.join(controlDir, eap.a));
    });
  },
);
