import { reusingLast } from '../core/reusing-last.ts';
import type { Device, DeviceSources } from '../core/device/index.ts';
import { parseYaml } from '../core/body/index.ts';
import { readRadios } from '../info/wifi.ts';
import type { WifiDevice } from '../info/schemas.ts';

/*
 * The host configuration (GET/PUT /api/v1/config/hostconfig): its shape, the one generated from the
 * hardware (GET /api/v1/config/new-config, and what applies while none is stored), and reading the
 * stored YAML. No schema here: validation is in host-config-body.ts, which checks a value against
 * these types. Every object may carry fields chutebox does not know; they are kept.
 */

/** What a firewall does with a packet no rule takes. */
export type FirewallPolicy = 'ACCEPT' | 'REJECT' | 'DROP';
export const FIREWALL_POLICIES = ['ACCEPT', 'REJECT', 'DROP'] as const;

/** The WAN's addressing: a DHCP client, fixed addresses, a PPPoE session, or none. */
export const WAN_PROTOCOLS = ['dhcp', 'static', 'pppoe', 'none'] as const;
/** 802.11 modes, as OpenWrt's `hwmode` names them. */
export const HW_MODES = ['11b', '11g', '11a', '11n', '11ac', '11ax'] as const;
/** Channel widths and generations, as OpenWrt's `htmode` names them. */
export const HT_MODES = ['NOHT', 'HT20', 'HT40', 'HT40+', 'HT40-', 'VHT20', 'VHT40', 'VHT80', 'VHT160', 'HE20', 'HE40', 'HE80', 'HE160'] as const;
/**
 * Modes of a host Wi-Fi network: an access point, or a client (`sta`, as OpenWrt names it; `managed`
 * is ParaDrop's name for the same, and is rendered as `sta`).
 */
export const WIFI_INTERFACE_MODES = ['ap', 'sta', 'managed'] as const;

/**
 * Whether a host Wi-Fi network is a client of another network rather than an access point.
 *
 * @example
 * isClientMode('managed') // true
 * isClientMode(undefined) // false: an access point by default
 */
export function isClientMode(mode: string | undefined): boolean {
  return mode === 'sta' || mode === 'managed';
}
/** Wi-Fi security, as OpenWrt's `encryption` names it: the ones that take a `key` first. */
export const KEYED_ENCRYPTIONS = ['psk2', 'psk', 'psk-mixed', 'sae', 'sae-mixed'] as const;
export const OPEN_ENCRYPTIONS = ['none', 'owe'] as const;
export const ENCRYPTIONS = [...KEYED_ENCRYPTIONS, ...OPEN_ENCRYPTIONS] as const;

type Open = { [field: string]: unknown };

export interface HostConfig extends Open {
  firewall: Open & { defaults: Open & { input: FirewallPolicy; output: FirewallPolicy; forward: FirewallPolicy } };
  lan: LanConfig;
  wan?: WanConfig | undefined;
  wifi?: WifiRadioConfig[] | undefined;
  'wifi-interfaces'?: WifiInterfaceConfig[] | undefined;
  system?: (Open & { hostname?: string | undefined; timezone?: string | undefined }) | undefined;
  telemetry?: (Open & { enabled?: boolean | undefined; interval?: number | undefined }) | undefined;
}

/** The LAN: a bridge (`br-lan`) of Ethernet ports with a fixed address, and its DHCP server. */
export interface LanConfig extends Open {
  interfaces: string[];
  proto: 'static';
  ipaddr: string;
  netmask: string;
  /** Without it, the LAN has no DHCP server. */
  dhcp?: (Open & { start: number; limit: number; leasetime: string | number }) | undefined;
}

export interface WanConfig extends Open {
  interface: string;
  proto: (typeof WAN_PROTOCOLS)[number];
  ipaddr?: string | undefined;
  netmask?: string | undefined;
  gateway?: string | undefined;
  dns?: string[] | undefined;
  username?: string | undefined;
  password?: string | undefined;
}

/** One radio's settings; `id` is a wifi id of GET /api/v1/info/hardware (`pci-wifi-0`), as in ParaDrop. */
export interface WifiRadioConfig extends Open {
  id: string;
  channel: number | 'auto';
  hwmode?: (typeof HW_MODES)[number] | undefined;
  htmode?: (typeof HT_MODES)[number] | undefined;
}

/**
 * A Wi-Fi network of the host on one radio (`device`: the `id` of an entry of `wifi`, as in ParaDrop):
 * an access point on the LAN, or a client on the WAN (`sta`, or ParaDrop's name for it, `managed`).
 */
