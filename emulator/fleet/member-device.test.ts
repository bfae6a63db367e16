import { cp, mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { Device } from '../../functions/core/device/index.ts';
import * as chuteCache from '../../functions/chutes/cache.get.ts';
import * as chuteConfig from '../../functions/chutes/config.get.ts';
import * as pdid from '../../functions/config/pdid.get.ts';
import * as provision from '../../functions/config/provision.post.ts';
import * as hardware from '../../functions/info/hardware.get.ts';
import * as hostapdStatus from '../../functions/networks/hostapd-status.get.ts';
import * as leases from '../../functions/networks/leases.get.ts';
import * as stations from '../../functions/networks/stations.get.ts';
import { callFunction, okBody, type EndpointModule } from '../../test/support/call-function.ts';
import { useTempDir } from '../../test/support/temp-dir.ts';
import { loadScenario } from '../scenario/device.ts';
import { memberIdentity } from './identity-values.ts';
import { fleetMember, type FleetSpec } from './members.ts';
import { loadFleetScenarios, memberDevice } from './member-device.ts';

const SPEC: FleetSpec = { size: 3, seed: 5, scenarios: [{ scenario: 'default', share: 1 }] };
const STILL = { changeDelayMs: 0, still: true, clock: { speed: 0 } };

describe("a fleet member's device", () => {
  it('serves its scenario with its own seed, and a write to one changes no other', async () => {
    const scenarios = await loadFleetScenarios(SPEC);
    const [one, two] = [0, 1].map((index) => memberDevice(scenarios, fleetMember(SPEC, index), STILL));
    expect(one!.seed()).toBe(fleetMember(SPEC, 0).seed);
    expect(two!.seed()).not.toBe(one!.seed());
    expect(await one!.device.chuteNames()).toEqual(await two!.device.chuteNames());
    const before = await two!.snapshot();
    const change = await one!.device.submitChange({ action: 'stop', chute: 'hotspot' });
    while ((await one!.device.change(change.id))?.state !== 'succeeded') await new Promise((resolve) => setTimeout(resolve, 5));
    expect((await one!.snapshot()).changes).not.toEqual(before.changes);
    expect(await two!.snapshot()).toEqual(before);
  });
});

const temp = useTempDir('chutebox-fleet-identity-');
const DEFAULT = fileURLToPath(new URL('../../fixtures/scenarios/default/', import.meta.url));
const WIFI = { chute: 'hello-world', network: 'wifi' };
const GUEST = { chute: 'hotspot', network: 'guest' };

/**
 * The default scenario with every kind of identity a scenario may record: a host name, a DMI UUID,
 * and both its own access point's SSID and hello-world's marked as the device's own. Made once.
 */
let made: Promise<string> | undefined;
function identityScenario(): Promise<string> {
  return (made ??= (async () => {
    const dir = path.join(await temp.folder('scenario'), 'lab');
    await cp(DEFAULT, dir, { recursive: true, verbatimSymlinks: true });
    await mkdir(path.join(dir, 'proc/sys/kernel'), { recursive: true });
    await mkdir(path.join(dir, 'etc/config'));
    await writeFile(path.join(dir, 'proc/sys/kernel/hostname'), 'apu2-lab\n');
    await writeFile(path.join(dir, 'etc/config/system'), "\nconfig system\n\toption hostname 'apu2-lab'\n\toption timezone 'UTC'\n");
    await writeFile(path.join(dir, 'sys/devices/virtual/dmi/id/product_uuid'), '03000200-0400-0500-0006-000700080009\n');
    const yaml = path.join(dir, 'device.yaml');
    await writeFile(yaml, (await readFile(yaml, 'utf8')).replace('ssids: [OpenWrt]', 'ssids: [OpenWrt, hello-world]'));
    return dir;
  })());
}

/** The body of a 200 answer, of the type given. */
async function answer<T>(module: EndpointModule, device: Device, params: Record<string, string> = {}): Promise<T> {
  const { status, body } = await callFunction<T>(module, device, params);
  expect(status, JSON.stringify(body)).toBe(200);
  return body;
}

/** Every identity value of a device, as the API answers it (the raw files as a handler reads them). */
async function identityOf(device: Device) {
  const status = await answer<Record<string, string>>(hostapdStatus, device, WIFI);
  const guestLeases = await answer<{ mac_addr?: string; client_id?: string }[]>(leases, device, GUEST);
  const config = await answer<{ net: { wifi: { ssid: string } } }>(chuteConfig, device, { chute: 'hello-world' });
  const file = (at: string) => device.readFile(at);
  return {
    radios: (await answer<{ wifi: { macAddr: string }[] }>(hardware, device)).wifi.map((radio) => radio.macAddr),
    interface: await file('/sys/class/net/eth0/address'),
    bssids: [status['bssid[0]'], status['bssid[1]']],
    ssids: [status['ssid[0]'], status['ssid[1]'], config.net.wifi.ssid],
    stations: (await answer<{ mac_addr: string }[]>(stations, device, WIFI)).map((station) => station.mac_addr),
    leases: guestLeases.map((lease) => [lease.mac_addr, lease.client_id]),
    container: (await answer<{ containerId: string }>(chuteCache, device, { chute: 'hello-world' })).containerId,
    serial: await file('/sys/class/dmi/id/product_serial'),
    uuid: await file('/sys/class/dmi/id/product_uuid'),
    hostnames: [await file('/proc/sys/kernel/hostname'), await file('/etc/config/system')],
  };
}

describe("the identity of a fleet's devices", () => {
  it('is the recorded one on a single emulator, which has no fleet', async () => {
    const { device } = await loadScenario(await identityScenario(), undefined, STILL);
    expect(await identityOf(device)).toEqual({
      radios: ['04:f0:21:34:5a:9e', '04:f0:21:1c:27:b3'],
      interface: '00:0d:b9:4a:c1:10\n',
      bssids: ['04:f0:21:1c:27:b3', '06:f0:21:1c:27:b3'],
      ssids: ['OpenWrt', 'hello-world', 'hello-world'],
      stations: ['6e:8d:3a:5f:21:c4', 'a4:c3:f0:7e:19:d2', '24:0a:c4:11:8b:3e', 'f4:39:09:2d:5e:71'],
      leases: [
        ['c8:5e:a9:3d:71:0b', '01:c8:5e:a9:3d:71:0b'],
        ['d2:19:7f:a4:e5:38', '01:d2:19:7f:a4:e5:38'],
        [undefined, '00:01:00:01:2c:9e:13:f4:c8:5e:a9:3d:71:0b'],
      ],
      container: 'cbafb046481ff1fa349d0b39af2e2b07c90cd96610dcf03a85b9aac2ec822186',
      serial: '1419826\n',
      uuid: '03000200-0400-0500-0006-000700080009\n',
      hostnames: ['apu2-lab\n', "\nconfig system\n\toption hostname 'apu2-lab'\n\toption timezone 'UTC'\n"],
    });
  });

  it('differs between two devices in every field, each as the API answers it', async () => {
    const dir = await identityScenario();
    const spec: FleetSpec = { ...SPEC, scenarios: [{ scenario: dir, share: 1 }] };
    const scenarios = await loadFleetScenarios(spec);
    const recorded = await identityOf((await loadScenario(dir, undefined, STILL)).device);
    const [zero, one] = await Promise.all([0, 1].map((index) => identityOf(memberDevice(scenarios, fleetMember(spec, index), STILL).device)));
    for (const field of Object.keys(recorded) as (keyof typeof recorded)[]) {
      // No value of one device is a value of another, nor the recorded one.
      const [ours, theirs, asRecorded] = [zero![field], one![field], recorded[field]].map(
        (value) =>
          new Set(
            [value]
              .flat(2)
              .filter((each) => each !== undefined)
              .map(String),
          ),
      );
      expect(
        [...ours!].filter((value) => theirs!.has(value) || asRecorded!.has(value)),
        field,
      ).toEqual([]);
      expect(
        [...theirs!].filter((value) => asRecorded!.has(value)),
        field,
      ).toEqual([]);
    }
    expect(one).toMatchObject({
      ssids: ['OpenWrt-1', 'hello-world-1', 'hello-world-1'],
      serial: '1419826-1\n',
      hostnames: ['apu2-lab-1\n', "\nconfig system\n\toption hostname 'apu2-lab-1'\n\toption timezone 'UTC'\n"],
    });
    expect(one!.leases[2]![1]).toBe(`00:01:00:01:2c:9e:13:f4:${one!.leases[0]![0]}`);
  });

  it('is provisioned as its own pdid', async () => {
    const scenarios = await loadFleetScenarios(SPEC);
    for (const index of [0, 2]) {
      const member = fleetMember(SPEC, index);
      const { device } = memberDevice(scenarios, member, STILL);
      const credentials = {
        routerId: memberIdentity(member).pdid,
        apitoken: 't0k3n',
        pdserver: 'https://paradrop.org',
        wampRouter: 'ws://paradrop.org:9086/ws',
      };
      expect((await callFunction(provision, device, {}, credentials)).status).toBe(200);
      expect(await okBody(pdid, device)).toEqual({ pdid: `router-${index}` });
    }
  });

  it("has the phone of the living network's timeline join each device with a MAC of its own", async () => {
    const scenarios = await loadFleetScenarios(SPEC);
    const phones = [];
    for (const index of [0, 1]) {
      const router = memberDevice(scenarios, fleetMember(SPEC, index), { changeDelayMs: 0, clock: { speed: 0 } });
      const before = (await answer<{ mac_addr: string }[]>(stations, router.device, WIFI)).map((station) => station.mac_addr);
      // The default scenario's phone joins hello-world two minutes in.
      await router.clock.set({ advanceMs: 150_000 });
      const joined = (await answer<{ mac_addr: string }[]>(stations, router.device, WIFI))
        .map((station) => station.mac_addr)
        .filter((mac) => !before.includes(mac));
      expect(joined).toHaveLength(1);
      phones.push(joined[0]);
    }
    expect(new Set([...phones, '02:5a:11:00:00:01']).size).toBe(3);
  });

  it('is the same after a restart with the same fleet seed', async () => {
    const dir = await identityScenario();
    const spec: FleetSpec = { ...SPEC, scenarios: [{ scenario: dir, share: 1 }] };
    const [first, again] = await Promise.all([loadFleetScenarios(spec), loadFleetScenarios(spec)]);
    const before = await identityOf(memberDevice(first, fleetMember(spec, 2), STILL).device);
    expect(await identityOf(memberDevice(again, fleetMember(spec, 2), STILL).device)).toEqual(before);
    expect(await identityOf(memberDevice(first, fleetMember({ ...spec, seed: 6 }, 2), STILL).device)).not.toEqual(before);
  });
});
