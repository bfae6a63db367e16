import { CHUTE_LABEL, type Device, type StoredChute } from '../../functions/core/device/index.ts';
import { parseRoutes } from '../../functions/parsers/proc-net-route.ts';
import { reusingLast } from '../../functions/core/reusing-last.ts';
import type { PublishEvent } from '../../runtime/events/buffer.ts';
import type { ScenarioClock } from '../scenario/clock.ts';
import type { LifeTarget, NetworkHooks, NetworkLife } from '../scenario/recorded-networks.ts';
import { normalizePosix } from '../scenario/tree.ts';
import type { AccessPoint } from './access-point.ts';
import { happenings } from './events.ts';
import { leaseFileAt, leaseLookback, networkLeases, type NetworkLeases } from './lease-file.ts';
import { listedSessions, segmentsAt, sessionsIn, windowsOf, type Removals, type Session } from './sessions.ts';
import type { Living } from './spec.ts';
import { movedNetDev, NO_TRAFFIC, sumTraffic, trafficThrough, type Traffic } from './traffic.ts';
import { ratesOf, stationBlocksAt, worldOf, type World } from './world.ts';

/**
 * The step of the living network's time, emulated ms: what it answers is worked out at the start of
 * the second it is asked in, as a load simulator's tick, so that every read within one second reads
 * the same texts (and parses them once). Events keep the ms they happened at.
 */
export const TICK_MS = 1000;
/** How often a living network tells what happened while someone listens, real ms. */
const CATCH_UP_EVERY_MS = 1000;
/** The longest span a catch-up tells, ms: after a longer jump of the clock, only its last day is told. */
const LONGEST_CATCH_UP_MS = 86_400_000;

export interface LivingOptions {
  living: Living;
  /** The seed in effect (a restored state may bring another). */
  seed: () => number;
  /** The device as changes left it: its chutes (whose Wi-Fi networks live) and containers. */
  device: () => Pick<Device, 'chuteNames' | 'chute' | 'containers'>;
  /** The scenario's clock: the emulated time since the replay started, and when the recording was taken. */
  clock: Pick<ScenarioClock, 'elapsedMs' | 'replayTime' | 'recording'>;
  /** Where the device's events go, each at the time it happened. */
  publish: PublishEvent;
  /** Told how many slots of generated stays each look at the network examined (a test's measure of the work). */
  examined?: (slots: number) => void;
}

/** A living network: what it answers of the networks, of /proc/net/dev and the containers' stats, and its events. */
export interface LivingNetwork {
  /** For `recordedNetworks`: the stations, leases and station counts of the access points now. */
  life(hooks: NetworkHooks): NetworkLife;
  /** `readFile` with /proc/net/dev's access points and uplink moved on by their stations' traffic. */
  readFile(base: Device['readFile']): Device['readFile'];
  /** `containerStats` with a chute container's network counters moved on by its access points' traffic. */
  containerStats(base: Device['containerStats']): Device['containerStats'];
  /** Tells (publishes, and sends to hostapd's listeners) what happened since the last time it did, up to now. */
  catchUp(): Promise<void>;
  /** Tells nothing of what happened before now: after a restore moved the clock. */
  restart(): void;
  /** Someone listens to the device's events: what happens is told by a timer while anyone does. Call the answer when they stop. */
  watch(): () => void;
}

/**
 * The living network of a scenario (docs/decisions/0050-a-living-network.md): stations join, leave
 * and roam between the access points of the chutes installed now, with counters, signals and leases
 * that follow the emulated time, all a function of the seed, the scenario, the time and the stations
 * requests disconnected. Nothing moves in the background: every read works out the time it is asked
 * at, from the few windows of drawn stays that can reach it (`sessionsIn`). Events are told on reads,
 * every second while someone listens, and on `catchUp()`, each at the time it happened.
 */
