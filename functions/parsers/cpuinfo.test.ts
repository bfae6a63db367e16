import { describe, expect, it } from 'vitest';
import { rawFixture } from '../../test/support/info-devices.ts';
import { cpuArchitecture, cpuinfoField, cpuinfoModel, parseCpuinfo } from './cpuinfo.ts';

describe('/proc/cpuinfo of a MIPS router', () => {
  const ar9330 = parseCpuinfo(rawFixture('cpuinfo/mips_ar9330_gl_usb150_tabs.txt'));
  const ar9344 = parseCpuinfo(rawFixture('cpuinfo/mips_ar9344_wd_mynet_n750_options_tabs.txt'));

  it('reads keys with spaces and any number of tabs before the colon', () => {
    expect(ar9330.blocks).toHaveLength(1);
    expect(cpuinfoField(ar9330, 'system type')).toBe('Atheros AR9330 rev 1');
    expect(cpuinfoField(ar9330, 'cpu model')).toBe('MIPS 24Kc V7.4');
    expect(cpuinfoField(ar9330, 'tlb_entries')).toBe('16');
    expect(cpuinfoField(ar9344, 'Options implemented')).toMatch(/^tlb 4kex 4k_cache /);
  });

  it('keeps colons inside a value', () => {
    expect(cpuinfoField(ar9330, 'hardware watchpoint')).toBe('yes, count: 4, address/irw mask: [0x0ffc, 0x0ffc, 0x0ffb, 0x0ffb]');
  });

  it('names the board from the machine line and the architecture as mips', () => {
    expect(cpuinfoModel(ar9330)).toBe('GL.iNet GL-USB150');
    expect(cpuinfoModel(ar9344)).toBe('Western Digital My Net N750');
    expect(cpuArchitecture(ar9330)).toBe('mips');
  });

  it('falls back to the SoC (system type) when there is no machine line', () => {
    const soc = parseCpuinfo('system type\t\t: MediaTek MT7621 ver:1 eco:3\nprocessor\t\t: 0\ncpu model\t\t: MIPS 1004Kc V2.15\n');
    expect(cpuinfoModel(soc)).toBe('MediaTek MT7621 ver:1 eco:3');
  });
});

describe('/proc/cpuinfo of an ARM router', () => {
  const ipq40xx = parseCpuinfo(rawFixture('cpuinfo/armv7_openwrt_ipq40xx_4core_tabs.txt'));

  it('reads one block per core and the trailer block after the last core', () => {
    expect(ipq40xx.blocks).toHaveLength(5);
    expect(ipq40xx.blocks.filter((block) => 'processor' in block)).toHaveLength(4);
    expect(ipq40xx.blocks[3]).toMatchObject({ processor: '3', 'model name': 'ARMv7 Processor rev 5 (v7l)', 'CPU architecture': '7' });
    expect(ipq40xx.blocks[4]).toEqual({ Hardware: 'Generic DT based system', Revision: '0000', Serial: '0000000000000000' });
  });

  it('reads a key that touches its colon (CPU architecture: 7) and gives armv7l', () => {
    expect(cpuinfoField(ipq40xx, 'CPU architecture')).toBe('7');
    expect(cpuArchitecture(ipq40xx)).toBe('armv7l');
  });

  it('names no board when Hardware is the generic device-tree line', () => {
    expect(cpuinfoModel(ipq40xx)).toBeNull();
  });

  it('names the board from a specific Hardware line', () => {
    expect(cpuinfoModel(parseCpuinfo('processor\t: 0\nCPU architecture: 7\n\nHardware\t: BCM2835\nRevision\t: a02082\n'))).toBe('BCM2835');
  });
});

describe('CPU architecture from /proc/cpuinfo', () => {
  it('tells 64-bit ARM from 32-bit ARMv8 by the feature names', () => {
    const arm64 = 'processor\t: 0\nBogoMIPS\t: 108.00\nFeatures\t: fp asimd evtstrm crc32 cpuid\nCPU implementer\t: 0x41\nCPU architecture: 8\n';
    const armv8l =
      'processor\t: 0\nmodel name\t: ARMv8 Processor rev 4 (v8l)\nFeatures\t: half thumb fastmult vfp edsp neon vfpv3 tls vfpv4 idiva idivt lpae evtstrm crc32\nCPU architecture: 8\n';
    expect(cpuArchitecture(parseCpuinfo(arm64))).toBe('aarch64');
    expect(cpuArchitecture(parseCpuinfo(armv8l))).toBe('armv8l');
    expect(cpuArchitecture(parseCpuinfo('processor\t: 0\nCPU architecture: 5TEJ\n'))).toBe('armv5tejl');
  });

  it('gives x86_64 for a CPU with long mode and i686 without', () => {
    expect(cpuArchitecture(parseCpuinfo('processor\t: 0\nvendor_id\t: AuthenticAMD\nflags\t\t: fpu vme lm nx\n'))).toBe('x86_64');
    expect(cpuArchitecture(parseCpuinfo('processor\t: 0\nvendor_id\t: GenuineIntel\nflags\t\t: fpu vme pae\n'))).toBe('i686');
  });

  it('gives mips64 and riscv64 from the isa line, and null when it cannot tell', () => {
    expect(cpuArchitecture(parseCpuinfo('processor\t\t: 0\ncpu model\t\t: Cavium Octeon III V0.2\nisa\t\t\t: mips1 mips2 mips3 mips4 mips5 mips64r2\n'))).toBe(
      'mips64',
    );
    expect(cpuArchitecture(parseCpuinfo('processor\t: 0\nhart\t\t: 0\nisa\t\t: rv64imafdc\nmmu\t\t: sv39\n'))).toBe('riscv64');
    expect(cpuArchitecture(parseCpuinfo(''))).toBeNull();
  });
});
