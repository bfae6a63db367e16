import type { ChangeRecord, DeviceEvent, DeviceEventBody, DeviceEvents } from '../../functions/core/device/index.ts';
import type { LogFields, LogLevel } from './log.ts';

/** Where `logDeviceEvents` writes: a daemon log's `write`. */
type Write = (level: LogLevel, msg: string, fields: LogFields) => void;

/**
 * Writes a line of the daemon log for each event of a device from now on (the notable events: a
 * change ended, a host configuration applied, a chute's state, a delivery to the controller, a
 * station); answers how to stop.
 *
 * @example
 * const stop = logDeviceEvents(device, (level, msg, fields) => log.write(level, msg, fields));
 */
export function logDeviceEvents(events: DeviceEvents, write: Write): () => void {
  const following = events.followEvents((event) => {
    const { level, msg } = eventLine(event);
    write(level, msg, eventFields(event));
  });
  return () => following.stop();
}

/**
 * The level and message of an event's line: what went wrong is a warning or an error, what a device
 * does every few seconds (a change's steps, a lease renewed, telemetry delivered) is debug. A change
 * starting and ending are info, as ParaDrop logs an update performed and completed.
 *
 * @example
 * eventLine({ kind: 'chute.state', chute: 'hello', state: 'stopped', previous: 'running', id: 3, time: '…' })
 * // { level: 'info', msg: 'chute hello: running → stopped' }
 */
export function eventLine(event: DeviceEventBody): { level: LogLevel; msg: string } {
  switch (event.kind) {
    case 'station.connected':
    case 'station.disconnected':
      return { level: 'info', msg: `station ${event.mac} ${event.kind.slice('station.'.length)} (${event.chute}/${event.network})` };
    case 'station.roamed':
      return { level: 'info', msg: `station ${event.mac} roamed from ${event.from.chute}/${event.from.network} to ${event.chute}/${event.network}` };
    case 'lease.added':
    case 'lease.renewed':
    case 'lease.expired':
      return { level: 'debug', msg: `lease of ${event.ip} to ${event.mac} ${event.kind.slice('lease.'.length)} (${event.chute}/${event.network})` };
    case 'chute.state':
      return { level: 'info', msg: `chute ${event.chute}: ${event.previous ?? 'new'} → ${event.state}` };
    case 'change.queued':
    case 'change.progressed':
    case 'change.ended': {
      const { id, action, chute, state } = event.change;
      const failed = state === 'failed';
      const notable = event.kind === 'change.ended' || startedChange(event.change);
      return {
        level: failed ? 'warn' : notable ? 'info' : 'debug',
        msg: `change ${id} (${action}${chute === null ? '' : ` ${chute}`}) ${state}`,
      };
    }
    case 'hostconfig.applied':
      return event.success ? { level: 'info', msg: 'host configuration applied' } : { level: 'error', msg: 'host configuration applied with failures' };
    case 'controller.delivery':
      return event.success
        ? { level: 'debug', msg: `${event.what} delivered to the controller` }
        : { level: 'warn', msg: `${event.what} not delivered to the controller: ${event.error ?? 'no reason given'}` };
  }
}

/** Whether a change's record is the one the runner saves as it starts the change (runtime/changes/runner.ts notes `running`). */
function startedChange(change: ChangeRecord): boolean {
  return change.state === 'running' && change.messages.at(-1)?.text === 'running';
}

/** The fields of an event's line: its kind and id, and its body, a change as its id, action, state and last message. */
function eventFields(event: DeviceEvent): LogFields {
  const { kind, id, time: _time, ...body } = event;
  if (!('change' in body)) return { event: kind, event_id: id, ...body };
  const { change, ...rest } = body;
  return {
    event: kind,
    event_id: id,
    ...rest,
    change_id: change.id,
    action: change.action,
    state: change.state,
    message: change.messages.at(-1)?.text ?? null,
  };
}
