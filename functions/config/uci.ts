import type { StoredChute } from '../core/device/index.ts';
import { isClientMode, radioBand, type HostConfig } from './host-config.ts';

/*
 * pdconf's renderer: the system configuration that a host configuration and the installed chutes'
 * networks imply, as the four UCI files OpenWrt reads (network, wireless, dhcp, firewall). The
 * chutes' networks themselves are built by the runtime (runtime/network/chute-networks.ts), so they
 * appear only in the firewall, which lets their traffic through the system's own. Pure and
 * deterministic: the same input gives the same text, byte for byte, so a file that did not change
 * is not applied again.
 */

/** The files pdconf renders, in the order they are applied. */
export const PDCONF_FILES = ['network', 'wireless', 'dhcp', 'firewall'] as const;
export type PdconfFile = (typeof PDCONF_FILES)[number];

/** A UCI section's identity: `config <type> '<name>'`. */
export interface UciSectionId {
  type: string;
  name: string;
}

/** One rendered file: its text and its sections, in file order. */
export interface RenderedFile {
  text: string;
  sections: UciSectionId[];
}

type Scalar = string | number | boolean;

interface UciSection extends UciSectionId {
  /** `option` (a scalar) or `list` (an array, one line per item), in order. */
  values: [string, Scalar | Scalar[]][];
}

const HEADER = "# Rendered by chutebox (pdconf) from the host configuration and the chutes' networks; edits here are overwritten.\n";

/** The LAN bridge every LAN port and LAN Wi-Fi network joins. */
export const LAN_BRIDGE = 'br-lan';

/**
 * A value as UCI writes it: in single quotes, a quote inside as `'\''`; true/false as 1/0.
 *
 * @example
 * uciQuote("Bob's AP") // "'Bob'\\''s AP'"
 * uciQuote(true)       // "'1'"
 */
export function uciQuote(value: Scalar): string {
  const text = typeof value === 'boolean' ? (value ? '1' : '0') : String(value);
  return `'${text.replaceAll("'", "'\\''")}'`;
}

/**
 * A text as a UCI section name, which may only hold letters, digits and `_`: every other character
 * becomes `_`.
 *
 * @example
 * uciName('pci-wifi-0') // 'pci_wifi_0'
 */
export function uciName(text: string): string {
  return text.replace(/[^A-Za-z0-9_]/g, '_');
}

function renderFile(sections: UciSection[]): RenderedFile {
  const blocks = sections.map((section) => {
    const lines = [`config ${section.type} ${uciQuote(section.name)}`];
    for (const [key, value] of section.values) {
      if (Array.isArray(value)) for (const item of value) lines.push(`\tlist ${key} ${uciQuote(item)}`);
      else lines.push(`\toption ${key} ${uciQuote(value)}`);
    }
    return `${lines.join('\n')}\n`;
  });
  return { text: `${HEADER}\n${blocks.join('\n')}`, sections: sections.map(({ type, name }) => ({ type, name })) };
}

function isScalar(value: unknown): value is Scalar {
  return typeof value === 'string' || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value));
}

/**
 * The fields of a configuration object that chutebox does not know, as UCI values: a scalar as an
 * option, a list of scalars as a list; anything else (a mapping, a mixed list) and names UCI cannot
 * hold are left out.
 */
function extraValues(object: Record<string, unknown>, known: readonly string[]): [string, Scalar | Scalar[]][] {
  const out: [string, Scalar | Scalar[]][] = [];
  for (const [key, value] of Object.entries(object)) {
    if (known.includes(key) || !/^[A-Za-z0-9_]+$/.test(key)) continue;
    if (isScalar(value)) out.push([key, value]);
    else if (Array.isArray(value) && value.every(isScalar)) out.push([key, value]);
  }
  return out;
}

