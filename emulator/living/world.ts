import { chuteNetworks } from '../../functions/chutes/lookup.ts';
import type { StoredChute } from '../../functions/core/device/index.ts';
import { HttpProblem } from '../../functions/core/problem.ts';
import { stationMeasure, type StationBlock } from '../../functions/parsers/iw-station.ts';
import type { ReadRecording } from '../scenario/recorded-networks.ts';
import { accessPoint, type AccessPoint, type RecordedStation, type RecordingTime } from './access-point.ts';
import { allStaBlock, iwBlock } from './render.ts';
import type { Segment, SessionWorld } from './sessions.ts';
import type { Living } from './spec.ts';
import { stationAt, stationRates, type StationRates } from './station.ts';
import { ALL_STA_TEMPLATE, IW_TEMPLATE } from './templates.ts';

/** Everything the living network is a function of, besides the time and the writes: the seed, the scenario's `living.yaml`, and its access points now. */
export interface World extends SessionWorld {
  aps: readonly AccessPoint[];
  recording: RecordingTime;
  /** The scenario's first recorded blocks (else templates.ts'): the template of an access point with none of its own. */
  iwTemplate: string;
  allStaTemplate: string;
}

/**
 * The world of the chutes installed now: each Wi-Fi access point of theirs (`chuteNetworks`), in
 * `<chute>/<network>` order, with what its recordings say.
 */
export async function worldOf(seed: number, living: Living, chutes: readonly StoredChute[], read: ReadRecording, recording: RecordingTime): Promise<World> {
  const networks = chutes.flatMap((chute) => chuteNetworks(chute).flatMap((network) => (network.kind === 'access-point' ? [{ chute, network }] : [])));
  const started = await Promise.all(networks.map(({ chute, network }) => startedAccessPoint(chute, network, read, recording)));
  const aps = started.filter((ap) => ap !== null);
  aps.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return {
    seed,
    rates: living.rates,
    timeline: living.timeline,
    aps,
    recording,
    iwTemplate: aps.find((ap) => ap.iwTemplate !== null)?.iwTemplate ?? IW_TEMPLATE,
    allStaTemplate: aps.find((ap) => ap.allStaTemplate !== null)?.allStaTemplate ?? ALL_STA_TEMPLATE,
  };
}

/**
 * An access point, or null when the device could not start its hostapd (its recordings are the
 * problem a device answers then): no station joins it, and the others live on.
 */
async function startedAccessPoint(...args: Parameters<typeof accessPoint>): Promise<AccessPoint | null> {
  try {
    return await accessPoint(...args);
  } catch (error) {
    if (error instanceof HttpProblem) return null;
    throw error;
  }
}

/** The recorded station a stay began as, or null: the first segment of a recorded station's stay names it. */
export function recordedOf(world: World, segment: Pick<Segment, 'id'>): RecordedStation | null {
  const at = segment.id.indexOf('@');
  if (at < 0) return null;
  const ap = world.aps.find((candidate) => candidate.key === segment.id.slice(0, at));
  return ap?.recorded.find((station) => station.mac === segment.id.slice(at + 1)) ?? null;
}

/** A stay's own rates (`stationRates`). */
export function ratesOf(world: World, id: string): StationRates {
  return stationRates(world.seed, world.rates, id, recordedOf(world, { id })?.counters ?? null);
}

/**
 * The blocks of the stations of `segments` on access point `ap` at `t`, in iw's or hostapd's format,
 * `wall0` the epoch ms of time 0.
 */
export function stationBlocksAt(
  world: World,
  ap: AccessPoint,
  segments: readonly Segment[],
  t: number,
  wall0: number,
  format: 'iw' | 'hostapd',
): StationBlock[] {
  return segments.map((segment) => {
    const own = segment.index === 0 ? recordedOf(world, segment) : null;
    const rates = ratesOf(world, segment.id);
    const now = stationAt(world.seed, segment, rates, own?.counters ?? null, t);
    const iwTemplate = own !== null && ap.iw ? own.block : (ap.iwTemplate ?? world.iwTemplate);
    const tx = bitrate(ap.txRates, own?.block, 'tx bitrate', now.signal - now.drift, now.drift);
    const rx = bitrate(ap.rxRates, own?.block, 'rx bitrate', now.signal - now.drift, now.drift);
    const uptimeAtStart = world.recording === null ? 0 : (world.recording.atMs - world.recording.bootMs) / 1000;
    const view = {
      mac: segment.mac,
      iface: ap.hostInterface,
      now,
      txBitrate: tx,
      rxBitrate: rx,
      txDurationUs: (own?.txDurationUs ?? 0) + airtime(now.grownTx, tx ?? fieldOf(iwTemplate, 'tx bitrate')),
      rxDurationUs: (own?.rxDurationUs ?? 0) + airtime(now.grownRx, rx ?? fieldOf(iwTemplate, 'rx bitrate')),
      associatedBoottime: Math.max(0, uptimeAtStart + segment.start / 1000),
      associatedAt: wall0 + segment.start,
      currentTime: wall0 + t,
    };
    if (format === 'iw') return { mac: segment.mac, text: iwBlock(iwTemplate, view) };
    const staTemplate = own !== null && !ap.iw ? own.block : (ap.allStaTemplate ?? world.allStaTemplate);
    return { mac: segment.mac, text: allStaBlock(staTemplate, view) };
  });
}

/**
 * A station's bit rate among the access point's (`ladder`, slowest first): its own recorded one, or
 * the one its own signal reaches, a step up or down for each 2 dB of drift; null without a ladder.
 */
function bitrate(ladder: readonly string[], block: string | undefined, field: string, signal: number, drift: number): string | null {
  if (ladder.length === 0) return null;
  const recorded = block === undefined ? -1 : ladder.indexOf(fieldOf(block, field) ?? '');
  const own = recorded >= 0 ? recorded : Math.round(((Math.min(-41, Math.max(-82, signal)) + 82) / 41) * (ladder.length - 1));
  return ladder[Math.min(ladder.length - 1, Math.max(0, own + Math.round(drift / 2)))]!;
}

/** A field's value in a block of iw's station dump, or null. */
function fieldOf(block: string, field: string): string | null {
  const line = block.split('\n').find((candidate) => candidate.trimStart().startsWith(`${field}:`));
  return line === undefined ? null : line.slice(line.indexOf(':') + 1).trim();
}

/** The µs on air of `bytes` at a bit rate as iw prints it (54 Mbit/s when none). */
function airtime(bytes: number, rate: string | null): number {
  const mbps = stationMeasure(rate ?? undefined, 'MBit/s') ?? 54;
  return Math.floor((bytes * 8) / Math.max(1, mbps));
}
