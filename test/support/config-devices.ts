import type { MemoryHostConfigOptions } from '../../emulator/scenario/host-config.ts';
import { combine, radios } from './info-devices.ts';
import { memoryDevice, type MemoryDevice, type MemoryDeviceSpec } from './memory-device.ts';

/*
 * Devices for the host-configuration tests: network hardware laid out in sysfs as the kernel does,
 * and a memory device whose `hostConfig` is the emulator's in-memory one.
 */

/**
 * Network interfaces in /sys/class/net: each Ethernet port with a `device` link to its PCI device,
 * and the interfaces that are no Ethernet port: loopback and a bridge (no `device`), a Wi-Fi
 * interface (`phy80211`, `wireless`).
 */
export function netInterfaces(ports: string[], others: { loopback?: boolean; bridge?: string; wifi?: string } = {}): MemoryDeviceSpec {
  const files: Record<string, string> = {};
  const links: Record<string, string> = {};
  ports.forEach((port, i) => {
    files[`/sys/class/net/${port}/address`] = `00:0d:b9:00:00:0${i}\n`;
    links[`/sys/class/net/${port}/device`] = `/sys/devices/pci0000:00/0000:00:0${i + 1}.0/0000:0${i + 1}:00.0`;
  });
  if (others.loopback) files['/sys/class/net/lo/address'] = '00:00:00:00:00:00\n';
  if (others.bridge) files[`/sys/class/net/${others.bridge}/bridge/stp_state`] = '0\n';
  if (others.wifi) {
    files[`/sys/class/net/${others.wifi}/phy80211/name`] = 'phy0\n';
    files[`/sys/class/net/${others.wifi}/wireless/.present`] = '';
    links[`/sys/class/net/${others.wifi}/device`] = '/sys/devices/pci0000:00/0000:00:02.4/0000:04:00.0';
  }
  return { files, links };
}

/** The kernel driver of each device, by slot: `{ 'pci/0000:04:00.0': 'ath10k_pci' }`. */
export function drivers(bySlot: Record<string, string>): MemoryDeviceSpec {
  const links: Record<string, string> = {};
  for (const [slot, driver] of Object.entries(bySlot)) {
    const [bus, name] = slot.split('/');
    links[`/sys/bus/${bus}/devices/${name}/driver`] = `/sys/bus/${bus}/drivers/${driver}`;
  }
  return { links };
}

/**
 * A PC Engines-style router: Ethernet eth0, eth1, eth2 (and eth10, to check the order), loopback,
 * br-lan, wlan0; an 802.11ac dual-band radio (ath10k, QCA988x) and an 802.11n dual-band one (ath9k,
 * AR9580), as the default scenario has.
 */
export const routerHardware: MemoryDeviceSpec = combine(
  netInterfaces(['eth0', 'eth10', 'eth1', 'eth2'], { loopback: true, bridge: 'br-lan', wifi: 'wlan0' }),
  radios(
    {
      phy: 'phy0',
      macAddr: '04:f0:21:aa:bb:01',
      devicePath: '/sys/devices/pci0000:00/0000:00:02.4/0000:04:00.0',
      bus: 'pci',
      ids: { vendor: '0x168c', device: '0x003c' },
    },
    {
      phy: 'phy1',
      macAddr: '04:f0:21:aa:bb:02',
      devicePath: '/sys/devices/pci0000:00/0000:00:02.5/0000:05:00.0',
      bus: 'pci',
      ids: { vendor: '0x168c', device: '0x0033' },
    },
  ),
  drivers({ 'pci/0000:04:00.0': 'ath10k_pci', 'pci/0000:05:00.0': 'ath9k' }),
);

export type ConfigDevice = MemoryDevice;

/**
 * A memory device whose host configuration is the emulator's in-memory one, generated from the
 * device's own hardware unless `options.generate` says otherwise.
 *
 * @example
 * const device = configDevice(routerHardware, { stored: 'firewall: …' });
 */
export function configDevice(spec: MemoryDeviceSpec = {}, options: MemoryHostConfigOptions = {}): ConfigDevice {
  return memoryDevice({ ...spec, hostConfig: options });
}

/** A valid host configuration for the default scenario's router that differs from the generated one everywhere a user would look. */
export const EDITED_HOST_CONFIG = {
  firewall: { defaults: { input: 'DROP', output: 'ACCEPT', forward: 'REJECT' } },
  lan: { interfaces: ['eth1', 'eth2'], proto: 'static', ipaddr: '10.20.0.1', netmask: '255.255.255.0', dhcp: { start: 50, limit: 100, leasetime: '1h' } },
  wan: { interface: 'eth0', proto: 'dhcp' },
  wifi: [
    { id: 'pci-wifi-0', channel: 149, hwmode: '11a', htmode: 'VHT80' },
    { id: 'pci-wifi-1', channel: 11, hwmode: '11g', htmode: 'HT20' },
  ],
  'wifi-interfaces': [{ device: 'pci-wifi-0', ssid: 'home', encryption: 'psk2', key: 'a-secret-passphrase', network: 'lan' }],
  system: { hostname: 'lab-router', timezone: 'Europe/Zurich' },
  telemetry: { enabled: true, interval: 300 },
};
