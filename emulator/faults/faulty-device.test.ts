import { describe, expect, it } from 'vitest';
import type { Account, Device } from '../../functions/core/device/index.ts';
import * as hardware from '../../functions/info/hardware.get.ts';
import * as telemetry from '../../functions/info/telemetry.get.ts';
import * as hostapdStatus from '../../functions/networks/hostapd-status.get.ts';
import * as stations from '../../functions/networks/stations.get.ts';
import { callFunction, okBody } from '../../test/support/call-function.ts';
import { sshKey } from '../../test/support/ssh-keys.ts';
import { problemOf } from '../../test/support/tool-scripts.ts';
import { loadScenario } from '../scenario/device.ts';
import type { DeviceFault } from './device-fault.ts';
import { radioOfNetwork } from './radios.ts';

/**
 * The default scenario under the faults a test sets, its tools waited for 50 ms, its emulated clock
 * stopped at `start`: `clock.now += ms` moves it on, as an advance would, without running its timers.
 */
async function faulted(start = { now: Date.now() }) {
  const faults: DeviceFault[] = [];
  const scenario = await loadScenario('default', undefined, {
    deviceFaults: () => faults,
    changeDelayMs: 0,
    toolTimeoutMs: 50,
    clock: { now: start.now, speed: 0 },
  });
  const emulated = scenario.clock;
  const clock = {
    get now() {
      return emulated.now();
    },
    set now(ms: number) {
      const reading = emulated.read();
      emulated.restore({ ...reading, now: ms, elapsedMs: reading.elapsedMs + (ms - reading.now) });
    },
  };
  return { faults, device: scenario.device, scenario, clock };
}

const GUEST = { chute: 'hotspot', network: 'guest' };
const WIFI = { chute: 'hello-world', network: 'wifi' };
const PARADROP: Account = { name: 'paradrop', uid: 1000, gid: 1000, home: '/home/paradrop' };

describe('a radio gone', () => {
  it('leaves the hardware record with the radios left, and fails iw and hostapd on its networks only', async () => {
    const { faults, device } = await faulted();
    expect((await okBody(hardware, device)).wifi).toHaveLength(2);
    faults.push({ device: 'radio-gone', radio: 'phy0' });
    expect((await okBody(hardware, device)).wifi.map((radio) => radio.slot)).toEqual(['pci/0000:05:00.0']);
    expect(await device.readDir('/sys/class/net')).not.toContain('phy0-ap0');
    expect(await device.readFile('/sys/class/ieee80211/phy0/macaddress')).toBeNull();
    expect(await callFunction(stations, device, GUEST)).toMatchObject({
      status: 503,
      body: { detail: expect.stringMatching(/^host interface phy0-ap0 does not exist/) },
    });
    expect((await callFunction(stations, device, WIFI)).status).toBe(200);
    faults.splice(0, 1, { device: 'radio-gone' });
    expect((await okBody(hardware, device)).wifi).toEqual([]);
    expect((await callFunction(hostapdStatus, device, WIFI)).status).toBe(503);
  });

  it("finds the radio of a network named as serve names it from its cache's reservation", async () => {
    const { device } = await faulted();
    const target = { chute: 'lab', network: 'ap', hostInterface: 'vwlan3f2a', hostapdControl: null, leaseFile: null };
    const withCache = (radio: string): Device => ({
      ...device,
      chute: async () => ({ name: 'lab', record: {}, config: {}, cache: { networks: { ap: { hostInterface: 'vwlan3f2a', radio } } } }),
    });
    expect(await radioOfNetwork(withCache('pci-wifi-1'), target)).toBe('phy1');
    expect(await radioOfNetwork(withCache('pci-wifi-9'), target)).toBeNull();
    expect(await radioOfNetwork(device, { ...target, hostInterface: 'phy0-ap0' })).toBe('phy0');
  });
});

describe('hostapd down', () => {
  it("lists no station on the network's radio and leaves the other networks of the chute and device as they are", async () => {
    const { faults, device } = await faulted();
    faults.push({ device: 'hostapd-down', chute: 'hello-world' });
    expect(await okBody(stations, device, WIFI)).toEqual([]);
    expect((await callFunction(hostapdStatus, device, WIFI)).status).toBe(503);
    expect((await callFunction(hostapdStatus, device, GUEST)).status).toBe(200);
    expect((await okBody(stations, device, GUEST)).length).toBeGreaterThan(0);
  });
});

describe('iw and hostapd_cli hanging', () => {
  it('answer 504 after the tool timeout, and the other tool as usual', async () => {
    const { faults, device } = await faulted();
    faults.push({ device: 'iw-hang' });
    const started = Date.now();
    expect(await callFunction(stations, device, WIFI)).toMatchObject({ status: 504, body: { detail: 'iw did not finish within 0.05 s and was stopped' } });
    expect(Date.now() - started).toBeGreaterThanOrEqual(45);
    expect((await callFunction(hostapdStatus, device, WIFI)).status).toBe(200);
    faults.splice(0, 1, { device: 'hostapd-cli-hang' });
    const host = device.network({ ...WIFI, hostInterface: 'phy1-ap1', hostapdControl: '/var/run/hostapd/phy1-ap1', leaseFile: null });
    expect(
      await problemOf(
        host.hostapdEvents(
          () => undefined,
          () => undefined,
        ),
      ),
    ).toEqual({
      status: 504,
      message: "hostapd_cli did not attach to hostapd's control socket /var/run/hostapd/phy1-ap1 within 0.05 s",
    });
    expect((await callFunction(stations, device, WIFI)).status).toBe(200);
  });
});

