import type { Device } from '../../functions/core/device/index.ts';
import { DMI_DIR } from '../../functions/info/dmi.ts';
import { decodeSsid } from '../../functions/parsers/hostapd.ts';
import { dmiValue } from '../../functions/parsers/sysfs.ts';
import { NETWORK_FILES, networkDir } from '../../runtime/scenario/format.ts';
import type { IdentityValue } from './identity-values.ts';
import type { Site, Span } from './identity-texts.ts';

/**
 * The places of a scenario that hold an identity value other than a MAC or a container id (which are
 * found anywhere): the DMI serials and UUID, the host name, a serial in cpuinfo or the device tree, and
 * the SSIDs that device.yaml marks (`identity.ssids`) where hostapd, OpenWrt or a chute configuration
 * names them.
 */

/** The DMI fields that name one machine: its serial numbers and asset tags. */
const DMI_SERIALS = ['product_serial', 'board_serial', 'chassis_serial', 'board_asset_tag', 'chassis_asset_tag'];

/** The files whose whole text is the host name. */
const HOSTNAME_FILES = ['/proc/sys/kernel/hostname', '/etc/hostname'];

/**
 * The sites of a scenario's raw files, by the path of the file in its tree (links resolved).
 *
 * @param files the scenario's files, to resolve the paths where a device reads them.
 * @param chutes the networks of each chute, for their hostapd recordings.
 */
export async function fileSites(
  files: Pick<Device, 'realPath'>,
  chutes: Record<string, readonly string[]>,
  ssids: ReadonlySet<string>,
): Promise<Map<string, Site>> {
  const sites = new Map<string, Site>();
  const at = async (devicePath: string, site: Site) => {
    const found = await files.realPath(devicePath);
    if (found !== null) sites.set(found, site);
  };
  for (const field of DMI_SERIALS) await at(`${DMI_DIR}/${field}`, wholeText(serialValue));
  await at(`${DMI_DIR}/product_uuid`, wholeText(uuidValue));
  for (const file of HOSTNAME_FILES) await at(file, wholeText(hostnameValue));
  await at('/etc/config/system', lineValues(/^\s*option\s+hostname\s+(['"]?)(?<value>[^'"\n]+)\1[ \t]*$/dgm, hostnameValue));
  await at(
    '/proc/cpuinfo',
    lineValues(/^Serial\s*:\s*(?<value>\S+)[ \t]*$/dgm, (text) => (/^0+$/.test(text) ? null : serialValue(text))),
  );
  await at('/proc/device-tree/serial-number', wholeText(serialValue));
  if (ssids.size === 0) return sites;
  await at('/etc/config/wireless', lineValues(/^\s*option\s+ssid\s+(['"]?)(?<value>[^'"\n]+)\1[ \t]*$/dgm, ssidValue(ssids, false)));
  const hostapd = lineValues(/^ssid(?:\[\d+\])?=(?<value>.*)$/dgm, ssidValue(ssids, true));
  for (const [chute, networks] of Object.entries(chutes)) {
    for (const network of networks) {
      for (const file of [NETWORK_FILES.hostapdStatus, NETWORK_FILES.hostapdConfig]) await at(`/${networkDir(chute, network)}/${file}`, hostapd);
    }
  }
  return sites;
}

/**
 * The site of a string of the scenario's documents at `path` (keys from the documents' root): a chute
 * network's `ssid`, and the host configuration's `hostname` and `ssid` lines.
 */
export function documentSite(path: readonly string[], ssids: ReadonlySet<string>): Site | undefined {
  if (path.length === 6 && path[0] === 'chutes' && path[2] === 'config' && path[3] === 'net' && path[5] === 'ssid') return wholeText(ssidValue(ssids, false));
  if (path.length === 1 && path[0] === 'hostConfig') return hostConfigLines(ssids);
  return undefined;
}

/** The `hostname:` and marked `ssid:` values of a host configuration's YAML. */
function hostConfigLines(ssids: ReadonlySet<string>): Site {
  const hostnames = lineValues(/^\s*(?:-\s+)?hostname:[ \t]*(['"]?)(?<value>[^'"\n#]*?)\1[ \t]*(?:#.*)?$/dgm, hostnameValue);
  const marked = lineValues(/^\s*(?:-\s+)?ssid:[ \t]*(['"]?)(?<value>[^'"\n#]*?)\1[ \t]*(?:#.*)?$/dgm, ssidValue(ssids, false));
  return (text) => [...hostnames(text), ...marked(text)];
}

/** The whole text but its trailing white space and NULs, as a sysfs attribute or a device-tree string holds one value. */
function wholeText(value: (text: string) => IdentityValue | null): Site {
  return (text) => {
    const end = text.replace(/[\s\0]+$/, '').length;
    const found = end === 0 ? null : value(text.slice(0, end));
    return found === null ? [] : [{ start: 0, end, value: found }];
  };
}

/** The `value` group of each match of `pattern` (flags `dgm`). */
function lineValues(pattern: RegExp, value: (text: string) => IdentityValue | null): Site {
  return (text) => {
    const spans: Span[] = [];
    for (const match of text.matchAll(pattern)) {
      const [start, end] = match.indices!.groups!.value!;
      const found = start === end ? null : value(text.slice(start, end));
      if (found !== null) spans.push({ start, end, value: found });
    }
    return spans;
  };
}

function serialValue(text: string): IdentityValue | null {
  return dmiValue(text) === null ? null : { kind: 'serial', recorded: text };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function uuidValue(text: string): IdentityValue | null {
  return UUID.test(text) ? { kind: 'uuid', recorded: text } : serialValue(text);
}

function hostnameValue(text: string): IdentityValue | null {
  return text.trim() === '' ? null : { kind: 'hostname', recorded: text };
}

/** A marked SSID, written as is or as hostapd prints it. */
function ssidValue(ssids: ReadonlySet<string>, encoded: boolean): (text: string) => IdentityValue | null {
  return (text) => {
    const ssid = encoded ? decodeSsid(text) : text;
    return ssids.has(ssid) ? { kind: 'ssid', recorded: ssid, encoded } : null;
  };
}
