import { describe, expect, it } from 'vitest';
import { combine, radios } from '../../test/support/info-devices.ts';
import { memoryDevice } from '../../test/support/memory-device.ts';
import { drivers, netInterfaces, routerHardware } from '../../test/support/config-devices.ts';
import { compareNatural, generateHostConfig, hostConfigFor, parseStoredHostConfig, radioBand, telemetrySettings } from './host-config.ts';
import { checkHostConfig } from './host-config-body.ts';

describe('generateHostConfig (GET /api/v1/config/new-config)', () => {
  it('makes the first Ethernet port the WAN, bridges the others as the LAN, and sets up each radio in its band', async () => {
    const config = await generateHostConfig(memoryDevice(routerHardware));
    expect(config).toEqual({
      firewall: { defaults: { input: 'ACCEPT', output: 'ACCEPT', forward: 'REJECT' } },
      lan: {
        interfaces: ['eth1', 'eth2', 'eth10'],
        proto: 'static',
        ipaddr: '192.168.1.1',
        netmask: '255.255.255.0',
        dhcp: { start: 100, limit: 150, leasetime: '12h' },
      },
      wan: { interface: 'eth0', proto: 'dhcp' },
      wifi: [
        { id: 'pci-wifi-0', channel: 36, hwmode: '11a', htmode: 'VHT80' },
        { id: 'pci-wifi-1', channel: 1, hwmode: '11g', htmode: 'HT20' },
      ],
      'wifi-interfaces': [],
      system: { hostname: 'chutebox', timezone: 'UTC' },
      telemetry: { enabled: true, interval: 60 },
    });
    expect(checkHostConfig(config)).toBe(config);
  });

  it('gives 2.4 GHz to radios whose driver has no 5 GHz band, channels 1, 6 and 11 in turn', async () => {
    const devicePath = (n: number) => `/sys/devices/pci0000:00/0000:00:1${n}.0/0000:0${n}:00.0`;
    const spec = combine(
      radios(
        ...[1, 2, 3, 4].map((n) => ({
          phy: `phy${n}`,
          macAddr: `02:00:00:00:00:0${n}`,
          devicePath: devicePath(n),
          bus: 'pci',
          ids: { vendor: '0x1814', device: '0x0781' },
        })),
      ),
      drivers({ 'pci/0000:01:00.0': 'rt2800pci', 'pci/0000:02:00.0': 'rt2800pci', 'pci/0000:03:00.0': 'rt2800pci', 'pci/0000:04:00.0': 'rt2800pci' }),
    );
    const { wifi } = await generateHostConfig(memoryDevice(spec));
    expect(wifi!.map((radio) => [radio.id, radio.channel, radio.hwmode, radio.htmode])).toEqual([
      ['pci-wifi-0', 1, '11g', 'HT20'],
      ['pci-wifi-1', 6, '11g', 'HT20'],
      ['pci-wifi-2', 11, '11g', 'HT20'],
      ['pci-wifi-3', 1, '11g', 'HT20'],
    ]);
  });

  it('alternates dual-band radios between 5 GHz (36, then 149) and 2.4 GHz, and uses HE modes for 802.11ax drivers', async () => {
    const devicePath = (n: number) => `/sys/devices/pci0000:00/0000:00:1${n}.0/0000:0${n}:00.0`;
    const spec = combine(
      radios(
        ...[1, 2, 3].map((n) => ({
          phy: `phy${n}`,
          macAddr: `02:00:00:00:00:0${n}`,
          devicePath: devicePath(n),
          bus: 'pci',
          ids: { vendor: '0x14c3', device: '0x7915' },
        })),
      ),
      drivers({ 'pci/0000:01:00.0': 'mt7915e', 'pci/0000:02:00.0': 'mt7915e', 'pci/0000:03:00.0': 'mt7915e' }),
    );
    const { wifi } = await generateHostConfig(memoryDevice(spec));
    expect(wifi).toEqual([
      { id: 'pci-wifi-0', channel: 36, hwmode: '11a', htmode: 'HE80' },
      { id: 'pci-wifi-1', channel: 1, hwmode: '11g', htmode: 'HE20' },
      { id: 'pci-wifi-2', channel: 149, hwmode: '11a', htmode: 'HE80' },
    ]);
  });

  it('takes an ath9k radio with the id of a dual-band chip as dual band, and one built into the SoC as 2.4 GHz', async () => {
    const spec = combine(
      radios(
        { phy: 'phy0', macAddr: 'e4:95:6e:00:00:01', devicePath: '/sys/devices/platform/ahb/18100000.wmac', bus: 'platform' },
        {
          phy: 'phy1',
          macAddr: '02:00:00:00:00:02',
          devicePath: '/sys/devices/pci0000:00/0000:00:00.0/0000:01:00.0',
          bus: 'pci',
          ids: { vendor: '0x168c', device: '0x002a' },
        },
      ),
      drivers({ 'platform/18100000.wmac': 'ath9k', 'pci/0000:01:00.0': 'ath9k' }),
    );
    const { wifi } = await generateHostConfig(memoryDevice(spec));
    expect(wifi).toEqual([
      { id: 'pci-wifi-0', channel: 36, hwmode: '11a', htmode: 'HT40' },
      { id: 'platform-wifi-0', channel: 1, hwmode: '11g', htmode: 'HT20' },
    ]);
  });

  it('has no wan and an empty LAN bridge on a device without Ethernet ports, and no wifi without radios', async () => {
    const config = await generateHostConfig(memoryDevice(netInterfaces([], { loopback: true, bridge: 'br-lan' })));
    expect(config).toEqual(hostConfigFor([], []));
    expect(config).not.toHaveProperty('wan');
    expect(config.lan.interfaces).toEqual([]);
    expect(config.wifi).toEqual([]);
  });

  it('makes the only Ethernet port the WAN', async () => {
    const config = await generateHostConfig(memoryDevice(netInterfaces(['eth0'])));
    expect(config.wan).toEqual({ interface: 'eth0', proto: 'dhcp' });
    expect(config.lan.interfaces).toEqual([]);
  });
});

