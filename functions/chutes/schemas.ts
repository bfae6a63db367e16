import * as z from 'zod/mini';
import { CHUTE_NAME } from '../core/device/index.ts';
import type { StationRecord as ParsedStation } from '../parsers/iw-station.ts';
import { SsidUpdateSchema } from '../networks/ssid-body.ts';
import { ChuteInstallBodySchema, ChuteStartBodySchema } from './chute-body.ts';
import { ChuteConfigSchema } from './chute-config.ts';
import { LogQuerySchema } from '../core/logs.ts';
import { MAC_ADDRESS, NETWORK_NAME } from './params.ts';
import type { ChuteRecord as BuiltChuteRecord } from './chute-record.ts';
import { CHUTE_STATES } from './state.ts';

export { SsidUpdateSchema, type SsidUpdate } from '../networks/ssid-body.ts';
export { ChuteInstallBodySchema, type ChuteInstallBody, ChuteStartBodySchema, type ChuteStartBody } from './chute-body.ts';

/*
 * The requests and responses of the /api/v1/chutes endpoints (ParaDrop's shapes).
 * Records whose keys come from a tool (station, hostapd status) are open; the others are strict.
 * Request bodies that a handler validates at run time are defined in `<what>-body.ts` modules
 * (re-exported here), so that handler's bundle holds only them, not every schema of this file.
 */

const ChuteParamSchema = z.string().check(z.regex(CHUTE_NAME));
const NetworkParamSchema = z.string().check(z.regex(NETWORK_NAME));
const MacParamSchema = z.string().check(z.regex(MAC_ADDRESS));

/** The request of the chute list: no path parameter, no body. */
export const ChuteListRequestSchema = z.object({ params: z.object({}), body: z.undefined() });

/** The request of an endpoint on a chute: `<chute>` in the path, no body. */
export const ChuteRequestSchema = z.object({ params: z.object({ chute: ChuteParamSchema }), body: z.undefined() });

/** GET /api/v1/chutes/<chute>/logs: a chute name in the path, which lines in the query (`LogQuerySchema`), no body. */
export const ChuteLogsRequestSchema = z.object({ params: z.object({ chute: ChuteParamSchema }), query: LogQuerySchema, body: z.undefined() });

/** The request of an endpoint on one network of a chute, no body. */
export const NetworkRequestSchema = z.object({ params: z.object({ chute: ChuteParamSchema, network: NetworkParamSchema }), body: z.undefined() });

/** The request of an endpoint on one station of a network (`<mac>` in any case), no body. */
export const StationRequestSchema = z.object({
  params: z.object({ chute: ChuteParamSchema, network: NetworkParamSchema, mac: MacParamSchema }),
  body: z.undefined(),
});

/**
 * GET /api/v1/chutes/<chute>: an installed chute (see functions/chutes/chute-record.ts). The state comes
 * from the container engine (functions/chutes/state.ts).
 */
export const ChuteRecordSchema = z.strictObject({
  name: ChuteParamSchema,
  /** The installed version label; null when the stored record has none. */
  version: z.nullable(z.string()),
  state: z.enum(CHUTE_STATES),
  /** Environment variables passed to the chute. */
  environment: z.record(z.string(), z.string()),
  /** `cpu_shares` (default 1024) and `prioritize_traffic` (default false), and any other stored field. */
  allocation: z.catchall(z.object({ cpu_shares: z.int(), prioritize_traffic: z.boolean() }), z.unknown()),
  /** Null for a chute without resources. */
  resources: z.nullable(z.record(z.string(), z.unknown())),
  /** ParaDrop's `services`: each service's state (from its container) and the chute's allocation; a chute stored without services has one, `main`. */
  services: z.record(z.string(), z.strictObject({ state: z.enum(CHUTE_STATES), allocation: z.record(z.string(), z.unknown()) })),
  /** ParaDrop's `owner`: the owner the chute's paradrop.yaml names, null when it names none. */
  owner: z.nullable(z.string()),
});
export type ChuteRecord = BuiltChuteRecord;

/** GET /api/v1/chutes/: every installed chute, sorted by name. */
export const ChuteListSchema = z.array(ChuteRecordSchema);
export type ChuteList = ChuteRecord[];

