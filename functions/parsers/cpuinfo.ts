/**
 * `/proc/cpuinfo`: `key<tabs or spaces>: value` lines in blocks separated by blank lines.
 *
 * What a block holds depends on the architecture: x86 and ARM print one block per core (ARM adds a
 * trailer block with `Hardware`, `Revision` and `Serial` after the last core); MIPS repeats
 * `system type` and `machine` in every core block. Keys may contain spaces (`cpu model`) and may touch
 * the colon (`CPU architecture: 7`); a value may itself contain colons.
 */
export interface Cpuinfo {
  /** The blocks in file order; each maps a key to its value (the first one when a key repeats). */
  blocks: Record<string, string>[];
}

/**
 * Splits /proc/cpuinfo into its blocks.
 *
 * @example
 * parseCpuinfo('processor\t: 0\nmodel name\t: ARMv7 Processor rev 5 (v7l)\n\nHardware\t: BCM2835\n').blocks
 * // [{ processor: '0', 'model name': 'ARMv7 Processor rev 5 (v7l)' }, { Hardware: 'BCM2835' }]
 */
export function parseCpuinfo(text: string): Cpuinfo {
  const blocks: Record<string, string>[] = [];
  let block: Record<string, string> | null = null;
  for (const line of text.split('\n')) {
    const colon = line.indexOf(':');
    if (line.trim() === '') {
      block = null;
      continue;
    }
    if (colon <= 0) continue;
    const key = line.slice(0, colon).trim();
    if (key === '') continue;
    if (block === null) {
      block = {};
      blocks.push(block);
    }
    if (!Object.hasOwn(block, key)) block[key] = line.slice(colon + 1).trim();
  }
  return { blocks };
}

/**
 * The first value of `key` in any block, or null.
 *
 * @example
 * cpuinfoField(parseCpuinfo('system type\t\t: Atheros AR9330 rev 1\n'), 'system type') // 'Atheros AR9330 rev 1'
 */
export function cpuinfoField(info: Cpuinfo, key: string): string | null {
  for (const block of info.blocks) if (Object.hasOwn(block, key) && block[key] !== '') return block[key]!;
  return null;
}

/**
 * The CPU architecture as `uname -m` would name it, guessed from cpuinfo; null when it cannot tell.
 * Only a fallback for a device whose `uname` has no machine: the kernel's own word is better.
 *
 * MIPS (`cpu model`, or an `isa` of mips…) → `mips` or `mips64`; ARM (`CPU architecture`) →
 * `armv7l`, `armv6l`, `armv5tejl`, and for ARMv8 `aarch64` when the features are the 64-bit ones
 * (`asimd`), `armv8l` otherwise; x86 (`vendor_id` and `flags`) → `x86_64` with the `lm` flag, else
 * `i686`; RISC-V (`isa: rv64…`) → `riscv64`/`riscv32`.
 *
 * @example
 * cpuArchitecture(parseCpuinfo('processor\t: 0\nCPU architecture: 7\n')) // 'armv7l'
 */
export function cpuArchitecture(info: Cpuinfo): string | null {
  const isa = cpuinfoField(info, 'isa')?.toLowerCase() ?? '';
  if (cpuinfoField(info, 'cpu model') !== null || isa.startsWith('mips')) {
    return /\bmips64/.test(isa) ? 'mips64' : 'mips';
  }
  const arm = cpuinfoField(info, 'CPU architecture');
  if (arm !== null) {
    const features = words(cpuinfoField(info, 'Features'));
    if (/^(8|aarch64)$/i.test(arm)) return features.has('asimd') && !features.has('thumb') ? 'aarch64' : 'armv8l';
    return /^[0-9][0-9a-z]*$/i.test(arm) ? `armv${arm.toLowerCase()}l` : null;
  }
  if (cpuinfoField(info, 'vendor_id') !== null) {
    return words(cpuinfoField(info, 'flags')).has('lm') ? 'x86_64' : 'i686';
  }
  const riscv = /^rv(32|64)/.exec(isa);
  if (riscv) return `riscv${riscv[1]}`;
  return null;
}

/** `Hardware` values that name no board: kernels booted from a device tree print these. */
const GENERIC_HARDWARE = [/^generic\b/i, /device tree/i];

/**
 * What cpuinfo says the machine is, for a device without DMI or device-tree model: `machine` (MIPS
 * boards), else `Hardware` unless it is a generic line such as "Generic DT based system", else
 * `system type` (the MIPS SoC). Null when none is there.
 *
 * @example
 * cpuinfoModel(parseCpuinfo('system type\t\t: Atheros AR9330 rev 1\nmachine\t\t\t: GL.iNet GL-USB150\n'))
 * // 'GL.iNet GL-USB150'
 */
export function cpuinfoModel(info: Cpuinfo): string | null {
  const hardware = cpuinfoField(info, 'Hardware');
  const specificHardware = hardware !== null && !GENERIC_HARDWARE.some((generic) => generic.test(hardware)) ? hardware : null;
  return cpuinfoField(info, 'machine') ?? specificHardware ?? cpuinfoField(info, 'system type');
}

function words(value: string | null): Set<string> {
  return new Set((value ?? '').split(/\s+/).filter((word) => word !== ''));
}
