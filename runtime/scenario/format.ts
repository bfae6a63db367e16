import { parse, stringify } from 'yaml';
import * as z from 'zod/mini';
import { en } from 'zod/locales';
import { byLogTime, LogEntrySchema, logLine } from '../../functions/core/logs.ts';
import { SERVICE_NAME } from '../../functions/chutes/services.ts';
import { CONTAINER_REF, type LogEntry, type PactlListing } from '../../functions/core/device/index.ts';
import { KNOWN_PROGRAMS } from '../../functions/info/features.ts';
import { SsidSchema } from '../../functions/networks/ssid-body.ts';
import type { ChuteFormat } from '../chutes/store.ts';

/**
 * The parts of a scenario folder that are not mirrored device files (see fixtures/scenarios/README.md).
 * `emulator/scenario/device.ts` reads them and `chutebox record` (runtime/record/) writes them, both
 * through this module, which lies in the runtime so that both import it downward.
 */
export const DEVICE_FILE = 'device.yaml';
/** Raw body of `GET /containers/json?all=1`; absent means the device has no container engine. */
export const CONTAINERS_FILE = 'engine/containers.json';
/** Folder of the stats bodies, one `<id>.json` per container. */
export const STATS_DIR = 'engine/stats';
/** Raw body of `GET /containers/<id>/stats?stream=false` of one container. */
export function statsFile(containerId: string): string {
  return `${STATS_DIR}/${containerId}.json`;
}

/** Where a scenario keeps what `pactl` printed, by listing: the device's audio server (emulator/scenario/audio.ts). */
export const PACTL_FILES: Readonly<Record<PactlListing, string>> = {
  info: '/pactl/info.json',
  sinks: '/pactl/sinks.json',
  sources: '/pactl/sources.json',
  modules: '/pactl/modules.json',
  'modules-short': '/pactl/modules-short.txt',
};

/** Where the passwd database is, on a device and in a scenario (`etc/passwd`). */
export const PASSWD_FILE = '/etc/passwd';

/** Folder of the installed chutes: `chutes/<chute>/chute.yaml`, `service.yaml`, optional `cache.yaml` and `logs`. */
export const CHUTES_DIR = 'chutes';

/**
 * A scenario keeps a chute's documents as YAML, read through the runtime's chute store. A document
 * with nothing but comments is an empty mapping.
 */
export const YAML_CHUTE_FORMAT: ChuteFormat = { extension: '.yaml', decode: (text) => parse(text) ?? {} };

/**
 * The raw recordings of one chute network, under `networkDir(chute, network)`, named so that a
 * device's output can be dropped in as it is: each file is what the tool printed, verbatim.
 */
export const NETWORK_FILES = {
  /** `iw dev <host interface> station dump`. */
  stationDump: 'iw-station-dump.txt',
  /** The network's dnsmasq lease file. */
  leases: 'dnsmasq.leases',
  /** hostapd's reply to `STATUS` (as `hostapd_cli -i <if> status` prints it). */
  hostapdStatus: 'hostapd-status.txt',
  /** hostapd's reply to `GET_CONFIG`. */
  hostapdConfig: 'hostapd-get-config.txt',
  /** `hostapd_cli -i <if> all_sta`: each station hostapd knows, recorded where iw could not answer. */
  hostapdStations: 'hostapd-all-sta.txt',
} as const;

/** The folder of one chute network's recordings, relative to the scenario. */
export function networkDir(chute: string, network: string): string {
  return `${CHUTES_DIR}/${chute}/networks/${network}`;
}

/** A chute's log in a scenario, relative to it: what its process printed, one `LogEntry` per line (`parseLogFile`). */
export function chuteLogFile(chute: string): string {
  return `${CHUTES_DIR}/${chute}/logs`;
}

/** A line of a chute's log file: a `LogEntry`, and the service that printed it unless it is the chute's main one. */
export type ChuteLogFileEntry = LogEntry & { service?: string };

const ChuteLogFileEntrySchema = z.strictObject({ ...LogEntrySchema.shape, service: z.optional(z.string().check(z.regex(SERVICE_NAME))) });

