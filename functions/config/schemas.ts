/**
 * Request and response schemas of the device-configuration endpoints (`/api/v1/config/*`). Handlers
 * only re-export them (see functions/info/schemas.ts for why handlers never call zod at run time).
 */
import * as z from 'zod/mini';
import type { PdconfSection } from '../core/device/index.ts';
import type { HostConfig } from './host-config.ts';
import { HostConfigBodySchema } from './host-config-body.ts';

export { HostConfigBodySchema } from './host-config-body.ts';

export { NoInputSchema } from '../info/schemas.ts';
import type { ProvisionStatus as DeviceProvisionStatus, TelemetryStatus as DeviceTelemetryStatus } from '../core/device/index.ts';
import { ProvisionBodySchema } from './provision-body.ts';

export { ProvisionBodySchema, type ProvisionBody } from './provision-body.ts';
import { SshKeyBodySchema } from './ssh-key-body.ts';
import { USER_NAME } from './user-account.ts';

export { SshKeyBodySchema, type SshKeyBody } from './ssh-key-body.ts';

// --- Host configuration, new-config and pdconf -------------------------------------------------

/* The PUT body is defined in host-config-body.ts (validated at run time there); these only describe. */

/**
 * A host configuration (see host-config-body.ts for every field and bound): what GET
 * /api/v1/config/hostconfig and /new-config answer (Wi-Fi keys and passwords `[redacted]`), JSON or YAML.
 */
export const HostConfigurationSchema = HostConfigBodySchema;
export type HostConfiguration = HostConfig;

/** PUT /api/v1/config/hostconfig: the configuration itself, or ParaDrop's wrapper `{"config": {...}}`, JSON or YAML. */
export const HostConfigUpdateRequestSchema = z.object({
  params: z.object({}),
  body: z.union([HostConfigBodySchema, z.strictObject({ config: HostConfigBodySchema })]),
});

/** One UCI section pdconf rendered and how applying its file went (see `PdconfSection` in functions/core/device/services.ts). */
export const PdconfSectionStatusSchema = z.strictObject({
  /** `interface`, `device`, `wifi-device`, `wifi-iface`, `dhcp`, `defaults`, `zone`, `forwarding`, `rule`. */
  type: z.string(),
  name: z.string(),
  /** `<file>: <what happened>`, e.g. `network: applied with /etc/init.d/network reload`. */
  comment: z.string(),
  success: z.boolean(),
  /** As in ParaDrop: how many pdconf runs (updates, reloads) ago its file was last applied; 0 for the latest run. */
  age: z.int().check(z.nonnegative()),
});

/** GET and PUT /api/v1/config/pdconf: every section of network, wireless, dhcp and firewall, in that order. */
export const PdconfStatusSchema = z.array(PdconfSectionStatusSchema);
export type PdconfStatus = PdconfSection[];

// --- Provisioning, pdid and telemetry status --------------------------------------------------

/* The POST body is defined in provision-body.ts (validated at run time there); these only describe. */

/** The request of POST /api/v1/config/provision: no path parameter, the credentials as JSON. */
export const ProvisionRequestSchema = z.object({ params: z.object({}), body: ProvisionBodySchema });

/** The request of GET /api/v1/config/provision and /api/v1/config/pdid: nothing. */
export const ProvisionStatusRequestSchema = z.object({ params: z.object({}), body: z.undefined() });

/** An ISO 8601 time, e.g. `2026-11-21T12:00:00.000Z`. */
const IsoTimeSchema = z.iso.datetime();

/** How sending telemetry reports to the controller goes (see `TelemetryStatus` in functions/core/device/provisioning.ts). */
export const TelemetryStatusSchema = z.strictObject({
  /** True when provisioned and the host configuration's `telemetry.enabled` is true. */
  enabled: z.boolean(),
  /** Seconds between reports. */
  interval: z.number(),
  lastSuccess: z.nullable(IsoTimeSchema),
  lastError: z.nullable(z.strictObject({ time: IsoTimeSchema, message: z.string() })),
  /** Reports waiting to be delivered. */
  queued: z.int().check(z.nonnegative()),
  /** Reports dropped, oldest first, because the queue was full. */
  dropped: z.int().check(z.nonnegative()),
  /** Reports delivered to the controller since the device started (or was reset). */
  delivered: z.int().check(z.nonnegative()),
  /** Deliveries that failed since the device started (or was reset): each attempt, retries included. */
  failed: z.int().check(z.nonnegative()),
});
export type TelemetryStatus = DeviceTelemetryStatus;

