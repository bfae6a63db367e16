import type { Device } from '../core/device/index.ts';
import type { Handler } from '../core/handler.ts';
import { defineRoute } from '../core/route.ts';
import { reusingLast } from '../core/reusing-last.ts';
import { cpuArchitecture, cpuinfoModel, parseCpuinfo, type Cpuinfo } from '../parsers/cpuinfo.ts';
import { parseMeminfo } from '../parsers/meminfo.ts';
import { deviceTreeString } from '../parsers/sysfs.ts';
import { readDmi } from './dmi.ts';
import { HardwareSchema, type Hardware, NoInputSchema } from './schemas.ts';
import { readRadios } from './wifi.ts';

export const route = defineRoute('GET /api/v1/info/hardware', 'Vendor, board, CPU, memory and radios of the device');
export const request = NoInputSchema;
export const response = HardwareSchema;

const DMI_FIELDS = ['sys_vendor', 'product_name', 'product_version', 'board_vendor', 'board_name', 'board_version'] as const;

/**
 * The hardware record.
 * - vendor/board: from DMI (`sys_vendor`; `product_name` + `product_version`), each falling back to the
 *   base board's (`board_vendor`; `board_name` + `board_version`) when absent or a placeholder. A
 *   device without DMI names itself by /proc/device-tree/model, else cpuinfo's `machine`, `Hardware` or
 *   `system type`: the board is that whole name, the vendor its first word.
 * - cpu: the `uname` machine (cpuinfo's architecture only when uname has none).
 * - memory: MemTotal in bytes; wifi: see `readRadios`.
 *
 * @example
 * await handle(input, device)
 * // { vendor: 'TP-Link', board: 'TP-Link Archer C7 v5', cpu: 'mips', memory: 129236992, wifi: [ … ] }
 */
export const handle: Handler<Hardware> = async (_input, device) => {
  let cpuinfo: Promise<Cpuinfo> | undefined;
  const readCpuinfo = () => (cpuinfo ??= device.readFile('/proc/cpuinfo').then((text) => cpuinfoOf(device, text ?? '')));

  const [uname, meminfo, identity, wifi] = await Promise.all([
    device.uname(),
    device.readFile('/proc/meminfo'),
    readIdentity(device, readCpuinfo),
    readRadios(device),
  ]);
  return {
    vendor: identity.vendor,
    board: identity.board,
    cpu: uname.machine.trim() || cpuArchitecture(await readCpuinfo()),
    memory: memTotalOf(device, meminfo ?? ''),
    wifi,
  };
};

/** /proc/cpuinfo and MemTotal of /proc/meminfo, parsed again only when the text changed. */
const cpuinfoOf = reusingLast(parseCpuinfo);
const memTotalOf = reusingLast((meminfo: string) => parseMeminfo(meminfo).MemTotal ?? null);

async function readIdentity(device: Device, readCpuinfo: () => Promise<Cpuinfo>): Promise<Pick<Hardware, 'vendor' | 'board'>> {
  const dmi = await readDmi(device, DMI_FIELDS);
  const vendor = dmi.sys_vendor ?? dmi.board_vendor;
  const board = joinName(dmi.product_name, dmi.product_version) ?? joinName(dmi.board_name, dmi.board_version);
  if (vendor !== null || board !== null) return { vendor, board };
  const model = deviceTreeString(await device.readFile('/proc/device-tree/model')) ?? cpuinfoModel(await readCpuinfo());
  return splitModel(model);
}

/** `name version`, or the name alone; null without a name. */
function joinName(name: string | null, version: string | null): string | null {
  if (name === null) return null;
  return version === null ? name : `${name} ${version}`;
}

/**
 * A model line such as "TP-Link Archer C7 v5" as vendor and board: the board is the whole line, the
 * vendor its first word when the line has more than one.
 *
 * @example
 * splitModel('GL.iNet GL-USB150') // { vendor: 'GL.iNet', board: 'GL.iNet GL-USB150' }
 */
function splitModel(model: string | null): Pick<Hardware, 'vendor' | 'board'> {
  if (model === null) return { vendor: null, board: null };
  const words = model.split(/\s+/);
  return { vendor: words.length > 1 ? words[0]! : null, board: model };
}
