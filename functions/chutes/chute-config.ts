import * as z from 'zod/mini';
import { validate } from '../core/validate.ts';
import { SsidSchema } from '../networks/ssid-body.ts';
import { EnvironmentNameSchema } from './chute-body.ts';
import { NETWORK_NAME, NETWORK_NAME_MESSAGE } from './params.ts';

/*
 * The chute configuration (the seed's "Chute configuration object", ParaDrop's service.yaml) and its
 * validation. Every object is loose: a field chutebox does not know is kept, never stripped, since GET
 * …/config answers the configuration as the client wrote it. Decisions the seed leaves open:
 *
 * - `environment` values may be strings, numbers, booleans (YAML writes `PORT: 8080`, `DEBUG: yes`)
 *   or null (YAML's `KEY:` without a value); the container gets them as text (environmentStrings):
 *   8080 → "8080", true → "true", null → "". Not nested mappings or lists. Names must not be empty
 *   nor contain `=` or NUL, which an environment cannot hold.
 * - `host_config.port_bindings` maps a container port (`80`, `80/tcp`, `53/udp`, `132/sctp`) to a
 *   host port 1–65535, an integer or a numeric string (`"8080"`).
 * - `key`: a WPA passphrase, 8 to 63 printable ASCII characters (IEEE 802.11 and hostapd's
 *   `wpa_passphrase`), or a raw WPA key of exactly 64 hex digits (hostapd's `wpa_psk`).
 * - `ssid`: 1 to 32 bytes of UTF-8, no control characters (the rule of PUT …/ssid).
 * - The lease duration is `lease` or `leasetime` (both spellings appear in the seed): a positive
 *   number of seconds (`3600` or `"3600"`), a positive integer with a unit s, m, h, d or w (`45s`,
 *   `30m`, `2h`, `1d`, `1w`, as dnsmasq reads it), or `infinite`. Both at once must be the same
 *   duration. dnsmasq raises a lease under 2 minutes to 2 minutes.
 * - `options.maxassoc` is at most 2007, hostapd's limit (`max_num_sta`).
 * - `intfName` is unique among the networks of a chute and is not `eth0`, the chute's default
 *   interface.
 * - An entry of `net` is an access point (`type: wifi`, `mode: ap` or no mode), a monitor interface
 *   (`type: wifi`, `mode: monitor`) or a VLAN (`type: vlan`, whatever the seed's pattern says); the
 *   fields of one kind mean nothing to another and are kept unchecked (a `ssid` on a VLAN).
 * - A section that is present must be a mapping: `net:` with nothing after it (null) is a violation.
 */

/** A message that tells a missing field from a wrong one. */
function required(what: string) {
  return (issue: { input?: unknown }) => (issue.input === undefined ? 'is required' : `must be ${what}`);
}

/** The message of a mapping whose key or value is wrong: a bad key says what the key must be. */
function mappingError(issue: { code?: string; issues?: readonly { message: string }[] }): string {
  if (issue.code === 'invalid_key') return issue.issues?.[0]?.message ?? 'is not a valid key';
  return 'must be a mapping';
}

const MAPPING = { error: mappingError };

/**
 * A field of the seed that chutebox does not build yet (`l3bridge`, `dhcp.relay`, experimental in
 * ParaDrop): any value is refused with what it would do, rather than silently ignored.
 */
function notSupportedYet(what: string) {
  return z.optional(z.never({ error: `is not supported yet: chutebox does not ${what}; remove the field` }));
}

function text() {
  return z.string({ error: required('a string') });
}

function flag() {
  return z.boolean({ error: required('true or false') });
}

/**
 * An integer in a range, checked in one step so a value outside it gets one message. (zod's `z.int()`
 * aborts the whole object on a fraction, which would hide the checks that span fields.)
 */
function integer(min: number, max?: number) {
  const what = max === undefined ? `an integer of at least ${min}` : `an integer from ${min} to ${max}`;
  return z
    .number({ error: required(what) })
    .check(z.refine((n: number) => Number.isInteger(n) && n >= min && (max === undefined || n <= max), { error: `must be ${what}` }));
}

/** A TCP/UDP port number as text: 1 to 65535, no sign, no leading zero. */
function isPortText(text: string): boolean {
  return /^[1-9][0-9]{0,4}$/.test(text) && Number(text) <= 65535;
}

/** An IPv4 or IPv6 address as the configuration takes one (dotted quad, or IPv6 without a zone). */
export function isIpAddress(text: string): boolean {
  return z.regexes.ipv4.test(text) || z.regexes.ipv6.test(text);
}

const IpAddressSchema = z.string({ error: 'must be an IPv4 or IPv6 address' }).check(z.refine(isIpAddress, { error: 'must be an IPv4 or IPv6 address' }));

