import * as z from 'zod/mini';
import { SsidUpdateSchema } from '../networks/ssid-body.ts';
import { durationSeconds, WpaKeySchema } from '../chutes/chute-config.ts';
import { validate } from '../core/validate.ts';
import {
  CHANNELS_2G,
  CHANNELS_5G,
  ENCRYPTIONS,
  FIREWALL_POLICIES,
  HT_MODES,
  HW_MODES,
  KEYED_ENCRYPTIONS,
  radioBand,
  TELEMETRY_INTERVAL,
  WAN_PROTOCOLS,
  WIFI_INTERFACE_MODES,
  type HostConfig,
} from './host-config.ts';
import { ipv4Number, ipv4Subnet, ipv4Text, netmaskPrefix } from '../parsers/ipv4.ts';

/*
 * The body of PUT /api/v1/config/hostconfig, which its handler validates at run time (`validate`):
 * kept apart from schemas.ts (which re-exports it), so that handler's bundle holds only this. Every
 * object is loose: fields chutebox does not know are kept. The bounds a router needs:
 *
 * - `firewall.defaults.{input,output,forward}`: ACCEPT, REJECT or DROP, all three required.
 * - `lan`: required. `interfaces`: Ethernet interface names (1 to 15 characters: letters, digits,
 *   `_ . -`), each once, possibly none; `proto`: static (the LAN is where the router hands out
 *   addresses); `ipaddr` an IPv4 address, neither the network nor the broadcast address of its subnet;
 *   `netmask` a netmask from /8 to /30. `dhcp` (optional: without it no DHCP server): `start` ≥ 1 and
 *   `limit` ≥ 1 integers whose range (network + start … + start + limit − 1) stays inside the subnet,
 *   `leasetime` a duration (`12h`, `30m`, `3600`, `infinite`, as for chutes).
 * - `wan` (optional): `interface` an interface name that is not a LAN interface; `proto` dhcp, static,
 *   pppoe or none; static needs `ipaddr`, `netmask` (/8 to /30) and `gateway`, the gateway inside the
 *   subnet and the subnet apart from the LAN's; pppoe needs `username` and `password`; `dns` a list
 *   of IPv4 addresses.
 * - `wifi[]`: `id` a wifi id of GET /api/v1/info/hardware (`pci-wifi-0`), each radio once;
 *   `channel` auto, 1 to 14 (2.4 GHz) or a 5 GHz channel (32 to 144, 149 to 177, every fourth);
 *   `hwmode` (optional) 11b 11g 11a 11n 11ac 11ax, 11b/11g only with 2.4 GHz channels, 11a/11ac only with 5 GHz ones;
 *   `htmode` (optional) NOHT HT20 HT40 HT40+ HT40- VHT20 VHT40 VHT80 VHT160 HE20 HE40 HE80 HE160: VHT,
 *   HE80 and HE160 only at 5 GHz, with 11b only NOHT, HT40+ and HT40- only on a channel whose
 *   secondary channel (4 above or below) is in the band.
 * - `wifi-interfaces[]`: `device` the `id` of an entry of `wifi[]`; `mode` ap (default), sta or
 *   managed (ParaDrop's name for sta); `ssid` 1 to 32 bytes of
 *   UTF-8 without control characters; `encryption` psk2, psk, psk-mixed, sae, sae-mixed (each needs a
 *   `key`: 8 to 63 printable ASCII characters or 64 hex digits), none or owe (no key); `network` lan
 *   or wan (wan only when there is one).
 * - `system` (optional): `hostname` a DNS name (labels of 1 to 63 letters, digits and `-`, 253
 *   characters at most); `timezone` a POSIX TZ string or a zone name (`UTC`, `Europe/Zurich`,
 *   `CET-1CEST,M3.5.0,M10.5.0/3`), 1 to 64 characters.
 * - `telemetry` (optional): `enabled` true or false (default true); `interval` an integer of seconds
 *   from 10 to 86400 (default 60).
 */

/** A message that tells a missing field from a wrong one. */
function required(what: string) {
  return (issue: { input?: unknown }) => (issue.input === undefined ? 'is required' : `must be ${what}`);
}

const MAPPING = { error: required('a mapping') };

function text(what = 'a string') {
  return z.string({ error: required(what) });
}