export interface WifiInterfaceConfig extends Open {
  device: string;
  mode?: (typeof WIFI_INTERFACE_MODES)[number] | undefined;
  ssid: string;
  encryption?: (typeof ENCRYPTIONS)[number] | undefined;
  key?: string | undefined;
  network?: 'lan' | 'wan' | undefined;
}

/** Telemetry as the host configuration asks for it (section or fields absent: enabled, every 60 s). */
export const DEFAULT_TELEMETRY = { enabled: true, interval: 60 } as const;
/** Bounds of `telemetry.interval`, seconds. */
export const TELEMETRY_INTERVAL = { min: 10, max: 86400 } as const;

/**
 * Whether and how often telemetry is sent, with the defaults filled in.
 *
 * @example
 * telemetrySettings({ …, telemetry: { enabled: false } }) // { enabled: false, interval: 60 }
 */
export function telemetrySettings(config: Pick<HostConfig, 'telemetry'>): { enabled: boolean; interval: number } {
  return {
    enabled: config.telemetry?.enabled ?? DEFAULT_TELEMETRY.enabled,
    interval: config.telemetry?.interval ?? DEFAULT_TELEMETRY.interval,
  };
}

// --- Wi-Fi bands ---------------------------------------------------------------------------------

/** The 20 MHz channels of the 2.4 GHz band. */
export const CHANNELS_2G = Array.from({ length: 14 }, (_, i) => i + 1);
/** The 20 MHz channels of the 5 GHz band: 32 to 144 and 149 to 177, every fourth. */
export const CHANNELS_5G = [...Array.from({ length: 29 }, (_, i) => 32 + 4 * i), ...Array.from({ length: 8 }, (_, i) => 149 + 4 * i)];

export type Band = '2g' | '5g';

/**
 * The band a radio's settings put it in: its channel's, or for `auto` its mode's (11a and 11ac are
 * 5 GHz, 11b and 11g 2.4 GHz); null when neither tells (`auto` with 11n, 11ax or no mode).
 *
 * @example
 * radioBand({ id: 'pci-wifi-0', channel: 36 })                  // '5g'
 * radioBand({ id: 'pci-wifi-0', channel: 'auto', hwmode: '11g' }) // '2g'
 */
export function radioBand(radio: Pick<WifiRadioConfig, 'channel' | 'hwmode'>): Band | null {
  if (typeof radio.channel === 'number') return CHANNELS_2G.includes(radio.channel) ? '2g' : CHANNELS_5G.includes(radio.channel) ? '5g' : null;
  if (radio.hwmode === '11a' || radio.hwmode === '11ac') return '5g';
  if (radio.hwmode === '11b' || radio.hwmode === '11g') return '2g';
  return null;
}

// --- The generated configuration ----------------------------------------------------------------

/** The LAN of a generated configuration. */
export const DEFAULT_LAN = { proto: 'static', ipaddr: '192.168.1.1', netmask: '255.255.255.0', dhcp: { start: 100, limit: 150, leasetime: '12h' } } as const;

/**
 * The firewall of a generated configuration: the router and its LAN may start connections
 * (input, output ACCEPT); traffic between networks is forwarded only where a zone forwarding allows it
 * (LAN → WAN, chutes → WAN), the rest is refused with an answer (REJECT), as OpenWrt does.
 */
export const DEFAULT_FIREWALL = { defaults: { input: 'ACCEPT', output: 'ACCEPT', forward: 'REJECT' } } as const;

/** What a radio can do, as far as its driver tells. */
interface RadioCaps {
  /** Has a 5 GHz band (all have 2.4 GHz but the 5 GHz-only ones, which are not listed). */
  dualBand: boolean;
  generation: 'n' | 'ac' | 'ax';
}

/**
 * Radios by kernel driver. sysfs does not list a radio's bands (nl80211 does, which is no raw file),
 * so chutebox goes by the driver; a driver missing here is taken as a 2.4 GHz 802.11n radio, which
 * every radio of the last 15 years can be. ath9k drives 2.4 GHz-only and dual-band chips alike: its
 * dual-band PCI ids are in DUAL_BAND_IDS.
 */
const DRIVER_CAPS: Record<string, RadioCaps> = {
  ath9k: { dualBand: false, generation: 'n' },
  ath10k_pci: { dualBand: true, generation: 'ac' },
  ath10k_ahb: { dualBand: true, generation: 'ac' },
  ath10k_sdio: { dualBand: true, generation: 'ac' },
  ath10k_usb: { dualBand: true, generation: 'ac' },
  ath11k_pci: { dualBand: true, generation: 'ax' },
  ath11k_ahb: { dualBand: true, generation: 'ax' },
  ath12k_pci: { dualBand: true, generation: 'ax' },
  mt76x2e: { dualBand: true, generation: 'ac' },
  mt76x2u: { dualBand: true, generation: 'ac' },
  mt7615e: { dualBand: true, generation: 'ac' },
  mt7915e: { dualBand: true, generation: 'ax' },
  mt7921e: { dualBand: true, generation: 'ax' },
  mt7921u: { dualBand: true, generation: 'ax' },
  mt7996e: { dualBand: true, generation: 'ax' },
};