/**
 * A chute's log file: one JSON `{time, service, stream, message}` per line (`LogEntrySchema` and the
 * service, left out for the chute's main one), answered in the order of their times (lines of the
 * same time as written); blank lines are left out.
 *
 * @throws ScenarioError naming the file, the line and the field.
 * @example
 * parseLogFile('{"time":"2026-11-21T12:00:00Z","stream":"stdout","message":"ready"}\n', 'chutes/hello/logs') // [{ time: '2026-11-21T12:00:00Z', stream: 'stdout', message: 'ready' }]
 */
export function parseLogFile(text: string, file: string): ChuteLogFileEntry[] {
  const entries: ChuteLogFileEntry[] = [];
  for (const [index, line] of text.split('\n').entries()) {
    if (line.trim() === '') continue;
    const where = `${file} line ${index + 1}`;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      throw new ScenarioError(`${where} is not JSON: ${(error as Error).message}`);
    }
    entries.push(check(ChuteLogFileEntrySchema, value, `${where} is not a log line`));
  }
  return entries.sort(byLogTime);
}

/**
 * Writes a chute's log file, each line's service left out where it is `mainService`; `parseLogFile`
 * reads it back to the same entries, and the emulator gives those without one the chute's main service.
 */
export function formatLogFile(entries: readonly ChuteLogFileEntry[], mainService: string): string {
  return entries.map(({ service, ...entry }) => logLine(service === mainService ? entry : { ...entry, service }, true)).join('');
}

/**
 * A scenario's recorded snapd (`DeviceServices.snapd`), relative to it: snapd's answer to each request
 * by method and path (the query and body aside), whose `body` is snapd's JSON. Without it the emulated
 * device runs no snapd.
 */
export const SNAPD_FILE = 'snapd.yaml';

