import { stat } from 'node:fs/promises';
import type { ChuteNetwork } from '../../../functions/chutes/lookup.ts';
import type { Device, HostapdEvents, NetworkTarget } from '../../../functions/core/device/index.ts';
import { parseAllSta } from '../../../functions/parsers/hostapd-sta.ts';
import { looksOnChange } from './folder-watch.ts';
import { installedNetworks } from './installed-networks.ts';
import { ROAM_WINDOW_MS, roamTracker, type NetworkRef } from './roaming.ts';
import type { EventSource, Publish } from './source.ts';

export interface StationSourceOptions {
  chutes: Pick<Device, 'chuteNames' | 'chute'>;
  /** The host side of a chute network: its `hostapdEvents` and `hostapdStations`. */
  network: Device['network'];
  /** The folder of hostapd's control sockets (`<run dir>/hostapd`), watched for hostapds that start and end. */
  controlDir: string;
  /** How close a leave and a join must be to count as a roam; `ROAM_WINDOW_MS` by default. */
  roamWindowMs?: number;
  now?: () => number;
  /** Where a hostapd that cannot be followed is told; `console.error` by default. */
  log?: (text: string) => void;
}

const MAC = /^[0-9a-f]{2}(:[0-9a-f]{2}){5}$/i;
/** hostapd's limit of stations on one BSS (`max_num_sta`): no more are kept per network. */
const MAX_STATIONS = 2007;
/** The first wait before a hostapd that could not be attached to is tried again, doubled up to the second. */
const FIRST_RETRY_MS = 1000;
const MAX_RETRY_MS = 60_000;
/** How long the control folder must be quiet before it is looked at. */
const DEBOUNCE_MS = 100;

/** One access point's hostapd as it is followed, by its control socket. */
interface Followed {
  at: NetworkRef;
  target: NetworkTarget;
  /** The inode of the socket last attached to or tried: a new hostapd makes a new socket. */
  inode: number | null;
  events: HostapdEvents | null;
  /** The stations connected, as last seen. */
  stations: Set<string>;
  /** True until the first attach of a hostapd that ran when the source started: its stations then are no news. */
  quiet: boolean;
  /** When a socket that could not be attached to is tried again (another socket at once). */
  retryAt: number;
  retryMs: number;
  /** The stations an event named while the station list was read: the event is newer. */
  touched: Set<string> | null;
}

/**
 * `station.connected` and `station.disconnected` from hostapd's `AP-STA-CONNECTED <mac>` and
 * `AP-STA-DISCONNECTED <mac>`, for every access point of an installed chute whose hostapd runs:
 * each control socket is attached to (`NetworkHost.hostapdEvents`, one `hostapd_cli -a` each) as it
 * appears in `controlDir`, and let go when it goes or another hostapd replaces it. At each attach the
 * stations hostapd lists as authorized (`all_sta`) are compared with those last seen, so that a
 * station that came or went meanwhile is told too (but not the stations of a hostapd that already
 * ran when the source started). `station.roamed` follows when a station left another network of the
 * device within the roam window (`roaming.ts`).
 *
 * @example
 * const stations = followStations({ chutes, network: device.network, controlDir: '/var/lib/chutebox/networks/hostapd' }, publish);
 * await stations.stop();
 */
