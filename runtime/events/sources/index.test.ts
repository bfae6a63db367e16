import { spawnSync } from 'node:child_process';
import { mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AccessPointEntry } from '../../../functions/chutes/chute-config.ts';
import type { NetworkReservation } from '../../../functions/chutes/network-reservations.ts';
import { CHUTE_LABEL, MAIN_SERVICE_LABEL, networkRunDir, SERVICE_LABEL, type DeviceEventBody } from '../../../functions/core/device/index.ts';
import { installChute, writeChute } from '../../../test/support/chute-state.ts';
import { dockerUnavailableReason, findOnPath, startDockerd, type Dockerd } from '../../../test/support/dockerd.ts';
import { createNamespacePair, networkUnavailableReason, startDaemon, type Daemon, type NamespacePair } from '../../../test/support/netns.ts';
import { childrenNamed } from '../../../test/support/processes.ts';
import { fileExists, useTempDir } from '../../../test/support/temp-dir.ts';
import { chuteStore, JSON_FORMAT } from '../../chutes/store.ts';
import { hostNetworks, networkTools } from '../../device/host-networks.ts';
import { engineClient } from '../../device/host-parts.ts';
import { dnsmasqArgs, eapUserFile, hostapdConfig } from '../../network/chute-daemons.ts';
import { startHostEventSources } from './index.ts';
import type { EventSource } from './source.ts';

/*
 * The host's event sources against real components: hostapd (wired driver) and dnsmasq serving a
 * chute network in a router namespace, configured as serve configures them (chute-daemons.ts), with
 * wpa_supplicant and busybox udhcpc as the station in a station namespace; and a private Docker
 * Engine running a chute's container. The sources run in this test's process, as in serve, and read
 * the chutes from a state dir.
 */

const temp = useTempDir('chutebox-event-sources-');
const KEY = 'lab-passphrase';
const wifi = (ssid: string): AccessPointEntry => ({ type: 'wifi', intfName: 'wlan0', ssid, key: KEY, dhcp: { start: 100, limit: 10, lease: '1h' } });
const POLL = { timeout: 30_000, interval: 100 };

/** Collects what the sources publish. */
function published() {
  const events: DeviceEventBody[] = [];
  return { events, publish: (body: DeviceEventBody) => void events.push(body) };
}

const networkUnavailable = networkUnavailableReason();
const networkSkipped = networkUnavailable !== null && !process.env.CHUTEBOX_REQUIRE_NETWORK;
if (networkSkipped)
  console.warn(`runtime/events/sources/index.test.ts (hostapd, dnsmasq) skipped: ${networkUnavailable}; set CHUTEBOX_REQUIRE_NETWORK=1 to make this a failure`);

