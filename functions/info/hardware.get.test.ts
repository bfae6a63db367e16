import { describe, expect, it } from 'vitest';
import { armOpenwrt, bareMachine, combine, dmiFilesFromDump, infoOf, mipsRouter, pciRouter, rawFixture } from '../../test/support/info-devices.ts';
import * as hardware from './hardware.get.ts';

describe('GET /api/v1/info/hardware', () => {
  it('responds with 200 and the base board, CPU, memory and two PCI radios of a PC router whose DMI system fields are placeholders', async () => {
    expect(await infoOf(hardware, pciRouter)).toEqual({
      vendor: 'ASUSTeK COMPUTER INC.',
      board: 'PRIME B450M-A Rev X.0x',
      cpu: 'x86_64',
      memory: 16314532 * 1024,
      wifi: [
        { id: 'pci-wifi-0', slot: 'pci/0000:09:00.0', macAddr: '04:f0:21:aa:bb:01', vendorId: '0x168c', deviceId: '0x003c' },
        { id: 'pci-wifi-1', slot: 'pci/0000:0a:00.0', macAddr: '04:f0:21:aa:bb:02', vendorId: '0x168c', deviceId: '0x0034' },
      ],
    });
  });

  it('responds with vendor and product name plus version from DMI when they are real (a Chromebook)', async () => {
    const chromebook = combine(bareMachine, { files: dmiFilesFromDump(rawFixture('dmi/nixos_hw49_sysfs_dmi_loop_dump_chromebook.txt')) });
    expect(await infoOf(hardware, chromebook)).toMatchObject({ vendor: 'GOOGLE', board: 'Peppy 1.0' });
  });

  it('responds with the board from cpuinfo’s machine line, a platform radio and a USB radio on a MIPS router without DMI', async () => {
    expect(await infoOf(hardware, mipsRouter)).toEqual({
      vendor: 'GL.iNet',
      board: 'GL.iNet GL-USB150',
      cpu: 'mips',
      memory: 61108 * 1024,
      wifi: [
        { id: 'platform-wifi-0', slot: 'platform/ath9k', macAddr: 'e4:95:6e:40:12:34', vendorId: null, deviceId: null },
        { id: 'usb-wifi-0', slot: 'usb/1-1:1.0', macAddr: '00:e0:4c:81:88:01', vendorId: '0x0bda', deviceId: '0x8179' },
      ],
    });
  });

  it('responds with null vendor and board and no radios on a machine without DMI, device tree or radios', async () => {
    expect(await infoOf(hardware, bareMachine)).toEqual({ vendor: null, board: null, cpu: 'x86_64', memory: 2014256 * 1024, wifi: [] });
  });

  it('responds with the device-tree model, not cpuinfo’s generic Hardware line, on an ARM OpenWrt box', async () => {
    expect(await infoOf(hardware, armOpenwrt)).toEqual({
      vendor: 'GL.iNet',
      board: 'GL.iNet GL-B1300',
      cpu: 'armv7l',
      memory: 245072 * 1024,
      wifi: [
        { id: 'platform-wifi-0', slot: 'platform/a000000.wifi', macAddr: '94:83:c4:01:23:44', vendorId: null, deviceId: null },
        { id: 'platform-wifi-1', slot: 'platform/a800000.wifi', macAddr: '94:83:c4:01:23:45', vendorId: null, deviceId: null },
      ],
    });
  });

  it('responds with the architecture from cpuinfo when uname names no machine', async () => {
    expect(await infoOf(hardware, combine(armOpenwrt, { uname: { machine: '' } }))).toMatchObject({ cpu: 'armv7l' });
  });

  it('responds with nulls and no radios on a device that has none of the sources', async () => {
    expect(await infoOf(hardware, { uname: { machine: '' } })).toEqual({ vendor: null, board: null, cpu: null, memory: null, wifi: [] });
  });
});
