import { describe, expect, it } from 'vitest';
import { callFunctionRaw, type CallOptions, type InputProblem, type RawAnswer } from '../../test/support/call-function.ts';
import type { ChangeAccepted } from '../chutes/schemas.ts';
import { configDevice, routerHardware, type ConfigDevice } from '../../test/support/config-devices.ts';
import { heldChanges, settledChange } from '../../test/support/emulated-changes.ts';
import type { Device } from '../core/device/index.ts';
import { parseStoredHostConfig } from './host-config.ts';
import * as update from './hostconfig.put.ts';

/** A valid host configuration: the LAN with DHCP, a DHCP WAN, one radio with an access point. */
function valid() {
  return {
    firewall: { defaults: { input: 'ACCEPT', output: 'ACCEPT', forward: 'REJECT' } },
    lan: { interfaces: ['eth1', 'eth2'], proto: 'static', ipaddr: '192.168.1.1', netmask: '255.255.255.0', dhcp: { start: 100, limit: 150, leasetime: '12h' } },
    wan: { interface: 'eth0', proto: 'dhcp' },
    wifi: [{ id: 'pci-wifi-0', channel: 36, hwmode: '11a', htmode: 'VHT80' }],
    'wifi-interfaces': [{ device: 'pci-wifi-0', mode: 'ap', ssid: 'home', encryption: 'psk2', key: 'hunter2hunter2', network: 'lan' }],
    system: { hostname: 'router.lan', timezone: 'Europe/Zurich' },
    telemetry: { enabled: false, interval: 300 },
  };
}

/** What the device stores: the valid configuration as YAML, with a PPPoE WAN. */
const STORED = `firewall: { defaults: { input: ACCEPT, output: ACCEPT, forward: REJECT } }
lan: { interfaces: [eth1], proto: static, ipaddr: 192.168.1.1, netmask: 255.255.255.0 }
wan: { interface: eth0, proto: pppoe, username: me@isp, password: pppoe-secret }
wifi: [{ id: pci-wifi-0, channel: 36 }]
wifi-interfaces: [{ device: pci-wifi-0, ssid: home, encryption: psk2, key: hunter2hunter2 }]
`;

const device = (stored: string | null = STORED) => configDevice(routerHardware, { stored });

/** PUT /api/v1/config/hostconfig with a body of `contentType`. */
function put<T = unknown>(target: Device, contentType: string, text: string, options: CallOptions = {}): Promise<RawAnswer<T>> {
  return callFunctionRaw<T>(update, target, { ...options, body: { contentType, text } });
}

const json = <T = unknown>(target: Device, body: unknown, options: CallOptions = {}) => put<T>(target, 'application/json', JSON.stringify(body), options);

/**
 * Sends a bad body and checks the 422, that every error names a field of the body (`body.…`), and
 * that nothing was submitted or stored; answers the paths and messages by the field's path in the
 * configuration (`lan.ipaddr` for `body.lan.ipaddr`). `refusedByDevice` when only what is stored
 * makes it bad (see `callFunction`).
 */
async function rejects(
  body: unknown,
  stored: string | null = STORED,
  options: CallOptions = {},
): Promise<{ paths: string[]; messages: Record<string, string> }> {
  const target = device(stored);
  const out = await json<InputProblem>(target, body, options);
  expect(out.status, JSON.stringify(out.body)).toBe(422);
  expect(out.headers['content-type']).toBe('application/problem+json');
  expect(target.submitted).toEqual([]);
  expect(await target.hostConfig.read()).toBe(stored);
  const errors = out.body.errors as { path: string; message: string }[];
  expect(errors.filter((error) => !error.path.startsWith('body.'))).toEqual([]);
  const inConfig = errors.map((error) => ({ ...error, path: error.path.slice('body.'.length) }));
  return {
    paths: inConfig.map((error) => error.path).sort(),
    messages: Object.fromEntries(inConfig.map((error) => [error.path, error.message])),
  };
}

