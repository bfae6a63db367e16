import { spawnSync } from 'node:child_process';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChangeAccepted, ChuteRecord, SsidRecord } from '../functions/chutes/schemas.ts';
import type { ChangeRecord } from '../functions/core/device/index.ts';
import type { Problem } from '../functions/core/problem.ts';
import type { CachedNetworks } from './support/chute-state.ts';
import { dockerUnavailableReason, findOnPath, startDockerd, type Dockerd } from './support/dockerd.ts';
import {
  apiIn as api,
  createNamespacePair,
  joinAsStation,
  networkUnavailableReason,
  nodeIn,
  processesWith,
  waitUntil,
  type Daemon,
  type NamespacePair,
} from './support/netns.ts';
import { callApi, changeOver } from './support/http-client.ts';
import { CLEAN_ENV, CLI, serveArgs, startChutebox, type Started } from './support/spawn.ts';
import { useTempDir } from './support/temp-dir.ts';
import { stopRecorded } from '../runtime/tools/supervisor.ts';

/*
 * The whole router in a network namespace of its own (R), with its own Docker Engine, and `serve` in
 * it with a lab link standing in for the radio: a veth pair whose other end is in a station
 * namespace (S). The station authenticates with wpa_supplicant (wired, EAP-MD5) and asks for a lease
 * with busybox udhcpc. Nothing touches the machine's own namespace: every interface, address and
 * process is in R or S, and both go at the end.
 *
 * A third namespace (W) stands for the WAN, linked to R. Needs root, ip, hostapd, dnsmasq,
 * wpa_supplicant, busybox, dockerd, nft and nsenter; `.ci/run` installs
 * them and sets CHUTEBOX_REQUIRE_NETWORK and CHUTEBOX_REQUIRE_DOCKER, which turn a skip into a failure.
 */
const unavailable =
  networkUnavailableReason() ??
  dockerUnavailableReason() ??
  (['nft', 'nsenter'].some((program) => findOnPath(program) === null) ? 'nft or nsenter is not on PATH (apt-get install -y nftables util-linux)' : null);
const skipped = unavailable !== null && !process.env.CHUTEBOX_REQUIRE_NETWORK && !process.env.CHUTEBOX_REQUIRE_DOCKER;
if (skipped) console.warn(`test/chute-networks.test.ts skipped: ${unavailable}; set CHUTEBOX_REQUIRE_NETWORK=1 to make this a failure`);

const temp = useTempDir('chutebox-chute-networks-');

const KEY = 'lab-passphrase';
const NET = { wifi: { type: 'wifi', intfName: 'wlan0', ssid: 'lab', key: KEY, dhcp: { start: 100, limit: 10, lease: '1h' } } };

/**
 * GETs `url` from inside namespace `ns` until it answers 200 or `ms` have passed since the client
 * started (its own start-up, slow on a loaded machine, is not counted), and answers the last status
 * (0 when no answer came in time), its text and every try.
 */
function getWithin(ns: string, url: string, ms: number): Promise<{ status: number; text: string; tries: string[] }> {
  const script =
    'const [url, ms] = process.argv.slice(1); const start = Date.now(); const tries = [];' +
    '(async () => { for (;;) { let status = 0, text = "";' +
    ' try { const r = await fetch(url, { signal: AbortSignal.timeout(Math.max(1, start + Number(ms) - Date.now())) }); status = r.status; text = await r.text(); }' +
    ' catch (e) { text = String(e); }' +
    ' tries.push(Date.now() - start + " ms: " + status + " " + text.slice(0, 200));' +
    ' if (status === 200 || Date.now() - start >= Number(ms)) return console.log(JSON.stringify({ status, text, tries }));' +
    ' await new Promise((resolve) => setTimeout(resolve, 100)); } })();';
  return nodeIn(ns, script, [url, String(ms)], `GET ${url}`);
}

/** One event of `GET /api/v1/events` as a client reads it: its kind and its JSON data. */
interface StreamedEvent {
  event: string;
  data: Record<string, unknown>;
}

/**
 * The events of serve's stream at `url` (with `?lastEventId=0`: what the device kept too) read from
 * inside namespace `ns` as `curl -N` would, until one of each of `kinds` came or 20 s passed.
 */
