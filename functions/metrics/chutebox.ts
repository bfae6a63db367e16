import { type Collector, counter, gauge, type MetricFamily, type Sample, sample } from './samples.ts';

/*
 * What chutebox keeps of its own work: the changes of its change log (`GET /api/v1/changes`), and
 * how sending telemetry to the controller goes (`GET /api/v1/config/provision`).
 */

const CHANGES = gauge('chutebox_changes', 'Changes the change log keeps, by action and state', ['action', 'state']);
const TELEMETRY_ENABLED = gauge('chutebox_telemetry_enabled', '1 when the device is provisioned and sends telemetry, else 0', []);
const TELEMETRY_QUEUED = gauge('chutebox_telemetry_queued_reports', 'Telemetry reports waiting to be delivered to the controller', []);
const TELEMETRY_DELIVERIES = counter(
  'chutebox_telemetry_deliveries_total',
  'Deliveries of telemetry reports to the controller since the device started, by result ("success" or "failure": each failed attempt, retries included)',
  ['result'],
);
const TELEMETRY_DROPPED = counter('chutebox_telemetry_dropped_reports_total', 'Telemetry reports dropped, oldest first, because the queue was full', []);
const TELEMETRY_LAST = gauge(
  'chutebox_telemetry_last_delivery_timestamp_seconds',
  'When a telemetry report was last delivered (result "success") and when a delivery last failed since (result "failure"), in seconds since the epoch',
  ['result'],
);

/** Every family of this module. */
export const CHUTEBOX_FAMILIES: readonly MetricFamily[] = [
  CHANGES,
  TELEMETRY_ENABLED,
  TELEMETRY_QUEUED,
  TELEMETRY_DROPPED,
  TELEMETRY_DELIVERIES,
  TELEMETRY_LAST,
];

/** How many changes of each action the log keeps in each state, for the pairs it has. */
export const changeMetrics: Collector = async ({ device }) => {
  const counts = new Map<string, Sample>();
  for (const { action, state } of await device.changes()) {
    const count = counts.get(`${action} ${state}`);
    if (count === undefined) counts.set(`${action} ${state}`, sample(CHANGES, { action, state }, 1));
    else count.value += 1;
  }
  return [...counts.values()];
};

/** Whether telemetry is sent, what waits, what was dropped, and when it was last delivered or failed. */
export const telemetryMetrics: Collector = async ({ device }) => {
  const { telemetry } = await device.provisioning.status();
  const samples: Sample[] = [
    sample(TELEMETRY_ENABLED, {}, Number(telemetry.enabled)),
    sample(TELEMETRY_QUEUED, {}, telemetry.queued),
    sample(TELEMETRY_DROPPED, {}, telemetry.dropped),
    sample(TELEMETRY_DELIVERIES, { result: 'success' }, telemetry.delivered),
    sample(TELEMETRY_DELIVERIES, { result: 'failure' }, telemetry.failed),
  ];
  if (telemetry.lastSuccess !== null) samples.push(sample(TELEMETRY_LAST, { result: 'success' }, Date.parse(telemetry.lastSuccess) / 1000));
  if (telemetry.lastError !== null) samples.push(sample(TELEMETRY_LAST, { result: 'failure' }, Date.parse(telemetry.lastError.time) / 1000));
  return samples;
};