function integer(min: number, max?: number) {
  const what = max === undefined ? `an integer of at least ${min}` : `an integer from ${min} to ${max}`;
  return z
    .number({ error: required(what) })
    .check(z.refine((n: number) => Number.isInteger(n) && n >= min && (max === undefined || n <= max), { error: `must be ${what}` }));
}

function oneOf<const T extends readonly [string, ...string[]]>(values: T) {
  return z.enum(values, { error: required(`one of ${values.join(', ')}`) });
}

const Ipv4Schema = text('an IPv4 address such as 192.168.1.1').check(
  z.refine((value: string) => ipv4Number(value) !== undefined, { error: 'must be an IPv4 address such as 192.168.1.1' }),
);

const NETMASK = 'a netmask from 255.0.0.0 (/8) to 255.255.255.252 (/30)';
const NetmaskSchema = text(NETMASK).check(
  z.refine(
    (value: string) => {
      const prefix = netmaskPrefix(value);
      return prefix !== undefined && prefix >= 8 && prefix <= 30;
    },
    { error: `must be ${NETMASK}` },
  ),
);

const INTERFACE_NAME = 'an interface name: a letter or digit, then letters, digits, _ . or -, 15 characters at most';
const InterfaceNameSchema = text(INTERFACE_NAME).check(z.regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,14}$/, { error: `must be ${INTERFACE_NAME}` }));

const LeaseTimeSchema = z.custom<string | number>((value) => durationSeconds(value) !== undefined, {
  error: required('a lease duration: seconds (3600), a number with a unit s, m, h, d or w (45s, 30m, 12h, 1d), or infinite'),
});

const FirewallSchema = z.looseObject(
  {
    defaults: z.looseObject({ input: oneOf(FIREWALL_POLICIES), output: oneOf(FIREWALL_POLICIES), forward: oneOf(FIREWALL_POLICIES) }, MAPPING),
  },
  MAPPING,
);

const LanSchema = z.looseObject(
  {
    interfaces: z.array(InterfaceNameSchema, { error: required('a list of interface names, such as ["eth1", "eth2"]') }),
    proto: z.literal('static', { error: required('static: the LAN has a fixed address') }),
    ipaddr: Ipv4Schema,
    netmask: NetmaskSchema,
    dhcp: z.optional(z.looseObject({ start: integer(1), limit: integer(1), leasetime: LeaseTimeSchema }, MAPPING)),
  },
  MAPPING,
);

const WanSchema = z.looseObject(
  {
    interface: InterfaceNameSchema,
    proto: oneOf(WAN_PROTOCOLS),
    ipaddr: z.optional(Ipv4Schema),
    netmask: z.optional(NetmaskSchema),
    gateway: z.optional(Ipv4Schema),
    dns: z.optional(z.array(Ipv4Schema, { error: 'must be a list of IPv4 addresses' })),
    username: z.optional(text()),
    password: z.optional(text()),
  },
  MAPPING,
);

/** A radio's wifi id in GET /api/v1/info/hardware: `<subsystem>-wifi-<n>`. */
const RADIO_ID = /^[a-z0-9]+-wifi-[0-9]+$/;
const RadioIdSchema = text('a radio id of GET /api/v1/info/hardware, such as pci-wifi-0').check(
  z.regex(RADIO_ID, { error: 'must be a radio id of GET /api/v1/info/hardware, such as pci-wifi-0' }),
);

const CHANNEL = 'auto or a channel: 1 to 14 (2.4 GHz), or 32 to 144 or 149 to 177, every fourth (5 GHz, such as 36 or 149)';
const ChannelSchema = z.custom<number | 'auto'>(
  (value) => value === 'auto' || (typeof value === 'number' && (CHANNELS_2G.includes(value) || CHANNELS_5G.includes(value))),
  { error: required(CHANNEL) },
);

const WifiRadioSchema = z.looseObject(
  { id: RadioIdSchema, channel: ChannelSchema, hwmode: z.optional(oneOf(HW_MODES)), htmode: z.optional(oneOf(HT_MODES)) },
  MAPPING,
);

const WifiInterfaceSchema = z.looseObject(
  {
    device: RadioIdSchema,
    mode: z.optional(oneOf(WIFI_INTERFACE_MODES)),
    ssid: SsidUpdateSchema.shape.ssid,
    encryption: z.optional(oneOf(ENCRYPTIONS)),
    key: z.optional(WpaKeySchema),
    network: z.optional(oneOf(['lan', 'wan'])),
  },
  MAPPING,
);

