import { describe, expect, it } from 'vitest';
import { PACKAGE_VERSION } from '../core/version.ts';
import { armOpenwrt, bareMachine, combine, dmiFilesFromDump, infoOf, mipsRouter, pciRouter, rawFixture } from '../../test/support/info-devices.ts';
import * as software from './software.get.ts';

describe('GET /api/v1/info/software', () => {
  it('responds with 200, the BIOS from DMI, the os-release name, kernel, package version and uptime on a PC router', async () => {
    expect(await infoOf(software, pciRouter)).toEqual({
      biosVendor: 'American Megatrends Inc.',
      biosVersion: '3002',
      biosDate: '03/11/2021',
      osVersion: 'Debian GNU/Linux 12 (bookworm)',
      kernelVersion: 'Linux-6.1.0-18-amd64',
      pdVersion: PACKAGE_VERSION,
      uptime: 86400,
    });
  });

  it('responds with the coreboot BIOS of a Chromebook', async () => {
    const chromebook = combine(bareMachine, { files: dmiFilesFromDump(rawFixture('dmi/nixos_hw49_sysfs_dmi_loop_dump_chromebook.txt')) });
    expect(await infoOf(software, chromebook)).toMatchObject({ biosVendor: 'coreboot', biosVersion: 'MrChromebox', biosDate: '07/14/2017' });
  });

  it('responds with OpenWrt’s DISTRIB_DESCRIPTION and null BIOS fields on routers without DMI', async () => {
    expect(await infoOf(software, armOpenwrt)).toEqual({
      biosVendor: null,
      biosVersion: null,
      biosDate: null,
      osVersion: 'OpenWrt 23.05.3 r23809-234f1a2efa',
      kernelVersion: 'Linux-5.15.150',
      pdVersion: PACKAGE_VERSION,
      uptime: 3600,
    });
    expect(await infoOf(software, mipsRouter)).toMatchObject({ osVersion: 'OpenWrt 18.06.1 r7258-5eb055306f', kernelVersion: 'Linux-4.9.120', uptime: 5025 });
  });

  it('responds with the name from /usr/lib/os-release when /etc/os-release is missing', async () => {
    expect(await infoOf(software, bareMachine)).toMatchObject({ osVersion: 'Debian GNU/Linux 12 (bookworm)', uptime: 59 });
  });

  it('responds with NAME and VERSION when os-release has no PRETTY_NAME', async () => {
    const device = { files: { '/etc/os-release': 'NAME=Alpine\nVERSION="3.20"\n' } };
    expect(await infoOf(software, device)).toMatchObject({ osVersion: 'Alpine 3.20' });
  });

  it('responds with null OS version and uptime on a device without those files', async () => {
    expect(await infoOf(software, { uname: { release: '6.6.0' } })).toEqual({
      biosVendor: null,
      biosVersion: null,
      biosDate: null,
      osVersion: null,
      kernelVersion: 'Linux-6.6.0',
      pdVersion: PACKAGE_VERSION,
      uptime: null,
    });
  });
});
