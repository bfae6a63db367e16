import type { ChangeRecord } from './changes.ts';

/**
 * What a device reports as it happens, named by `kind` (the SSE `event:` of `GET /api/v1/events`).
 * `chute` and `network` are set wherever the event is about one, so that a stream can be filtered by
 * them. Times are ISO 8601 strings.
 */
export type DeviceEventBody =
  /** A station joined or left a chute's Wi-Fi network (hostapd's `AP-STA-CONNECTED`, `AP-STA-DISCONNECTED`). */
  | { kind: 'station.connected' | 'station.disconnected'; chute: string; network: string; mac: string }
  /** A station left one of the device's networks for another (`from`) within a short time. */
  | { kind: 'station.roamed'; chute: string; network: string; mac: string; from: { chute: string; network: string } }
  /** A DHCP lease of a chute's network was handed out, renewed, or ran out (dnsmasq's lease file). */
  | {
      kind: 'lease.added' | 'lease.renewed' | 'lease.expired';
      chute: string;
      network: string;
      ip: string;
      mac: string;
      hostname: string | null;
      /** When the lease runs out; null for an infinite one. */
      expires: string | null;
    }
  /** A chute's container changed state (`running`, `stopped`, …; `previous` null when it is new). */
  | { kind: 'chute.state'; chute: string; state: string; previous: string | null }
  /** A change was queued, noted a step, or ended: the same record as `GET /api/v1/changes/<id>`. */
  | { kind: 'change.queued' | 'change.progressed' | 'change.ended'; chute: string | null; change: ChangeRecord }
  /** A host configuration was applied (pdconf rendered and its commands run); `success` false when one failed. */
  | { kind: 'hostconfig.applied'; success: boolean }
  /** A delivery to the controller (provisioning or telemetry) went through, or failed with `error`. */
  | { kind: 'controller.delivery'; what: 'provisioning' | 'telemetry'; success: boolean; error: string | null };

/** The kinds of device events. */
export type DeviceEventKind = DeviceEventBody['kind'];

/**
 * Every kind of device event, as `?kind=` names them (the type below checks that none is missing).
 * Here, without the schemas, so that a page's script can name them all (runtime/http/portal-page/).
 */
export const DEVICE_EVENT_KINDS = [
  'station.connected',
  'station.disconnected',
  'station.roamed',
  'lease.added',
  'lease.renewed',
  'lease.expired',
  'chute.state',
  'change.queued',
  'change.progressed',
  'change.ended',
  'hostconfig.applied',
  'controller.delivery',
] as const satisfies readonly DeviceEventKind[];
/** A compile error when `DeviceEventBody` gains a kind that DEVICE_EVENT_KINDS leaves out. */
const everyKind: [Exclude<DeviceEventKind, (typeof DEVICE_EVENT_KINDS)[number]>] extends [never] ? true : never = true;
void everyKind;

/** An event as a device keeps and sends it: its body, an id that increases by one per device, and when it happened. */
export type DeviceEvent = DeviceEventBody & { id: number; time: string };

/**
 * The events of a device, kept in a bounded buffer so that a client that reconnects gets what it
 * missed. Publishing is the device's own business (its sources); handlers and transports follow.
 */
export interface DeviceEvents {
  /**
   * Calls `listener` with every event published from now on, and answers the buffered events after
   * id `after` (`backlog`), with `missed` true when some of those are no longer buffered. `stop`
   * ends the following.
   */
  followEvents(listener: (event: DeviceEvent) => void, after?: number): EventFollowing;
}

/** What `followEvents` answers. */
export interface EventFollowing {
  /** The buffered events after the id asked for, oldest first; empty when none was asked for. */
  backlog: readonly DeviceEvent[];
  /** True when events after the id asked for have left the buffer: the client lost some. */
  missed: boolean;
  stop(): void;
}