const HOSTNAME = 'a host name: labels of 1 to 63 letters, digits or -, joined by dots, 253 characters at most';
const HostnameSchema = text(HOSTNAME).check(
  z.maxLength(253, { error: `must be ${HOSTNAME}` }),
  z.regex(/^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/, { error: `must be ${HOSTNAME}` }),
);

const TIMEZONE = 'a POSIX TZ string or a zone name such as UTC or Europe/Zurich, 1 to 64 characters';
const TimezoneSchema = text(TIMEZONE).check(z.regex(/^[A-Za-z0-9_+\-/:.,<>]{1,64}$/, { error: `must be ${TIMEZONE}` }));

const SystemSchema = z.looseObject({ hostname: z.optional(HostnameSchema), timezone: z.optional(TimezoneSchema) }, MAPPING);

const TelemetrySchema = z.looseObject(
  { enabled: z.optional(z.boolean({ error: 'must be true or false' })), interval: z.optional(integer(TELEMETRY_INTERVAL.min, TELEMETRY_INTERVAL.max)) },
  MAPPING,
);

/** A host configuration: `firewall` and `lan` required, every other section optional, unknown fields kept. */
export const HostConfigBodySchema = z
  .looseObject(
    {
      firewall: FirewallSchema,
      lan: LanSchema,
      wan: z.optional(WanSchema),
      wifi: z.optional(z.array(WifiRadioSchema, { error: 'must be a list of radios' })),
      'wifi-interfaces': z.optional(z.array(WifiInterfaceSchema, { error: 'must be a list of Wi-Fi networks' })),
      system: z.optional(SystemSchema),
      telemetry: z.optional(TelemetrySchema),
    },
    MAPPING,
  )
  .check(z.superRefine(crossChecks, { when: () => true }));

type Issues = z.core.$RefinementCtx<unknown>;
type Path = (string | number)[];

