import { describe, expect, it } from 'vitest';
import { radios } from '../../test/support/info-devices.ts';
import { memoryDevice } from '../../test/support/memory-device.ts';
import { compareDeviceNames, readRadios } from './wifi.ts';

describe('radios of /sys/class/ieee80211', () => {
  it('lists PCI radios with their ids, numbered in bus order rather than phy order', async () => {
    const device = memoryDevice(
      radios(
        {
          phy: 'phy0',
          macAddr: '04:F0:21:AA:BB:02',
          devicePath: '/sys/devices/pci0000:00/0000:00:1c.4/0000:0a:00.0',
          bus: 'pci',
          ids: { vendor: '0x168c', device: '0x0034' },
        },
        {
          phy: 'phy1',
          macAddr: '04:f0:21:aa:bb:01',
          devicePath: '/sys/devices/pci0000:00/0000:00:1c.0/0000:09:00.0',
          bus: 'pci',
          ids: { vendor: '0x168c', device: '0x003c' },
        },
      ),
    );
    expect(await readRadios(device)).toEqual([
      { id: 'pci-wifi-0', slot: 'pci/0000:09:00.0', macAddr: '04:f0:21:aa:bb:01', vendorId: '0x168c', deviceId: '0x003c' },
      { id: 'pci-wifi-1', slot: 'pci/0000:0a:00.0', macAddr: '04:f0:21:aa:bb:02', vendorId: '0x168c', deviceId: '0x0034' },
    ]);
  });

  it('takes a USB radio’s ids from the USB device above its interface and numbers each bus apart', async () => {
    const device = memoryDevice(
      radios(
        {
          phy: 'phy0',
          macAddr: '00:e0:4c:81:88:10',
          devicePath: '/sys/devices/pci0000:00/0000:00:14.0/usb1/1-10/1-10:1.0',
          bus: 'usb',
          ids: { vendor: '0bda', device: '8812' },
        },
        {
          phy: 'phy1',
          macAddr: '00:e0:4c:81:88:02',
          devicePath: '/sys/devices/pci0000:00/0000:00:14.0/usb1/1-2/1-2:1.0',
          bus: 'usb',
          ids: { vendor: '148f', device: '5370' },
        },
        {
          phy: 'phy2',
          macAddr: '04:f0:21:aa:bb:01',
          devicePath: '/sys/devices/pci0000:00/0000:00:1c.0/0000:03:00.0',
          bus: 'pci',
          ids: { vendor: '0x8086', device: '0x2723' },
        },
      ),
    );
    expect(await readRadios(device)).toEqual([
      { id: 'pci-wifi-0', slot: 'pci/0000:03:00.0', macAddr: '04:f0:21:aa:bb:01', vendorId: '0x8086', deviceId: '0x2723' },
      { id: 'usb-wifi-0', slot: 'usb/1-2:1.0', macAddr: '00:e0:4c:81:88:02', vendorId: '0x148f', deviceId: '0x5370' },
      { id: 'usb-wifi-1', slot: 'usb/1-10:1.0', macAddr: '00:e0:4c:81:88:10', vendorId: '0x0bda', deviceId: '0x8812' },
    ]);
  });

  it('lists SoC radios on the platform bus with null ids, and SDIO radios with theirs', async () => {
    const device = memoryDevice(
      radios(
        { phy: 'phy0', macAddr: 'c4:e9:84:00:00:01', devicePath: '/sys/devices/platform/ahb/18100000.wmac', bus: 'platform' },
        {
          phy: 'phy1',
          macAddr: 'b8:27:eb:00:00:02',
          devicePath: '/sys/devices/platform/soc/3f300000.mmcnr/mmc_host/mmc1/mmc1:0001/mmc1:0001:1',
          bus: 'sdio',
          ids: { vendor: '0x02d0', device: '0xa9a6' },
        },
      ),
    );
    expect(await readRadios(device)).toEqual([
      { id: 'platform-wifi-0', slot: 'platform/18100000.wmac', macAddr: 'c4:e9:84:00:00:01', vendorId: null, deviceId: null },
      { id: 'sdio-wifi-0', slot: 'sdio/mmc1:0001:1', macAddr: 'b8:27:eb:00:00:02', vendorId: '0x02d0', deviceId: '0xa9a6' },
    ]);
  });

  it('answers an empty list on a device without radios', async () => {
    expect(await readRadios(memoryDevice({ files: { '/proc/cpuinfo': 'processor\t: 0\n' } }))).toEqual([]);
  });

  it('does not throw when files are missing: no MAC, no ids, no subsystem link, no device link', async () => {
    const device = memoryDevice({
      files: {
        '/sys/class/ieee80211/phy0/index': '0\n',
        '/sys/class/ieee80211/phy1/addresses': '02:00:00:00:01:00\n02:00:00:00:01:01\n',
        '/sys/class/ieee80211/phy2/index': '2\n',
      },
      links: {
        '/sys/class/ieee80211/phy0/device': '/sys/devices/pci0000:00/0000:00:1c.0/0000:02:00.0',
        '/sys/devices/pci0000:00/0000:00:1c.0/0000:02:00.0/subsystem': '/sys/bus/pci',
        '/sys/class/ieee80211/phy1/device': '/sys/devices/virtual/mac80211_hwsim/hwsim1',
      },
    });
    expect(await readRadios(device)).toEqual([
      { id: 'pci-wifi-0', slot: 'pci/0000:02:00.0', macAddr: '', vendorId: null, deviceId: null },
      { id: 'unknown-wifi-0', slot: 'unknown/hwsim1', macAddr: '02:00:00:00:01:00', vendorId: null, deviceId: null },
    ]);
  });
});

describe('device name order', () => {
  it('orders hexadecimal PCI addresses and decimal USB ports by value', () => {
    expect(['0000:0a:00.0', '0000:09:00.0', '0000:10:00.0'].sort(compareDeviceNames)).toEqual(['0000:09:00.0', '0000:0a:00.0', '0000:10:00.0']);
    expect(['1-10:1.0', '1-2:1.0', '1-1.2:1.0', '1-1:1.0', '2-1:1.0'].sort(compareDeviceNames)).toEqual([
      '1-1:1.0',
      '1-1.2:1.0',
      '1-2:1.0',
      '1-10:1.0',
      '2-1:1.0',
    ]);
    expect(['a800000.wifi', 'a000000.wifi', '18100000.wmac'].sort(compareDeviceNames)).toEqual(['a000000.wifi', 'a800000.wifi', '18100000.wmac']);
  });
});
