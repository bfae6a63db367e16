import * as z from 'zod/mini';
import { SsidSchema } from '../../functions/networks/ssid-body.ts';
import { MAC_ADDRESS } from '../../functions/chutes/params.ts';
import { CHUTE_NAME, type NetworkHost, type NetworkTarget } from '../../functions/core/device/index.ts';
import { HttpProblem } from '../../functions/core/problem.ts';
import { reusingLast } from '../../functions/core/reusing-last.ts';
import { encodeSsid, parseHostapdReply } from '../../functions/parsers/hostapd.ts';
import { allStaBlocks } from '../../functions/parsers/hostapd-sta.ts';
import { stationBlocks, type StationBlock } from '../../functions/parsers/iw-station.ts';
import type { PublishEvent } from '../../runtime/events/buffer.ts';
import { NETWORK_FILES } from '../../runtime/scenario/format.ts';
import type { ScenarioClock } from './clock.ts';
import { kept } from './tree.ts';
import { atMost, STATE_LIMITS } from '../state-limits.ts';

/** One raw recording of a chute network (`NETWORK_FILES` names the file of each in a scenario). */
export type NetworkRecording = keyof typeof NETWORK_FILES;

/**
 * A chute network's recording, verbatim; null when it is not recorded. It answers the same text while
 * the network stays as it is (a scenario's recordings never change; what serve would run for an
 * installed chute changes with its configuration), and may throw an `HttpProblem` (a part of the
 * network that does not run).
 */
export type ReadRecording = (network: Pick<NetworkTarget, 'chute' | 'network'>, recording: NetworkRecording) => Promise<string | null>;

const name = z.string().check(z.regex(CHUTE_NAME, { error: 'must be a chute or network name' }));
const mac = z.string().check(z.regex(MAC_ADDRESS, { error: 'must be a MAC address such as 02:00:00:aa:bb:cc' }));

/**
 * The networks' part of an emulator state (emulator/emulator-state.ts): each network that a request
 * changed, by chute and network, with the SSID set (`PUT …/ssid`; null: as recorded) and the stations
 * disconnected (`DELETE …/stations/<mac>`; lower-case MACs) and when. A network not listed is as recorded.
 */
export const NetworksStateSchema = z
  .array(
    z.strictObject({
      chute: name,
      network: name,
      ssid: z.nullable(SsidSchema),
      disconnected: z.array(mac).check(atMost(STATE_LIMITS.disconnected, 'stations')),
      /** When each station of `disconnected` was, in ms of emulated time (a living network's stays end there); absent: at 0. */
      disconnectedAt: z.optional(z.record(mac, z.number().check(z.nonnegative(), z.maximum(Number.MAX_SAFE_INTEGER)))),
    }),
  )
  .check(atMost(STATE_LIMITS.networks, 'networks'));
export type NetworksState = z.infer<typeof NetworksStateSchema>;

/** The Device's `network`, and the state of the networks it answers. */
export type RecordedNetworks = ((target: NetworkTarget) => NetworkHost) & {
  /** What requests changed of the networks, networks in the order first changed. */
  snapshot(): NetworksState;
  /**
   * Puts back the SSIDs and disconnected stations of a state (`[]`: every network as recorded). Who
   * listens to hostapd's events goes on listening; no event is sent for what the restore changed.
   */
  restore(state: NetworksState): void;
  /**
   * Forgets what requests changed of these networks of a chute (the SSID set, the stations
   * disconnected): their hostapd was started anew, or they are gone. Who listens to their events goes on.
   */
  forget(chute: string, networks: readonly string[]): void;
};

/** The network a living network answers for. */
export type LifeTarget = Pick<NetworkTarget, 'chute' | 'network'>;

/**
 * A living network (emulator/living/): what the recordings would answer, answered for the time now.
 * Each answer is null for a network it does not make live (not a Wi-Fi access point): it is then
 * answered from its recordings.
 */
export interface NetworkLife {
  /** The blocks of iw's station dump of the stations there now (those disconnected left out). */
  stations(target: LifeTarget): Promise<readonly StationBlock[] | null>;
  /** The blocks of hostapd's `all_sta` of the stations there now. */
  hostapdStations(target: LifeTarget): Promise<readonly StationBlock[] | null>;
  /** The lease file now (null: none, as a network without DHCP); undefined, not null, for a network it does not make live. */
  leases(target: LifeTarget): Promise<string | null | undefined>;
  /** How many stations are there now (`num_sta` of STATUS). */
  stationCount(target: LifeTarget): Promise<number | null>;
  /** The emulated time now, ms since the replay started: when a disconnection happens. */
  elapsedMs(): number;
  /** Someone listens to hostapd's events: the living network tells what happens while anyone does. Call the answer when they stop. */
  watch(): () => void;
}

