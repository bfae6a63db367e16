import path from 'node:path';
import { SSID_MAX_BYTES } from '../functions/chutes/bodies.ts';
import { CHUTE_NAME, type NetworkHost, type NetworkTarget } from '../functions/core/device.ts';
import { HttpProblem } from '../functions/core/problem.ts';
import { encodeSsid, parseHostapdReply } from '../functions/parsers/hostapd.ts';
import { stationBlocks } from '../functions/parsers/iw-station.ts';
import { NETWORK_FILES, networkDir } from '../runtime/scenario/format.ts';
import { readIfExists } from '../runtime/state/read-if-exists.ts';
import type { ScenarioClock } from './scenario-clock.ts';
import { memoize } from './scenario-files.ts';

/** What a scenario network has been told since the emulator started. */
interface NetworkState {
  /** Stations disconnected with `stationDel` (lower-case MACs). */
  removed: Set<string>;
  /** The SSID set with hostapd's `SET ssid`, if any. */
  ssid: string | undefined;
  /** Who subscribed to hostapd's events (`hostapdEvents`) and has not stopped. */
  listeners: Set<(text: string) => void>;
}

/**
 * The chute networks of a scenario, answered from the raw recordings in
 * `chutes/<chute>/networks/<network>/` (`NETWORK_FILES`), like the tools on a device would:
 * - `stationDump` is `iw-station-dump.txt` verbatim ('' without it), less the stations removed with
 *   `stationDel`; `stationGet(mac)` is that station's block of it (what `iw … station get` prints),
 *   or null; `stationDel(mac)` removes a station that is there (true) and answers false otherwise;
 * - `leases` is `dnsmasq.leases` verbatim, or null without it; given the scenario's `clock`, its
 *   expiries are moved to the emulator's clock (`ScenarioClock.leases`);
 * - `hostapd` answers `STATUS` with `hostapd-status.txt` and `GET_CONFIG` with
 *   `hostapd-get-config.txt`, `SET ssid <value>` with `OK` (or `FAIL` for an empty SSID or one over 32
 *   bytes, as hostapd does), `RELOAD` with `OK`, `PING` with `PONG`, a `SET` of any other field with
 *   `FAIL` and anything else with `UNKNOWN COMMAND`; replies end in a newline, as hostapd's do. An SSID
 *   set shows in both replies the way hostapd prints it (`printf_encode`, e.g. `caf\xc3\xa9`): in
 *   `GET_CONFIG`'s `ssid`, and in `STATUS`'s `ssid[i]` of this network's BSS (the `bssid[i]` equal to
 *   `GET_CONFIG`'s `bssid`, else the `bss[i]` equal to the host interface, else the first). Without
 *   either hostapd recording, every command is a 503 problem, as a device without the control socket.
 * - `hostapdEvents` gives the events that the emulator itself causes, as hostapd would send them:
 *   `AP-STA-DISCONNECTED <mac>` (lower case) when `stationDel` disconnects a station of this network;
 *   nothing else happens on an emulated radio. Without hostapd recordings it is a 503, as `hostapd`.
 *
 * What stations are removed and which SSID is set lives in this emulator process only: a restart
 * serves the recordings as they are. Each recording is read the first time it is needed and served
 * from memory after that (a scenario is a recording: an edit shows after a restart); the clock's shift
 * of the lease expiries is worked out on each call.
 *
 * @example
 * const network = scenarioNetworks('fixtures/scenarios/default');
 * await network({ chute: 'hello-world', network: 'wifi', … }).hostapd(['SET', 'ssid', 'lab']); // 'OK\n'
 */