/**
 * GET /api/v1/chutes/<chute>/config: the chute configuration as stored (`service.yaml`), every field
 * kept, unknown ones too; JSON, or YAML when `Accept` asks for it.
 */
export const StoredChuteConfigSchema = z.record(z.string(), z.unknown());
export type StoredChuteConfig = z.infer<typeof StoredChuteConfigSchema>;

/**
 * GET /api/v1/chutes/<chute>/cache: the chute cache as stored (host resources of each network under
 * `networks.<network>`, the container id, …), secrets `[redacted]` (functions/config/secret-placeholders.ts).
 */
export const ChuteCacheSchema = z.record(z.string(), z.unknown());
export type ChuteCache = z.infer<typeof ChuteCacheSchema>;

/** GET …/networks/<network>: a network of the chute configuration's `net`. */
export const NetworkSummarySchema = z.strictObject({
  /** The key in `net`, e.g. `wlan`. */
  name: z.string(),
  /** `wifi` or `vlan`. */
  type: z.string(),
  /** `intfName`: the interface inside the chute, e.g. `wlan0`. */
  interface: z.string(),
});
export type NetworkSummary = z.infer<typeof NetworkSummarySchema>;

/** GET …/networks. */
export const NetworkListSchema = z.array(NetworkSummarySchema);
export type NetworkList = z.infer<typeof NetworkListSchema>;

/** GET …/ssid: what hostapd broadcasts now. */
export const SsidRecordSchema = z.strictObject({
  /** The SSID, decoded from hostapd's escapes (`\xf0\x9f\x8c\x9d` → 🌝). */
  ssid: z.string(),
  /** The access point's MAC address. */
  bssid: z.string(),
});
export type SsidRecord = z.infer<typeof SsidRecordSchema>;

/** PUT …/ssid. */
export const SsidUpdateRequestSchema = z.object({ params: z.object({ chute: ChuteParamSchema, network: NetworkParamSchema }), body: SsidUpdateSchema });

/** The acknowledgement of a change. */
export const MessageSchema = z.strictObject({ message: z.string() });
export type Message = z.infer<typeof MessageSchema>;

/** The fields of one MLO link of a station, by the station key rule. */
export const StationLinkSchema = z.record(z.string(), z.string());

/**
 * A station as iw prints it: `mac_addr` and every `key: value` line, keys lower-case with spaces and
 * `/` as `_` (`rx_packets`, `tx_bitrate`, `signal`, `signal_avg`, `inactive_time`, `wmm_wme`,
 * `tdls_peer`, `connected_time`, …), values verbatim with units (`-42 [-44, -45] dBm`). A Wi-Fi 7
 * multi-link station also has `links`, one record per `Link N:` block with its `link_id`. Where iw
 * cannot answer, a station as hostapd's `all_sta` gives it, in the same shape (functions/parsers/hostapd-sta.ts).
 */
export const StationRecordSchema = z.catchall(z.object({ mac_addr: z.string(), links: z.optional(z.array(StationLinkSchema)) }), z.string());
/** The parser's type: every key a string, but `links`. */
export type StationRecord = ParsedStation;

/** GET …/stations. */
export const StationListSchema = z.array(StationRecordSchema);
export type StationList = StationRecord[];

/** One DHCP lease, fields as dnsmasq wrote them (see functions/parsers/dnsmasq-leases.ts). */
export const LeaseRecordSchema = z.strictObject({
  /** Seconds since the epoch; `0` for an infinite lease. */
  expires: z.string(),
  /** Absent for an IPv6 lease. */
  mac_addr: z.optional(z.string()),
  ip_addr: z.string(),
  /** `*` when the client sent no name. */
  hostname: z.string(),
  /** Absent when the client sent none. */
  client_id: z.optional(z.string()),
});

/** GET …/leases. */
export const LeaseListSchema = z.array(LeaseRecordSchema);
export type LeaseList = z.infer<typeof LeaseListSchema>;

/** GET …/hostapd_status: hostapd's STATUS, key → value, indexed keys such as `ssid[0]` kept. */
export const HostapdStatusSchema = z.record(z.string(), z.string());
export type HostapdStatus = z.infer<typeof HostapdStatusSchema>;