/** One of snapd's answers in `SNAPD_FILE`. */
const SnapdRecordedAnswer = z.strictObject({
  method: z.string().check(z.regex(/^[A-Z]+$/, { error: 'must be an HTTP method in capitals' })),
  path: z.string().check(z.regex(/^\/[^?#]*$/, { error: 'must be a path from "/", without a query' })),
  status: z.int().check(z.gte(200), z.lte(599)),
  body: z.unknown(),
});

/** What `SNAPD_FILE` holds. */
export const SnapdRecording = z.strictObject({ answers: z.array(SnapdRecordedAnswer) });
export type SnapdRecording = z.infer<typeof SnapdRecording>;

/**
 * Parses and checks a scenario's recorded snapd.
 *
 * @throws ScenarioError naming the file and every bad field.
 * @example
 * parseSnapdFile('answers: [{method: GET, path: /v2/interfaces, status: 200, body: {type: sync}}]\n', 'snapd.yaml').answers[0].status // 200
 */
export function parseSnapdFile(text: string, file: string): SnapdRecording {
  return check(SnapdRecording, parseScenarioYaml(text, file), `${file} is not a valid recorded snapd`);
}

/** Writes one of a chute's documents as YAML; `YAML_CHUTE_FORMAT` reads it back to the same value. */
export function formatChuteYaml(value: Record<string, unknown>, comment: string): string {
  return `${yamlComment(comment)}\n${stringify(value, { lineWidth: 0 })}`;
}

/** A problem with a scenario (unknown name, bad device.yaml, bad engine recording). */
export class ScenarioError extends Error {
  override name = 'ScenarioError';
}

const count = z.int().check(z.nonnegative());

const FsStats = z.strictObject({ type: count, bsize: count, blocks: count, bfree: count, bavail: count, files: count, ffree: count });

/** `device.yaml`: what a device answers that has no raw file, i.e. `uname(2)`, `statfs(2)` and its programs. */
export const DeviceYaml = z.strictObject({
  description: z.optional(z.string()),
  uname: z.strictObject({ sysname: z.string(), release: z.string(), version: z.string(), machine: z.string() }),
  /** Mount point (absolute path) → statfs of it. A mount point missing here has no statfs. */
  statfs: z.optional(z.record(z.string().check(z.startsWith('/')), FsStats)),
  /** The programs the device has on its PATH, of `KNOWN_PROGRAMS` (`DeviceSources.programs`); absent: none. */
  programs: z.optional(z.array(z.enum(KNOWN_PROGRAMS))),
  /**
   * What each device of a fleet makes its own besides what the fleet finds by itself (MACs, serials,
   * host names, container ids): `ssids`, the SSIDs it answers with its index (`OpenWrt-42`).
   */
  identity: z.optional(z.strictObject({ ssids: z.optional(z.array(SsidSchema)) })),
});
export type DeviceYaml = z.infer<typeof DeviceYaml>;

/**
 * A container id as it names `engine/stats/<id>.json`: letters, digits, `_`, `.`, `-`, starting with a
 * letter or digit (`CONTAINER_REF`, so it can never be `..` or hold a slash).
 */
const ContainerId = z.string().check(z.regex(CONTAINER_REF, { error: 'must be letters, digits, "_", "." or "-"' }));

const text = z.optional(z.string());

/**
 * One container as the engine lists it (`GET /containers/json`): the fields chutebox reads have the
 * types Docker gives them (`Id`, `Names`, `Image`, `Created`, `Labels`, `State`, `Status`, the
 * addresses in `NetworkSettings`), any of them but `Id` may be left out, and the rest is passed on raw.
 */
export const ContainerSchema = z.looseObject({
  Id: ContainerId,
  Names: z.optional(z.array(z.string())),
  Image: text,
  Created: z.optional(z.int()),
  Labels: z.optional(z.nullable(z.record(z.string(), z.string()))),
  State: text,
  Status: text,
  NetworkSettings: z.optional(z.looseObject({ Networks: z.optional(z.nullable(z.record(z.string(), z.looseObject({ IPAddress: text })))) })),
});

/** `engine/containers.json`: the engine's list of containers. */
export const ContainerList = z.array(ContainerSchema);

/** `engine/stats/<id>.json`: one raw stats body. */
export const StatsBody = z.record(z.string(), z.unknown());

/**
 * Parses and checks `device.yaml`.
 *
 * @throws ScenarioError naming the file and every bad field, e.g.
 *   `…/device.yaml is not a valid scenario device file:\n✖ Invalid input: expected string, received undefined\n  → at uname.machine`
 * @example
 * parseDeviceYaml('uname: {sysname: Linux, release: 6.1.0, version: "#1", machine: x86_64}\n', 'device.yaml')
 */
export function parseDeviceYaml(text: string, file: string): DeviceYaml {
  return check(DeviceYaml, parseScenarioYaml(text, file), `${file} is not a valid scenario device file`);
}

/**
 * A scenario document's YAML, parsed (an empty document is an empty mapping), to be checked next.
 *
 * @throws ScenarioError naming the file when it is not YAML.
 */
export function parseScenarioYaml(text: string, file: string): unknown {
  try {
    return parse(text) ?? {};
  } catch (error) {
    throw new ScenarioError(`${file} is not valid YAML: ${(error as Error).message}`);
  }
}

/** Writes `device.yaml` with a leading comment; `parseDeviceYaml` reads it back to the same value. */
export function formatDeviceYaml(value: DeviceYaml, comment: string): string {
  return `${yamlComment(comment)}\n${stringify(value, { lineWidth: 0 })}`;
}

function yamlComment(text: string): string {
  return text
    .split('\n')
    .map((line) => `# ${line}`.trimEnd())
    .join('\n');
}

/**
 * Checks a value against a scenario schema, with English messages, without touching zod's global
 * configuration (the emulator shares its process with the runtime's code).
 *
 * @throws ScenarioError `<what>:` followed by one line per problem and where it is.
 */
export function check<T>(schema: z.ZodMiniType<T>, value: unknown, what: string): T {
  const result = schema.safeParse(value, { error: en().localeError });
  if (result.success) return result.data;
  throw new ScenarioError(`${what}:\n${z.prettifyError(result.error)}`);
}