/** What a living network is given of the networks: their recordings, the stations disconnected, and hostapd's listeners. */
export interface NetworkHooks {
  read: ReadRecording;
  /** The stations disconnected on a network, lower-case MAC → when (ms of emulated time). */
  removals(chute: string, network: string): ReadonlyMap<string, number> | undefined;
  /** Sends an event of hostapd's to who listens to a network's. */
  notify(chute: string, network: string, text: string): void;
}

/** What a recorded network has been told since its networks were created. */
interface NetworkState {
  /**
   * Stations disconnected with `stationDel` or hostapd's `DEAUTHENTICATE` (lower-case MACs), and when
   * (ms of emulated time; 0 without a living network). Replaced, never changed in place: a living
   * network keeps what it worked out while these maps are the same.
   */
  removed: ReadonlyMap<string, number>;
  /** The SSID set with hostapd's `SET ssid`, if any. */
  ssid: string | undefined;
  /** Who subscribed to hostapd's events (`hostapdEvents`) and has not stopped. */
  listeners: Set<(text: string) => void>;
}

/** No station removed: shared by every network, as a removal replaces the map (copy on write). */
const NONE_REMOVED: ReadonlyMap<string, number> = new Map();

/**
 * Chute networks answered from their raw recordings (`read`), like the tools on a device would:
 * - `stationDump` is the `stationDump` recording verbatim ('' without it), less the stations removed
 *   with `stationDel` or hostapd's `DEAUTHENTICATE`; `stationGet(mac)` is that station's block of it
 *   (what `iw … station get` prints), or null; `stationDel(mac)` removes a station that is there
 *   (true) and answers false otherwise. Where only `hostapdStations` is recorded, the device could not
 *   answer with iw (a lab link, no nl80211), and all three are a 503 problem, as there;
 * - `hostapdStations` is the `hostapdStations` recording (`all_sta`) verbatim, less the stations
 *   removed, and a 503 problem without it;
 * - `leases` is the `leases` recording verbatim, or null without it; given a `clock`, its expiries are
 *   moved to that clock (`ScenarioClock.leases`);
 * - `hostapd` answers `STATUS` with the `hostapdStatus` recording and `GET_CONFIG` with
 *   `hostapdConfig`, `SET ssid <value>` with `OK` (or `FAIL` for an SSID that PUT …/ssid refuses,
 *   `SsidSchema`: empty or over 32 bytes, as hostapd does, or with a control character), `RELOAD`
 *   with `OK`, `PING` with `PONG`, a `SET` of any other field with `FAIL`, `DEAUTHENTICATE <mac>`
 *   with `OK` (`FAIL` for a word that is no MAC), removing the station from both lists when one has
 *   it, and anything else with `UNKNOWN COMMAND`; replies end in a newline, as hostapd's do. An SSID
 *   set shows in both replies the way hostapd prints it (`printf_encode`, e.g. `caf\xc3\xa9`): in
 *   `GET_CONFIG`'s `ssid`, and in `STATUS`'s `ssid[i]` of this network's BSS (the `bssid[i]` equal to
 *   `GET_CONFIG`'s `bssid`, else the `bss[i]` equal to the host interface, else the first). Without
 *   any hostapd recording, every command is a 503 problem, as a device without the control socket.
 * - `hostapdEvents` gives the events that these networks themselves cause, as hostapd would send
 *   them: `AP-STA-DISCONNECTED <mac>` (lower case) when `stationDel` or `DEAUTHENTICATE` disconnects a
 *   station of this network; nothing else happens on a recorded radio. Without hostapd recordings it is a 503, as `hostapd`.
 *   The same disconnection is published as a `station.disconnected` event (`publish`).
 *
 * A network with no recordings at all has no stations, no lease file and no hostapd. What stations
 * are removed and which SSID is set lives as long as the answer of this function, which `snapshot()`
 * shows and `restore()` sets.
 *
 * Given a `life` (emulator/living/), the networks it makes live answer their stations (both lists),
 * leases and `num_sta` as it says for the time now instead of as recorded, it tells when a
 * disconnection happens (a station then stays gone for the rest of its stay, not for ever), and it
 * sends hostapd's events of its own stations (`NetworkHooks.notify`). Whether iw or hostapd can answer
 * at all is still the recordings' to say; hostapd's `all_sta` answers wherever hostapd does. The emulator reads
 * the recordings from a scenario folder (`scenarioNetworks`), the tests hand them in (test/support/memory-device.ts).
 *
 * @example
 * const recordings = { stationDump: '', hostapdStatus: 'state=ENABLED\nssid[0]=lab\n', hostapdConfig: 'ssid=lab\n' };
 * const networks = recordedNetworks(async (_target, recording) => recordings[recording] ?? null);
 * await networks(target).hostapd(['SET', 'ssid', 'café']); // 'OK\n'; STATUS now has ssid[0]=caf\xc3\xa9
 */
