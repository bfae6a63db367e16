import type { Device } from '../../../functions/core/device/index.ts';
import type { Scenario } from '../../scenario/core.ts';
import { fakeController } from '../../scenario/fake-controller.ts';
import { fleetMember, type FleetMember, type FleetSpec } from '../members.ts';
import { nextReportAt } from '../held-reports.ts';
import { FAKE_CONTROLLER_URL, fleetCredentials, PROVISION_SPREAD_MS, provisionDelayMs } from '../outbound.ts';
import type { Stored } from './device-store.ts';
import { replayedFetch } from './replayed-fetch.ts';
import { serveMember, type LambdaFleet, type ServeOptions } from './served-member.ts';

/** One shard of a fleet: the devices whose index modulo `shards` is `shard`. */
export interface Shard {
  shard: number;
  shards: number;
}

/** What one run of a shard did. */
export interface ShardSummary extends Shard {
  /** The devices of the shard. */
  devices: number;
  /** Devices provisioned with the controller. */
  provisioned: number;
  /** Telemetry reports delivered. */
  delivered: number;
  /** Provisionings and reports that failed (a controller refusing or out of reach, the table failing). */
  failed: number;
  /** Devices not started for want of time: the next minute's run starts with the shard's first device again. */
  left: number;
  /** Why the first failures failed, `<id>: <reason>`, at most `MOST_ERRORS`. */
  errors: string[];
}

/** A fleet's run of the outbound work: the fleet as loaded once per instance, and its spec. */
export interface OutboundFleet extends LambdaFleet {
  spec: FleetSpec;
}

/** Keys read from the table at once: one BatchGetItem. */
const PAGE = 100;

/** Devices worked on at once. */
const CONCURRENCY = 16;

/** No device is started with less time left than this, in ms: the controller's timeout (10 s) and the table's writes. */
export const RESERVE_MS = 15_000;

/** A report falls due up to this much early, at most a quarter of its interval: the schedule is not to the second. */
const EARLY_MS = 10_000;

/** How many failures a summary tells the reason of. */
const MOST_ERRORS = 10;

/**
 * The outbound work of one shard for this minute, as a device in the field does it: each device
 * whose provisioning time has come (drawn as `emulate --fleet` draws it, from the fleet's start)
 * provisions itself with its own credentials (`fleetCredentials`), and each provisioned device whose
 * report is due by its host configuration's interval sends one (`Scenario.sendTelemetryNow`). The
 * shard's items are read 100 at once; a device never written whose time has not come is neither
 * built nor written. Each device's work runs through `serveMember`, so a request that wrote the device
 * meanwhile is kept and the work is counted again on what it left, its controller exchanges replayed,
 * not sent again (`replayedFetch`). At most `CONCURRENCY` devices at once; none is started once
 * `remainingMs()` is below `RESERVE_MS`.
 *
 * @example
 * await runShard(fleet, { shard: 0, shards: 10 }, () => context.getRemainingTimeInMillis());
 * // { shard: 0, shards: 10, devices: 1000, provisioned: 12, delivered: 980, failed: 0, left: 0, errors: [] }
 */
export async function runShard(fleet: OutboundFleet, { shard, shards }: Shard, remainingMs: () => number): Promise<ShardSummary> {
  const devices = Math.max(0, Math.ceil((fleet.spec.size - shard) / shards));
  const summary: ShardSummary = { shard, shards, devices, provisioned: 0, delivered: 0, failed: 0, left: devices, errors: [] };
  const short = () => remainingMs() < RESERVE_MS;
  for (let first = 0; first < devices && !short(); first += PAGE) {
    const members = Array.from({ length: Math.min(PAGE, devices - first) }, (_, k) => fleetMember(fleet.spec, shard + (first + k) * shards));
    const stored = await fleet.store.readMany(members.map((member) => member.id));
    await eachAtMost(members.length, CONCURRENCY, async (k) => {
      if (short()) return;
      summary.left -= 1;
      const outcome = await deviceWork(fleet, members[k]!, stored[k]!).catch((error: unknown) => ({
        failed: error instanceof Error ? error.message : String(error),
      }));
      if (typeof outcome === 'string') {
        if (outcome !== 'idle') summary[outcome] += 1;
        return;
      }
      summary.failed += 1;
      if (summary.errors.length < MOST_ERRORS) summary.errors.push(`${members[k]!.id}: ${outcome.failed}`);
    });
  }
  return summary;
}

/** What the outbound did on one device: a failure with its reason. */
type Outcome = 'provisioned' | 'delivered' | 'idle' | { failed: string };

/** One device's outbound work, through `serveMember`; a device never written is not built before its time. */
function deviceWork(fleet: OutboundFleet, member: FleetMember, stored: Stored | null): Promise<Outcome> {
  const now = Date.now();
  if (stored === null && provisionTime(fleet, member) > now) return Promise.resolve('idle');
  return serveMember(fleet, member, `outbound-${member.id}-${now}`, (device, scenario) => work(fleet, member, device, scenario), {
    stored,
    device: replayedController(fleet.device.controller),
  });
}

/** Provisions the device when its time has come, or sends its report when one is due. */
async function work(fleet: OutboundFleet, member: FleetMember, device: Device, scenario: Scenario): Promise<Outcome> {
  const status = await device.provisioning.status();
  const now = device.now();
  if (!status.provisioned) {
    if (provisionTime(fleet, member) > now) return 'idle';
    await device.provisioning.provision(fleetCredentials(member, fleet.device.controller ?? FAKE_CONTROLLER_URL));
    return 'provisioned';
  }
  const due = nextReportAt(status);
  // A report falls due up to `EARLY_MS` early, at most a quarter of its interval: the schedule is not to the second.
  if (due === null || now < due - Math.min(EARLY_MS, (status.telemetry.interval * 1000) / 4)) return 'idle';
  if (await scenario.sendTelemetryNow()) return 'delivered';
  return { failed: (await device.provisioning.status()).telemetry.lastError?.message ?? 'the report was not delivered' };
}

/** When the member provisions, in ms since the epoch. */
function provisionTime(fleet: OutboundFleet, member: FleetMember): number {
  return fleet.origin + provisionDelayMs(fleet.spec.seed, member.index, PROVISION_SPREAD_MS);
}

/** How a device's work reaches the controller: the fleet's one, or a built-in fake one, each exchange made once. */
function replayedController(controller: string | undefined): ServeOptions['device'] {
  if (controller !== undefined) return { controllerFetch: replayedFetch(globalThis.fetch) };
  const fake = fakeController();
  return { fakeController: { ...fake, fetch: replayedFetch(fake.fetch) } };
}

/** Runs `work(0)` … `work(count − 1)`, at most `most` at once. */
async function eachAtMost(count: number, most: number, work: (k: number) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < count) await work(next++);
  };
  await Promise.all(Array.from({ length: Math.min(most, count) }, worker));
}
