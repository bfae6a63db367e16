import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeviceFault } from '../emulator/faults/device-fault.ts';
import { writeChute } from './support/chute-state.ts';
import { problem, problemSeen, useFaultedEmulator } from './support/device-faults.ts';
import { findOnPath } from './support/dockerd.ts';
import { writeSilentIw } from './support/fake-iw.ts';
import { callApi } from './support/http-client.ts';
import { createNamespacePair, networkUnavailableReason, startDaemon, waitUntil, type Daemon, type NamespacePair } from './support/netns.ts';
import { serveArgs, useChutebox } from './support/spawn.ts';
import { useTempDir } from './support/temp-dir.ts';
import { writeScript } from './support/tool-scripts.ts';

/*
 * The device faults of a chute network answer what serve answers in the same real situation: serve
 * runs with stand-ins for iw and hostapd_cli that fail or hang as the real tools do, and with a real
 * hostapd (wired driver, in a network namespace) that is killed; the emulator's default scenario
 * runs with the fault. Each check runs on both, the host interface and the control socket masked.
 */

const temp = useTempDir('chutebox-device-faults-networks-');
const start = useChutebox();
const emulator = useFaultedEmulator({ toolTimeoutMs: 1000 });

const CHUTE = 'hello-world';
const WIFI = `/chutes/${CHUTE}/networks/wifi`;
const NET = { wifi: { type: 'wifi', intfName: 'wlan0', ssid: 'hello-world' } };
const STATION = '02:00:00:00:00:01';
/** The host-specific parts of the emulator's hello-world/wifi, as its scenario records them. */
const EMULATED = { '<socket>': '/var/run/hostapd/phy1-ap1', '<interface>': 'phy1-ap1' };

/** What a router answers, with its host-specific parts masked. */
type Router = { url: string; masks: Record<string, string> };

/** `chutebox serve` with the chute's wifi network on `hostInterface` and `socket` (default: a socket nobody made), and `flags`. */
async function serveNetwork(name: string, flags: string[], hostInterface = 'vwlan0', socket?: string): Promise<Router> {
  const stateDir = await temp.folder(`state-${name}`);
  const hostapdControl = socket ?? path.join(stateDir, 'networks', 'hostapd', hostInterface);
  await writeChute(stateDir, CHUTE, NET, { wifi: { hostInterface, hostapdControl, leaseFile: path.join(stateDir, 'wifi.leases') } });
  const server = await start(serveArgs(stateDir, path.join(stateDir, 'no-engine.sock'), flags));
  return { url: server.url, masks: { '<socket>': hostapdControl, '<interface>': hostInterface } };
}

/** The emulator with `fault` active. */
async function emulatedWith(fault: DeviceFault): Promise<Router> {
  const running = emulator();
  await running.faults.add(fault);
  return { url: running.url, masks: EMULATED };
}

const seen = async (router: Router, method: string, endpoint: string, body?: unknown) =>
  problemSeen(await callApi(router, method, endpoint, body), router.masks);

/** `radio-gone`: iw knows no such device, and hostapd's control socket went with the radio. */
async function checkRadioGone(router: Router): Promise<void> {
  const gone = 'hostapd control socket <socket> does not exist (is hostapd running for this network?)';
  const stations = problem(
    503,
    `host interface <interface> does not exist (iw: command failed: No such device (-19)); nor can hostapd list the stations: ${gone}`,
  );
  expect(await seen(router, 'GET', `${WIFI}/stations`)).toEqual(stations);
  expect(await seen(router, 'GET', `${WIFI}/stations/${STATION}`)).toEqual(stations);
  expect(await seen(router, 'DELETE', `${WIFI}/stations/${STATION}`)).toEqual(stations);
  expect(await seen(router, 'GET', `${WIFI}/hostapd_status`)).toEqual(problem(503, gone));
  expect(await seen(router, 'GET', `${WIFI}/ssid`)).toEqual(problem(503, gone));
}

/** `iw-hang`: iw runs past the tool timeout (1 s) and is stopped. */
async function checkIwHang(router: Router): Promise<void> {
  const late = problem(504, 'iw did not finish within 1 s and was stopped');
  expect(await seen(router, 'GET', `${WIFI}/stations`)).toEqual(late);
  expect(await seen(router, 'GET', `${WIFI}/stations/${STATION}`)).toEqual(late);
}

/** `hostapd-cli-hang`: hostapd_cli runs past the tool timeout (1 s), for a read and for a change of the SSID. */
async function checkHostapdCliHang(router: Router): Promise<void> {
  const late = problem(504, 'hostapd did not answer on its control socket <socket> within 1 s');
  expect(await seen(router, 'GET', `${WIFI}/hostapd_status`)).toEqual(late);
  expect(await seen(router, 'GET', `${WIFI}/ssid`)).toEqual(late);
  expect(await seen(router, 'PUT', `${WIFI}/ssid`, { ssid: 'lab' })).toEqual(late);
}

