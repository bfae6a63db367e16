import { draw, exponential } from '../seeded.ts';
import type { Rates, TimelineStep } from './spec.ts';

/*
 * Who is connected where, as a pure function of the seed, the scenario and the time: each station's
 * stay (a session) is one or more segments, one per access point it is on, the next after a roam.
 * Generated stays are drawn per access point in fixed windows of time, a bounded number of slots a
 * window, each slot a stay with a chance; a stay lasts at most `maxSessionMinutes`. So what is there
 * at a time comes from the few windows before it, whatever the time: no history is replayed.
 */

/** One access point as the sessions see it: its name and the stations recorded on it. */
export interface SessionAccessPoint {
  /** `<chute>/<network>`. */
  key: string;
  /** The stations of its recordings, in their order. */
  recorded: readonly { mac: string; startMs: number }[];
}

/** What sessions are drawn from: the seed, the rates, the timeline and the access points, in key order. */
export interface SessionWorld {
  seed: number;
  rates: Rates;
  timeline: readonly TimelineStep[];
  aps: readonly SessionAccessPoint[];
}

/** How a segment ends: the station leaves, roams on (the next segment), or a request disconnected it. */
export type SegmentEnd = 'left' | 'roamed' | 'removed';

/** A station's stay on one access point. Times are ms of emulated time since the replay started. */
export interface Segment {
  /** Names the stay in every draw about the station (its rates, its signal): unique per stay. */
  id: string;
  /** Lower case. */
  mac: string;
  /** The access point, `<chute>/<network>`. */
  ap: string;
  /** Which segment of the stay: 0, then 1 after a roam. */
  index: number;
  /** When it began: before 0 for a station recorded as connected. */
  start: number;
  /** When it ends; Infinity for a timeline station that never leaves. */
  end: number;
  endsBy: SegmentEnd;
  /** The access point of the segment before (a roam), or null. */
  from: string | null;
  /** The position of a recorded station in its access point's recording; null for any other. */
  recorded: number | null;
  /** The host name its DHCP requests send; null for none. */
  hostname: string | null;
  /** The signal a timeline step gave it, in dBm; null to draw one. */
  signal: number | null;
}

/** A stay: its segments in time order. */
export type Session = readonly Segment[];

/** When each station was disconnected through the API, by access point: MAC → ms of emulated time. */
export type Removals = (ap: string) => ReadonlyMap<string, number> | undefined;

/** How the windows of a world are cut. */
export interface Windows {
  /** A window's length, ms. */
  windowMs: number;
  /** The longest stay, ms. */
  maxMs: number;
  /** Slots a window per access point. */
  slots: number;
  /** The chance that a slot holds a stay. */
  chance: number;
}

/** The most slots a window has per access point. */
const MAX_SLOTS = 64;
/** The shortest stay, ms. */
const MIN_STAY_MS = 30_000;

/** The windows of a world: as long as a mean stay (a minute to an hour), with twice the expected joins in slots. */
export function windowsOf(rates: Rates): Windows {
  const meanMs = rates.meanSessionMinutes * 60_000;
  const windowMs = Math.round(Math.min(3_600_000, Math.max(60_000, meanMs)));
  const expected = (rates.joinsPerHour * windowMs) / 3_600_000;
  const slots = Math.min(MAX_SLOTS, Math.ceil(2 * expected) + 2);
  return { windowMs, maxMs: rates.maxSessionMinutes * 60_000, slots, chance: Math.min(1, expected / slots) };
}

/** The stays that may be under way in [from, to], and how many slots were looked at to find them. */
export interface SessionsFound {
  sessions: Session[];
  examined: number;
}

/**
 * Every stay that may have a segment in [from, to] (ms), cut where a request disconnected the
 * station: the recorded stations', the timeline's, and those drawn in the windows that can reach
 * into the span (from `from − maxSessionMinutes` on). The work is the span's windows plus the longest
 * stay's, whatever `to` is. The order is fixed: recorded, timeline, then drawn by access point, window
 * and slot.
 */