describe('PUT /api/v1/config/hostconfig', () => {
  it('responds with 200 and the change_id of an update-hostconfig change carrying the configuration as written', async () => {
    const target = device();
    const body = { ...valid(), x_vendor: { kept: true }, lan: { ...valid().lan, mtu: 1500 } };
    const out = await json(target, body);
    expect(out).toMatchObject({ status: 200, body: { change_id: 1 } });
    expect(target.submitted).toEqual([{ action: 'update-hostconfig', config: body }]);
    expect(await target.hostConfig.read()).toBe(STORED);
  });

  it('takes ParaDrop\'s wrapper {"config": {...}}', async () => {
    const target = device();
    expect((await json(target, { config: valid() })).status).toBe(200);
    expect(target.submitted).toEqual([{ action: 'update-hostconfig', config: valid() }]);
  });

  it("names the fields of a configuration in ParaDrop's wrapper under body.config", async () => {
    const body = valid();
    body.lan.netmask = '255.0.255.0';
    expect((await rejects({ config: body })).paths).toEqual(['config.lan.netmask']);
  });

  it('takes YAML, read as YAML 1.1', async () => {
    const target = device();
    const yaml = `config:
  firewall: { defaults: { input: ACCEPT, output: ACCEPT, forward: DROP } }
  lan: { interfaces: [], proto: static, ipaddr: 10.1.0.1, netmask: 255.255.0.0 }
  telemetry: { enabled: no }
`;
    expect((await put(target, 'application/yaml', yaml)).status).toBe(200);
    expect(target.submitted).toEqual([
      {
        action: 'update-hostconfig',
        config: {
          firewall: { defaults: { input: 'ACCEPT', output: 'ACCEPT', forward: 'DROP' } },
          lan: { interfaces: [], proto: 'static', ipaddr: '10.1.0.1', netmask: '255.255.0.0' },
          telemetry: { enabled: false },
        },
      },
    ]);
  });

  it('takes the [redacted] placeholders a GET answers where secrets are stored, and queues the change with them, not with the secrets', async () => {
    const target = device();
    const body = {
      ...valid(),
      wan: { interface: 'eth0', proto: 'pppoe', username: 'me@isp', password: '[redacted]' },
      'wifi-interfaces': [{ device: 'pci-wifi-0', ssid: 'renamed', encryption: 'psk2', key: '[redacted]' }],
    };
    expect((await json(target, body)).status).toBe(200);
    expect(target.submitted).toEqual([{ action: 'update-hostconfig', config: body }]);
  });

  it('responds with 422 for a [redacted] placeholder with no stored secret behind it, and a configuration generated (none stored) has none', async () => {
    const body = { ...valid(), 'wifi-interfaces': [{ device: 'pci-wifi-0', ssid: 'home', encryption: 'psk2', key: '[redacted]' }] };
    const { paths, messages } = await rejects(body, null, { refusedByDevice: true });
    expect(paths).toEqual(['wifi-interfaces[0].key']);
    expect(messages['wifi-interfaces[0].key']).toContain('the placeholder of a secret');
  });

  it('responds with 422 listing every violation with its path, and submits and stores nothing', async () => {
    const ok = valid();
    const body = {
      firewall: { defaults: { input: 'ALLOW', forward: 'REJECT' } },
      lan: { ...ok.lan, netmask: '255.0.255.0', dhcp: { ...ok.lan.dhcp, leasetime: 'forever' } },
      wan: { ...ok.wan, proto: 'dhcpv6' },
      wifi: [...ok.wifi, { id: 'pci-wifi-1', channel: 15 }, { id: 'PCI wifi', channel: 'auto' }],
      'wifi-interfaces': [{ ...ok['wifi-interfaces'][0], ssid: 'x'.repeat(33), key: 'short', mode: 'mesh' }],
      system: { ...ok.system, hostname: '-router' },
      telemetry: { interval: 5, enabled: 'yes' },
    };
    const { paths, messages } = await rejects(body);
    expect(paths).toEqual([
      'firewall.defaults.input',
      'firewall.defaults.output',
      'lan.dhcp.leasetime',
      'lan.netmask',
      'system.hostname',
      'telemetry.enabled',
      'telemetry.interval',
      'wan.proto',
      'wifi-interfaces[0].key',
      'wifi-interfaces[0].mode',
      'wifi-interfaces[0].ssid',
      'wifi[1].channel',
      'wifi[2].id',
    ]);
    expect(messages).toMatchObject({
      'firewall.defaults.input': 'must be one of ACCEPT, REJECT, DROP',
      'firewall.defaults.output': 'is required',
      'telemetry.interval': 'must be an integer from 10 to 86400',
      'wifi[1].channel': expect.stringContaining('1 to 14 (2.4 GHz)'),
    });
  });

  it('responds with 422 naming firewall and lan when they are missing, and the root when the body is no mapping of sections', async () => {
    expect((await rejects({})).paths).toEqual(['firewall', 'lan']);
    expect((await rejects({ firewall: 'open', lan: [] })).paths).toEqual(['firewall', 'lan']);
  });

  it('responds with 422 for addresses that do not fit their subnets', async () => {
    const ok = valid();
    const body = {
      ...ok,
      lan: { ...ok.lan, ipaddr: '192.168.1.0', dhcp: { start: 200, limit: 100, leasetime: 3600 } },
      wan: { interface: 'eth0', proto: 'static', ipaddr: '192.168.1.20', netmask: '255.255.0.0', gateway: '10.0.0.1' },
    };
    const { paths, messages } = await rejects(body);
    expect(paths).toEqual(['lan.dhcp.limit', 'lan.ipaddr', 'wan.gateway', 'wan.netmask']);
    expect(messages['lan.ipaddr']).toBe('is the network address of 192.168.1.0/24: it must be a host address of its subnet');
    expect(messages['lan.dhcp.limit']).toBe(
      "leaves the LAN's subnet 192.168.1.0/24: start + limit - 1 (299) must be at most 254, the offset of its last host address",
    );
    expect(messages['wan.gateway']).toBe("must be a host address of the WAN's subnet 192.168.0.0/16");
    expect(messages['wan.netmask']).toBe("makes the WAN's subnet 192.168.0.0/16 overlap the LAN's 192.168.1.0/24");
  });

  it('responds with 422 for what a WAN protocol needs and a port that is both WAN and LAN', async () => {
    const staticWan = { ...valid(), wan: { interface: 'eth1', proto: 'static', ipaddr: '203.0.113.2' } };
    expect((await rejects(staticWan)).paths).toEqual(['wan.gateway', 'wan.interface', 'wan.netmask']);
    const pppoe = { ...valid(), wan: { interface: 'eth0', proto: 'pppoe' } };
    expect((await rejects(pppoe)).messages).toEqual({ 'wan.username': 'is required with proto pppoe', 'wan.password': 'is required with proto pppoe' });
  });

  it('responds with 422 for radio settings that do not go together', async () => {
    const body = {
      ...valid(),
      wifi: [
        { id: 'pci-wifi-0', channel: 36, hwmode: '11g' },
        { id: 'pci-wifi-1', channel: 6, htmode: 'VHT80' },
        { id: 'usb-wifi-0', channel: 'auto', hwmode: '11b', htmode: 'HT20' },
        { id: 'pci-wifi-0', channel: 'auto' },
        { id: 'pci-wifi-2', channel: 11, htmode: 'HT40+' },
        { id: 'pci-wifi-3', channel: 36, htmode: 'HT40-' },
        { id: 'pci-wifi-4', channel: 7, htmode: 'HT40-' },
        { id: 'pci-wifi-5', channel: 153, htmode: 'HT40-' },
      ],
    };
    const { messages } = await rejects(body);
    expect(messages).toEqual({
      'wifi[0].channel': 'is a 5 GHz channel, but hwmode 11g is 2.4 GHz only',
      'wifi[1].htmode': 'is a 5 GHz mode, but the radio is on 2.4 GHz',
      'wifi[2].htmode': 'must be NOHT with hwmode 11b, which has no HT',
      'wifi[3].id': 'names the radio of wifi[0] again: give each radio once',
      'wifi[4].htmode': 'puts the secondary channel above channel 11, outside its band: use HT40- or HT40',
      'wifi[5].htmode': 'puts the secondary channel below channel 36, outside its band: use HT40+ or HT40',
    });
  });

  it('responds with 422 for Wi-Fi networks on radios wifi does not list, and keys that do not match the encryption', async () => {
    const { wan: _, ...body } = {
      ...valid(),
      'wifi-interfaces': [
        { device: 'pci-wifi-9', ssid: 'a', encryption: 'sae' },
        { device: 'pci-wifi-0', ssid: 'b', key: 'hunter2hunter2' },
        { device: 'pci-wifi-0', ssid: 'c', encryption: 'none', key: 'hunter2hunter2' },
        { device: 'pci-wifi-0', mode: 'sta', ssid: 'd', encryption: 'owe', network: 'wan' },
      ],
    };
    const { messages } = await rejects(body);
    expect(messages).toEqual({
      'wifi-interfaces[0].device': 'must be the id of an entry of wifi (wifi lists pci-wifi-0)',
      'wifi-interfaces[0].key': 'is required with encryption sae',
      'wifi-interfaces[1].encryption': 'is required with a key: psk2, psk, psk-mixed, sae, sae-mixed',
      'wifi-interfaces[2].key': 'must not be given with encryption none, which takes no key',
      'wifi-interfaces[3].network': 'is wan, but the configuration has no wan',
    });
  });

  it('responds with 422 for a LAN port listed twice', async () => {
    const body = valid();
    body.lan.interfaces = ['eth1', 'eth2', 'eth1', '../x'];
    expect((await rejects(body)).paths).toEqual(['lan.interfaces[2]', 'lan.interfaces[3]']);
  });

  it('replaces a stored configuration that cannot be read', async () => {
    const target = device('lan: [1\n');
    expect((await json(target, valid())).status).toBe(200);
    expect(target.submitted).toEqual([{ action: 'update-hostconfig', config: valid() }]);
  });

  it('responds with 400, 415 or 422 for a body that is not a configuration document, and submits nothing', async () => {
    const target = device();
    expect((await put(target, 'application/json', '{"lan": ')).status).toBe(400);
    expect((await put(target, 'application/yaml', 'lan: [1\n')).status).toBe(400);
    expect((await put(target, 'text/plain', 'lan: {}')).status).toBe(415);
    expect((await put(target, 'application/json', '')).status).toBe(422);
    expect((await put(target, 'application/json', '[1, 2]')).status).toBe(422);
    expect(target.submitted).toEqual([]);
    expect(await target.hostConfig.read()).toBe(STORED);
  });
});