function eventsIn(ns: string, url: string, kinds: string[]): Promise<StreamedEvent[]> {
  const script =
    'const [url, kinds] = process.argv.slice(1); const wanted = kinds.split(","); let text = "";' +
    'const done = () => { const events = text.split("\\n\\n").map((block) => ({ event: /^event: (.*)$/m.exec(block)?.[1], data: /^data: (.*)$/m.exec(block)?.[1] })).filter((e) => e.event && e.data).map((e) => ({ event: e.event, data: JSON.parse(e.data) }));' +
    ' console.log(JSON.stringify(events)); process.exit(0); };' +
    'setTimeout(done, 20000);' +
    'fetch(url).then(async (r) => { const decoder = new TextDecoder(); for await (const chunk of r.body) { text += decoder.decode(chunk, { stream: true });' +
    ' if (wanted.every((kind) => text.includes("event: " + kind + "\\n"))) done(); } }, (e) => { console.error(e); process.exit(1); });';
  return nodeIn<StreamedEvent[]>(ns, script, [url, kinds.join(',')], `GET ${url}`);
}

describe.skipIf(skipped)(`serve builds the networks a chute asks for, in a router namespace${skipped ? ` (skipped: ${unavailable})` : ''}`, () => {
  let dir: string;
  let stateDir: string;
  let namespaces: NamespacePair | undefined;
  let engine: Dockerd | undefined;
  let server: Started | undefined;
  let router: string;
  let station: string;
  let lab: { a: string; b: string };
  let linksBefore: string;
  let wan: string | undefined;
  const daemons: Daemon[] = [];

  const serve = () =>
    startChutebox(
      ['netns', 'exec', router, process.execPath, CLI, ...serveArgs(stateDir, engine!.socket)],
      { ...CLEAN_ENV, CHUTEBOX_LAB_LINK: lab.a, CHUTEBOX_CONTAINER_NETWORK: 'none' },
      { command: 'ip' },
    );
  const call = <T = unknown>(method: string, endpoint: string, body?: unknown) => api<T>(router, `${server!.url}/api/v1${endpoint}`, method, body);
  /** Submits a change and answers its record once it is over. */
  async function change(method: string, endpoint: string, body?: unknown) {
    const accepted = await call<ChangeAccepted>(method, endpoint, body);
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(200);
    let record: ChangeRecord | undefined;
    await waitUntil(`change ${accepted.body.change_id} over`, async () => {
      record = (await call<ChangeRecord>('GET', `/changes/${accepted.body.change_id}`)).body;
      return record.state === 'succeeded' || record.state === 'failed';
    });
    return record!;
  }
  const links = () =>
    namespaces!
      .exec(router, 'ip', ['-o', 'link', 'show'])
      .replace(/^\d+: /gm, '')
      .split('\n')
      .map((line) => line.split(':')[0])
      .sort()
      .join(' ');
  /** Every file of serve's state dir but its folders, by path inside it, sorted. */
  const stateFiles = async () => {
    const entries = await readdir(stateDir, { recursive: true, withFileTypes: true });
    return entries
      .filter((entry) => !entry.isDirectory())
      .map((entry) => path.relative(stateDir, path.join(entry.parentPath, entry.name)))
      .sort();
  };
  let stateBefore: string[];
  const pidFiles = async () =>
    (await readdir(path.join(stateDir, 'networks', 'pids')).catch(() => [] as string[])).filter((file) => file.endsWith('.pid')).sort();

  beforeAll(async () => {
    if (unavailable !== null) throw new Error(`no router namespace here: ${unavailable}`);
    dir = await temp.folder('router');
    stateDir = path.join(dir, 'state');
    namespaces = createNamespacePair('chutebox-net');
    router = namespaces.a;
    station = namespaces.b;
    lab = namespaces.link(`cl${process.pid.toString(36)}`);
    // The WAN: 192.0.2.1 on R's side, 192.0.2.2 in W, which has no route back to the chute networks.
    wan = `${router}-w`;
    spawnSync('ip', ['netns', 'add', wan]);
    namespaces.exec(router, 'ip', ['link', 'add', 'wan0', 'type', 'veth', 'peer', 'name', 'wan1', 'netns', wan]);
    namespaces.exec(router, 'ip', ['address', 'add', '192.0.2.1/24', 'dev', 'wan0']);
    namespaces.exec(router, 'ip', ['link', 'set', 'wan0', 'up']);
    namespaces.exec(wan, 'ip', ['address', 'add', '192.0.2.2/24', 'dev', 'wan1']);
    namespaces.exec(wan, 'ip', ['link', 'set', 'wan1', 'up']);
    engine = await startDockerd({ netns: router });
    // A container that ends at once on docker stop's SIGTERM (a plain sleep as pid 1 ignores it).
    await engine.importBusybox('chutebox-net', 'sleeper', { cmd: ['sh', '-c', 'trap "exit 143" TERM; sleep 3600 & wait'] });
    // A chute page: busybox httpd on port 8000.
    await engine.importBusybox('chutebox-net', 'web', {
      cmd: ['sh', '-c', 'busybox mkdir -p /www; echo "chute page $((6 * 7))" > /www/index.html; trap "exit 143" TERM; busybox httpd -f -p 8000 -h /www & wait'],
    });
    linksBefore = links();
    server = await serve();
    stateBefore = await stateFiles();
  }, 90_000);

  afterAll(async () => {
    try {
      await server?.stop();
      // The daemons outlive serve by design (a restart adopts them): stop what is left by its pid files,
      // each only when its process is still the one recorded (a stale pid is never signalled).
      for (const file of await pidFiles()) await stopRecorded(path.join(stateDir, 'networks', 'pids', file), 1000);
      await Promise.all(daemons.map((started) => started.stop()));
    } finally {
      await engine?.stop();
      namespaces?.remove();
      if (wan !== undefined) spawnSync('ip', ['netns', 'del', wan]);
    }
  }, 90_000);

  it('install: the access point gets its interface with the host address, hostapd and dnsmasq, and the station a lease', async () => {
    const installed = await change('POST', '/chutes', { name: 'lab', image: 'chutebox-net:sleeper', config: { net: NET } });
    expect(installed.state, JSON.stringify(installed.messages)).toBe('succeeded');
    const { wifi } = (await call<CachedNetworks<'wifi'>>('GET', '/chutes/lab/cache')).body.networks;
    expect(wifi).toMatchObject({ ipv4Network: '10.128.0.0/24', gateway: '10.128.0.1' });
    expect(namespaces!.exec(router, 'ip', ['-o', 'address', 'show', 'dev', wifi.hostInterface])).toContain('10.128.0.1/24');
    expect(await pidFiles()).toEqual([`dnsmasq-${wifi.hostInterface}.pid`, `hostapd-${wifi.hostInterface}.pid`]);

    daemons.push(await joinAsStation(station, lab.b, KEY, dir));
    expect((await call('GET', '/chutes/lab/networks/wifi/hostapd_status')).body).toMatchObject({
      state: 'ENABLED',
      'bss[0]': wifi.hostInterface,
      'num_sta[0]': '1',
    });
    // iw cannot answer in a lab (a wired macvlan, no nl80211): the stations come from hostapd's all_sta.
    const stationMac = /link\/ether (\S+)/.exec(namespaces!.exec(station, 'ip', ['-o', 'link', 'show', 'dev', lab.b]))?.[1];
    expect((await call('GET', '/chutes/lab/networks/wifi/stations')).body).toContainEqual(expect.objectContaining({ mac_addr: stationMac, authorized: 'yes' }));

    // The station's DHCP client sets the address it is given, as a phone would.
    const script = path.join(dir, 'udhcpc.script');
    await writeFile(script, '#!/bin/sh\n[ "$1" = bound ] && busybox ip address add "$ip/$mask" dev "$interface"\nexit 0\n', { mode: 0o755 });
    namespaces!.exec(station, 'busybox', ['udhcpc', '-i', lab.b, '-f', '-n', '-q', '-t', '10', '-s', script, '-x', 'hostname:phone']);
    const leases = (await call<{ ip_addr: string }[]>('GET', '/chutes/lab/networks/wifi/leases')).body;
    expect(leases).toEqual([expect.objectContaining({ hostname: 'phone', ip_addr: expect.stringMatching(/^10\.128\.0\.(10[0-9])$/) })]);
    // The events stream told of both, from hostapd's control socket and dnsmasq's lease file.
    const events = await eventsIn(router, `${server!.url}/api/v1/events?lastEventId=0&chute=lab`, ['station.connected', 'lease.added']);
    expect(events).toContainEqual({ event: 'station.connected', data: expect.objectContaining({ chute: 'lab', network: 'wifi', mac: stationMac }) });
    expect(events).toContainEqual({
      event: 'lease.added',
      data: expect.objectContaining({ chute: 'lab', network: 'wifi', hostname: 'phone', ip: leases[0]!.ip_addr }),
    });

    // The chute has its own interface wlan0 with the chute's address, and the station reaches it.
    const [container] = await engine!.chuteContainers('lab');
    expect(namespaces!.exec(router, 'nsenter', ['-t', String(container!.State.Pid), '-n', 'ip', '-o', 'address', 'show', 'dev', 'wlan0'])).toContain(
      '10.128.0.2/24',
    );
    expect(namespaces!.exec(station, 'busybox', ['ping', '-c', '1', '-W', '3', '10.128.0.2'])).toContain('1 packets received');
  }, 120_000);

  it("firewall: a chute network reaches the WAN through NAT, and another chute's network cannot reach it", async () => {
    const other = await change('POST', '/chutes', {
      name: 'other',
      image: 'chutebox-net:sleeper',
      config: { net: { guests: { ...NET.wifi, ssid: 'other' } } },
    });
    expect(other.state, JSON.stringify(other.messages)).toBe('succeeded');
    expect((await call<CachedNetworks<'guests'>>('GET', '/chutes/other/cache')).body.networks.guests).toMatchObject({
      ipv4Network: '10.128.1.0/24',
      chuteAddress: '10.128.1.2',
    });
    const pidOf = async (chute: string) => String((await engine!.chuteContainers(chute))[0]!.State.Pid);
    const inChute = async (chute: string, command: string, args: string[]) =>
      spawnSync('ip', ['netns', 'exec', router, 'nsenter', '-t', await pidOf(chute), '-n', command, ...args], { encoding: 'utf8', timeout: 20_000 });
    // W has no route back to 10.128.0.0/24: a reply comes only because R masquerades the chute's address.
    expect((await inChute('lab', 'ip', ['route', 'add', '192.0.2.0/24', 'via', '10.128.0.1'])).status).toBe(0);
    expect((await inChute('lab', 'busybox', ['ping', '-c', '1', '-W', '3', '192.0.2.2'])).stdout).toContain('1 packets received');
    // Routes both ways through R: only the firewall stands between the two chutes.
    expect((await inChute('lab', 'ip', ['route', 'add', '10.128.1.0/24', 'via', '10.128.0.1'])).status).toBe(0);
    expect((await inChute('other', 'ip', ['route', 'add', '10.128.0.0/24', 'via', '10.128.1.1'])).status).toBe(0);
    expect((await inChute('other', 'busybox', ['ping', '-c', '1', '-W', '2', '10.128.0.2'])).stdout).toContain('0 packets received');
    expect((await change('DELETE', '/chutes/other')).state).toBe('succeeded');
    const ruleset = namespaces!.exec(router, 'nft', ['list', 'ruleset']);
    expect(ruleset).toContain('comment "lab/wifi"');
    expect(ruleset).not.toContain('other/guests');
  }, 120_000);

  it('after serve is killed, the next serve adopts the daemons it left: no duplicate, the same pids', async () => {
    const { wifi } = (await call<CachedNetworks<'wifi'>>('GET', '/chutes/lab/cache')).body.networks;
    const before = [...(await processesWith(`${wifi.hostInterface}.conf`)), ...(await processesWith(`--interface=${wifi.hostInterface}`))].sort();
    expect(before).toHaveLength(2);
    process.kill(server!.child.pid!, 'SIGKILL');
    await server!.stop();
    // Meanwhile the chute lost its interface: the next serve makes it again.
    const [container] = await engine!.chuteContainers('lab');
    const inChute = (...args: string[]) => ['-t', String(container!.State.Pid), '-n', 'ip', ...args];
    namespaces!.exec(router, 'nsenter', inChute('link', 'delete', 'dev', 'wlan0'));
    server = await serve();
    await waitUntil('the chute reads running again', async () => (await call<ChuteRecord>('GET', '/chutes/lab')).body?.state === 'running');
    const after = [...(await processesWith(`${wifi.hostInterface}.conf`)), ...(await processesWith(`--interface=${wifi.hostInterface}`))].sort();
    expect(after).toEqual(before);
    expect((await call('GET', '/chutes/lab/networks/wifi/hostapd_status')).body).toMatchObject({ state: 'ENABLED' });
    await waitUntil('the chute has wlan0 again', () => namespaces!.exec(router, 'nsenter', inChute('-o', 'address', 'show')).includes('10.128.0.2/24'));
  }, 120_000);

  it('PUT config with a new SSID restarts hostapd alone: dnsmasq and the lease file stay', async () => {
    const { wifi } = (await call<CachedNetworks<'wifi'>>('GET', '/chutes/lab/cache')).body.networks;
    const [hostapdBefore] = await processesWith(`${wifi.hostInterface}.conf`);
    const [dnsmasqBefore] = await processesWith(`--interface=${wifi.hostInterface}`);
    const updated = await change('PUT', '/chutes/lab/config', { net: { wifi: { ...NET.wifi, ssid: 'renamed' } } });
    expect(updated.state, JSON.stringify(updated.messages)).toBe('succeeded');
    const [hostapdAfter] = await processesWith(`${wifi.hostInterface}.conf`);
    expect(hostapdAfter).not.toBe(hostapdBefore);
    expect(await processesWith(`--interface=${wifi.hostInterface}`)).toEqual([dnsmasqBefore]);
    expect((await call<SsidRecord>('GET', '/chutes/lab/networks/wifi/ssid')).body.ssid).toBe('renamed');
    expect((await call('GET', '/chutes/lab/networks/wifi/leases')).body).toHaveLength(1);
  }, 120_000);

  it("stop removes the chute's daemons and interface; start makes them again", async () => {
    const { wifi } = (await call<CachedNetworks<'wifi'>>('GET', '/chutes/lab/cache')).body.networks;
    expect((await change('POST', '/chutes/lab/stop')).state).toBe('succeeded');
    // The engine's event stream told of the stop.
    const stopped = await eventsIn(router, `${server!.url}/api/v1/events?lastEventId=0&kind=chute.state&chute=lab`, ['chute.state']);
    expect(stopped.at(-1)).toEqual({ event: 'chute.state', data: expect.objectContaining({ chute: 'lab', state: 'stopped', previous: 'running' }) });
    expect(await pidFiles()).toEqual([]);
    expect(await processesWith(`${wifi.hostInterface}.conf`)).toEqual([]);
    expect(links()).toBe(linksBefore);
    expect((await change('POST', '/chutes/lab/start')).state).toBe('succeeded');
    expect(namespaces!.exec(router, 'ip', ['-o', 'address', 'show', 'dev', wifi.hostInterface])).toContain('10.128.0.1/24');
    const [container] = await engine!.chuteContainers('lab');
    expect(namespaces!.exec(router, 'nsenter', ['-t', String(container!.State.Pid), '-n', 'ip', '-o', 'address', 'show', 'dev', 'wlan0'])).toContain(
      '10.128.0.2/24',
    );
    expect(await processesWith(`${wifi.hostInterface}.conf`)).toHaveLength(1);
    // A chute that stops and starts again keeps its leases, as dnsmasq on a router keeps them across its restarts.
    expect((await call('GET', '/chutes/lab/networks/wifi/leases')).body).toEqual([expect.objectContaining({ hostname: 'phone' })]);
  }, 120_000);

  it('delete leaves the router namespace and the state dir as they were before the install: no interface, daemon, firewall rule or lease', async () => {
    const { wifi } = (await call<CachedNetworks<'wifi'>>('GET', '/chutes/lab/cache')).body.networks;
    expect((await change('DELETE', '/chutes/lab')).state).toBe('succeeded');
    expect(await pidFiles()).toEqual([]);
    expect(links()).toBe(linksBefore);
    expect(namespaces!.exec(router, 'nft', ['list', 'chain', 'ip', 'chutebox', 'postrouting'])).not.toContain('comment');
    // What is new belongs to the device, not to the chute: the change log, and what every chute shares and
    // each change writes again (chutebox's nftables table, the rendered system configuration), which no longer names it.
    const shared = (file: string) => file.startsWith('changes/') || file.startsWith('pdconf/') || file === 'networks/firewall.nft';
    expect((await stateFiles()).filter((file) => !shared(file))).toEqual(stateBefore.filter((file) => !shared(file)));
    for (const file of (await stateFiles()).filter((file) => shared(file) && !file.startsWith('changes/'))) {
      expect(await readFile(path.join(stateDir, file), 'utf8'), file).not.toContain(wifi.hostInterface);
    }
    // A chute installed again under the same name starts without the leases of the one before.
    expect((await change('POST', '/chutes', { name: 'lab', image: 'chutebox-net:sleeper', config: { net: NET } })).state).toBe('succeeded');
    expect((await call('GET', '/chutes/lab/networks/wifi/leases')).body).toEqual([]);
    expect((await change('DELETE', '/chutes/lab')).state).toBe('succeeded');
  }, 120_000);

  it('a VLAN network (here through the lab link, as this kernel has no 802.1Q) gets its interface, dnsmasq and the chute its vlan0', async () => {
    const net = { staff: { type: 'vlan', intfName: 'vlan0', vlan_id: 20, dhcp: { start: 50, limit: 5, lease: '1h' } } };
    const installed = await change('POST', '/chutes', { name: 'office', image: 'chutebox-net:sleeper', config: { net } });
    expect(installed.state, JSON.stringify(installed.messages)).toBe('succeeded');
    const { staff } = (await call<CachedNetworks<'staff'>>('GET', '/chutes/office/cache')).body.networks;
    expect(staff).toMatchObject({ hostInterface: 'br-lan.20', vlanId: 20, ipv4Network: '10.128.0.0/24', hostapdControl: null });
    expect(namespaces!.exec(router, 'ip', ['-o', 'address', 'show', 'dev', 'br-lan.20'])).toContain('10.128.0.1/24');
    const script = path.join(dir, 'udhcpc.script');
    namespaces!.exec(station, 'busybox', ['udhcpc', '-i', lab.b, '-f', '-n', '-q', '-t', '10', '-s', script, '-x', 'hostname:desk']);
    expect((await call('GET', '/chutes/office/networks/staff/leases')).body).toEqual([
      expect.objectContaining({ hostname: 'desk', ip_addr: expect.stringMatching(/^10\.128\.0\.5[0-4]$/) }),
    ]);
    const [container] = await engine!.chuteContainers('office');
    expect(namespaces!.exec(router, 'nsenter', ['-t', String(container!.State.Pid), '-n', 'ip', '-o', 'address', 'show', 'dev', 'vlan0'])).toContain(
      '10.128.0.2/24',
    );
    expect((await change('DELETE', '/chutes/office')).state).toBe('succeeded');
    expect(links()).toBe(linksBefore);
  }, 120_000);

  it("web.port: the chute's page answers at /chutes/<chute>/ through the proxy; 503 when it does not run, 502 when nothing answers", async () => {
    // The pool's first subnet again, which the earlier chutes held: their interfaces left their containers
    // before these stopped, so nothing of theirs answers for 10.128.0.2 any more (decision 0028).
    const config = { web: { port: 8000 }, net: { wifi: { ...NET.wifi, ssid: 'site' } } };
    expect((await change('POST', '/chutes', { name: 'site', image: 'chutebox-net:web', config })).state).toBe('succeeded');
    // The change is over once the container runs; httpd in it takes a moment to listen.
    await waitUntil('the chute page answers', async () => (await api(router, `${server!.url}/chutes/site/`, 'GET')).status === 200);
    const page = await api(router, `${server!.url}/chutes/site/index.html?x=1`, 'GET');
    expect(page).toMatchObject({ status: 200, body: 'chute page 42\n' });
    expect((await api(router, `${server!.url}/chutes/site`, 'GET')).body).toBe('chute page 42\n');
    expect((await change('POST', '/chutes/site/stop')).state).toBe('succeeded');
    const stopped = await api<Problem>(router, `${server!.url}/chutes/site/`, 'GET');
    expect(stopped).toMatchObject({ status: 503, type: 'application/problem+json' });
    expect(stopped.body.detail).toBe('chute site is not running: its web page at port 8000 cannot be reached');
    expect((await change('PUT', '/chutes/site/config', { ...config, web: { port: 8001 } })).state).toBe('succeeded');
    expect((await change('POST', '/chutes/site/start')).state).toBe('succeeded');
    const silent = await api<Problem>(router, `${server!.url}/chutes/site/`, 'GET');
    expect(silent).toMatchObject({ status: 502, type: 'application/problem+json' });
    expect(silent.body.detail).toMatch(/^chute site does not answer on port 8001 \(10\.128\.0\.2\)/);
    expect((await change('DELETE', '/chutes/site')).state).toBe('succeeded');
    expect(links()).toBe(linksBefore);
  }, 120_000);

  it("restart and PUT config: the chute's page answers at once after the change, though its address moved to a new MAC", async () => {
    const config = { web: { port: 8000 }, net: { wifi: { ...NET.wifi, ssid: 'page' } } };
    expect((await change('POST', '/chutes', { name: 'page', image: 'chutebox-net:web', config })).state).toBe('succeeded');
    const url = `${server!.url}/chutes/page/`;
    // The change is over once the container runs; httpd in it takes a moment to listen.
    expect((await getWithin(router, url, 20_000)).status).toBe(200);
    const macOf = async () => {
      const [container] = await engine!.chuteContainers('page');
      return /link\/ether (\S+)/.exec(
        namespaces!.exec(router, 'nsenter', ['-t', String(container!.State.Pid), '-n', 'ip', '-o', 'link', 'show', 'dev', 'wlan0']),
      )?.[1];
    };
    const before = await macOf();
    for (const [what, run] of [
      ['restart', () => change('POST', '/chutes/page/restart')],
      ['PUT config', () => change('PUT', '/chutes/page/config', { ...config, net: { wifi: { ...NET.wifi, ssid: 'page2' } } })],
    ] as const) {
      expect((await run()).state, what).toBe('succeeded');
      const answer = await getWithin(router, url, 2000);
      expect({ what, status: answer.status, text: answer.text }, answer.tries.join('; ')).toEqual({ what, status: 200, text: 'chute page 42\n' });
    }
    expect(await macOf(), 'the chute interface is a new one, with a new MAC').not.toBe(before);
    expect((await change('DELETE', '/chutes/page')).state).toBe('succeeded');
    expect(links()).toBe(linksBefore);
  }, 120_000);

  it('the emulator answers the networks of a chute installed on it as serve does: the same endpoints, statuses and fields', async () => {
    const install = { name: 'twin', image: 'chutebox-net:sleeper', config: { net: { wifi: { ...NET.wifi, ssid: 'twin' } } } };
    expect((await change('POST', '/chutes', install)).state).toBe('succeeded');
    const emulator = await startChutebox(['emulate', '--port', '0', '--no-auth', '--change-delay', '0']);
    try {
      expect((await changeOver(emulator, 'POST', '/chutes', install)).state).toBe('succeeded');
      const answers = async (endpoint: string) => {
        const [device, emulated] = [await call<Record<string, unknown>>('GET', endpoint), await callApi<Record<string, unknown>>(emulator, 'GET', endpoint)];
        expect([endpoint, emulated.status, emulated.type], JSON.stringify(emulated.body)).toEqual([endpoint, device.status, device.type]);
        return { device: device.body, emulated: emulated.body };
      };
      const ssid = await answers('/chutes/twin/networks/wifi/ssid');
      expect(Object.keys(ssid.emulated).sort()).toEqual(Object.keys(ssid.device).sort());
      expect(ssid.emulated.ssid).toBe(ssid.device.ssid);
      // serve's hostapd runs the wired driver (a lab link), which has no radio fields; the emulator's a radio.
      const status = await answers('/chutes/twin/networks/wifi/hostapd_status');
      expect(Object.keys(status.emulated)).toEqual(expect.arrayContaining(Object.keys(status.device)));
      for (const field of ['state', 'ssid[0]', 'beacon_int', 'dtim_period', 'cac_time_left_seconds'])
        expect(status.emulated[field], field).toBe(status.device[field]);
      for (const endpoint of ['stations', 'clients', 'leases']) {
        const listed = await answers(`/chutes/twin/networks/wifi/${endpoint}`);
        expect([endpoint, Array.isArray(listed.device), Array.isArray(listed.emulated)]).toEqual([endpoint, true, true]);
      }
      expect((await changeOver(emulator, 'DELETE', '/chutes/twin')).state).toBe('succeeded');
    } finally {
      await emulator.stop();
    }
    expect((await change('DELETE', '/chutes/twin')).state).toBe('succeeded');
    expect(links()).toBe(linksBefore);
  }, 120_000);
});