export function scenarioNetworks(dir: string, clock?: Pick<ScenarioClock, 'leases'>): (target: NetworkTarget) => NetworkHost {
  const states = new Map<string, NetworkState>();
  /** A recording's text by its path in the scenario (`networkDir(…)/<file>`), read once; null when there is none. */
  const read = memoize((file) => readIfExists(path.join(dir, file)));
  /** The stations of a network's station dump, by its folder in the scenario, parsed once. */
  const recordedStations = memoize(async (folder) => stationBlocks((await read(`${folder}/${NETWORK_FILES.stationDump}`)) ?? ''));

  return (target) => {
    // Handlers validate the names first; anything else has no recordings rather than a path.
    const known = CHUTE_NAME.test(target.chute) && CHUTE_NAME.test(target.network);
    const folder = networkDir(target.chute, target.network);
    const where = `${target.chute}/${target.network}`;
    const key = JSON.stringify([target.chute, target.network]);
    const state = () => {
      let found = states.get(key);
      if (found === undefined) states.set(key, (found = { removed: new Set(), ssid: undefined, listeners: new Set() }));
      return found;
    };

    async function recording(file: string): Promise<string | null> {
      return known ? read(`${folder}/${file}`) : null;
    }

    async function stations() {
      const removed = states.get(key)?.removed;
      const blocks = known ? await recordedStations(folder) : [];
      return removed === undefined ? blocks : blocks.filter((block) => !removed.has(block.mac.toLowerCase()));
    }

    /** hostapd's recorded `STATUS` and `GET_CONFIG` replies; a 503 when neither is recorded. */
    async function hostapdRecordings(): Promise<[string | null, string | null]> {
      const [status, config] = await Promise.all([recording(NETWORK_FILES.hostapdStatus), recording(NETWORK_FILES.hostapdConfig)]);
      if (status === null && config === null) {
        throw new HttpProblem(
          503,
          `hostapd's control interface is not recorded for ${where} (its scenario folder has no ${NETWORK_FILES.hostapdStatus} or ${NETWORK_FILES.hostapdConfig})`,
        );
      }
      return [status, config];
    }

    /** A recorded hostapd reply, with the SSID set since the start in its `ssidKey` line. */
    function hostapdReply(reply: string | null, file: string, what: string, ssidKey: (reply: string) => string): string {
      if (reply === null) throw new HttpProblem(503, `hostapd's ${what} is not recorded for ${where} (no ${file} in its scenario folder)`);
      const ssid = states.get(key)?.ssid;
      return ssid === undefined ? reply : replaceValue(reply, ssidKey(reply), encodeSsid(ssid));
    }

    return {
      async stationDump() {
        return (await stations()).map((block) => block.text).join('');
      },
      async stationGet(mac) {
        return (await stations()).find((block) => block.mac.toLowerCase() === mac.toLowerCase())?.text ?? null;
      },
      async stationDel(mac) {
        const lower = mac.toLowerCase();
        if (!(await stations()).some((block) => block.mac.toLowerCase() === lower)) return false;
        state().removed.add(lower);
        for (const listener of state().listeners) listener(`AP-STA-DISCONNECTED ${lower}`);
        return true;
      },
      async leases() {
        const text = await recording(NETWORK_FILES.leases);
        return text === null || clock === undefined ? text : clock.leases(text);
      },
      async hostapdEvents(onEvent) {
        await hostapdRecordings();
        const listeners = state().listeners;
        const listener = (text: string) => onEvent(text);
        listeners.add(listener);
        return {
          async stop() {
            listeners.delete(listener);
          },
        };
      },
      async hostapd(command) {
        const [status, config] = await hostapdRecordings();
        const line = command.join(' ');
        if (line === 'STATUS') {
          return hostapdReply(status, NETWORK_FILES.hostapdStatus, 'STATUS', (reply) => `ssid[${bssIndex(reply, config, target.hostInterface)}]`);
        }
        if (line === 'GET_CONFIG') return hostapdReply(config, NETWORK_FILES.hostapdConfig, 'GET_CONFIG', () => 'ssid');
        if (line === 'RELOAD') return 'OK\n';
        if (line === 'PING') return 'PONG\n';
        if (line.startsWith('SET ')) {
          // hostapd splits `SET <field> <value>` at the first space after the field: the value may hold spaces.
          const rest = line.slice('SET '.length);
          const space = rest.indexOf(' ');
          if (space < 0 || rest.slice(0, space) !== 'ssid') return 'FAIL\n';
          const ssid = rest.slice(space + 1);
          const bytes = new TextEncoder().encode(ssid).length;
          if (bytes < 1 || bytes > SSID_MAX_BYTES) return 'FAIL\n';
          state().ssid = ssid;
          return 'OK\n';
        }
        return 'UNKNOWN COMMAND\n';
      },
    };
  };
}

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

/** The reply with the value of its `key=` line replaced. */
function replaceValue(reply: string, key: string, value: string): string {
  return reply
    .split('\n')
    .map((line) => (line.startsWith(`${key}=`) ? `${key}=${value}` : line))
    .join('\n');
}