describe('PUT /api/v1/config/hostconfig with [redacted] while an earlier change is still to run', () => {
  /** PUT A sets a new Wi-Fi key; PUT B, a GET/edit/PUT round trip made before A ran, renames the network and keeps the key with a placeholder. */
  const A = () => ({ ...valid(), 'wifi-interfaces': [{ device: 'pci-wifi-0', ssid: 'home', encryption: 'psk2', key: 'second-key-K2' }] });
  const B = () => ({ ...valid(), 'wifi-interfaces': [{ device: 'pci-wifi-0', ssid: 'renamed', encryption: 'psk2', key: '[redacted]' }] });

  /** The stored configuration as the device reads it. */
  const stored = async (target: ConfigDevice) => parseStoredHostConfig((await target.hostConfig.read())!);

  it('keeps the key in effect when B runs: the one A set', async () => {
    const base = device();
    const { device: target, release } = heldChanges(base);
    const a = (await json<ChangeAccepted>(target, A())).body.change_id;
    const b = await json<ChangeAccepted>(target, B());
    expect(b.status).toBe(200);
    expect((await target.change(a))!.state).not.toMatch(/succeeded|failed/);
    release();
    expect((await settledChange(target, a)).state).toBe('succeeded');
    expect((await settledChange(target, b.body.change_id)).state).toBe('succeeded');
    expect((await stored(base))['wifi-interfaces']).toEqual([{ device: 'pci-wifi-0', ssid: 'renamed', encryption: 'psk2', key: 'second-key-K2' }]);
  });

  it('fails B naming the path when A removed the secret behind its placeholder, and applies nothing of B', async () => {
    const base = device();
    const { device: target, release } = heldChanges(base);
    const withoutWifi = { ...valid(), 'wifi-interfaces': [] };
    const a = (await json<ChangeAccepted>(target, withoutWifi)).body.change_id;
    const b = (await json<ChangeAccepted>(target, B())).body.change_id;
    release();
    expect((await settledChange(target, a)).state).toBe('succeeded');
    const after = await base.hostConfig.read();
    const failed = await settledChange(target, b);
    expect(failed.state).toBe('failed');
    expect(failed.messages.at(-1)!.text).toMatch(
      /^failed: wifi-interfaces\[0\]\.key is \[redacted\], the placeholder of a secret, but the host configuration in effect now has no secret there/,
    );
    expect(failed.messages.map((message) => message.text).join('\n')).not.toContain('stored the host configuration');
    expect(await base.hostConfig.read()).toBe(after);
    expect((await stored(base))['wifi-interfaces']).toEqual([]);
  });
});
