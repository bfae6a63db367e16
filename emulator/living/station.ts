import { draw, lognormal } from '../seeded.ts';
import type { Rates } from './spec.ts';
import type { Segment } from './sessions.ts';

/*
 * What a station's counters, signal and idle time are at a time, from its stay and the seed alone.
 * Counters grow from the segment's start (or, for a recorded station, from its recorded values at 0)
 * at the station's own rates, with a wobble that never makes them go down; a roam starts them again
 * at 0, as a re-association does. The signal drifts within ±SIGNAL_DRIFT dB of the station's own.
 */

/** How far a signal drifts from the station's own, dB. */
const SIGNAL_DRIFT = 4;
/** How often the wobble of counters and the drift of signals take a new course, ms. */
const TICK_MS = 10_000;
/** The spread of stations' rates around the mean (sigma of the lognormal). */
const RATE_SIGMA = 0.8;
/** The fastest a station sends or receives, bytes per ms (100 Mbit/s). */
const MAX_RATE = 12_500;

/** A station's counters, as iw names them: `rx` is what the access point received from it. */
export interface Counters {
  rxBytes: number;
  rxPackets: number;
  txBytes: number;
  txPackets: number;
  txRetries: number;
  txFailed: number;
  rxDropMisc: number;
}

/** The numbers a recorded station had when recorded (null: not recorded). */
export interface RecordedCounters extends Counters {
  /** Its signal and average signal, dBm. */
  signal: number | null;
  signalAvg: number | null;
  /** How long it had been connected, ms. */
  connectedMs: number;
}

/** A station's counters and radio now. */
export interface StationNow extends Counters {
  connectedMs: number;
  inactiveMs: number;
  /** dBm now, and its average over the last ticks. */
  signal: number;
  signalAvg: number;
  /** How far the signal is from the station's own now, dB (what moves its bit rates). */
  drift: number;
  /** Bytes sent and received since the counters began, for the durations on air. */
  grownRx: number;
  grownTx: number;
}

/** A station's own rates (bytes per ms) and packet sizes: the recorded station's average, or drawn around the rates of the scenario. */
export interface StationRates {
  up: number;
  down: number;
  upPacket: number;
  downPacket: number;
  retries: number;
  failed: number;
  drops: number;
}

/** The rates of a station: a recorded one's own average, else drawn (lognormal around the scenario's means). */
export function stationRates(seed: number, rates: Rates, id: string, recorded: RecordedCounters | null): StationRates {
  if (recorded !== null && recorded.connectedMs > 0) {
    const per = (count: number, of: number, fallback: number) => (of > 0 ? count / of : fallback);
    return {
      up: Math.min(MAX_RATE, recorded.rxBytes / recorded.connectedMs),
      down: Math.min(MAX_RATE, recorded.txBytes / recorded.connectedMs),
      upPacket: Math.max(60, per(recorded.rxBytes, recorded.rxPackets, 400)),
      downPacket: Math.max(60, per(recorded.txBytes, recorded.txPackets, 1100)),
      retries: per(recorded.txRetries, recorded.txPackets, 0),
      failed: per(recorded.txFailed, recorded.txPackets, 0),
      drops: per(recorded.rxDropMisc, recorded.rxPackets, 0),
    };
  }
  const rate = (kbps: number, what: string) =>
    Math.min(MAX_RATE, lognormal(kbps / 8 / Math.exp((RATE_SIGMA * RATE_SIGMA) / 2), RATE_SIGMA, draw(seed, what, id, 0), draw(seed, what, id, 1)));
  return {
    up: rate(rates.upKbps, 'up'),
    down: rate(rates.downKbps, 'down'),
    upPacket: 200 + Math.floor(draw(seed, 'up packet', id) * 400),
    downPacket: 900 + Math.floor(draw(seed, 'down packet', id) * 500),
    retries: 0.1 * draw(seed, 'retries', id),
    failed: 0.0005 * draw(seed, 'failed', id),
    drops: 0.001 * draw(seed, 'drops', id),
  };
}