/** A list of DNS servers: IPv4 or IPv6 addresses. */
const DnsServersSchema = z.array(IpAddressSchema, { error: 'must be a list of IPv4 or IPv6 addresses' });

/** A scalar environment value, as JSON or YAML writes it. */
export type EnvironmentValue = string | number | boolean | null;

const EnvironmentValueSchema = z.custom<EnvironmentValue>(
  (value) =>
    value === null ||
    typeof value === 'boolean' ||
    (typeof value === 'number' && Number.isFinite(value)) ||
    (typeof value === 'string' && !value.includes('\0')),
  { error: 'must be a string, a number, true, false or null' },
);

/** Environment variables passed to the chute: name → value. */
export const EnvironmentSchema = z.record(EnvironmentNameSchema, EnvironmentValueSchema, MAPPING);
export type Environment = z.infer<typeof EnvironmentSchema>;

const ContainerPortSchema = z.string().check(
  z.refine(
    (key: string) => {
      const [port = '', protocol, extra] = key.split('/');
      return isPortText(port) && (protocol === undefined || ['tcp', 'udp', 'sctp'].includes(protocol)) && extra === undefined;
    },
    { error: 'must be a container port from 1 to 65535, alone or with /tcp, /udp or /sctp (80, 80/tcp, 53/udp)' },
  ),
);
const HostPortSchema = z.custom<number | string>(
  (value) => (typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= 65535) || (typeof value === 'string' && isPortText(value)),
  { error: 'must be a host port from 1 to 65535 (an integer or a numeric string)' },
);

/**
 * The chute configuration's `host_config`: options of its container that touch the host network
 * (not the device's host configuration, functions/config/host-config.ts).
 */
export const ChuteHostConfigSchema = z.looseObject(
  {
    /** Container port (`80`, `80/tcp`, `53/udp`) → host port. */
    port_bindings: z.optional(z.record(ContainerPortSchema, HostPortSchema, MAPPING)),
    /** DNS servers of the chute. */
    dns: z.optional(DnsServersSchema),
  },
  MAPPING,
);

/** A lease duration: seconds, `<n>s|m|h|d|w`, or `infinite`. */
export type LeaseDuration = number | string;

const UNIT_SECONDS: Record<string, number> = { '': 1, s: 1, m: 60, h: 3600, d: 86400, w: 604800 };

/**
 * The seconds a lease duration stands for: `Infinity` for `infinite`, undefined for anything that is
 * not a duration.
 *
 * @example
 * durationSeconds('2h') // 7200
 * durationSeconds(3600) // 3600
 * durationSeconds('0')  // undefined
 */
export function durationSeconds(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isSafeInteger(value) && value >= 1 ? value : undefined;
  if (typeof value !== 'string') return undefined;
  if (value === 'infinite') return Infinity;
  const match = /^([1-9][0-9]*)([smhdw]?)$/.exec(value);
  if (!match) return undefined;
  const seconds = Number(match[1]) * UNIT_SECONDS[match[2]!]!;
  return Number.isSafeInteger(seconds) ? seconds : undefined;
}

const LeaseDurationSchema = z.custom<LeaseDuration>((value) => durationSeconds(value) !== undefined, {
  error: 'must be a lease duration: seconds (3600), a number with a unit s, m, h, d or w (45s, 30m, 2h, 1d), or infinite',
});

/** `lease` and `leasetime` together must say the same; each one's own faults are reported on it. */
function sameLease(dhcp: unknown, context: z.core.$RefinementCtx<unknown>): void {
  if (typeof dhcp !== 'object' || dhcp === null) return;
  const { lease, leasetime } = dhcp as { lease?: unknown; leasetime?: unknown };
  const a = durationSeconds(lease);
  const b = durationSeconds(leasetime);
  if (a === undefined || b === undefined || a === b) return;
  context.addIssue({
    code: 'custom',
    path: ['leasetime'],
    input: leasetime,
    message: `differs from lease (${String(lease)}): give the lease duration once, as lease or as leasetime`,
  });
}

/** The DHCP server of a network. */
export const DhcpConfigSchema = z
  .looseObject(
    {
      /** Lease duration, the spelling of the seed's samples. */
      lease: z.optional(LeaseDurationSchema),
      /** Lease duration, the spelling of the seed's table. */
      leasetime: z.optional(LeaseDurationSchema),
      /** Size of the address range beginning at `start`. */
      limit: z.optional(integer(1)),
      /** Offset of the first address given out. */
      start: z.optional(integer(0)),
      /** A DHCP server to relay to (experimental in ParaDrop): refused, not ignored. */
      relay: notSupportedYet('relay DHCP requests to another server'),
    },
    MAPPING,
  )
  .check(z.superRefine(sameLease, { when: () => true }));
