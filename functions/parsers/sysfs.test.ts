import { describe, expect, it } from 'vitest';
import { dmiFilesFromDmidecode, dmiFilesFromDump, rawFixture } from '../../test/support/info-devices.ts';
import { deviceTreeString, dmiValue, hexId, sysfsLine } from './sysfs.ts';

describe('DMI values', () => {
  it('reads a Chromebook dump: trimmed values, empty and unreadable fields as null', () => {
    const files = dmiFilesFromDump(rawFixture('dmi/nixos_hw49_sysfs_dmi_loop_dump_chromebook.txt'));
    const value = (field: string) => dmiValue(files[`/sys/class/dmi/id/${field}`] ?? null);
    expect(value('sys_vendor')).toBe('GOOGLE');
    expect(value('bios_version')).toBe('MrChromebox');
    expect(value('bios_date')).toBe('07/14/2017');
    expect(value('chassis_version')).toBeNull();
    expect(value('product_serial')).toBeNull();
  });

  it('treats OEM placeholders as absent, in any case and spacing', () => {
    const files = dmiFilesFromDmidecode(rawFixture('dmi/systemd24446_asus_system_information_placeholder.txt'));
    expect(files['/sys/class/dmi/id/sys_vendor']).toBe('System manufacturer\n');
    expect(dmiValue(files['/sys/class/dmi/id/sys_vendor']!)).toBeNull();
    expect(dmiValue(files['/sys/class/dmi/id/product_name']!)).toBeNull();
    for (const placeholder of [
      'To Be Filled By O.E.M.',
      'To be filled by O.E.M.',
      'Default string',
      'Defaultstring',
      'Not Specified',
      'System Version',
      'O.E.M.',
    ]) {
      expect(dmiValue(`${placeholder}\n`)).toBeNull();
    }
    expect(dmiValue('ASUSTeK COMPUTER INC.\n')).toBe('ASUSTeK COMPUTER INC.');
    expect(dmiValue('  \n')).toBeNull();
  });
});

describe('device-tree strings', () => {
  it('reads a NUL-terminated model and the first of a string list', () => {
    expect(deviceTreeString('TP-Link Archer C7 v5\0')).toBe('TP-Link Archer C7 v5');
    expect(deviceTreeString('glinet,gl-b1300\0qcom,ipq4019\0')).toBe('glinet,gl-b1300');
    expect(deviceTreeString('\0')).toBeNull();
    expect(deviceTreeString(null)).toBeNull();
  });
});

describe('sysfs ids and lines', () => {
  it('gives 0x-prefixed lower-case hex ids from PCI and USB files', () => {
    expect(hexId('0x168C\n')).toBe('0x168c');
    expect(hexId('0bda\n')).toBe('0x0bda');
    expect(hexId('0x2d0\n')).toBe('0x02d0');
    expect(hexId('')).toBeNull();
    expect(hexId('zz\n')).toBeNull();
    expect(hexId(null)).toBeNull();
  });

  it('reads the first line of an attribute', () => {
    expect(sysfsLine('00:11:22:33:44:55\n')).toBe('00:11:22:33:44:55');
    expect(sysfsLine('\n')).toBeNull();
  });
});