/**
 * GET and POST /api/v1/config/provision: the provisioning state, never the apitoken. ParaDrop's
 * fields (`routerId`, `pdserver`, `wampRouter`, `provisioned`, `httpConnected`, `wampConnected`),
 * plus when the credentials were stored and how telemetry goes.
 */
export const ProvisionStatusSchema = z.strictObject({
  provisioned: z.boolean(),
  routerId: z.nullable(z.string()),
  pdserver: z.nullable(z.string()),
  wampRouter: z.nullable(z.string()),
  /** True when the last exchange with the controller over HTTP succeeded. */
  httpConnected: z.boolean(),
  /** Always false: chutebox reports over HTTP and does not connect to the WAMP router. */
  wampConnected: z.boolean(),
  provisionedAt: z.nullable(IsoTimeSchema),
  telemetry: TelemetryStatusSchema,
});
export type ProvisionStatus = DeviceProvisionStatus;

/** GET /api/v1/config/pdid: the device's id at the controller (the `routerId` it was provisioned with), or `''`. */
export const PdidSchema = z.strictObject({ pdid: z.string() });
export type Pdid = z.infer<typeof PdidSchema>;

// --- SSH keys -----------------------------------------------------------------------------------

/* The POST body is defined in ssh-key-body.ts (validated at run time there); these only describe. */

/** The `<user>` path parameter: a user name (`USER_NAME`). */
const UserParamSchema = z.string().check(z.regex(USER_NAME));

/** The request of GET /api/v1/config/sshKeys/<user>: the user name, no body. */
export const SshKeysRequestSchema = z.object({ params: z.object({ user: UserParamSchema }), body: z.undefined() });

/** The request of POST /api/v1/config/sshKeys/<user>: the user name, and the key as JSON `{key}`. */
export const SshKeyAddRequestSchema = z.object({ params: z.object({ user: UserParamSchema }), body: SshKeyBodySchema });

/**
 * GET and POST /api/v1/config/sshKeys/<user>: the key lines of the user's `~/.ssh/authorized_keys`,
 * in file order, each as written (options and comment included); comments and blank lines left out.
 *
 * @example
 * ['ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIErzfrvK75/Fl4oVaLVr/hQEZpVW34aj+zMgWqsbmHY+ alice@laptop', 'no-pty ssh-rsa AAAAB3Nza… bob@workstation']
 */
export const SshKeyListSchema = z.array(z.string());
export type SshKeyList = string[];

// --- Settings and factory reset ----------------------------------------------------------------

/** A settings value: text, a number, a switch, a command's argument list, or null when unset. */
const SettingValueSchema = z.union([z.string(), z.number(), z.boolean(), z.array(z.string()), z.null()]);

/** `GET /api/v1/config/settings`: every setting by its lower-case name, e.g. `{ portal_server_port: 8080, state_dir: '/var/lib/chutebox', … }`. */
export const SettingsRecordSchema = z.record(z.string().check(z.regex(/^[a-z][a-z0-9_]*$/)), SettingValueSchema);
export type SettingsRecord = z.infer<typeof SettingsRecordSchema>;

/** `POST /api/v1/config/factoryReset`: no body (an empty JSON object is accepted too). */
export const FactoryResetRequestSchema = z.object({ params: z.object({}), body: z.optional(z.object({})) });

/** `POST /api/v1/config/startUpdate`: no body (an empty JSON object is accepted too). */
export const StartUpdateRequestSchema = z.object({ params: z.object({}), body: z.optional(z.strictObject({})) });

/** What a finished factory reset answers: ParaDrop's `{success, message}`. */
export const FactoryResetResultSchema = z.object({ success: z.boolean(), message: z.string() });
export type FactoryResetResult = z.infer<typeof FactoryResetResultSchema>;