describe('the engine unreachable', () => {
  it('has no containers (telemetry lists no chute), refuses an image and a factory reset with 503, and keeps the chutes', async () => {
    const { faults, device } = await faulted();
    expect((await okBody(telemetry, device)).chutes.length).toBeGreaterThan(0);
    faults.push({ device: 'engine-unreachable' });
    expect(await device.containers()).toBeNull();
    expect((await okBody(telemetry, device)).chutes).toEqual([]);
    expect(await problemOf(device.loadImage(new Uint8Array()))).toEqual({
      status: 503,
      message: 'no container engine is reachable: no container engine at /var/run/docker.sock',
    });
    expect(await problemOf(device.factoryReset())).toEqual({
      status: 503,
      message: 'no container engine is reachable: the chutes cannot be removed, so nothing was reset',
    });
    expect(await device.chuteNames()).toEqual(['hello-world', 'hotspot']);
  });
});

describe('the disk full', () => {
  it('refuses an SSH key and a provisioning with ENOSPC, storing nothing; reads go on', async () => {
    const { faults, device } = await faulted();
    faults.push({ device: 'disk-full' });
    const before = await device.accounts.authorizedKeys(PARADROP);
    const write = device.accounts.updateAuthorizedKeys(PARADROP, (current) => `${current ?? ''}${sshKey('ed25519')}\n`);
    await expect(write).rejects.toMatchObject({ code: 'ENOSPC' });
    expect(await device.accounts.authorizedKeys(PARADROP)).toBe(before);
    const credentials = { routerId: 'r1', apitoken: 't0k3n', pdserver: 'https://paradrop.example', wampRouter: 'wss://paradrop.example/ws' };
    await expect(device.provisioning.provision(credentials)).rejects.toMatchObject({ code: 'ENOSPC' });
    expect(await device.provisioning.status()).toMatchObject({ provisioned: false });
    await expect(device.submitChange({ action: 'stop', chute: 'hotspot' })).rejects.toMatchObject({ code: 'ENOSPC' });
    expect(await device.changes()).toEqual([]);
  });
});

describe('the controller unreachable', () => {
  it('fails provisioning as a closed port does, and provisioning works again once it is reachable', async () => {
    const { faults, device } = await faulted();
    faults.push({ device: 'controller-unreachable' });
    const credentials = { routerId: 'r1', apitoken: 't0k3n', pdserver: 'https://paradrop.example', wampRouter: 'wss://paradrop.example/ws' };
    expect(await problemOf(device.provisioning.provision(credentials))).toEqual({
      status: 502,
      message: 'the controller at https://paradrop.example could not be reached: connect ECONNREFUSED paradrop.example:443',
    });
    faults.splice(0);
    expect(await device.provisioning.provision(credentials)).toMatchObject({ provisioned: true, httpConnected: true });
  });
});

describe('a reboot', () => {
  it('keeps the device silent for its seconds from when it began, then counts its uptime and boot time from its end', async () => {
    const { faults, scenario, device, clock } = await faulted({ now: 1_800_000_000_000 });
    const recorded = Number((await device.readFile('/proc/uptime'))!.split(' ')[0]);
    faults.push({ device: 'reboot', seconds: 20, at: clock.now + 1000 });
    expect(scenario.rebooting()).toBe(false);
    clock.now += 1000;
    expect(scenario.rebooting()).toBe(true);
    clock.now += 19_999;
    expect(scenario.rebooting()).toBe(true);
    clock.now += 1;
    expect(scenario.rebooting()).toBe(false);
    clock.now += 5_000;
    const [uptime, idle] = (await device.readFile('/proc/uptime'))!.trim().split(' ').map(Number);
    expect(uptime).toBe(5);
    expect(idle).toBeLessThanOrEqual(5 * 4);
    const stat = (await device.readFile('/proc/stat'))!;
    expect(stat).toMatch(/^btime 1800000021$/m);
    const user = Number(/^cpu +(\d+)/m.exec(stat)![1]);
    expect(user).toBeLessThanOrEqual(5 * 100 * 4);
    // The boot is kept once the fault is gone, and a later reboot moves it again.
    faults.splice(0);
    clock.now += 10_000;
    expect(Number((await device.readFile('/proc/uptime'))!.split(' ')[0])).toBe(15);
    expect(recorded).toBeGreaterThan(1000);
  });

  it('begins when first met without `at`', async () => {
    const { faults, scenario, clock } = await faulted();
    faults.push({ device: 'reboot', seconds: 1 });
    expect(scenario.rebooting()).toBe(true);
    clock.now += 1000;
    expect(scenario.rebooting()).toBe(false);
  });
});

describe('no fault', () => {
  it('answers every read as the device without faults', async () => {
    // Both stopped at the same time: the living network answers the same.
    const start = Date.now();
    const plain = await loadScenario('default', undefined, { changeDelayMs: 0, clock: { now: start, speed: 0 } });
    const { device } = await faulted({ now: start });
    for (const module of [hardware, stations, hostapdStatus]) {
      const params = module === hardware ? {} : WIFI;
      expect((await callFunction(module, device, params)).body).toEqual((await callFunction(module, plain.device, params)).body);
    }
    expect(await device.readFile('/proc/stat')).toBe(await plain.device.readFile('/proc/stat'));
  });
});