export function sessionsIn(world: SessionWorld, from: number, to: number, removals: Removals): SessionsFound {
  const windows = windowsOf(world.rates);
  const sessions: Session[] = [...listedOnce(world)];
  const first = Math.max(0, Math.floor((from - windows.maxMs) / windows.windowMs));
  const last = Math.floor(to / windows.windowMs);
  let examined = 0;
  for (const ap of world.aps) {
    for (let k = first; k <= last; k++) {
      for (let j = 0; j < windows.slots; j++) {
        examined++;
        const drawn = drawnOnce(world, windows, ap.key, k, j);
        if (drawn !== null) sessions.push(drawn);
      }
    }
  }
  return { sessions: cutAll(sessions, removals), examined };
}

/** The stays of the recorded stations and of the timeline, cut where a request disconnected a station: a list as long as the scenario's. */
export function listedSessions(world: SessionWorld, removals: Removals): Session[] {
  return cutAll(listedOnce(world), removals);
}

/** The recorded and timeline stays of a world, worked out once for it. */
const listed = new WeakMap<SessionWorld, readonly Session[]>();
function listedOnce(world: SessionWorld): readonly Session[] {
  let found = listed.get(world);
  if (found === undefined) listed.set(world, (found = [...recordedSessions(world, windowsOf(world.rates)), ...timelineSessions(world)]));
  return found;
}

/** Stays cut where requests disconnected their stations (each access point's removals asked once), those cut to nothing left out. */
function cutAll(sessions: readonly Session[], removals: Removals): Session[] {
  const asked = new Map<string, ReadonlyMap<string, number> | undefined>();
  const removedOn: Removals = (ap) => {
    if (!asked.has(ap)) asked.set(ap, removals(ap));
    return asked.get(ap);
  };
  return sessions.map((session) => cut(session, removedOn)).filter((session) => session.length > 0);
}

/** The segments on access point `ap` at time `t`: recorded stations in their recorded order, then the others by when they came. */
export function segmentsAt(sessions: readonly Session[], ap: string, t: number): Segment[] {
  const here = sessions.flatMap((session) => session.filter((segment) => segment.ap === ap && segment.start <= t && t < segment.end));
  return here.sort((a, b) => (a.recorded ?? Infinity) - (b.recorded ?? Infinity) || a.start - b.start || (a.mac < b.mac ? -1 : a.mac > b.mac ? 1 : 0));
}

/** The most slots whose stays a world keeps drawn: about a day of windows of the default scenario's access points. */
const MAX_KEPT = 4096;
/** The stays drawn for each world, by access point, window and slot: a read asks again for most of the last read's. */
const kept = new WeakMap<SessionWorld, Map<string, Session | null>>();

/** `drawnSession`, drawn once per world while it is kept (the oldest forgotten beyond `MAX_KEPT`). */
function drawnOnce(world: SessionWorld, windows: Windows, ap: string, k: number, j: number): Session | null {
  let slots = kept.get(world);
  if (slots === undefined) kept.set(world, (slots = new Map()));
  const key = `${ap}#${k}.${j}`;
  const found = slots.get(key);
  if (found !== undefined) return found;
  const drawn = drawnSession(world, windows, ap, k, j);
  if (slots.size >= MAX_KEPT) slots.delete(slots.keys().next().value!);
  slots.set(key, drawn);
  return drawn;
}

/** The stay of slot `j` of window `k` of an access point, or null when the slot is empty. */
function drawnSession(world: SessionWorld, windows: Windows, ap: string, k: number, j: number): Session | null {
  const { seed } = world;
  if (draw(seed, 'join', ap, k, j) >= windows.chance) return null;
  const start = k * windows.windowMs + Math.floor(draw(seed, 'start', ap, k, j) * windows.windowMs);
  const id = `${ap}#${k}.${j}`;
  const mac = drawnMac(seed, id);
  return stay(world, windows, { id, mac, ap, start, recorded: null, hostname: drawnHostname(seed, id, mac), signal: null }, start);
}

/** The stay of each recorded station: connected from before the start, it leaves or roams as a drawn one does. */
function recordedSessions(world: SessionWorld, windows: Windows): Session[] {
  return world.aps.flatMap((ap) =>
    ap.recorded.map((station, index) =>
      stay(
        world,
        windows,
        { id: `${ap.key}@${station.mac}`, mac: station.mac, ap: ap.key, start: station.startMs, recorded: index, hostname: null, signal: null },
        0,
      ),
    ),
  );
}