/**
 * What iw says of a station (or hostapd in iw's format, where iw cannot answer): verbatim values,
 * null when the tool does not print them (drivers differ; a wired lab station has none).
 */
export const StationFieldsSchema = z.strictObject({
  signal: z.nullable(z.string()),
  signal_avg: z.nullable(z.string()),
  tx_bitrate: z.nullable(z.string()),
  rx_bitrate: z.nullable(z.string()),
  inactive_time: z.nullable(z.string()),
  connected_time: z.nullable(z.string()),
});
export type StationFields = z.infer<typeof StationFieldsSchema>;

/** One client of an access point: a station joined by MAC with its DHCP lease. */
export const ClientSchema = z.strictObject({
  mac_addr: z.string(),
  /** From the lease; null without one (a bridged network's clients may get their address elsewhere). */
  ip_addr: z.nullable(z.string()),
  /** From the lease; null without one or when the client sent no name. */
  hostname: z.nullable(z.string()),
  ...StationFieldsSchema.shape,
});
export type Client = z.infer<typeof ClientSchema>;

/** GET …/clients. */
export const ClientListSchema = z.array(ClientSchema);
export type ClientList = z.infer<typeof ClientListSchema>;

/**
 * One device connected to a chute network (GET /api/v1/network/devices): a DHCP lease in ParaDrop's
 * shape, the chute and network it was handed out on, and the station with its MAC address.
 */
export const NetworkDeviceSchema = z.strictObject({
  mac_addr: z.string(),
  ip_addr: z.string(),
  /** As dnsmasq wrote it: `*` when the client sent no name. */
  hostname: z.string(),
  /** The DHCP client identifier; null when the client sent none. */
  client_id: z.nullable(z.string()),
  /** When the lease ends, in seconds since the epoch; 0 for an infinite lease. */
  expires: z.number(),
  /** When the lease file was read, in seconds since the epoch (the device's clock). */
  as_of: z.number(),
  chute: z.string(),
  network: z.string(),
  /** The access point's station with the lease's MAC address; null on a VLAN network or when no station has it. */
  station: z.nullable(StationFieldsSchema),
});
export type NetworkDevice = z.infer<typeof NetworkDeviceSchema>;

/** GET /api/v1/network/devices. */
export const NetworkDeviceListSchema = z.array(NetworkDeviceSchema);
export type NetworkDeviceList = z.infer<typeof NetworkDeviceListSchema>;

/** POST …/start and …/restart: `<chute>` in the path, optionally `{ environment }`, the chute's new environment. */
export const ChuteStartRequestSchema = z.object({ params: z.object({ chute: ChuteParamSchema }), body: ChuteStartBodySchema });

/** PUT /api/v1/chutes/<chute>/config: the new chute configuration, JSON or YAML (see checkChuteConfig). */
export const ChuteConfigUpdateRequestSchema = z.object({ params: z.object({ chute: ChuteParamSchema }), body: ChuteConfigSchema });

/**
 * PUT /api/v1/chutes/<chute>: `<chute>` in the path, the chute's source as the raw body
 * (`application/x-tar`, paradrop.yaml at its root; see functions/chutes/source.ts).
 */
export const ChuteSourceUpdateRequestSchema = z.object({ params: z.object({ chute: ChuteParamSchema }) });

/**
 * POST /api/v1/chutes/ (install), JSON or YAML: `{ name, image, version?, config?, environment?,
 * allocation? }`, `config` a chute configuration (see checkChuteConfig).
 */
export const ChuteInstallRequestSchema = z.object({ body: z.extend(ChuteInstallBodySchema, { config: z.optional(ChuteConfigSchema) }) });

/**
 * The answer to a call that queues a change (install, start, stop, restart, delete, a configuration update):
 * ParaDrop's shape. `GET /api/v1/changes/<change_id>` follows it.
 */
export const ChangeAcceptedSchema = z.strictObject({ change_id: z.int().check(z.nonnegative()) });
export type ChangeAccepted = z.infer<typeof ChangeAcceptedSchema>;