/** ath9k chips with a 5 GHz band (vendor:device): AR9280, AR9380/AR93xx, AR9580. */
const DUAL_BAND_IDS = new Set(['0x168c:0x002a', '0x168c:0x0030', '0x168c:0x0033']);

const SINGLE_BAND_N: RadioCaps = { dualBand: false, generation: 'n' };

/** Channels given out in turn to radios of each band: non-overlapping ones, and 5 GHz ones without radar detection. */
const CHANNEL_PLAN: Record<Band, readonly number[]> = { '2g': [1, 6, 11], '5g': [36, 149] };

/** The widest usual channel of each generation in each band. */
const HT_PLAN: Record<Band, Record<RadioCaps['generation'], (typeof HT_MODES)[number]>> = {
  '2g': { n: 'HT20', ac: 'HT20', ax: 'HE20' },
  '5g': { n: 'HT40', ac: 'VHT80', ax: 'HE80' },
};

/**
 * A host configuration generated from the detected hardware, read through the Device (raw sources):
 * - `wan`: the first Ethernet interface (in natural name order), a DHCP client; none without one.
 * - `lan`: the other Ethernet interfaces bridged, `192.168.1.1/24` static, DHCP from .100, 150
 *   addresses, 12 h leases (DEFAULT_LAN).
 * - Ethernet interfaces: the entries of /sys/class/net with a `device` link and without a `wireless`
 *   or `phy80211` entry.
 * - `wifi`: one entry per radio of GET /api/v1/info/hardware (functions/info/wifi.ts), by its id. The
 *   first dual-band radio gets 5 GHz, the next 2.4 GHz, and so on in turn (single-band radios 2.4 GHz);
 *   channels 1, 6, 11 (2.4 GHz) and 36, 149 (5 GHz) in turn; `hwmode` 11g or 11a for the band;
 *   `htmode` the usual width of the radio's generation (HT20 at 2.4 GHz; HT40, VHT80 or HE80 at 5 GHz).
 *   Bands and generation come from the driver (see DRIVER_CAPS).
 * - `wifi-interfaces`: none: no access point until its owner sets an SSID and a key (see decision 0004).
 * - `firewall.defaults`: DEFAULT_FIREWALL; `system`: hostname `chutebox`, timezone `UTC`;
 *   `telemetry`: enabled, every 60 s.
 * Reads only; changes nothing.
 *
 * @example
 * await generateHostConfig(device)
 * // { firewall: { defaults: { input: 'ACCEPT', output: 'ACCEPT', forward: 'REJECT' } }, lan: { interfaces: ['eth1'], … }, wan: { interface: 'eth0', proto: 'dhcp' }, wifi: [{ id: 'pci-wifi-0', channel: 36, hwmode: '11a', htmode: 'VHT80' }], … }
 */
export async function generateHostConfig(device: DeviceSources): Promise<HostConfig> {
  return generatedFor(device, await hardwareFacts(device));
}

/**
 * What `generateHostConfig` makes its configuration from, read from the device: the Ethernet
 * interfaces and the radios' settings, as the JSON of `[ethernet, wifi]` (a text to keep what is
 * made from it by).
 *
 * @example
 * await hardwareFacts(device) // '[["eth0","eth1"],[{"id":"pci-wifi-0","channel":36,"hwmode":"11a","htmode":"VHT80"}]]'
 */
export async function hardwareFacts(device: DeviceSources): Promise<string> {
  const [ethernet, radios] = await Promise.all([ethernetInterfaces(device), readRadios(device)]);
  const caps = await Promise.all(radios.map((radio) => radioCaps(device, radio)));
  return JSON.stringify([ethernet, planRadios(radios, caps)]);
}

/** The configuration generated from `hardwareFacts`. */
export const configFromFacts = (facts: string): HostConfig => hostConfigFor(...(JSON.parse(facts) as [string[], WifiRadioConfig[]]));

/** `configFromFacts`, worked out again only when the hardware changed. */
export const generatedFor = reusingLast(configFromFacts);

/**
 * The generated configuration for these Ethernet interfaces (the first is the WAN) and radio
 * settings; `hostConfigFor([], [])` is that of a device without either.
 *
 * @example
 * hostConfigFor(['eth0', 'eth1'], []).wan // { interface: 'eth0', proto: 'dhcp' }
 */
