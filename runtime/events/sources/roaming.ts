/** A chute's network, as a station event names it. */
export interface NetworkRef {
  chute: string;
  network: string;
}

/**
 * How close a station's leaving one network and joining another must be to count as a roam
 * (`station.roamed`), in either order: a station that roams leaves and joins within a second or two.
 */
export const ROAM_WINDOW_MS = 5000;

/** The most stations whose recent joins and leaves are kept; the oldest go first beyond it. */
const MAX_TRACKED = 4096;

/** What was last seen of a station within the window. */
interface Recent {
  joined?: { at: NetworkRef; time: number };
  left?: { at: NetworkRef; time: number };
}

/**
 * Tells roams from the joins and leaves of stations across the device's networks: a station that left
 * network A and joined network B within `windowMs`, in either order, roamed from A to B. What it keeps
 * is bounded: a station's record goes once the window has passed, and at most 4096 are kept.
 *
 * @example
 * const roams = roamTracker(ROAM_WINDOW_MS, Date.now);
 * roams.left('02:00:00:00:00:01', { chute: 'a', network: 'wifi' });   // null
 * roams.joined('02:00:00:00:00:01', { chute: 'b', network: 'wifi' }); // { chute: 'a', network: 'wifi' }: it roamed from there
 */
export function roamTracker(windowMs: number, now: () => number) {
  const recent = new Map<string, Recent>();
  const same = (a: NetworkRef, b: NetworkRef) => a.chute === b.chute && a.network === b.network;
  const within = (seen: { time: number } | undefined, time: number) => seen !== undefined && time - seen.time <= windowMs;

  /** The station's record, moved to the end (the newest); records past the window and beyond the bound go. */
  function record(mac: string, time: number): Recent {
    const found = recent.get(mac) ?? {};
    recent.delete(mac);
    for (const [key, old] of recent) {
      if (recent.size < MAX_TRACKED && (within(old.joined, time) || within(old.left, time))) break;
      recent.delete(key);
    }
    recent.set(mac, found);
    return found;
  }

  return {
    /** The station joined `at`; answers the network it left within the window, or null. */
    joined(mac: string, at: NetworkRef): NetworkRef | null {
      const time = now();
      const seen = record(mac, time);
      const from = seen.left !== undefined && within(seen.left, time) && !same(seen.left.at, at) ? seen.left.at : null;
      // A roam pairs one leave with one join: neither pairs again.
      seen.left = undefined;
      seen.joined = from === null ? { at, time } : undefined;
      return from;
    },
    /** The station left `at`; answers the network it joined within the window and is still on, or null. */
    left(mac: string, at: NetworkRef): NetworkRef | null {
      const time = now();
      const seen = record(mac, time);
      const to = seen.joined !== undefined && within(seen.joined, time) && !same(seen.joined.at, at) ? seen.joined.at : null;
      seen.joined = undefined;
      seen.left = to === null ? { at, time } : undefined;
      return to;
    },
  };
}

export type RoamTracker = ReturnType<typeof roamTracker>;