export type DhcpConfig = z.infer<typeof DhcpConfigSchema>;

const IntfNameSchema = z
  .string({ error: required('an interface name') })
  .check(
    z.regex(/^[a-z][a-z0-9]*$/, { error: 'must match [a-z][a-z0-9]*: a lower-case letter, then lower-case letters or digits' }),
    z.maxLength(15, { error: 'must be at most 15 characters, the Linux limit for interface names' }),
  );

const Ipv4NetworkSchema = z
  .string({ error: 'must be an IPv4 network in slash notation, such as 10.0.0.0/24' })
  .check(z.regex(z.regexes.cidrv4, { error: 'must be an IPv4 network in slash notation, such as 10.0.0.0/24' }));

const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;
const RAW_WPA_KEY = /^[0-9a-fA-F]{64}$/;

const KEY_TOO_LONG = { error: 'must be at most 63 characters, or exactly 64 hex digits (a raw WPA key)' };

/**
 * A WPA passphrase (8 to 63 printable ASCII characters) or a raw WPA key (64 hex digits). The OpenAPI
 * document says all but the hex digits of a 64-character key (`minLength`, `maxLength`, `pattern`).
 */
export const WpaKeySchema = z.string({ error: 'must be a string' }).check(
  z.minLength(8, { error: 'must be at least 8 characters' }),
  z.maxLength(64, KEY_TOO_LONG),
  z.refine((key: string) => key.length !== 64 || RAW_WPA_KEY.test(key), KEY_TOO_LONG),
  z.regex(PRINTABLE_ASCII, { error: 'must be printable ASCII characters (codes 32 to 126), as a WPA passphrase is' }),
);

/** More settings of an access point. */
export const AccessPointOptionsSchema = z.looseObject(
  {
    /** NAS identifier for RADIUS. */
    nasid: z.optional(text()),
    /** RADIUS accounting server. */
    acct_server: z.optional(text()),
    /** RADIUS accounting secret. */
    acct_secret: z.optional(text()),
    /** RADIUS accounting update interval, seconds. */
    acct_interval: z.optional(integer(1)),
    /** Do not broadcast the SSID in beacons. */
    hidden: z.optional(flag()),
    /** No traffic between the access point's clients. */
    isolate: z.optional(flag()),
    /** Most clients at once, up to hostapd's 2007. */
    maxassoc: z.optional(integer(1, 2007)),
  },
  MAPPING,
);

/** What the physical interface behind an access point must offer. */
export const HardwareRequestsSchema = z.looseObject({ hwmode: z.optional(z.enum(['11b', '11g', '11a'], { error: 'must be one of 11b, 11g, 11a' })) }, MAPPING);

/** A WiFi access point: `type: wifi`, `mode: ap` or no mode. */
export const AccessPointEntrySchema = z.looseObject({
  type: z.literal('wifi'),
  mode: z.optional(z.literal('ap')),
  /** The interface inside the chute. */
  intfName: IntfNameSchema,
  dhcp: z.optional(DhcpConfigSchema),
  /** The network the chute asks for, e.g. `10.0.0.0/24`. */
  ipv4_network: z.optional(Ipv4NetworkSchema),
  ssid: z.optional(SsidSchema),
  key: z.optional(WpaKeySchema),
  options: z.optional(AccessPointOptionsSchema),
  /** DNS servers advertised to clients. */
  dns: z.optional(DnsServersSchema),
  /** Bridge to another network by ARP proxying (experimental in ParaDrop): refused, not ignored. */
  l3bridge: notSupportedYet('bridge a network to another by ARP proxying'),
  requests: z.optional(HardwareRequestsSchema),
});
export type AccessPointEntry = z.infer<typeof AccessPointEntrySchema>;

/** A monitor-mode WiFi interface (experimental): `type: wifi`, `mode: monitor`. */
export const MonitorEntrySchema = z.looseObject({
  type: z.literal('wifi'),
  mode: z.literal('monitor'),
  intfName: IntfNameSchema,
});
export type MonitorEntry = z.infer<typeof MonitorEntrySchema>;

/** A VLAN interface: `type: vlan` and a VLAN ID. */
export const VlanEntrySchema = z.looseObject({
  type: z.literal('vlan'),
  intfName: IntfNameSchema,
  /** The 802.1Q tag, 1 to 4094 (0 and 4095 are reserved). */
  vlan_id: integer(1, 4094),
  dhcp: z.optional(DhcpConfigSchema),
  ipv4_network: z.optional(Ipv4NetworkSchema),
  dns: z.optional(DnsServersSchema),
});
export type VlanEntry = z.infer<typeof VlanEntrySchema>;

