import { describe, expect, it } from 'vitest';
import type { ChangeRecord, DeviceEvent, DeviceEventBody, DeviceEvents } from '../../functions/core/device/index.ts';
import { eventLine, logDeviceEvents } from './device-events.ts';

const TIME = '2026-11-28T10:00:00.000Z';

/** A device's events as a test publishes them: each one to whoever follows. */
function publishing() {
  const listeners = new Set<(event: DeviceEvent) => void>();
  let id = 0;
  const events: DeviceEvents = {
    followEvents(listener) {
      listeners.add(listener);
      return { backlog: [], missed: false, stop: () => listeners.delete(listener) };
    },
  };
  const publish = (body: DeviceEventBody) => {
    const event = { ...body, id: ++id, time: TIME } as DeviceEvent;
    for (const listener of listeners) listener(event);
  };
  return { events, publish, listeners };
}

function change(state: ChangeRecord['state'], text: string): ChangeRecord {
  return { id: 7, action: 'start', chute: 'hello', state, created: TIME, updated: TIME, messages: [{ time: TIME, text }] };
}

describe('the daemon log of a device’s events', () => {
  it('writes a line for each event from now on, with its kind, id and fields, until stopped', () => {
    const { events, publish, listeners } = publishing();
    const lines: unknown[] = [];
    const stop = logDeviceEvents(events, (level, msg, fields) => lines.push({ level, msg, ...fields }));
    publish({ kind: 'chute.state', chute: 'hello', state: 'stopped', previous: 'running' });
    publish({ kind: 'change.ended', chute: 'hello', change: change('failed', 'failed: the image is gone') });
    stop();
    publish({ kind: 'hostconfig.applied', success: true });
    expect(listeners.size).toBe(0);
    expect(lines).toEqual([
      { level: 'info', msg: 'chute hello: running → stopped', event: 'chute.state', event_id: 1, chute: 'hello', state: 'stopped', previous: 'running' },
      {
        level: 'warn',
        msg: 'change 7 (start hello) failed',
        event: 'change.ended',
        event_id: 2,
        chute: 'hello',
        change_id: 7,
        action: 'start',
        state: 'failed',
        message: 'failed: the image is gone',
      },
    ]);
  });

  it.each<[string, string, DeviceEventBody]>([
    ['info', 'change 7 (start hello) succeeded', { kind: 'change.ended', chute: 'hello', change: change('succeeded', 'succeeded') }],
    ['info', 'change 7 (start hello) running', { kind: 'change.progressed', chute: 'hello', change: change('running', 'running') }],
    ['debug', 'change 7 (start hello) running', { kind: 'change.progressed', chute: 'hello', change: change('running', 'pulling') }],
    ['debug', 'change 7 (start hello) queued', { kind: 'change.queued', chute: 'hello', change: change('queued', 'queued') }],
    ['info', 'host configuration applied', { kind: 'hostconfig.applied', success: true }],
    ['error', 'host configuration applied with failures', { kind: 'hostconfig.applied', success: false }],
    ['debug', 'telemetry delivered to the controller', { kind: 'controller.delivery', what: 'telemetry', success: true, error: null }],
    [
      'warn',
      'provisioning not delivered to the controller: 401 invalid token',
      { kind: 'controller.delivery', what: 'provisioning', success: false, error: '401 invalid token' },
    ],
    ['info', 'chute new-one: new → running', { kind: 'chute.state', chute: 'new-one', state: 'running', previous: null }],
    [
      'info',
      'station 02:00:00:00:00:01 connected (hotspot/wlan0)',
      { kind: 'station.connected', chute: 'hotspot', network: 'wlan0', mac: '02:00:00:00:00:01' },
    ],
    [
      'info',
      'station 02:00:00:00:00:01 roamed from hotspot/wlan0 to hotspot/wlan1',
      { kind: 'station.roamed', chute: 'hotspot', network: 'wlan1', mac: '02:00:00:00:00:01', from: { chute: 'hotspot', network: 'wlan0' } },
    ],
    [
      'debug',
      'lease of 192.168.128.10 to 02:00:00:00:00:01 renewed (hotspot/wlan0)',
      { kind: 'lease.renewed', chute: 'hotspot', network: 'wlan0', ip: '192.168.128.10', mac: '02:00:00:00:00:01', hostname: null, expires: null },
    ],
  ])('writes at %s: %s', (level, msg, event) => {
    expect(eventLine(event)).toEqual({ level, msg });
  });
});