export function hostConfigFor(ethernet: readonly string[], wifi: WifiRadioConfig[]): HostConfig {
  const [wan, ...lan] = ethernet;
  return {
    firewall: structuredClone(DEFAULT_FIREWALL) as HostConfig['firewall'],
    lan: { interfaces: lan, ...structuredClone(DEFAULT_LAN) },
    ...(wan === undefined ? {} : { wan: { interface: wan, proto: 'dhcp' as const } }),
    wifi,
    'wifi-interfaces': [],
    system: { hostname: 'chutebox', timezone: 'UTC' },
    telemetry: { ...DEFAULT_TELEMETRY },
  };
}

const NET_CLASS = '/sys/class/net';

/** The Ethernet interfaces of /sys/class/net, in natural name order (eth2 before eth10). */
async function ethernetInterfaces(device: DeviceSources): Promise<string[]> {
  const names = await device.readDir(NET_CLASS);
  const found = await Promise.all(
    names.map(async (name) => {
      const entries = await device.readDir(`${NET_CLASS}/${name}`);
      if (entries.includes('wireless') || entries.includes('phy80211')) return null;
      return (await device.realPath(`${NET_CLASS}/${name}/device`)) === null ? null : name;
    }),
  );
  return found.filter((name) => name !== null).sort(compareNatural);
}

/**
 * Orders names with numbers by value: `eth2` before `eth10`.
 *
 * @example
 * ['eth10', 'eth2'].sort(compareNatural) // ['eth2', 'eth10']
 */
export function compareNatural(a: string, b: string): number {
  const split = (text: string) => text.split(/(\d+)/);
  const left = split(a);
  const right = split(b);
  for (let i = 0; i < Math.min(left.length, right.length); i++) {
    const x = left[i]!;
    const y = right[i]!;
    if (x === y) continue;
    if (i % 2 === 1) return Number(x) - Number(y) || x.length - y.length;
    return x < y ? -1 : 1;
  }
  return left.length - right.length;
}

/** A radio's capabilities from its driver: `/sys/bus/<bus>/devices/<device>/driver`. */
async function radioCaps(device: DeviceSources, radio: WifiDevice): Promise<RadioCaps> {
  const driverPath = await device.realPath(`/sys/bus/${radio.slot.replace('/', '/devices/')}/driver`);
  const driver = driverPath?.slice(driverPath.lastIndexOf('/') + 1);
  const caps = (driver !== undefined && Object.hasOwn(DRIVER_CAPS, driver) ? DRIVER_CAPS[driver] : undefined) ?? SINGLE_BAND_N;
  return { dualBand: caps.dualBand || DUAL_BAND_IDS.has(`${radio.vendorId}:${radio.deviceId}`), generation: caps.generation };
}

/** One wifi entry per radio: bands in turn, channels in turn per band. */
function planRadios(radios: WifiDevice[], caps: RadioCaps[]): WifiRadioConfig[] {
  const given: Record<Band, number> = { '2g': 0, '5g': 0 };
  return radios.map((radio, i) => {
    const { dualBand, generation } = caps[i]!;
    const band: Band = dualBand && given['5g'] <= given['2g'] ? '5g' : '2g';
    const plan = CHANNEL_PLAN[band];
    const channel = plan[given[band]++ % plan.length]!;
    return { id: radio.id, channel, hwmode: band === '5g' ? '11a' : '11g', htmode: HT_PLAN[band][generation] };
  });
}

// --- The stored configuration --------------------------------------------------------------------

/**
 * The stored host configuration (`hostconfig.yaml`, written by chutebox from a validated
 * configuration) as a value.
 *
 * @throws Error when it is not YAML holding a mapping: a file damaged or edited by hand, which the
 *   runtime reports rather than silently replacing.
 * @example
 * parseStoredHostConfig('firewall:\n  defaults: …') // { firewall: { defaults: … }, … }
 */
export function parseStoredHostConfig(text: string): HostConfig {
  let value: unknown;
  try {
    value = parseYaml(text);
  } catch (error) {
    throw new Error(`the stored host configuration is not valid YAML: ${(error as Error).message}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error('the stored host configuration is not a mapping');
  return value as HostConfig;
}

/**
 * The configuration in effect: the stored one, or the generated one when none is stored.
 *
 * @example
 * await currentHostConfig(device) // what GET /api/v1/config/hostconfig answers, before redaction
 */
export async function currentHostConfig(device: DeviceSources & Pick<Device, 'hostConfig'>): Promise<HostConfig> {
  const stored = await device.hostConfig.read();
  return stored === null ? generateHostConfig(device) : storedConfigOf(device, stored);
}

/** The stored configuration, parsed again only when the file changed. */
export const storedConfigOf = reusingLast(parseStoredHostConfig);