export function followStations(options: StationSourceOptions, publish: Publish): EventSource {
  const now = options.now ?? Date.now;
  const log = options.log ?? ((text: string) => console.error(text));
  const roams = roamTracker(options.roamWindowMs ?? ROAM_WINDOW_MS, now);
  const followed = new Map<string, Followed>();
  let stopped = false;
  const looks = looksOnChange(options.controlDir, DEBOUNCE_MS, look, (error) =>
    log(`station events: the access points cannot be read: ${(error as Error).message}`),
  );

  /** Lets go of what no longer runs, attaches to what runs and is not attached to. */
  async function look(first: boolean): Promise<void> {
    const wanted = new Map(
      (await installedNetworks(options.chutes))
        .filter((network) => network.kind === 'access-point' && network.target.hostapdControl !== null)
        .map((network) => [network.target.hostapdControl!, network] as const),
    );
    for (const [socket, entry] of followed) {
      const network = wanted.get(socket);
      const inode = await socketInode(socket);
      if (network === undefined || inode === null || network.chute !== entry.at.chute || network.name !== entry.at.network) {
        await detach(entry);
        for (const mac of entry.stations) left(entry, mac);
        followed.delete(socket);
      } else if (entry.events !== null && inode !== entry.inode) await detach(entry);
    }
    for (const [socket, network] of wanted) {
      if (stopped) return;
      const inode = await socketInode(socket);
      const entry = followed.get(socket) ?? follow(socket, network, first && inode !== null);
      if (entry.events === null && inode !== null && (inode !== entry.inode || now() >= entry.retryAt)) await attach(entry, inode);
    }
    retryLater();
  }

  function follow(socket: string, network: ChuteNetwork, quiet: boolean): Followed {
    const entry: Followed = {
      at: { chute: network.chute, network: network.name },
      target: network.target,
      inode: null,
      events: null,
      stations: new Set(),
      quiet,
      retryAt: 0,
      retryMs: FIRST_RETRY_MS,
      touched: null,
    };
    followed.set(socket, entry);
    return entry;
  }

  async function attach(entry: Followed, inode: number): Promise<void> {
    const host = options.network(entry.target);
    entry.inode = inode;
    try {
      entry.events = await host.hostapdEvents(
        (text) => onEvent(entry, text),
        () => {
          entry.events = null;
          looks.again();
        },
      );
      entry.retryMs = FIRST_RETRY_MS;
    } catch (error) {
      if (entry.retryMs === FIRST_RETRY_MS)
        log(`station events: hostapd of network ${entry.at.network} of chute ${entry.at.chute}: ${(error as Error).message}`);
      entry.retryAt = now() + entry.retryMs;
      entry.retryMs = Math.min(entry.retryMs * 2, MAX_RETRY_MS);
      return;
    }
    if (stopped) return detach(entry);
    entry.touched = new Set();
    const listed = await host.hostapdStations().then(
      (text) => new Set(parseAllSta(text).flatMap((station) => (station.authorized === 'yes' ? [station.mac_addr.toLowerCase()] : []))),
      () => null,
    );
    const touched = entry.touched;
    entry.touched = null;
    if (listed !== null) {
      for (const mac of entry.stations) if (!listed.has(mac) && !touched.has(mac)) left(entry, mac);
      for (const mac of listed) if (!touched.has(mac)) joined(entry, mac, entry.quiet);
    }
    entry.quiet = false;
  }

  async function detach(entry: Followed): Promise<void> {
    const events = entry.events;
    entry.events = null;
    await events?.stop();
  }

  function onEvent(entry: Followed, text: string): void {
    const [what, mac] = text.split(' ', 2);
    if (mac !== undefined && MAC.test(mac) && (what === 'AP-STA-CONNECTED' || what === 'AP-STA-DISCONNECTED')) {
      const station = mac.toLowerCase();
      entry.touched?.add(station);
      if (what === 'AP-STA-CONNECTED') joined(entry, station, false);
      else left(entry, station);
    } else if (what === 'CTRL-EVENT-TERMINATING') {
      // hostapd is ending: its hostapd_cli would only notice at its next PING.
      void detach(entry);
    }
  }

  function joined(entry: Followed, mac: string, quiet: boolean): void {
    if (entry.stations.has(mac) || entry.stations.size >= MAX_STATIONS) return;
    entry.stations.add(mac);
    if (quiet) return;
    publish({ kind: 'station.connected', ...entry.at, mac });
    const from = roams.joined(mac, entry.at);
    if (from !== null) publish({ kind: 'station.roamed', ...entry.at, mac, from });
  }

  function left(entry: Followed, mac: string): void {
    if (!entry.stations.delete(mac)) return;
    publish({ kind: 'station.disconnected', ...entry.at, mac });
    const to = roams.left(mac, entry.at);
    if (to !== null) publish({ kind: 'station.roamed', ...to, mac, from: entry.at });
  }

  /** A look again when the first hostapd that could not be attached to is due. */
  function retryLater(): void {
    const due = [...followed.values()].filter((entry) => entry.events === null && entry.retryAt > now()).map((entry) => entry.retryAt);
    looks.againIn(due.length > 0 ? Math.min(...due) - now() : null);
  }

  return {
    ready: looks.ready,
    async stop() {
      stopped = true;
      await looks.stop();
      await Promise.all([...followed.values()].map(detach));
    },
  };
}

/** The inode of the UNIX socket at `file`, or null when there is none. */
async function socketInode(file: string): Promise<number | null> {
  return stat(file).then(
    (found) => (found.isSocket() ? found.ino : null),
    () => null,
  );
}