describe.skipIf(networkSkipped)(
  `startHostEventSources with hostapd and dnsmasq in a router namespace${networkSkipped ? ` (skipped: ${networkUnavailable})` : ''}`,
  () => {
    let dir: string;
    let stateDir: string;
    let namespaces: NamespacePair | undefined;
    let router: string;
    let station: string;
    let sources: EventSource | undefined;
    const { events, publish } = published();
    const daemons: Daemon[] = [];
    /** A folder of hostapd_cli left by a runtime that is gone (the pid of a process that has ended). */
    const stale = path.join(os.tmpdir(), `chutebox-hostapd-events-${spawnSync('true').pid}-left`);

    /** A chute network on its own veth pair (router end in the router, station end in the station), served as serve serves it. */
    async function servedNetwork(chute: string, network: string, stem: string, subnet: number) {
      const link = namespaces!.link(`${stem}${process.pid.toString(36)}`);
      const runDir = networkRunDir(stateDir);
      const reservation: NetworkReservation = {
        hostInterface: link.a,
        ipv4Network: `10.128.${subnet}.0/24`,
        gateway: `10.128.${subnet}.1`,
        chuteAddress: `10.128.${subnet}.2`,
        hostapdControl: path.join(runDir, 'hostapd', link.a),
        leaseFile: path.join(runDir, 'dnsmasq', `${chute}-${network}.leases`),
        vlanId: null,
        radio: null,
      };
      const entry = wifi(network);
      const { hostInterface, hostapdControl, leaseFile } = reservation;
      await writeChute(stateDir, chute, { [network]: entry }, { [network]: { hostInterface, hostapdControl: hostapdControl!, leaseFile: leaseFile! } });
      namespaces!.exec(router, 'ip', ['address', 'add', `${reservation.gateway}/24`, 'dev', link.a]);
      const eapUsers = path.join(dir, `${link.a}.eap_users`);
      const conf = path.join(dir, `${link.a}.conf`);
      await writeFile(eapUsers, eapUserFile(entry));
      await writeFile(conf, hostapdConfig(entry, reservation, { kind: 'wired' }, eapUsers));
      return {
        link,
        mac: /link\/ether (\S+)/.exec(namespaces!.exec(station, 'ip', ['-o', 'link', 'show', 'dev', link.b]))![1]!,
        hostapd: () => started(startDaemon(router, 'hostapd', [conf], path.join(dir, `${link.a}.hostapd.log`))),
        dnsmasq: () => started(startDaemon(router, 'dnsmasq', dnsmasqArgs(entry, reservation, {}), path.join(dir, `${link.a}.dnsmasq.log`))),
      };
    }
    const started = (daemon: Daemon) => (daemons.push(daemon), daemon);

    /** wpa_supplicant on the station end `iface` (802.1X, EAP-MD5), with its control socket for wpa_cli. */
    async function supplicant(iface: string): Promise<Daemon & { logoff(): void }> {
      const conf = path.join(dir, `${iface}.wpa.conf`);
      const control = path.join(dir, 'wpa');
      await writeFile(
        conf,
        `ctrl_interface=${control}\nap_scan=0\nnetwork={\n\tkey_mgmt=IEEE8021X\n\teap=MD5\n\tidentity="chute"\n\tpassword="${KEY}"\n\teapol_flags=0\n}\n`,
      );
      const daemon = started(startDaemon(station, 'wpa_supplicant', ['-D', 'wired', '-i', iface, '-c', conf], path.join(dir, `${iface}.wpa.log`)));
      return { ...daemon, logoff: () => namespaces!.exec(station, 'wpa_cli', ['-p', control, '-i', iface, 'logoff']) };
    }

    /**
     * busybox udhcpc on `iface` as a phone's DHCP client, asking for a lease as `phone` and setting the
     * address it is given (a release is sent from it): SIGUSR1 renews the lease, SIGUSR2 releases it.
     */
    async function dhcpClient(iface: string): Promise<Daemon> {
      const script = path.join(dir, 'udhcpc.script');
      const commands = [
        'case "$1" in',
        'bound|renew) busybox ip address replace "$ip/$mask" dev "$interface" ;;',
        'deconfig) busybox ip address flush dev "$interface" ;;',
        'esac',
      ];
      await writeFile(script, `#!/bin/sh\n${commands.join('\n')}\nexit 0\n`, { mode: 0o755 });
      return started(
        startDaemon(station, 'busybox', ['udhcpc', '-i', iface, '-f', '-t', '10', '-s', script, '-x', 'hostname:phone'], path.join(dir, 'udhcpc.log')),
      );
    }

    let lab: Awaited<ReturnType<typeof servedNetwork>>;
    let labHostapd: Daemon;

    beforeAll(async () => {
      if (networkUnavailable !== null) throw new Error(`no network namespaces here: ${networkUnavailable}`);
      dir = await temp.folder('lab');
      stateDir = path.join(dir, 'state');
      namespaces = createNamespacePair('chutebox-evsrc');
      router = namespaces.a;
      station = namespaces.b;
      lab = await servedNetwork('lab', 'wifi', 'ev', 0);
      await mkdir(path.join(networkRunDir(stateDir), 'dnsmasq'), { recursive: true, mode: 0o700 });
      lab.dnsmasq();
      await mkdir(stale);
      const network = hostNetworks(networkTools({ hostapdCli: findOnPath('hostapd_cli')! })).network;
      sources = startHostEventSources(
        {
          stateDir,
          socketPath: path.join(dir, 'no-engine.sock'),
          chutes: chuteStore(path.join(stateDir, 'chutes'), JSON_FORMAT),
          network,
          engine: engineClient(),
        },
        publish,
      );
      await sources.ready;
    }, 60_000);

    afterAll(async () => {
      await sources?.stop();
      await Promise.all(daemons.map((daemon) => daemon.stop()));
      namespaces?.remove();
      await rm(stale, { recursive: true, force: true });
    }, 60_000);

    it("removes at start the hostapd_cli folders of a runtime that is gone, and keeps this one's", async () => {
      await expect.poll(() => fileExists(stale), POLL).toBe(false);
    });

    it("dnsmasq's lease is lease.added with the station's IP, MAC and name; asked again, lease.renewed; released, lease.expired", async () => {
      const lease = { chute: 'lab', network: 'wifi', mac: lab.mac, ip: expect.stringMatching(/^10\.128\.0\.10\d$/), hostname: 'phone' };
      const ofKind = (kind: string) => events.filter((event) => event.kind === kind) as Extract<DeviceEventBody, { kind: `lease.${string}` }>[];
      const phone = await dhcpClient(lab.link.b);
      await expect.poll(() => ofKind('lease.added'), POLL).toEqual([{ kind: 'lease.added', ...lease, expires: expect.any(String) }]);
      const [added] = ofKind('lease.added');
      expect(Date.parse(added!.expires!) - Date.now()).toBeGreaterThan(3500_000);
      // dnsmasq writes expiries in whole seconds: a renewal a second later ends later.
      await new Promise((resolve) => setTimeout(resolve, 1100));
      process.kill(phone.pid, 'SIGUSR1');
      await expect.poll(() => ofKind('lease.renewed'), POLL).toEqual([{ kind: 'lease.renewed', ...lease, expires: expect.any(String) }]);
      expect(Date.parse(ofKind('lease.renewed')[0]!.expires!)).toBeGreaterThan(Date.parse(added!.expires!));
      process.kill(phone.pid, 'SIGUSR2');
      await expect.poll(() => ofKind('lease.expired'), POLL).toEqual([{ kind: 'lease.expired', ...lease, expires: expect.any(String) }]);
      await phone.stop();
    }, 60_000);

    it('follows a hostapd that starts: a station that joins is station.connected, one that logs off station.disconnected', async () => {
      labHostapd = lab.hostapd();
      const phone = await supplicant(lab.link.b);
      const connected = { kind: 'station.connected', chute: 'lab', network: 'wifi', mac: lab.mac };
      await expect.poll(() => events, POLL).toContainEqual(connected);
      phone.logoff();
      await expect.poll(() => events, POLL).toContainEqual({ ...connected, kind: 'station.disconnected' });
      expect(events.filter((event) => event.kind.startsWith('station.'))).toEqual([connected, { ...connected, kind: 'station.disconnected' }]);
      await phone.stop();
    }, 60_000);

    it('a station that joins a second network and then leaves the first is station.roamed to the second, from the first', async () => {
      const cafe = await servedNetwork('cafe', 'guest', 'ew', 1);
      const bar = await servedNetwork('bar', 'guest', 'ex', 2);
      // The station's second interface has the first one's MAC: one station, on two networks.
      namespaces!.exec(station, 'ip', ['link', 'set', 'dev', bar.link.b, 'address', cafe.mac]);
      cafe.hostapd();
      bar.hostapd();
      const onCafe = await supplicant(cafe.link.b);
      await expect.poll(() => events, POLL).toContainEqual({ kind: 'station.connected', chute: 'cafe', network: 'guest', mac: cafe.mac });
      const onBar = await supplicant(bar.link.b);
      await expect.poll(() => events, POLL).toContainEqual({ kind: 'station.connected', chute: 'bar', network: 'guest', mac: cafe.mac });
      onCafe.logoff();
      await expect
        .poll(() => events, POLL)
        .toContainEqual({
          kind: 'station.roamed',
          chute: 'bar',
          network: 'guest',
          mac: cafe.mac,
          from: { chute: 'cafe', network: 'guest' },
        });
      await Promise.all([onCafe.stop(), onBar.stop()]);
    }, 90_000);

    it('lets go of a hostapd that stops (its hostapd_cli ends), and follows the one that starts in its place', async () => {
      const following = (await childrenNamed(process.pid, 'hostapd_cli')).length;
      expect(following).toBe(3);
      await labHostapd.stop();
      await expect.poll(() => childrenNamed(process.pid, 'hostapd_cli'), POLL).toHaveLength(following - 1);
      lab.hostapd();
      await expect.poll(() => childrenNamed(process.pid, 'hostapd_cli'), POLL).toHaveLength(following);
      const before = events.filter((event) => event.kind === 'station.connected' && event.chute === 'lab').length;
      const phone = await supplicant(lab.link.b);
      await expect.poll(() => events.filter((event) => event.kind === 'station.connected' && event.chute === 'lab').length, POLL).toBe(before + 1);
      await phone.stop();
    }, 60_000);

    it('stop ends every hostapd_cli of the sources and removes their folders', async () => {
      await sources!.stop();
      expect(await childrenNamed(process.pid, 'hostapd_cli')).toEqual([]);
      expect((await readdir(os.tmpdir())).filter((name) => name.startsWith(`chutebox-hostapd-events-${process.pid}-`))).toEqual([]);
    });
  },
);