describe('parseStoredHostConfig', () => {
  it('reads the stored YAML as YAML 1.1, as it was written', () => {
    expect(parseStoredHostConfig('# stored\nlan:\n  interfaces: [eth1]\nwifi-interfaces:\n  - ssid: "yes"\n')).toEqual({
      lan: { interfaces: ['eth1'] },
      'wifi-interfaces': [{ ssid: 'yes' }],
    });
  });

  it('throws, naming the stored host configuration, for a file that is not YAML or not a mapping', () => {
    expect(() => parseStoredHostConfig('lan: [1\n')).toThrow(/^the stored host configuration is not valid YAML/);
    expect(() => parseStoredHostConfig('- a\n- b\n')).toThrow('the stored host configuration is not a mapping');
  });
});

describe('telemetrySettings', () => {
  it('fills in enabled true and 60 seconds where the configuration says nothing', () => {
    expect(telemetrySettings({})).toEqual({ enabled: true, interval: 60 });
    expect(telemetrySettings({ telemetry: { enabled: false } })).toEqual({ enabled: false, interval: 60 });
    expect(telemetrySettings({ telemetry: { interval: 300 } })).toEqual({ enabled: true, interval: 300 });
  });
});

describe('band helpers', () => {
  it('tells the band from the channel, or from the mode for auto', () => {
    expect(radioBand({ channel: 11 })).toBe('2g');
    expect(radioBand({ channel: 149 })).toBe('5g');
    expect(radioBand({ channel: 'auto', hwmode: '11a' })).toBe('5g');
    expect(radioBand({ channel: 'auto', hwmode: '11g' })).toBe('2g');
    expect(radioBand({ channel: 'auto', hwmode: '11n' })).toBeNull();
  });

  it('orders interface names by their numbers', () => {
    expect(['eth10', 'eth2', 'eth1', 'enp3s0', 'enp10s0'].sort(compareNatural)).toEqual(['enp3s0', 'enp10s0', 'eth1', 'eth2', 'eth10']);
  });
});