/**
 * A station's counters and radio at time `t` (ms) in a segment: the recorded counters at 0 plus what
 * it moved since, or what it moved since its segment began; the signal its own (recorded, given by
 * the timeline, or drawn) plus the drift.
 */
export function stationAt(seed: number, segment: Segment, own: StationRates, recorded: RecordedCounters | null, t: number): StationNow {
  const base = segment.index === 0 ? recorded : null;
  const began = Math.max(segment.start, 0);
  const rx = grown(seed, [segment.id, segment.index, 'rx'], own.up, t - began);
  const tx = grown(seed, [segment.id, segment.index, 'tx'], own.down, t - began);
  const rxPackets = Math.floor(rx / own.upPacket);
  const txPackets = Math.floor(tx / own.downPacket);
  const drift = driftAt(seed, [segment.id, segment.index], t - began);
  const drifts = [drift, driftAt(seed, [segment.id, segment.index], t - began - TICK_MS), driftAt(seed, [segment.id, segment.index], t - began - 2 * TICK_MS)];
  const signal = ownSignal(seed, segment, base);
  const connectedMs = t - segment.start;
  return {
    connectedMs,
    inactiveMs: Math.min(connectedMs, Math.floor(draw(seed, 'idle', segment.id, Math.floor(t / 1000)) ** 3 * 12_000)),
    rxBytes: (base?.rxBytes ?? 0) + rx,
    rxPackets: (base?.rxPackets ?? 0) + rxPackets,
    txBytes: (base?.txBytes ?? 0) + tx,
    txPackets: (base?.txPackets ?? 0) + txPackets,
    txRetries: (base?.txRetries ?? 0) + Math.floor(txPackets * own.retries),
    txFailed: (base?.txFailed ?? 0) + Math.floor(txPackets * own.failed),
    rxDropMisc: (base?.rxDropMisc ?? 0) + Math.floor(rxPackets * own.drops),
    signal: signal + drift,
    signalAvg: (base?.signalAvg ?? signal) + Math.round(drifts.reduce((sum, value) => sum + value, 0) / drifts.length),
    drift,
    grownRx: rx,
    grownTx: tx,
  };
}

/** The bytes a station moved in `ms` at `rate` bytes per ms: the rate, wobbling by up to half a tick's worth, never going down. */
export function grown(seed: number, parts: readonly (string | number)[], rate: number, ms: number): number {
  if (ms <= 0) return 0;
  return Math.floor(rate * ms + ((rate * TICK_MS) / 2) * wobble(seed, parts, ms));
}

/** The station's own signal: recorded, given by the timeline, or drawn from -82 to -41 dBm per segment. */
function ownSignal(seed: number, segment: Segment, recorded: RecordedCounters | null): number {
  if (recorded?.signal != null) return recorded.signal;
  if (segment.signal !== null && segment.index === 0) return segment.signal;
  return -82 + Math.floor(draw(seed, 'signal', segment.id, segment.index) * 42);
}

/** The drift of a signal after `ms` in a segment: whole dB within ±SIGNAL_DRIFT, 0 at its start. */
function driftAt(seed: number, parts: readonly (string | number)[], ms: number): number {
  return Math.round(SIGNAL_DRIFT * wobble(seed, [...parts, 'signal'], Math.max(0, ms)));
}

/**
 * A value in [-1, 1] that moves in straight lines between points drawn every tick, 0 at `ms` 0: its
 * slope is at most 2 / tick, so a rate plus (rate × tick / 2) × wobble never decreases.
 */
function wobble(seed: number, parts: readonly (string | number)[], ms: number): number {
  const tick = Math.floor(ms / TICK_MS);
  const point = (k: number) => (k === 0 ? 0 : 2 * draw(seed, ...parts, k) - 1);
  const into = (ms - tick * TICK_MS) / TICK_MS;
  return point(tick) + (point(tick + 1) - point(tick)) * into;
}
