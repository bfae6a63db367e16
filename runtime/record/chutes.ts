import { isDeepStrictEqual } from 'node:util';
import { connectedStations } from '../../functions/networks/connected-stations.ts';
import { chuteNetworks, type NetworkKind } from '../../functions/chutes/lookup.ts';
import { byLogTime, nanoTime, readEntries } from '../../functions/core/logs.ts';
import { CHUTE_NAME, type ChuteLogEntry, type Device, type LogTime, type NetworkHost } from '../../functions/core/device/index.ts';
import { deviceTime } from '../../functions/info/device-time.ts';
import { isHttpProblem } from '../../functions/core/problem.ts';
import { REDACTED, redactSecrets } from '../../functions/parsers/environ.ts';
import { formatLogFile } from '../scenario/format.ts';
import { MAIN_SERVICE, mainServiceName } from '../../functions/chutes/services.ts';
import type { NetworkRecording, Recording } from './recording-device.ts';

/**
 * Asks `device` (a recording device) about every installed chute and, for each network of its
 * configuration's `net` (as the network endpoints see them, `chuteNetworks`), for the raw sources
 * those endpoints read: of a Wi-Fi access point its stations as the station endpoints read them (the
 * station dump, or where iw cannot answer hostapd's `all_sta`), the lease file and hostapd's `STATUS`
 * and `GET_CONFIG`; of a VLAN network its lease file; of a monitor interface nothing. A read
 * that fails with a 5xx problem (a tool or socket is missing, or did not answer in time) is left out
 * of the recording.
 *
 * @returns one warning per read left out (a log that cannot be read among them), and per network whose
 *   name cannot name a scenario folder.
 * @example
 * const { device, recording } = recordingDevice(createHostDevice({ stateDir }));
 * for (const warning of await readChutes(device)) console.error(`warning: ${warning}`);
 */
export async function readChutes(device: Device): Promise<string[]> {
  const warnings: string[] = [];
  const engine = (await device.containers()) !== null;
  const recordedAt = await deviceTime(device);
  const until = recordedAt === null ? null : nanoTime(new Date(recordedAt).toISOString());
  for (const name of await device.chuteNames()) {
    const chute = await device.chute(name);
    if (chute === null) continue;
    if (engine) await recorded(warnings, `${name}: its log`, () => readLog(device, name, until));
    for (const network of chuteNetworks(chute)) {
      if (!CHUTE_NAME.test(network.name)) {
        warnings.push(`${name}/${network.name}: not recorded, as its name cannot name a folder`);
        continue;
      }
      const host = device.network(network.target);
      for (const [what, read] of readsOf(device, network.kind, host)) await recorded(warnings, `${name}/${network.name}: ${what}`, read);
    }
  }
  return warnings;
}

/** Runs a read of the recording; one that fails with a 5xx problem is a warning, `<what> is not recorded: <why>`. */
async function recorded(warnings: string[], what: string, read: () => Promise<unknown>): Promise<void> {
  try {
    await read();
  } catch (error) {
    if (!isHttpProblem(error) || error.status < 500) throw error;
    warnings.push(`${what} is not recorded: ${error.message}`);
  }
}

/** How many of a chute's last lines a recording keeps, at most. */
export const RECORDED_LOG_LINES = 1000;

/** How many bytes of a chute's log file a recording keeps, at most: the newest lines that fit (a scenario file is cut at 1 MiB). */
export const RECORDED_LOG_BYTES = 256 * 1024;

/**
 * Reads a chute's last `RECORDED_LOG_LINES` lines up to `until`, the recording's time (`deviceTime`,
 * which a scenario is replayed from: none comes later in the emulator), through `device`, which
 * records them.
 */
async function readLog(device: Device, chute: string, until: LogTime | null): Promise<void> {
  await readEntries(await device.chuteLogs(chute, { follow: false, since: null, until, tail: RECORDED_LOG_LINES }));
}

/**
 * Keeps, of each chute's recorded log, the newest lines whose log file (`formatLogFile`) fits in
 * `RECORDED_LOG_BYTES`, in time order (the engine may send a line of one stream a little before an
 * earlier one of the other); a chute whose log is empty keeps none.
 */