/** The message of an entry whose `type` or `mode` picks no kind. */
function kindError(field: 'type' | 'mode', choices: string) {
  return (issue: { code?: string; input?: unknown }) => {
    if (issue.code !== 'invalid_union') return 'must be a mapping';
    const value = (issue.input as Record<string, unknown>)[field];
    return value === undefined && field === 'type' ? `is required: ${choices}` : `must be ${choices}`;
  };
}

/** One entry of `net`: its kind comes from `type`, then `mode`. */
export const NetEntrySchema = z.discriminatedUnion(
  'type',
  [z.discriminatedUnion('mode', [AccessPointEntrySchema, MonitorEntrySchema], { error: kindError('mode', 'ap (the default) or monitor') }), VlanEntrySchema],
  { error: kindError('type', 'wifi or vlan') },
);
export type NetEntry = z.infer<typeof NetEntrySchema>;

const NetworkNameSchema = z.string().check(z.regex(NETWORK_NAME, { error: NETWORK_NAME_MESSAGE }));

/** Each `intfName` names one interface of the chute, and `eth0` is the chute's own. */
function distinctInterfaces(net: unknown, context: z.core.$RefinementCtx<unknown>): void {
  if (typeof net !== 'object' || net === null) return;
  const owner = new Map<string, string>();
  for (const [name, entry] of Object.entries(net)) {
    const intfName: unknown = typeof entry === 'object' && entry !== null ? (entry as { intfName?: unknown }).intfName : undefined;
    if (typeof intfName !== 'string') continue;
    const other = owner.get(intfName);
    const message =
      intfName === 'eth0'
        ? 'must not be eth0, the interface every chute has for its WAN connection'
        : other !== undefined
          ? `must differ from the intfName of net.${other} (${intfName})`
          : null;
    if (message !== null) context.addIssue({ code: 'custom', path: [name, 'intfName'], input: intfName, message });
    else owner.set(intfName, name);
  }
}

/** The extra networks of a chute, by name (the `<network>` path parameter). */
export const NetConfigSchema = z.record(NetworkNameSchema, NetEntrySchema, MAPPING).check(z.superRefine(distinctInterfaces, { when: () => true }));
export type NetConfig = z.infer<typeof NetConfigSchema>;

/** The web service of a chute. */
export const WebConfigSchema = z.looseObject({ port: integer(1, 65535) }, MAPPING);

/** A chute configuration: every field optional, unknown fields kept. */
export const ChuteConfigSchema = z.looseObject(
  {
    environment: z.optional(EnvironmentSchema),
    host_config: z.optional(ChuteHostConfigSchema),
    net: z.optional(NetConfigSchema),
    web: z.optional(WebConfigSchema),
  },
  MAPPING,
);
export type ChuteConfig = z.infer<typeof ChuteConfigSchema>;

/**
 * Checks a chute configuration against every rule at once, and gives it back exactly as written
 * (the same object: unknown fields and key order kept).
 *
 * @throws HttpProblem 422 listing every violation as `{ path, message }`, paths from the
 *   configuration's root: `net.wlan.ssid`, `host_config.dns[1]`, `web.port` (`''` for the root).
 * @example
 * checkChuteConfig({ web: { port: 8000 } }) // { config: { web: { port: 8000 } } }
 * checkChuteConfig({ web: { port: 0 } })    // throws 422, errors [{ path: 'web.port', message: 'must be an integer from 1 to 65535' }]
 */
export function checkChuteConfig(value: unknown): { config: ChuteConfig } {
  validate(ChuteConfigSchema, value, '', 'the chute configuration');
  return { config: value as ChuteConfig };
}

/**
 * The lease duration of a network in seconds, under either spelling (`lease`, else `leasetime`):
 * `Infinity` for `infinite`, undefined when the network gives none.
 *
 * @example
 * leaseSeconds({ type: 'wifi', intfName: 'wlan0', dhcp: { lease: '12h' } })   // 43200
 * leaseSeconds({ type: 'vlan', intfName: 'vlan0', vlan_id: 5, dhcp: { leasetime: 3600 } }) // 3600
 */
export function leaseSeconds(entry: { dhcp?: DhcpConfig | undefined }): number | undefined {
  return durationSeconds(entry.dhcp?.lease) ?? durationSeconds(entry.dhcp?.leasetime);
}

/**
 * The environment as the container gets it: every value as text, as YAML would print it
 * (8080 → "8080", true → "true", null → "").
 *
 * @example
 * environmentStrings({ PORT: 8080, DEBUG: true, NAME: 'hello', EMPTY: null }) // { PORT: '8080', DEBUG: 'true', NAME: 'hello', EMPTY: '' }
 */
export function environmentStrings(environment: Environment | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(environment ?? {})) out[name] = value === null ? '' : String(value);
  return out;
}