export function livingNetwork(options: LivingOptions): LivingNetwork {
  const { living, clock } = options;
  let hooks: NetworkHooks | undefined;
  let last = clock.elapsedMs();
  let catching: Promise<void> = Promise.resolve();
  let watchers = 0;
  let timer: ReturnType<typeof setInterval> | undefined;
  let built: { seed: number; chutes: StoredChute[]; world: Promise<World> } | undefined;
  /** What was worked out at one tick (`atTick`). */
  let ticked: { w: World; t: number; wall0: number; removed: readonly (ReadonlyMap<string, number> | undefined)[]; answers: Map<string, unknown> } | undefined;
  /** Nothing happens before `until` while the world and the disconnections are these (`step`). */
  let quiet: { world: World; disconnected: number; until: number } | undefined;

  /** The time now, at the start of its tick (`TICK_MS`): ms since the replay started, and the epoch ms of time 0. */
  function time() {
    const { startMs, elapsedMs } = clock.replayTime();
    return { t: Math.floor(elapsedMs / TICK_MS) * TICK_MS, wall0: startMs };
  }
  const removals: Removals = (ap) => {
    const slash = ap.indexOf('/');
    return hooks?.removals(ap.slice(0, slash), ap.slice(slash + 1));
  };

  /** The world of the chutes installed now, made again when one of them changed. */
  async function world(): Promise<World> {
    if (hooks === undefined) throw new Error('livingNetwork: life(hooks) was not called');
    const device = options.device();
    const chutes = (await Promise.all((await device.chuteNames()).map((name) => device.chute(name)))).filter((chute) => chute !== null);
    const seed = options.seed();
    if (built !== undefined && built.seed === seed && built.chutes.length === chutes.length && built.chutes.every((chute, i) => chute === chutes[i]))
      return built.world;
    const made = worldOf(seed, living, chutes, hooks.read, await clock.recording());
    built = { seed, chutes, world: made };
    made.catch(() => {
      if (built?.world === made) built = undefined;
    });
    return made;
  }

  /**
   * `make()`, kept by `key` while the world, the tick, time 0 and every access point's map of
   * disconnected stations (replaced on each change) are the same: all that the living network's
   * answers are made from. Every read within one tick then answers the same texts.
   */
  function atTick<T>(w: World, t: number, wall0: number, key: string, make: () => T): T {
    const removed = w.aps.map((ap) => hooks?.removals(ap.chute, ap.network));
    const same = ticked !== undefined && ticked.w === w && ticked.t === t && ticked.wall0 === wall0 && removed.every((map, i) => map === ticked!.removed[i]);
    if (!same) ticked = { w, t, wall0, removed, answers: new Map() };
    const answers = ticked!.answers;
    if (!answers.has(key)) answers.set(key, make());
    return answers.get(key) as T;
  }

  /** The stays that may be under way from `from` to `to`, and the work it took. */
  function sessions(w: World, from: number, to: number): Session[] {
    const found = sessionsIn(w, from, to, removals);
    options.examined?.(found.examined);
    return found.sessions;
  }

  /** The leases of the access points with any, over the stays of `from` (less their look-back) to `to`. */
  function leasesOf(w: World, aps: readonly AccessPoint[], from: number, to: number): Map<string, NetworkLeases> {
    const maxMs = windowsOf(w.rates).maxMs;
    const with_ = aps.filter((ap) => ap.pool !== null || ap.leases !== null);
    const back = Math.max(0, ...with_.map((ap) => leaseLookback(ap, maxMs)));
    const stays = with_.length === 0 ? [] : sessions(w, from - back, to);
    return new Map(with_.map((ap) => [ap.key, networkLeases(w.seed, ap, stays, w.recording)]));
  }

  /** How many stations requests disconnected, on every access point: a disconnection may change what happens next. */
  function disconnections(w: World): number {
    let count = 0;
    for (const ap of w.aps) count += hooks?.removals(ap.chute, ap.network)?.size ?? 0;
    return count;
  }

  /**
   * Tells what happened in (last, now]. It works out what happens up to the end of the window of
   * now (no stay drawn later begins before it) and, while the world and the disconnections are
   * the same, looks again only once the first of those comes due.
   */
  async function step(): Promise<void> {
    const { t, wall0 } = time();
    if (t <= last) {
      last = t;
      quiet = undefined;
      return;
    }
    const w = await world();
    const disconnected = disconnections(w);
    if (quiet !== undefined && quiet.world === w && quiet.disconnected === disconnected && t < quiet.until) return;
    const a = Math.max(last, t - LONGEST_CATCH_UP_MS);
    const { maxMs, windowMs } = windowsOf(w.rates);
    const horizon = (Math.floor(t / windowMs) + 1) * windowMs;
    const found = happenings(w.aps, sessions(w, a - maxMs, t), leasesOf(w, w.aps, a, t), a, horizon, (ms) => Math.round((wall0 + ms) / 1000));
    const told = found.filter((happening) => happening.at <= t);
    last = t;
    quiet = { world: w, disconnected, until: found[told.length]?.at ?? horizon };
    for (const happening of told) {
      options.publish(happening.body, wall0 + happening.at);
      if (happening.hostapd !== null) hooks?.notify(happening.hostapd.ap.chute, happening.hostapd.ap.network, happening.hostapd.text);
    }
  }

  function catchUp(): Promise<void> {
    const next = catching.then(step);
    catching = next.catch(() => {});
    return next;
  }

  /** The access point of a target, caught up to now; null for a network that does not live. */
  async function accessPointOf(target: LifeTarget): Promise<{ w: World; ap: AccessPoint } | null> {
    await catchUp();
    const w = await world();
    const ap = w.aps.find((candidate) => candidate.chute === target.chute && candidate.network === target.network);
    return ap === undefined ? null : { w, ap };
  }

  /** The stations on an access point now, in a format. */
  async function stationsOf(target: LifeTarget, format: 'iw' | 'hostapd') {
    const found = await accessPointOf(target);
    if (found === null) return null;
    const { w, ap } = found;
    const { t, wall0 } = time();
    return atTick(w, t, wall0, `${ap.key} ${format}`, () => Object.freeze(stationBlocksAt(w, ap, segmentsAt(sessions(w, t, t), ap.key, t), t, wall0, format)));
  }

  /** What went through each access point since the start, and through each chute's (frozen, the same all the tick). */
  async function traffic(): Promise<{
    byAp: Map<AccessPoint, Traffic>;
    byChute: (chute: unknown) => Traffic;
    netDev: (text: string, routes: string | null) => string;
  }> {
    await catchUp();
    const w = await world();
    const { t, wall0 } = time();
    return atTick(w, t, wall0, 'traffic', () => {
      const listed = listedSessions(w, removals);
      const byAp = new Map(w.aps.map((ap) => [ap, trafficThrough(w.seed, w.rates, listed, ap.key, (id) => ratesOf(w, id), t)]));
      // Kept with the tick's traffic, which they are made from beside their sources.
      const byChute = reusingLast((chute: unknown) => sumTraffic([...byAp].filter(([ap]) => ap.chute === chute).map(([, one]) => one)));
      const netDev = reusingLast((text: string, routes: string | null) => netDevWith(byAp, text, routes));
      return { byAp, byChute: (chute: unknown) => byChute(byAp, chute), netDev: (text: string, routes: string | null) => netDev(byAp, text, routes) };
    });
  }

  /** /proc/net/dev read through `base`, its counters moved on by the stations' traffic now. */
  async function netDevNow(base: Device['readFile'], path: string): Promise<string | null> {
    const text = await base(path);
    if (text === null) return text;
    const [{ netDev }, routes] = await Promise.all([traffic(), base(NET_ROUTE)]);
    return netDev(text, routes);
  }

  return {
    life(given) {
      hooks = given;
      return {
        stations: (target) => stationsOf(target, 'iw'),
        hostapdStations: (target) => stationsOf(target, 'hostapd'),
        async stationCount(target) {
          const found = await accessPointOf(target);
          if (found === null) return null;
          const { w, ap } = found;
          const { t, wall0 } = time();
          return atTick(w, t, wall0, `${ap.key} count`, () => segmentsAt(sessions(w, t, t), ap.key, t).length);
        },
        async leases(target) {
          const found = await accessPointOf(target);
          if (found === null) return undefined;
          if (found.ap.pool === null && found.ap.leases === null) return null;
          const { w, ap } = found;
          const { t, wall0 } = time();
          return atTick(w, t, wall0, `${ap.key} leases`, () => leaseFileAt(leasesOf(w, [ap], t, t).get(ap.key)!, t, (ms) => Math.round((wall0 + ms) / 1000)));
        },
        elapsedMs: () => clock.elapsedMs(),
        watch,
      };
    },
    readFile: (base) => (path) => (normalizePosix(path) === NET_DEV ? netDevNow(base, path) : base(path)),
    containerStats: (base) => async (id) => {
      const body = await base(id);
      if (body === null) return body;
      const container = (await options.device().containers())?.find((entry) => entry.Id === id || (entry.Names as unknown[] | undefined)?.includes(`/${id}`));
      const chute = (container?.Labels as Record<string, unknown> | undefined)?.[CHUTE_LABEL];
      const moved = (await traffic()).byChute(chute);
      return moved === NO_TRAFFIC ? body : statsWithTraffic(clock, body, moved);
    },
    catchUp,
    restart() {
      last = clock.elapsedMs();
      quiet = undefined;
    },
    watch,
  };

  function watch(): () => void {
    watchers++;
    if (timer === undefined) {
      timer = setInterval(() => void catchUp().catch((error: unknown) => console.error('the living network could not catch up:', error)), CATCH_UP_EVERY_MS);
      timer.unref?.();
    }
    let stopped = false;
    return () => {
      if (stopped) return;
      stopped = true;
      if (--watchers === 0) {
        clearInterval(timer);
        timer = undefined;
      }
    };
  }
}