export function recordedNetworks(
  read: ReadRecording,
  clock?: Pick<ScenarioClock, 'leases'>,
  publish?: PublishEvent,
  makeLife?: (hooks: NetworkHooks) => NetworkLife,
): RecordedNetworks {
  const states = new Map<string, NetworkState>();
  const keyOf = (chute: string, network: string) => JSON.stringify([chute, network]);
  const life = makeLife?.({
    read,
    removals: (chute, network) => states.get(keyOf(chute, network))?.removed,
    notify(chute, network, text) {
      for (const listener of states.get(keyOf(chute, network))?.listeners ?? []) listener(text);
    },
  });
  /** The stations of a network's recorded station dump; null when it is not recorded. */
  const recordedStations = async (target: Pick<NetworkTarget, 'chute' | 'network'>) => {
    const text = await read(target, 'stationDump');
    return text === null ? null : stationBlocksOf(states, text);
  };
  /** The stations of a network's recorded `all_sta` reply; null when it is not recorded. */
  const recordedHostapdStations = async (target: Pick<NetworkTarget, 'chute' | 'network'>) => {
    const text = await read(target, 'hostapdStations');
    return text === null ? null : allStaBlocksOf(states, text);
  };
  /** The station dump of a list of stations, joined once per list: while no station is removed, every read answers the same text. */
  const dumps = new WeakMap<readonly StationBlock[], string>();
  const dumpOf = (blocks: readonly StationBlock[]) => {
    let dump = dumps.get(blocks);
    if (dump === undefined) dumps.set(blocks, (dump = blocks.map((block) => block.text).join('')));
    return dump;
  };

  /**
   * The host made for each network, by its chute, name and host interface (a handler makes a new
   * target on every request): made once, with its closures and its recordings' reads.
   */
  const hosts = new Map<string, NetworkHost>();
  const network = (target: NetworkTarget): NetworkHost => {
    const { chute, network, hostInterface } = target;
    return kept(hosts, JSON.stringify([chute, network, hostInterface]), () => networkHost({ chute, network, hostInterface }));
  };

  /** The host of one network, made from what it needs of its target. */
  const networkHost = (target: Pick<NetworkTarget, 'chute' | 'network' | 'hostInterface'>): NetworkHost => {
    const where = `${target.chute}/${target.network}`;
    /** A recording of this network as it is now. */
    const recording = (name: NetworkRecording) => read(target, name);
    const key = keyOf(target.chute, target.network);
    const state = () => {
      let found = states.get(key);
      if (found === undefined) states.set(key, (found = { removed: NONE_REMOVED, ssid: undefined, listeners: new Set() }));
      return found;
    };

    /** The blocks of stations still there: those not disconnected since the start. */
    const present = (blocks: readonly StationBlock[]) => {
      const removed = states.get(key)?.removed;
      return removed === undefined ? blocks : blocks.filter((block) => !removed.has(block.mac.toLowerCase()));
    };
    const stations = () =>
      Promise.all([recordedStations(target), recordedHostapdStations(target)]).then(async ([blocks, hostapdBlocks]) => {
        if (blocks === null && hostapdBlocks !== null) {
          throw new HttpProblem(
            503,
            `iw's station dump is not recorded for ${where} (no ${NETWORK_FILES.stationDump}, only ${NETWORK_FILES.hostapdStations}): iw could not answer on the device recorded`,
          );
        }
        return (await life?.stations(target)) ?? present(blocks ?? NO_STATIONS);
      });
    const hostapdStations = async () => {
      const lived = life === undefined ? null : await hostapdRecordings().then(() => life.hostapdStations(target));
      if (lived !== null) return lived;
      const blocks = await recordedHostapdStations(target);
      if (blocks === null) throw new HttpProblem(503, `hostapd's all_sta is not recorded for ${where} (no ${NETWORK_FILES.hostapdStations})`);
      return present(blocks);
    };

    /** hostapd's recorded `STATUS` and `GET_CONFIG` replies; a 503 when none of hostapd's recordings is there. */
    const hostapdRecordings = () =>
      Promise.all([recording('hostapdStatus'), recording('hostapdConfig'), recording('hostapdStations')]).then(([status, config, stations]) => {
        if (status === null && config === null && stations === null) {
          const files = [NETWORK_FILES.hostapdStatus, NETWORK_FILES.hostapdConfig, NETWORK_FILES.hostapdStations].join(', ');
          throw new HttpProblem(503, `hostapd's control interface is not recorded for ${where} (none of ${files} is)`);
        }
        return [status, config] as const;
      });

    /** Disconnects a station that is there (lower-case MAC): gone from both lists of stations, and its events sent. */
    const disconnect = (lower: string) => {
      const found = state();
      found.removed = new Map(found.removed).set(lower, life?.elapsedMs() ?? 0);
      for (const listener of found.listeners) listener(`AP-STA-DISCONNECTED ${lower}`);
      publish?.({ kind: 'station.disconnected', chute: target.chute, network: target.network, mac: lower });
    };

    /**
     * hostapd's `DEAUTHENTICATE <mac>`: disconnects the station when either list has it, and answers
     * `OK` as hostapd does, also for a station it does not know; `FAIL` for a word that is no MAC.
     */
    async function deauthenticate(words: string[]): Promise<string> {
      await hostapdRecordings();
      const mac = words[1] ?? '';
      if (!MAC_ADDRESS.test(mac)) return 'FAIL\n';
      const lower = mac.toLowerCase();
      const lists = await Promise.all([stations().catch(() => NO_STATIONS), hostapdStations().catch(() => NO_STATIONS)]);
      const there = lists.some((blocks) => blocks.some((block) => block.mac.toLowerCase() === lower));
      if (there) disconnect(lower);
      return 'OK\n';
    }

    /** `STATUS`: recorded, with the SSID set since the start and, in a living network, the stations there now in this BSS's `num_sta`. */
    async function statusReply(status: string | null, config: string | null): Promise<string> {
      const reply = hostapdReply(status, 'hostapdStatus', 'STATUS', (text) => `ssid[${bssIndexOf(states, text, config, target.hostInterface)}]`);
      const count = await life?.stationCount(target);
      return count == null ? reply : withValue(states, reply, `num_sta[${bssIndexOf(states, reply, config, target.hostInterface)}]`, String(count));
    }

    /** A recorded hostapd reply, with the SSID set since the start in its `ssidKey` line. */
    function hostapdReply(reply: string | null, recording: NetworkRecording, what: string, ssidKey: (reply: string) => string): string {
      if (reply === null) throw new HttpProblem(503, `hostapd's ${what} is not recorded for ${where} (no ${NETWORK_FILES[recording]})`);
      const ssid = states.get(key)?.ssid;
      return ssid === undefined ? reply : withValue(states, reply, ssidKey(reply), encodeSsid(ssid));
    }

    return {
      stationDump: () => stations().then(dumpOf),
      stationGet: (mac) => stations().then((blocks) => blocks.find((block) => block.mac.toLowerCase() === mac.toLowerCase())?.text ?? null),
      async stationDel(mac) {
        const lower = mac.toLowerCase();
        if (!(await stations()).some((block) => block.mac.toLowerCase() === lower)) return false;
        disconnect(lower);
        return true;
      },
      hostapdStations: () => hostapdStations().then(dumpOf),
      leases: async () => {
        const lived = await life?.leases(target);
        if (lived !== undefined) return lived;
        const text = await recording('leases');
        return text === null || clock === undefined ? text : clock.leases(text);
      },
      async hostapdEvents(onEvent) {
        await hostapdRecordings();
        const listeners = state().listeners;
        const listener = (text: string) => onEvent(text);
        listeners.add(listener);
        const unwatch = life?.watch();
        return {
          async stop() {
            if (listeners.delete(listener)) unwatch?.();
          },
        };
      },
      hostapd: (command) =>
        command[0] === 'DEAUTHENTICATE'
          ? deauthenticate(command)
          : hostapdRecordings().then(async ([status, config]) => {
              const line = command.join(' ');
              if (line === 'STATUS') return statusReply(status, config);
              if (line === 'GET_CONFIG') return hostapdReply(config, 'hostapdConfig', 'GET_CONFIG', () => 'ssid');
              if (line === 'RELOAD') return 'OK\n';
              if (line === 'PING') return 'PONG\n';
              if (line.startsWith('SET ')) {
                // hostapd splits `SET <field> <value>` at the first space after the field: the value may hold spaces.
                const rest = line.slice('SET '.length);
                const space = rest.indexOf(' ');
                if (space < 0 || rest.slice(0, space) !== 'ssid') return 'FAIL\n';
                const ssid = rest.slice(space + 1);
                if (!SsidSchema.safeParse(ssid).success) return 'FAIL\n';
                state().ssid = ssid;
                return 'OK\n';
              }
              return 'UNKNOWN COMMAND\n';
            }),
    };
  };

  return Object.assign(network, {
    snapshot(): NetworksState {
      const changed: NetworksState = [];
      for (const [key, state] of states) {
        if (state.ssid === undefined && state.removed.size === 0) continue;
        const [chute = '', name = ''] = JSON.parse(key) as string[];
        const at = [...state.removed].filter(([, ms]) => ms > 0);
        changed.push({
          chute,
          network: name,
          ssid: state.ssid ?? null,
          disconnected: [...state.removed.keys()],
          ...(at.length === 0 ? {} : { disconnectedAt: Object.fromEntries(at) }),
        });
      }
      return changed;
    },
    forget(chute: string, networks: readonly string[]): void {
      for (const network of networks) {
        const kept = states.get(JSON.stringify([chute, network]));
        if (kept !== undefined) Object.assign(kept, { removed: NONE_REMOVED, ssid: undefined });
      }
    },
    restore(state: NetworksState): void {
      for (const kept of states.values()) Object.assign(kept, { removed: NONE_REMOVED, ssid: undefined });
      for (const entry of state) {
        const key = keyOf(entry.chute, entry.network);
        const kept = states.get(key) ?? { removed: NONE_REMOVED, ssid: undefined, listeners: new Set<(text: string) => void>() };
        const removed = new Map(entry.disconnected.map((mac) => [mac.toLowerCase(), entry.disconnectedAt?.[mac] ?? 0]));
        states.set(key, Object.assign(kept, { removed, ssid: entry.ssid ?? undefined }));
      }
    },
  });
}