/** `hostapd-down`: hostapd was killed, its control socket is left and nobody answers on it. */
async function checkHostapdDown(router: Router): Promise<void> {
  const killed = problem(503, 'hostapd control socket <socket> does not answer: no hostapd is listening on it');
  expect(await seen(router, 'GET', `${WIFI}/hostapd_status`)).toEqual(killed);
  expect(await seen(router, 'GET', `${WIFI}/ssid`)).toEqual(killed);
  expect(await seen(router, 'PUT', `${WIFI}/ssid`, { ssid: 'lab' })).toEqual(killed);
}

const noHostapdCli = findOnPath('hostapd_cli') === null && !process.env.CHUTEBOX_REQUIRE_NETWORK;
if (noHostapdCli)
  console.warn(
    'test/device-faults-networks.test.ts: radio-gone on serve is skipped: hostapd_cli is not on PATH (apt-get install -y hostapd); set CHUTEBOX_REQUIRE_NETWORK=1 to make this a failure',
  );

describe('a chute network under a device fault answers as serve does in the real situation', () => {
  it.skipIf(noHostapdCli)('radio-gone: serve with an iw that knows no such device and no hostapd for the network', async () => {
    const iw = await writeScript(await temp.folder('iw-gone'), 'iw', 'echo "command failed: No such device (-19)" >&2; exit 237');
    await checkRadioGone(await serveNetwork('radio-gone', ['--iw', iw]));
  });

  it('radio-gone: the emulator, the radio of the network gone', async () => {
    await checkRadioGone(await emulatedWith({ device: 'radio-gone', radio: 'phy1' }));
  });

  it('iw-hang: serve with an iw that never answers, and the emulator', async () => {
    await checkIwHang(await serveNetwork('iw-hang', ['--iw', await writeSilentIw(await temp.folder('iw-silent')), '--tool-timeout', '1']));
    await checkIwHang(await emulatedWith({ device: 'iw-hang' }));
  });

  it('hostapd-cli-hang: serve with a hostapd_cli that never answers, and the emulator', async () => {
    const hostapdCli = await writeScript(await temp.folder('cli-silent'), 'hostapd_cli', 'exec sleep 60');
    await checkHostapdCliHang(await serveNetwork('cli-hang', ['--hostapd-cli', hostapdCli, '--tool-timeout', '1']));
    await checkHostapdCliHang(await emulatedWith({ device: 'hostapd-cli-hang' }));
  });

  it('hostapd-down: the emulator, hostapd of the network killed', async () => {
    await checkHostapdDown(await emulatedWith({ device: 'hostapd-down', chute: CHUTE, network: 'wifi' }));
  });
});

/* A real hostapd needs root (network namespaces) and the lab's programs: skipped without, unless CHUTEBOX_REQUIRE_NETWORK is set. */
const unavailable = networkUnavailableReason();
const skipped = unavailable !== null && !process.env.CHUTEBOX_REQUIRE_NETWORK;
if (skipped)
  console.warn(`test/device-faults-networks.test.ts (a real hostapd) skipped: ${unavailable}; set CHUTEBOX_REQUIRE_NETWORK=1 to make this a failure`);

describe.skipIf(skipped)(`hostapd-down on serve: a real hostapd killed under the network${skipped ? ` (skipped: ${unavailable})` : ''}`, () => {
  let namespaces: NamespacePair | undefined;
  let hostapd: Daemon | undefined;
  let router: Router;

  beforeAll(async () => {
    if (unavailable !== null) throw new Error(`no network namespaces here: ${unavailable}`);
    const dir = await temp.folder('hostapd');
    namespaces = createNamespacePair('cbfault');
    const link = namespaces.link(`cbf${process.pid.toString(36)}`);
    await writeFile(path.join(dir, 'eap_users'), '"probe" MD5 "probe-secret"\n');
    const conf = [`interface=${link.a}`, 'driver=wired', 'ieee8021x=1', 'eap_server=1', `eap_user_file=${path.join(dir, 'eap_users')}`];
    await writeFile(path.join(dir, 'hostapd.conf'), [...conf, `ctrl_interface=${path.join(dir, 'control')}`, 'ssid=hello-world', ''].join('\n'));
    hostapd = startDaemon(namespaces.a, 'hostapd', [path.join(dir, 'hostapd.conf')], path.join(dir, 'hostapd.log'));
    router = await serveNetwork('hostapd-down', [], link.a, path.join(dir, 'control', link.a));
    await waitUntil(
      'hostapd answering STATUS through serve',
      async () => (await callApi(router, 'GET', `${WIFI}/hostapd_status`)).status === 200,
      20_000,
      hostapd.output,
    );
  });

  afterAll(async () => {
    await hostapd?.stop();
    namespaces?.remove();
  });

  it('answers as the emulator does once hostapd is killed (SIGKILL, by its pid)', async () => {
    process.kill(hostapd!.pid, 'SIGKILL');
    await waitUntil('hostapd gone', () => hostapd!.exited() !== null);
    await checkHostapdDown(router);
  });
});