function mapping(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

function list(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

function issue(context: Issues, path: Path, input: unknown, message: string): void {
  context.addIssue({ code: 'custom', path, input, message });
}

/** The rules that span fields; each looks only at fields that are themselves valid. */
function crossChecks(value: unknown, context: Issues): void {
  const config = mapping(value);
  const lan = checkLan(mapping(config.lan), context);
  checkWan(mapping(config.wan), config.wan !== undefined, lan, list(mapping(config.lan).interfaces), context);
  const radios = checkRadios(list(config.wifi), context);
  checkWifiInterfaces(list(config['wifi-interfaces']), radios, config.wan !== undefined, context);
}

interface Subnet {
  network: number;
  broadcast: number;
  prefix: number;
}

function cidr(subnet: Subnet): string {
  return `${ipv4Text(subnet.network)}/${subnet.prefix}`;
}

/** An address with its netmask, when both are valid: its subnet, after checking it is a host address. */
function hostSubnet(section: Record<string, unknown>, at: string, context: Issues): Subnet | undefined {
  const { ipaddr, netmask } = section;
  if (typeof ipaddr !== 'string' || typeof netmask !== 'string') return undefined;
  const prefix = netmaskPrefix(netmask);
  if (prefix === undefined || prefix < 8 || prefix > 30) return undefined;
  const subnet = ipv4Subnet(ipaddr, netmask);
  if (subnet === undefined) return undefined;
  const address = ipv4Number(ipaddr);
  if (address === subnet.network || address === subnet.broadcast) {
    const which = address === subnet.network ? 'network' : 'broadcast';
    issue(context, [at, 'ipaddr'], ipaddr, `is the ${which} address of ${cidr(subnet)}: it must be a host address of its subnet`);
  }
  return subnet;
}

function checkLan(lan: Record<string, unknown>, context: Issues): Subnet | undefined {
  const seen = new Set<unknown>();
  list(lan.interfaces).forEach((name, i) => {
    if (seen.has(name)) issue(context, ['lan', 'interfaces', i], name, `lists ${String(name)} a second time`);
    seen.add(name);
  });
  const subnet = hostSubnet(lan, 'lan', context);
  const dhcp = mapping(lan.dhcp);
  const { start, limit } = dhcp;
  if (subnet !== undefined && Number.isInteger(start) && Number.isInteger(limit) && (start as number) >= 1 && (limit as number) >= 1) {
    const hosts = subnet.broadcast - subnet.network - 1;
    const last = (start as number) + (limit as number) - 1;
    if (last > hosts) {
      const path: Path = (start as number) > hosts ? ['lan', 'dhcp', 'start'] : ['lan', 'dhcp', 'limit'];
      issue(
        context,
        path,
        path[2] === 'start' ? start : limit,
        `leaves the LAN's subnet ${cidr(subnet)}: start + limit - 1 (${last}) must be at most ${hosts}, the offset of its last host address`,
      );
    }
  }
  return subnet;
}

function checkWan(wan: Record<string, unknown>, present: boolean, lan: Subnet | undefined, lanInterfaces: unknown[], context: Issues): void {
  if (!present) return;
  if (typeof wan.interface === 'string' && lanInterfaces.includes(wan.interface)) {
    issue(context, ['wan', 'interface'], wan.interface, `is also in lan.interfaces: an interface is either the WAN or a port of the LAN`);
  }
  const proto = wan.proto;
  const needs = (fields: string[]) => {
    for (const field of fields) if (wan[field] === undefined) issue(context, ['wan', field], undefined, `is required with proto ${String(proto)}`);
  };
  if (proto === 'static') needs(['ipaddr', 'netmask', 'gateway']);
  if (proto === 'pppoe') needs(['username', 'password']);
  if (proto !== 'static') return;
  const subnet = hostSubnet(wan, 'wan', context);
  if (subnet === undefined) return;
  const gateway = typeof wan.gateway === 'string' ? ipv4Number(wan.gateway) : undefined;
  if (gateway !== undefined) {
    if (gateway <= subnet.network || gateway >= subnet.broadcast)
      issue(context, ['wan', 'gateway'], wan.gateway, `must be a host address of the WAN's subnet ${cidr(subnet)}`);
    else if (gateway === ipv4Number(wan.ipaddr as string)) issue(context, ['wan', 'gateway'], wan.gateway, 'must differ from wan.ipaddr');
  }
  if (lan !== undefined && subnet.network <= lan.broadcast && lan.network <= subnet.broadcast) {
    issue(context, ['wan', 'netmask'], wan.netmask, `makes the WAN's subnet ${cidr(subnet)} overlap the LAN's ${cidr(lan)}`);
  }
}

/** Checks each radio's settings and answers the radio ids in use. */
function checkRadios(wifi: unknown[], context: Issues): Set<string> {
  const first = new Map<unknown, number>();
  wifi.forEach((entry, i) => {
    const radio = mapping(entry);
    if (typeof radio.id === 'string') {
      const earlier = first.get(radio.id);
      if (earlier !== undefined) issue(context, ['wifi', i, 'id'], radio.id, `names the radio of wifi[${earlier}] again: give each radio once`);
      else first.set(radio.id, i);
    }
    const { channel, hwmode, htmode } = radio;
    const validChannel = channel === 'auto' || (typeof channel === 'number' && (CHANNELS_2G.includes(channel) || CHANNELS_5G.includes(channel)));
    const validMode = (HW_MODES as readonly unknown[]).includes(hwmode) ? (hwmode as (typeof HW_MODES)[number]) : undefined;
    if (!validChannel) return;
    if (typeof channel === 'number') {
      const channelBand = radioBand({ channel });
      const modeBand = validMode === undefined ? null : radioBand({ channel: 'auto', hwmode: validMode });
      if (modeBand !== null && modeBand !== channelBand) {
        const bands = { '2g': '2.4 GHz', '5g': '5 GHz' } as const;
        issue(context, ['wifi', i, 'channel'], channel, `is a ${bands[channelBand!]} channel, but hwmode ${validMode} is ${bands[modeBand]} only`);
      }
    }
    if (!(HT_MODES as readonly unknown[]).includes(htmode)) return;
    const band = radioBand({ channel: channel as number | 'auto', hwmode: validMode });
    if (validMode === '11b' && htmode !== 'NOHT') issue(context, ['wifi', i, 'htmode'], htmode, 'must be NOHT with hwmode 11b, which has no HT');
    else if (band === '2g' && /^(?:VHT|HE80|HE160)/.test(htmode as string))
      issue(context, ['wifi', i, 'htmode'], htmode, `is a 5 GHz mode, but the radio is on 2.4 GHz`);
    else if ((htmode === 'HT40+' || htmode === 'HT40-') && typeof channel === 'number' && !secondaryChannelFits(channel, htmode)) {
      const side = htmode === 'HT40+' ? 'above' : 'below';
      issue(
        context,
        ['wifi', i, 'htmode'],
        htmode,
        `puts the secondary channel ${side} channel ${channel}, outside its band: use ${htmode === 'HT40+' ? 'HT40-' : 'HT40+'} or HT40`,
      );
    }
  });
  return new Set([...first.keys()].filter((id): id is string => typeof id === 'string'));
}

/**
 * Whether a 40 MHz channel with its secondary channel above (`HT40+`) or below (`HT40-`) the given
 * one stays in the band: at 2.4 GHz, 4 channels up to 13 or down to 1; at 5 GHz, the pairs of 20 MHz
 * channels that make up each 40 MHz one (36+40, 44+48, …, 149+153, …).
 *
 * @example
 * secondaryChannelFits(11, 'HT40+') // false: channel 15 is no channel
 * secondaryChannelFits(40, 'HT40-') // true: 36+40
 */
function secondaryChannelFits(channel: number, htmode: 'HT40+' | 'HT40-'): boolean {
  if (CHANNELS_2G.includes(channel)) return htmode === 'HT40+' ? channel + 4 <= 13 : channel - 4 >= 1;
  const lower = channel < 149 ? (channel - 36) % 8 === 0 : (channel - 149) % 8 === 0;
  return htmode === 'HT40+' ? lower : !lower;
}

function checkWifiInterfaces(interfaces: unknown[], radios: Set<string>, hasWan: boolean, context: Issues): void {
  interfaces.forEach((entry, i) => {
    const iface = mapping(entry);
    const at = (field: string): Path => ['wifi-interfaces', i, field];
    if (typeof iface.device === 'string' && RADIO_ID.test(iface.device) && !radios.has(iface.device)) {
      const known = radios.size === 0 ? 'wifi lists none' : `wifi lists ${[...radios].join(', ')}`;
      issue(context, at('device'), iface.device, `must be the id of an entry of wifi (${known})`);
    }
    const encryption = iface.encryption;
    const keyed = (KEYED_ENCRYPTIONS as readonly unknown[]).includes(encryption);
    if (keyed && iface.key === undefined) issue(context, at('key'), undefined, `is required with encryption ${String(encryption)}`);
    if (iface.key !== undefined && encryption === undefined)
      issue(context, at('encryption'), undefined, `is required with a key: ${KEYED_ENCRYPTIONS.join(', ')}`);
    if (iface.key !== undefined && (encryption === 'none' || encryption === 'owe')) {
      issue(context, at('key'), iface.key, `must not be given with encryption ${encryption}, which takes no key`);
    }
    if (iface.network === 'wan' && !hasWan) issue(context, at('network'), iface.network, 'is wan, but the configuration has no wan');
  });
}

/**
 * Checks a host configuration against every rule at once and gives it back exactly as written (the
 * same object: unknown fields and key order kept).
 *
 * @throws HttpProblem 422 listing every violation as `{ path, message }`, paths from the
 *   configuration's root: `firewall.defaults.input`, `wifi[0].channel`, `lan.dhcp.limit`.
 * @example
 * checkHostConfig({ firewall: { defaults: { input: 'ACCEPT', output: 'ACCEPT', forward: 'REJECT' } }, lan: { … } }) // the same object
 */
export function checkHostConfig(value: unknown): HostConfig {
  // `satisfies`: what the schema accepts is what the domain type (host-config.ts) says.
  validate(HostConfigBodySchema, value, '', 'the host configuration') satisfies HostConfig;
  return value as HostConfig;
}

/**
 * The configuration a PUT body holds, and where it is in the request: the body itself (`body`), or
 * ParaDrop's wrapper `{"config": {...}}` (a body whose only field is a mapping named `config`:
 * `body.config`).
 *
 * @example
 * unwrapHostConfig({ config: { firewall: … } }) // { config: { firewall: … }, at: 'body.config' }
 * unwrapHostConfig({ firewall: … })             // { config: { firewall: … }, at: 'body' }
 */
export function unwrapHostConfig(body: Record<string, unknown>): { config: Record<string, unknown>; at: string } {
  const keys = Object.keys(body);
  const inner = body.config;
  if (keys.length === 1 && keys[0] === 'config' && typeof inner === 'object' && inner !== null && !Array.isArray(inner))
    return { config: inner as Record<string, unknown>, at: 'body.config' };
  return { config: body, at: 'body' };
}