/** The stations of a network without a recorded station dump: always this list, whose dump `dumpOf` joins once. */
const NO_STATIONS: readonly StationBlock[] = [];

/** Each network's parse of its station dump and of its `all_sta` reply, kept with its device's network states: made again only when the text changed. */
const stationBlocksOf = reusingLast(stationBlocks);
const allStaBlocksOf = reusingLast(allStaBlocks);

/** `bssIndex`, worked out again only for other replies or another interface. */
const bssIndexOf = reusingLast(bssIndex);

/**
 * The index of this network's BSS in a `STATUS` reply, which lists every BSS of the radio: the one
 * whose `bssid[i]` is `GET_CONFIG`'s `bssid`, else whose `bss[i]` is the host interface, else 0.
 */
function bssIndex(status: string, config: string | null, hostInterface: string | null): number {
  const fields = Object.entries(parseHostapdReply(status));
  const indexOf = (name: string, value: string | null | undefined) => {
    if (value == null) return undefined;
    const found = fields.find(([key, v]) => v === value && key.startsWith(`${name}[`) && /^\w+\[\d+\]$/.test(key));
    return found === undefined ? undefined : Number(found[0].slice(name.length + 1, -1));
  };
  const bssid = config === null ? undefined : parseHostapdReply(config).bssid;
  return indexOf('bssid', bssid) ?? indexOf('bss', hostInterface) ?? 0;
}

/** `replaceValue`, made again only for another reply, key or value: a status polled is not split and joined again. */
const withValue = reusingLast(replaceValue);

/** The reply with the value of its `key=` line replaced. */
function replaceValue(reply: string, key: string, value: string): string {
  return reply
    .split('\n')
    .map((line) => (line.startsWith(`${key}=`) ? `${key}=${value}` : line))
    .join('\n');
}
