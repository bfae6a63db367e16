import * as z from 'zod/mini';
import { ChangeRecordSchema } from '../changes/schemas.ts';
import { CHANGE_ID, CHUTE_NAME_MESSAGE, MAC_ADDRESS, NETWORK_NAME, NETWORK_NAME_MESSAGE } from '../chutes/params.ts';
import { CHUTE_NAME, DEVICE_EVENT_KINDS, type DeviceEvent } from '../core/device/index.ts';

/*
 * What GET /api/v1/events sends (docs/api/events.md): each device event (`DeviceEvent`,
 * functions/core/device/events.ts) as the JSON `data:` of a Server-Sent Event named by its `kind`,
 * and `events.missed`, the stream's own; and the query that filters them. The types of
 * functions/core/device/events.ts are the contract: the compiler checks that these schemas say the same.
 */

export { DEVICE_EVENT_KINDS };

/** The kind of the event the stream sends when a client asked to resume after events that have left the buffer. */
export const EVENTS_MISSED = 'events.missed';

const Time = z.iso.datetime();
const Chute = z.string().check(z.regex(CHUTE_NAME));
const Network = z.string().check(z.regex(NETWORK_NAME));
const Mac = z.string().check(z.regex(MAC_ADDRESS));
/** What every device event carries besides its body: its id (1, 2, … per device and run) and when it happened. */
const stamp = { id: z.int().check(z.positive()), time: Time };

/** A station joined or left a chute's Wi-Fi network (hostapd's `AP-STA-CONNECTED`, `AP-STA-DISCONNECTED`). */
export const StationEventSchema = z.strictObject({
  kind: z.enum(['station.connected', 'station.disconnected']),
  chute: Chute,
  network: Network,
  mac: Mac,
  ...stamp,
});

/** A station left one of the device's networks (`from`) for another within a short time. */
export const StationRoamedEventSchema = z.strictObject({
  kind: z.literal('station.roamed'),
  chute: Chute,
  network: Network,
  mac: Mac,
  from: z.strictObject({ chute: Chute, network: Network }),
  ...stamp,
});

/** A DHCP lease of a chute's network was handed out, renewed or ran out; `expires` null for an infinite one. */
export const LeaseEventSchema = z.strictObject({
  kind: z.enum(['lease.added', 'lease.renewed', 'lease.expired']),
  chute: Chute,
  network: Network,
  ip: z.string(),
  mac: Mac,
  hostname: z.nullable(z.string()),
  expires: z.nullable(Time),
  ...stamp,
});

/** A chute's state changed (`running`, `stopped`, … as GET /api/v1/chutes/<chute> says it); `previous` null when the chute is new. */
export const ChuteStateEventSchema = z.strictObject({
  kind: z.literal('chute.state'),
  chute: Chute,
  state: z.string(),
  previous: z.nullable(z.string()),
  ...stamp,
});

/** A change was queued, noted a step, or ended: `change` is the record GET /api/v1/changes/<id> answered then. */
export const ChangeEventSchema = z.strictObject({
  kind: z.enum(['change.queued', 'change.progressed', 'change.ended']),
  chute: z.nullable(Chute),
  change: ChangeRecordSchema,
  ...stamp,
});

/** A host configuration was applied (an update or a factory reset); `success` false when a file could not be applied. */
export const HostConfigAppliedEventSchema = z.strictObject({ kind: z.literal('hostconfig.applied'), success: z.boolean(), ...stamp });

/** A delivery to the controller (the check of provisioning credentials, a telemetry report) went through, or failed with `error`. */
export const ControllerDeliveryEventSchema = z.strictObject({
  kind: z.literal('controller.delivery'),
  what: z.enum(['provisioning', 'telemetry']),
  success: z.boolean(),
  error: z.nullable(z.string()),
  ...stamp,
});

/** The schema of each kind of device event. */
const DEVICE_EVENT_SCHEMAS = [
  StationEventSchema,
  StationRoamedEventSchema,
  LeaseEventSchema,
  ChuteStateEventSchema,
  ChangeEventSchema,
  HostConfigAppliedEventSchema,
  ControllerDeliveryEventSchema,
] as const;

/** One device event, by its `kind`. */
export const DeviceEventSchema = z.discriminatedUnion('kind', [...DEVICE_EVENT_SCHEMAS]);
/** A compile error when the schemas and `DeviceEvent` disagree, either way. */
const sameEvents: [z.output<typeof DeviceEventSchema>] extends [DeviceEvent]
  ? [DeviceEvent] extends [z.output<typeof DeviceEventSchema>]
    ? true
    : never
  : never = true;
void sameEvents;

/**
 * The stream's own event, sent first when a client resumed after an id whose next events have left the
 * buffer (or after an id of an earlier run of the device): those are lost. `after` is the id asked
 * for; `id` the last one accounted for, after which the events that follow it come (0 when none is).
 */
export const EventsMissedSchema = z.strictObject({
  kind: z.literal(EVENTS_MISSED),
  after: z.int().check(z.nonnegative()),
  id: z.int().check(z.nonnegative()),
  time: Time,
});
export type EventsMissed = z.infer<typeof EventsMissedSchema>;

/** What each event of the stream carries as its `data:`, JSON: a device event, or `events.missed`. */
export const StreamEventSchema = z.discriminatedUnion('kind', [...DEVICE_EVENT_SCHEMAS, EventsMissedSchema]);

/** An event id as a client sends it back (`Last-Event-ID`, `?lastEventId=`): a whole number, written as a change id is. */
export const EVENT_ID = CHANGE_ID;

/** What an event id (`EVENT_ID`) must be, as an input error's message. */
export const EVENT_ID_MESSAGE = 'must be an event id: a whole number such as 12';

/** `?kind=`: event kinds, comma-separated (and the parameter may be repeated). */
const KIND_LIST = /^[a-z]+\.[a-z]+(,[a-z]+\.[a-z]+)*$/;

/**
 * The query of GET /api/v1/events, as the URL gives it: `kind`, the kinds to send (each of
 * `DEVICE_EVENT_KINDS`; all when left out); `chute` and `network`, only the events about that chute or
 * network; `lastEventId`, the id after which to resume, for a client that cannot send `Last-Event-ID`.
 */
export const EventsQuerySchema = z.object({
  kind: z.optional(z.string().check(z.regex(KIND_LIST, { error: 'must be event kinds separated by commas, such as station.connected,chute.state' }))),
  chute: z.optional(z.string().check(z.regex(CHUTE_NAME, { error: CHUTE_NAME_MESSAGE }))),
  network: z.optional(z.string().check(z.regex(NETWORK_NAME, { error: NETWORK_NAME_MESSAGE }))),
  lastEventId: z.optional(z.string().check(z.regex(EVENT_ID, { error: EVENT_ID_MESSAGE }))),
});
export type EventsQuery = z.output<typeof EventsQuerySchema>;

/** GET /api/v1/events: no path parameter, the filters in the query (`EventsQuerySchema`), no body. */
export const EventsRequestSchema = z.object({ params: z.object({}), query: EventsQuerySchema, body: z.undefined() });