export function boundLogs(recording: Recording): void {
  for (const [chute, entries] of recording.logs) {
    const kept: ChuteLogEntry[] = [];
    const record = recording.chutes.get(chute)?.record;
    const main = record === undefined ? MAIN_SERVICE : mainServiceName(record);
    let bytes = 0;
    for (const entry of [...entries].sort(byLogTime).reverse()) {
      bytes += Buffer.byteLength(formatLogFile([entry], main));
      if (bytes > RECORDED_LOG_BYTES) break;
      kept.push(entry);
    }
    if (kept.length === 0) recording.logs.delete(chute);
    else recording.logs.set(chute, kept.reverse());
  }
}

/** What is read of a network of a kind: what each read is called, and the read. */
function readsOf(device: Device, kind: NetworkKind, host: NetworkHost): [string, () => Promise<unknown>][] {
  const leases: [string, () => Promise<unknown>] = ['the lease file', () => host.leases()];
  if (kind === 'vlan') return [leases];
  if (kind !== 'access-point') return [];
  return [
    ['the stations', () => connectedStations(device, host)],
    leases,
    ["hostapd's STATUS", () => host.hostapd(['STATUS'])],
    ["hostapd's GET_CONFIG", () => host.hostapd(['GET_CONFIG'])],
  ];
}

/**
 * Replaces the secrets of the recorded chutes by `[redacted]`, so that none reaches the scenario:
 * the values of secret-looking environment variables (the environment endpoint's rule) in the chute
 * record and configuration, and each network's Wi-Fi `key` and RADIUS `options.acct_secret`.
 */
export function redactChutes(recording: Recording): void {
  for (const chute of recording.chutes.values()) {
    if (chute === null) continue;
    redactEnvironment(chute.record);
    redactEnvironment(chute.config);
    const net = chute.config.net;
    if (typeof net !== 'object' || net === null) continue;
    for (const settings of Object.values(net as Record<string, unknown>)) {
      if (typeof settings !== 'object' || settings === null) continue;
      if ('key' in settings) (settings as Record<string, unknown>).key = REDACTED;
      const options = (settings as Record<string, unknown>).options as Record<string, unknown> | undefined;
      if (typeof options === 'object' && options !== null && 'acct_secret' in options) options.acct_secret = REDACTED;
    }
  }
}

function redactEnvironment(document: Record<string, unknown>): void {
  const environment = document.environment;
  if (typeof environment !== 'object' || environment === null || Array.isArray(environment)) return;
  const values = environment as Record<string, unknown>;
  for (const [name, value] of redactSecrets(Object.keys(values).map((name) => [name, '']))) {
    if (value === REDACTED) values[name] = REDACTED;
  }
}

/**
 * Compares a written scenario (its Device) with the recording it was written from: each chute must
 * read back the same, its log answer the lines recorded, and each network answer the same raw sources.
 *
 * @returns what differs, e.g. `hotspot/guest: hostapdStatus`, `hotspot: its log`; empty when all is the same.
 */
export async function compareChutes(recording: Recording, scenario: Device): Promise<string[]> {
  const differing: string[] = [];
  for (const [name, chute] of recording.chutes) {
    if (!isDeepStrictEqual(await scenario.chute(name), chute)) differing.push(name);
  }
  for (const [name, entries] of recording.logs) {
    const read = await readEntries(await scenario.chuteLogs(name, { follow: false, since: null, until: null, tail: null }));
    if (!isDeepStrictEqual(read, entries)) differing.push(`${name}: its log`);
  }
  for (const [name, networks] of recording.networks) {
    const chute = recording.chutes.get(name);
    const targets = new Map((chute ? chuteNetworks(chute) : []).map((network) => [network.name, network.target]));
    for (const [network, answers] of networks) {
      const host = scenario.network(targets.get(network) ?? { chute: name, network, hostInterface: null, hostapdControl: null, leaseFile: null });
      const read: Record<keyof NetworkRecording, () => Promise<string | null>> = {
        stationDump: () => host.stationDump(),
        leases: () => host.leases(),
        hostapdStatus: () => host.hostapd(['STATUS']),
        hostapdConfig: () => host.hostapd(['GET_CONFIG']),
        hostapdStations: () => host.hostapdStations(),
      };
      for (const [field, expected] of Object.entries(answers) as [keyof NetworkRecording, string | null][]) {
        if ((await read[field]()) !== expected) differing.push(`${name}/${network}: ${field}`);
      }
    }
  }
  return differing;
}
