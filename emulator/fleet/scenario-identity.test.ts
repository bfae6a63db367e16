import { describe, expect, it } from 'vitest';
import { ScenarioError } from '../../runtime/scenario/format.ts';
import type { ScenarioDocuments } from '../scenario/documents.ts';
import { treeFiles, type ScenarioTree } from '../scenario/tree.ts';
import { recordedMacs } from './identity-texts.ts';
import { memberIdentity } from './identity-values.ts';
import { loadFleetScenarios } from './member-device.ts';
import { IdentityDocuments, identityText, scenarioIdentity } from './scenario-identity.ts';

const DEVICE = memberIdentity({ index: 42, seed: 7 });

/** A scenario's documents with nothing in them but what a test gives. */
function documentsWith(documents: Partial<ScenarioDocuments> = {}, ssids: string[] = []): ScenarioDocuments {
  const device = { uname: { sysname: 'Linux', release: '6.1', version: '#1', machine: 'mips' }, identity: { ssids } };
  return { device, engine: null, chutes: {}, hostConfig: null, living: null, ...documents };
}

/** A tree of the files given (and their folders), as a scenario folder would read. */
function treeOf(files: Record<string, string>, links: Record<string, string> = {}): ScenarioTree {
  const tree: ScenarioTree = { '/': { dir: [] } };
  for (const [at, entry] of [
    ...Object.entries(files).map(([at, file]) => [at, { file }] as const),
    ...Object.entries(links).map(([at, link]) => [at, { link }] as const),
  ]) {
    const parts = at.split('/').slice(1);
    for (let depth = 0; depth < parts.length; depth++) {
      const folder = `/${parts.slice(0, depth).join('/')}`;
      const names = (tree[folder] ??= { dir: [] }) as { dir: string[] };
      if (!names.dir.includes(parts[depth]!)) names.dir.push(parts[depth]!);
    }
    tree[at] = entry;
  }
  return tree;
}

/** Each file as the device reads it, and the documents, after finding the identity of the scenario. */
async function asDeviceReads(files: Record<string, string>, documents = documentsWith(), links: Record<string, string> = {}) {
  const tree = treeOf(files, links);
  const identity = await scenarioIdentity(documents, tree, treeFiles(tree));
  return {
    identity,
    files: Object.fromEntries(Object.entries(files).map(([at, text]) => [at, identityText(identity, text, DEVICE)])),
    documents: new IdentityDocuments(identity, documents, DEVICE),
  };
}

const mac = (slot: number, upper = false) => DEVICE.value({ kind: 'mac', slot, upper });