const NET_DEV = '/proc/net/dev';
const NET_ROUTE = '/proc/net/route';

/** /proc/net/dev with each access point's and the uplink's (the default route's interface) counters moved on by their stations' traffic. */
function netDevWith(byAp: ReadonlyMap<AccessPoint, Traffic>, text: string, routes: string | null): string {
  const added = new Map<string, { receive: [number, number]; transmit: [number, number] }>();
  const add = (name: string, moved: Traffic, receive: 'up' | 'down') => {
    const other = receive === 'up' ? 'down' : 'up';
    const before = added.get(name) ?? { receive: [0, 0], transmit: [0, 0] };
    added.set(name, {
      receive: [before.receive[0] + moved[`${receive}Bytes`], before.receive[1] + moved[`${receive}Packets`]],
      transmit: [before.transmit[0] + moved[`${other}Bytes`], before.transmit[1] + moved[`${other}Packets`]],
    });
  };
  // An access point receives what its stations send; the uplink receives what they are sent.
  for (const [ap, moved] of byAp) if (ap.hostInterface !== null) add(ap.hostInterface, moved, 'up');
  const uplink = parseRoutes(routes ?? '').find((route) => route.destination.prefix === 0 && route.up)?.interface;
  if (uplink !== undefined) add(uplink, sumTraffic([...byAp.values()]), 'down');
  return movedNetDev(text, added);
}

/** `withNetworkTraffic`, made again only when the body (frozen, as recorded) or the traffic (frozen for the tick) changed. */
const statsWithTraffic = reusingLast(withNetworkTraffic);

/**
 * A stats body whose first network interface (the chute's `eth0`) received what its access points'
 * stations were sent and sent what they sent: traffic to the stations comes in through it.
 */
function withNetworkTraffic(body: Record<string, unknown>, moved: Traffic): Record<string, unknown> {
  const networks = body.networks as Record<string, Record<string, unknown>> | undefined;
  const [name, counters] = Object.entries(networks ?? {})[0] ?? [];
  if (name === undefined || counters === undefined) return body;
  const plus = (field: string, by: number) => (typeof counters[field] === 'number' ? { [field]: (counters[field] as number) + by } : {});
  const moved_ = {
    ...counters,
    ...plus('rx_bytes', moved.downBytes),
    ...plus('rx_packets', moved.downPackets),
    ...plus('tx_bytes', moved.upBytes),
    ...plus('tx_packets', moved.upPackets),
  };
  return { ...body, networks: { ...networks, [name]: moved_ } };
}