const dockerUnavailable = dockerUnavailableReason();
const dockerSkipped = dockerUnavailable !== null && !process.env.CHUTEBOX_REQUIRE_DOCKER;
if (dockerSkipped)
  console.warn(`runtime/events/sources/index.test.ts (Docker Engine) skipped: ${dockerUnavailable}; set CHUTEBOX_REQUIRE_DOCKER=1 to make this a failure`);

describe.skipIf(dockerSkipped)(`startHostEventSources with a Docker Engine${dockerSkipped ? ` (skipped: ${dockerUnavailable})` : ''}`, () => {
  let engine: Dockerd | undefined;
  let sources: EventSource | undefined;
  let image: string;
  const { events, publish } = published();
  const states = () => events.filter((event) => event.kind === 'chute.state');
  const statesOf = (chute: string) => states().filter((event) => event.chute === chute);

  beforeAll(async () => {
    if (dockerUnavailable !== null) throw new Error(`no Docker Engine here: ${dockerUnavailable}`);
    engine = await startDockerd();
    // Ends at once on docker stop's SIGTERM, with 143 (a plain sleep as pid 1 ignores it).
    image = await engine.importBusybox('chutebox-events', 'sleeper', { cmd: ['sh', '-c', 'trap "exit 143" TERM; sleep 3600 & wait'] });
    const stateDir = await temp.folder('engine');
    await installChute(stateDir, 'app', image, {}, { state: 'running' });
    const services = { web: { type: 'image', image }, db: { type: 'image', image } };
    await installChute(stateDir, 'pair', image, {}, { state: 'running', main_service: 'web', services });
    const network = hostNetworks(networkTools()).network;
    sources = startHostEventSources(
      {
        stateDir,
        socketPath: engine.socket,
        chutes: chuteStore(path.join(stateDir, 'chutes'), JSON_FORMAT),
        network,
        engine: engineClient(),
        engineRetry: { firstMs: 100, maxMs: 1000 },
      },
      publish,
    );
    await sources.ready;
  }, 90_000);

  afterAll(async () => {
    await sources?.stop();
    await engine?.stop();
  }, 60_000);

  it("a chute's container that starts is chute.state running; stopped by the engine, stopped; ending by itself with an error, failed", async () => {
    const container = await engine!.docker.createContainer({
      name: 'chute-app',
      Image: image,
      Labels: { [CHUTE_LABEL]: 'app' },
      HostConfig: { NetworkMode: 'none' },
    });
    await container.start();
    const change = (state: string, previous: string) => ({ kind: 'chute.state', chute: 'app', state, previous });
    await expect.poll(states, POLL).toEqual([change('running', 'missing')]);
    await container.stop({ t: 10 });
    await expect.poll(states, POLL).toEqual([change('running', 'missing'), change('stopped', 'running')]);
    await container.start();
    await expect.poll(states, POLL).toHaveLength(3);
    // The chute's own process ends with 143, which the engine did not ask for: the chute failed.
    const exec = await container.exec({ Cmd: ['sh', '-c', 'kill -TERM 1'] });
    await exec.start({});
    await expect
      .poll(states, POLL)
      .toEqual([change('running', 'missing'), change('stopped', 'running'), change('running', 'stopped'), change('failed', 'running')]);
  }, 60_000);

  it("a chute of two services is chute.state running once both run, and failed when the other service's container ends with an error", async () => {
    const create = (name: string, labels: Record<string, string>, networkMode: string) =>
      engine!.docker.createContainer({ name, Image: image, Labels: { [CHUTE_LABEL]: 'pair', ...labels }, HostConfig: { NetworkMode: networkMode } });
    const web = await create('chute-pair', { [MAIN_SERVICE_LABEL]: 'web' }, 'none');
    await web.start();
    const change = (state: string, previous: string) => ({ kind: 'chute.state', chute: 'pair', state, previous });
    const db = await create('chute-pair-db', { [SERVICE_LABEL]: 'db' }, `container:${web.id}`);
    await db.start();
    await expect.poll(() => statesOf('pair'), POLL).toEqual([change('running', 'missing')]);
    const exec = await db.exec({ Cmd: ['sh', '-c', 'kill -TERM 1'] });
    await exec.start({});
    await expect.poll(() => statesOf('pair'), POLL).toEqual([change('running', 'missing'), change('failed', 'running')]);
    await db.remove({ force: true });
    await web.remove({ force: true });
  }, 60_000);
});