function mapping(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** `[key, value]` when the value is there. */
function optional(key: string, value: unknown): [string, Scalar | Scalar[]][] {
  if (isScalar(value)) return [[key, value]];
  if (Array.isArray(value) && value.length > 0 && value.every(isScalar)) return [[key, value]];
  return [];
}

/**
 * The host interfaces of the chutes' networks that carry traffic (not a monitor interface), as the
 * runtime recorded them in each chute's cache (`networks.<network>.hostInterface`), sorted.
 */
function chuteHostInterfaces(chutes: readonly StoredChute[]): string[] {
  const names = chutes.flatMap((chute) =>
    Object.entries(mapping(mapping(chute.cache).networks)).flatMap(([name, host]) =>
      mapping(mapping(chute.config.net)[name]).mode === 'monitor' ? [] : [text(mapping(host).hostInterface) ?? []].flat(),
    ),
  );
  return [...new Set(names)].sort(compare);
}

function unique(name: string, taken: Set<string>): string {
  let candidate = name;
  for (let n = 2; taken.has(candidate); n++) candidate = `${name}_${n}`;
  taken.add(candidate);
  return candidate;
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Renders the four files from a host configuration (already validated) and the installed chutes:
 *
 * - network: `loopback`; the LAN bridge `br-lan` (a `device` section with the LAN ports) and the
 *   `lan` interface on it; `wan` on its interface (dhcp, static with gateway and dns, pppoe with
 *   username and password, or none).
 * - wireless: a `wifi-device` per radio (its id with `_`, e.g. `pci_wifi_0`: `band` from the
 *   channel or mode, `channel`, `hwmode`, `htmode`); a `wifi-iface` per host Wi-Fi network (`wifinet<n>`).
 * - dhcp: `lan` (its range and lease time, or `ignore` without `lan.dhcp`), `wan` (ignored).
 * - firewall: `defaults` (the host configuration's policies), zones `lan` (accepts everything) and
 *   `wan` (rejects input and forwarding, masquerades), forwarding LAN → WAN; with chute networks a
 *   zone `chutes` of their host interfaces (`device`, from the chute caches), which rejects input but
 *   DHCP and DNS and forwards to the WAN only.
 * The chutes' interfaces, access points and DHCP servers are not in network, wireless and dhcp: the
 * runtime makes them (decision 0028), and OpenWrt applying them too would make each one twice.
 *
 * Fields of the host configuration that chutebox does not know are added as options of the section
 * they belong to when they are scalars (or lists of scalars) with a name UCI can hold.
 *
 * @example
 * renderPdconf(config, chutes).network.text // "# Rendered by chutebox …\n\nconfig interface 'loopback'\n\toption device 'lo'\n…"
 */
export function renderPdconf(config: HostConfig, chutes: readonly StoredChute[]): Record<PdconfFile, RenderedFile> {
  const lan = mapping(config.lan);
  const wan = config.wan === undefined ? null : mapping(config.wan);
  const radios = Array.isArray(config.wifi) ? config.wifi : [];
  const hostIfaces = Array.isArray(config['wifi-interfaces']) ? config['wifi-interfaces'] : [];

  const taken = new Set(['loopback', 'br_lan', 'lan', 'wan', 'defaults', 'lan_wan', 'chutes', 'chutes_wan', 'chutes_dhcp', 'chutes_dns']);
  const radioSections = radios.map((radio) => unique(uciName(radio.id), taken));
  const radioSection = (id: string | undefined) => (id === undefined ? undefined : radioSections[radios.findIndex((radio) => radio.id === id)]);
  const ifaceSections = hostIfaces.map((_, i) => unique(`wifinet${i}`, taken));
  const chuteDevices = chuteHostInterfaces(chutes);

  const network: UciSection[] = [
    {
      type: 'interface',
      name: 'loopback',
      values: [
        ['device', 'lo'],
        ['proto', 'static'],
        ['ipaddr', '127.0.0.1'],
        ['netmask', '255.0.0.0'],
      ],
    },
    { type: 'device', name: 'br_lan', values: [['name', LAN_BRIDGE], ['type', 'bridge'], ...optional('ports', lan.interfaces)] },
    {
      type: 'interface',
      name: 'lan',
      values: [
        ['device', LAN_BRIDGE],
        ['proto', 'static'],
        ...optional('ipaddr', lan.ipaddr),
        ...optional('netmask', lan.netmask),
        ...extraValues(lan, ['interfaces', 'proto', 'ipaddr', 'netmask', 'dhcp']),
      ],
    },
  ];
  if (wan !== null) {
    const proto = wan.proto;
    network.push({
      type: 'interface',
      name: 'wan',
      values: [
        ...optional('device', wan.interface),
        ...optional('proto', proto),
        ...(proto === 'static' ? [...optional('ipaddr', wan.ipaddr), ...optional('netmask', wan.netmask), ...optional('gateway', wan.gateway)] : []),
        ...(proto === 'pppoe' ? [...optional('username', wan.username), ...optional('password', wan.password)] : []),
        ...optional('dns', wan.dns),
        ...extraValues(wan, ['interface', 'proto', 'ipaddr', 'netmask', 'gateway', 'dns', 'username', 'password']),
      ],
    });
  }

  const wireless: UciSection[] = radios.map((radio, i) => ({
    type: 'wifi-device',
    name: radioSections[i]!,
    values: [
      ['type', 'mac80211'],
      ...optional('band', radioBand(radio) ?? undefined),
      ['channel', radio.channel],
      ...optional('hwmode', radio.hwmode),
      ...optional('htmode', radio.htmode),
      ...extraValues(radio, ['id', 'channel', 'hwmode', 'htmode', 'type', 'band']),
    ],
  }));
  hostIfaces.forEach((iface, i) => {
    const mode = isClientMode(iface.mode) ? 'sta' : 'ap';
    wireless.push({
      type: 'wifi-iface',
      name: ifaceSections[i]!,
      values: [
        ...optional('device', radioSection(iface.device)),
        ['mode', mode],
        ['network', iface.network ?? (mode === 'sta' ? 'wan' : 'lan')],
        ['ssid', iface.ssid],
        ['encryption', iface.encryption ?? 'none'],
        ...optional('key', iface.key),
        ...extraValues(iface, ['device', 'mode', 'network', 'ssid', 'encryption', 'key']),
      ],
    });
  });
  const lanDhcp = lan.dhcp === undefined ? null : mapping(lan.dhcp);
  const dhcp: UciSection[] = [
    {
      type: 'dhcp',
      name: 'lan',
      values:
        lanDhcp === null
          ? [
              ['interface', 'lan'],
              ['ignore', true],
            ]
          : [
              ['interface', 'lan'],
              ...optional('start', lanDhcp.start),
              ...optional('limit', lanDhcp.limit),
              ...optional('leasetime', lanDhcp.leasetime),
              ...extraValues(lanDhcp, ['start', 'limit', 'leasetime', 'interface', 'ignore']),
            ],
    },
  ];
  if (wan !== null)
    dhcp.push({
      type: 'dhcp',
      name: 'wan',
      values: [
        ['interface', 'wan'],
        ['ignore', true],
      ],
    });
  const defaults = mapping(mapping(config.firewall).defaults);
  const firewall: UciSection[] = [
    {
      type: 'defaults',
      name: 'defaults',
      values: [
        ...optional('input', defaults.input),
        ...optional('output', defaults.output),
        ...optional('forward', defaults.forward),
        ...extraValues(defaults, ['input', 'output', 'forward']),
      ],
    },
    {
      type: 'zone',
      name: 'lan',
      values: [
        ['name', 'lan'],
        ['network', ['lan']],
        ['input', 'ACCEPT'],
        ['output', 'ACCEPT'],
        ['forward', 'ACCEPT'],
      ],
    },
  ];
  if (wan !== null) {
    firewall.push(
      {
        type: 'zone',
        name: 'wan',
        values: [
          ['name', 'wan'],
          ['network', ['wan']],
          ['input', 'REJECT'],
          ['output', 'ACCEPT'],
          ['forward', 'REJECT'],
          ['masq', true],
          ['mtu_fix', true],
        ],
      },
      {
        type: 'forwarding',
        name: 'lan_wan',
        values: [
          ['src', 'lan'],
          ['dest', 'wan'],
        ],
      },
    );
  }
  if (chuteDevices.length > 0) {
    firewall.push({
      type: 'zone',
      name: 'chutes',
      values: [
        ['name', 'chutes'],
        ['device', chuteDevices],
        ['input', 'REJECT'],
        ['output', 'ACCEPT'],
        ['forward', 'REJECT'],
      ],
    });
    if (wan !== null)
      firewall.push({
        type: 'forwarding',
        name: 'chutes_wan',
        values: [
          ['src', 'chutes'],
          ['dest', 'wan'],
        ],
      });
    firewall.push(
      {
        type: 'rule',
        name: 'chutes_dhcp',
        values: [
          ['name', 'Allow-DHCP-chutes'],
          ['src', 'chutes'],
          ['proto', 'udp'],
          ['dest_port', '67-68'],
          ['target', 'ACCEPT'],
        ],
      },
      {
        type: 'rule',
        name: 'chutes_dns',
        values: [
          ['name', 'Allow-DNS-chutes'],
          ['src', 'chutes'],
          ['proto', 'tcp udp'],
          ['dest_port', '53'],
          ['target', 'ACCEPT'],
        ],
      },
    );
  }

  return { network: renderFile(network), wireless: renderFile(wireless), dhcp: renderFile(dhcp), firewall: renderFile(firewall) };
}