describe('the identity a scenario recorded', () => {
  it('holds every unicast MAC of the default scenario, from its files and documents, and no other', async () => {
    const { identity } = (await loadFleetScenarios({ scenarios: [{ scenario: 'default', share: 1 }] })).get('default')!;
    const macs = [...identity.tables.macs.keys()];
    // A radio, an Ethernet port, stations of iw and of a lease file, a container, the phone of living.yaml.
    expect(macs).toEqual(
      expect.arrayContaining(['04:f0:21:34:5a:9e', '00:0d:b9:4a:c1:10', '24:0a:c4:11:8b:3e', '00:15:65:8a:3c:11', '02:42:ac:11:00:02', '02:5a:11:00:00:01']),
    );
    expect(macs).not.toContain('00:00:00:00:00:00');
    expect(identity.tables.containers.size).toBe(2);
    expect(recordedMacs('ff:ff:ff:ff:ff:ff 01:00:5e:00:00:fb 33:33:00:00:00:01 00:00:00:00:00:00\n')).toEqual([]);
  });

  it('is rewritten in a DHCP client id or DUID, in capitals and before a colon, but never off the byte boundaries', async () => {
    const { files } = await asDeviceReads({
      '/station': 'Station 6E:8D:3A:5F:21:C4 (on phy1-ap1)\n',
      '/leases': '0 6e:8d:3a:5f:21:c4 10.0.0.2 * 01:6e:8d:3a:5f:21:c4\nduid 00:01:00:01:2e:b3:4c:1a:6e:8d:3a:5f:21:c4\n',
      '/log': '6e:8d:3a:5f:21:c4: no lease yet\n',
      '/other': 'a6e:8d:3a:5f:21:c4 e:8d:3a:5f:21:c4:0 fe80::6c8d:3aff:fe5f:21c4 09:41:02\n',
    });
    expect(files).toEqual({
      '/station': `Station ${mac(0, true)} (on phy1-ap1)\n`,
      '/leases': `0 ${mac(0)} 10.0.0.2 * 01:${mac(0)}\nduid 00:01:00:01:2e:b3:4c:1a:${mac(0)}\n`,
      '/log': `${mac(0)}: no lease yet\n`,
      '/other': 'a6e:8d:3a:5f:21:c4 e:8d:3a:5f:21:c4:0 fe80::6c8d:3aff:fe5f:21c4 09:41:02\n',
    });
  });

  it('has a serial, UUID and host name rewritten only where the device keeps them', async () => {
    const dmi = '/sys/devices/virtual/dmi/id';
    const { files } = await asDeviceReads(
      {
        [`${dmi}/product_serial`]: 'SN-0042\n',
        [`${dmi}/product_uuid`]: '4c4c4544-0032-3510-8048-b4c04f565931\n',
        [`${dmi}/board_serial`]: 'Default string\n',
        '/proc/cpuinfo': 'Hardware\t: BCM2835\nSerial\t\t: 00000000c0ffee42\n',
        '/proc/device-tree/serial-number': 'A1B2C3\0',
        '/etc/hostname': 'OpenWrt\n',
        '/etc/config/system': "config system\n\toption hostname 'OpenWrt'\n\toption zonename 'UTC'\n",
        '/etc/os-release': 'NAME="OpenWrt"\n',
        '/etc/banner': 'SN-0042 c0ffee42\n',
      },
      documentsWith(),
      { '/sys/class/dmi/id': '../../devices/virtual/dmi/id' },
    );
    expect(files).toMatchObject({
      [`${dmi}/product_serial`]: 'SN-0042-42\n',
      [`${dmi}/product_uuid`]: expect.stringMatching(/^4c4c4544-0032-3510-8048-0000002a[0-9a-f]{4}\n$/),
      [`${dmi}/board_serial`]: 'Default string\n',
      '/proc/cpuinfo': 'Hardware\t: BCM2835\nSerial\t\t: 00000000c0ffee42-42\n',
      '/proc/device-tree/serial-number': 'A1B2C3-42\0',
      '/etc/hostname': 'OpenWrt-42\n',
      '/etc/config/system': "config system\n\toption hostname 'OpenWrt-42'\n\toption zonename 'UTC'\n",
      '/etc/os-release': 'NAME="OpenWrt"\n',
      '/etc/banner': 'SN-0042 c0ffee42\n',
    });
  });

  it('has a marked SSID rewritten where hostapd, OpenWrt, a chute or the host configuration names it, and nothing else', async () => {
    const chutes = {
      cafe: { record: { name: 'cafe' }, config: { net: { wifi: { type: 'wifi', ssid: 'Café' }, lab: { type: 'wifi', ssid: 'lab' } } }, cache: {} },
    };
    const hostConfig = 'wifi-interfaces:\n  - device: pci-wifi-0\n    ssid: "Café"\nsystem:\n  hostname: cafe # the name\n';
    const { files, documents } = await asDeviceReads(
      {
        '/chutes/cafe/networks/wifi/hostapd-status.txt': 'bss[0]=wlan0\nssid[0]=Caf\\xc3\\xa9\nbss[1]=wlan1\nssid[1]=lab\n',
        '/chutes/cafe/networks/wifi/hostapd-get-config.txt': 'ssid=Caf\\xc3\\xa9\n',
        '/etc/config/wireless': "config wifi-iface\n\toption ssid 'Café'\n",
        '/etc/banner': 'Café\n',
      },
      documentsWith({ chutes, hostConfig }, ['Café']),
    );
    expect(Object.values(files)).toEqual([
      'bss[0]=wlan0\nssid[0]=Caf\\xc3\\xa9-42\nbss[1]=wlan1\nssid[1]=lab\n',
      'ssid=Caf\\xc3\\xa9-42\n',
      "config wifi-iface\n\toption ssid 'Café-42'\n",
      'Café\n',
    ]);
    expect(documents.chutes.cafe!.config).toEqual({ net: { wifi: { type: 'wifi', ssid: 'Café-42' }, lab: { type: 'wifi', ssid: 'lab' } } });
    expect(documents.hostConfig).toBe('wifi-interfaces:\n  - device: pci-wifi-0\n    ssid: "Café-42"\nsystem:\n  hostname: cafe-42 # the name\n');
  });

  it('is read from the documents without changing them, sharing all that holds no identity', async () => {
    const id = 'cbafb046481ff1fa349d0b39af2e2b07c90cd96610dcf03a85b9aac2ec822186';
    const container = {
      Id: id,
      Names: ['/cafe'],
      Labels: { 'io.chutebox.chute': 'cafe' },
      NetworkSettings: { Networks: { bridge: { MacAddress: '02:42:ac:11:00:02' } } },
    };
    const stats = { [id]: { id, name: '/cafe', cpu_stats: { online_cpus: 4 } } };
    const recorded = documentsWith({ engine: { containers: [container], stats } });
    const { documents } = await asDeviceReads({ '/logs': `container ${id.slice(0, 12)} started\n` }, recorded);
    const own = DEVICE.value({ kind: 'container', slot: 0, short: false });
    expect(documents.engine).toEqual({
      containers: [{ ...container, Id: own, NetworkSettings: { Networks: { bridge: { MacAddress: mac(0) } } } }],
      stats: { [own]: { id: own, name: '/cafe', cpu_stats: { online_cpus: 4 } } },
    });
    expect(documents.engine!.containers[0]!.Labels).toBe(container.Labels);
    expect(documents.engine!.stats[own]!.cpu_stats).toBe(stats[id]!.cpu_stats);
    expect(recorded.engine!.containers[0]).toBe(container);
    expect(container.Id).toBe(id);
  });

  it('is read again as the same frozen documents for as long as the device is built, whatever other devices read', async () => {
    const id = 'cbafb046481ff1fa349d0b39af2e2b07c90cd96610dcf03a85b9aac2ec822186';
    const recorded = documentsWith({ engine: { containers: [{ Id: id, Labels: { 'io.chutebox.chute': 'cafe' } }], stats: {} } });
    const { identity, documents } = await asDeviceReads({}, recorded);
    const first = documents.engine!;
    expect(documents.engine).toBe(first);
    expect(Object.isFrozen(first.containers[0])).toBe(true);
    // A hundred other devices read theirs: this one still answers the objects it made, and so finds the builds kept by them.
    const others = Array.from({ length: 100 }, (_, index) => new IdentityDocuments(identity, recorded, memberIdentity({ index: index + 1, seed: 7 })).engine!);
    expect(documents.engine).toBe(first);
    expect(new Set(others.map((engine) => engine.containers[0]!.Id)).size).toBe(100);
  });

  it('refuses a scenario with more MACs than a device can map', async () => {
    const macs = Array.from(
      { length: 2 ** 16 + 1 },
      (_, n) => `02:00:00:${[n >> 16, (n >> 8) & 0xff, n & 0xff].map((byte) => byte.toString(16).padStart(2, '0')).join(':')}\n`,
    );
    await expect(asDeviceReads({ '/macs': macs.join('') })).rejects.toThrow(
      new ScenarioError("a fleet's devices can each map 65536 MAC addresses of a scenario; this one has 65537"),
    );
  });
});