/** What a stay's first segment is made of. */
type FirstSegment = Pick<Segment, 'id' | 'mac' | 'ap' | 'start' | 'recorded' | 'hostname' | 'signal'>;

/**
 * A drawn stay from its first segment: it ends a drawn time after `from` (exponential, at most the
 * longest stay), and with the roam chance moves once to another access point on the way.
 */
function stay(world: SessionWorld, windows: Windows, first: FirstSegment, from: number): Session {
  const { seed, rates } = world;
  const meanMs = rates.meanSessionMinutes * 60_000;
  const length = Math.floor(Math.min(windows.maxMs, Math.max(MIN_STAY_MS, exponential(meanMs, draw(seed, 'stay', first.id)))));
  const end = from + length;
  const others = world.aps.filter((ap) => ap.key !== first.ap);
  const segment: Segment = { ...first, index: 0, end, endsBy: 'left', from: null };
  if (others.length === 0 || draw(seed, 'roams', first.id) >= rates.roamProbability) return [segment];
  const at = from + Math.floor(length * (0.2 + 0.6 * draw(seed, 'roam at', first.id)));
  const to = others[Math.floor(draw(seed, 'roam to', first.id) * others.length)]!.key;
  return [
    { ...segment, end: at, endsBy: 'roamed' },
    { ...segment, ap: to, index: 1, start: at, end, from: first.ap, recorded: null },
  ];
}

/** The timeline's stays: each join opens one, a roam moves it on, a leave ends it. */
function timelineSessions(world: SessionWorld): Session[] {
  const open = new Map<string, Segment[]>();
  const sessions: Segment[][] = [];
  for (const step of world.timeline) {
    const at = Math.round(step.at * 1000);
    const segments = open.get(step.station);
    const last = segments?.at(-1);
    if (step.join !== undefined) {
      const id = `timeline@${step.station}#${sessions.length}`;
      const first: Segment = {
        id,
        mac: step.station,
        ap: step.join,
        index: 0,
        start: at,
        end: Infinity,
        endsBy: 'left',
        from: null,
        recorded: null,
        hostname: step.hostname ?? null,
        signal: step.signal ?? null,
      };
      const session = [first];
      sessions.push(session);
      open.set(step.station, session);
    } else if (segments !== undefined && last !== undefined) {
      segments[segments.length - 1] = { ...last, end: at, endsBy: step.roam === undefined ? 'left' : 'roamed' };
      if (step.roam !== undefined) segments.push({ ...last, ap: step.roam, index: last.index + 1, start: at, end: Infinity, from: last.ap });
      else open.delete(step.station);
    }
  }
  return sessions;
}

/** A stay cut where a request disconnected the station: the segment it was on ends then, and the rest of the stay is gone. */
function cut(session: Session, removals: Removals): Session {
  for (const [index, segment] of session.entries()) {
    const at = removals(segment.ap)?.get(segment.mac);
    if (at !== undefined && at >= segment.start && at < segment.end) return [...session.slice(0, index), { ...segment, end: at, endsBy: 'removed' }];
  }
  return session;
}

/** A locally administered unicast MAC drawn for a stay. */
function drawnMac(seed: number, id: string): string {
  const high = Math.floor(draw(seed, 'mac', id, 0) * 0x1000000);
  const low = Math.floor(draw(seed, 'mac', id, 1) * 0x1000000);
  const bytes = [((high >> 16) & 0xfc) | 0x02, (high >> 8) & 0xff, high & 0xff, (low >> 16) & 0xff, (low >> 8) & 0xff, low & 0xff];
  return bytes.map((byte) => byte.toString(16).padStart(2, '0')).join(':');
}

/** The host names a drawn station may send (null: none), the last bytes of its MAC making some its own. */
const HOSTNAMES: readonly ((tail: string) => string | null)[] = [
  () => 'iPhone',
  () => 'Galaxy-S23',
  () => 'Pixel-8',
  () => 'MacBook-Air',
  (tail) => `android-${tail}`,
  (tail) => `DESKTOP-${tail.toUpperCase()}`,
  () => null,
];

function drawnHostname(seed: number, id: string, mac: string): string | null {
  const pick = HOSTNAMES[Math.floor(draw(seed, 'hostname', id) * HOSTNAMES.length)]!;
  return pick(mac.slice(9).replaceAll(':', ''));
}
