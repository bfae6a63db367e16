import { decodeDocumentBody } from '../core/body/index.ts';
import { CHUTE_NAME } from '../core/device/index.ts';
import { isHttpProblem, nestedPath, type InputError } from '../core/problem.ts';
import type { RouteOptions } from '../core/route.ts';
import { invalidInput, validate } from '../core/validate.ts';
import { collectViolations } from '../core/violations.ts';
import { tarFiles } from '../parsers/image-archive.ts';
import { checkChuteConfig, EnvironmentSchema, environmentStrings } from './chute-config.ts';
import { CHUTE_NAME_MESSAGE } from './params.ts';
import { mapping } from './chute-record.ts';

/*
 * A chute's source as pdtools uploads it (`pdtools node install-chute`, `update-chute`): a tar of the
 * chute's folder with `paradrop.yaml` (or `paradrop.yml`) at its root, read here into what chutebox
 * stores. ParaDrop's two forms of paradrop.yaml map onto chutebox's chute record and configuration:
 *
 * | paradrop.yaml                                     | chutebox                                         |
 * |---------------------------------------------------|--------------------------------------------------|
 * | `name` (or the older `config.name`)               | the chute's name                                 |
 * | `version` (string or number)                      | the record's `version` (as text)                 |
 * | `environment` (the chute's)                       | the record's `environment` (values as text)      |
 * | older form: `config` (`environment`, `net`, `web`, `host_config`, …) | the configuration, as written, unknown fields kept |
 * | `services.<one>.environment`                      | configuration `environment`                      |
 * | `services.<one>.interfaces.<intf>`                | configuration `net.<intf>`, `intfName: <intf>`; `type: wifi-ap` → `type: wifi`, `wifi-monitor` → `type: wifi, mode: monitor`; `wireless.ssid`/`key` → `ssid`/`key`, the other `wireless` fields → `options`; other fields (`dhcp`, `requirements`, …) kept |
 * | `services.<one>.requests.port-bindings` (`[{external, internal}]`) | configuration `host_config.port_bindings` (`{internal: external}`) |
 * | `web` (`{service, port}`)                         | configuration `web`, as written                  |
 *
 * Refused (422, naming the field): a service `type` other than `normal` (`light` has ParaDrop generate
 * a Dockerfile: the chute must bring its own), more than one service (chutebox runs one container per
 * chute), a `source` other than the upload's root, and an upload without a `Dockerfile` at its root.
 * Other fields (`description`, a service's `image` and `command`, `requests` other than port
 * bindings) are not kept: a normal service's image and command are its Dockerfile's.
 */

/** The media type of an uploaded tar: a chute's source or an image archive. */
export const TAR_TYPE = 'application/x-tar';

/**
 * The bodies of the routes that install or update a chute: a JSON or YAML document, or a tar as raw
 * bytes (`readUpload`).
 */
export const DOCUMENT_OR_TAR = { body: 'document', upload: [TAR_TYPE] } as const satisfies RouteOptions;

/** The files pdtools puts at the root of a chute's source, the first found is read. */
const CHUTE_FILES = ['paradrop.yaml', 'paradrop.yml'] as const;

/** What a chute's source installs: the chute record's fields and its configuration, and where they are in the request. */
export interface ChuteSource {
  name: string;
  version: string | null;
  environment: Record<string, string>;
  config: Record<string, unknown>;
  /** Where the chute's name is in the request: `body.paradrop.yaml.name`. */
  namePath: string;
  /** Where a path of the configuration (`net.wlan.ssid`) came from in the request: `body.paradrop.yaml.services.main.interfaces.wlan.wireless.ssid`. */
  configPath(path: string): string;
}

/** What an upload to POST /api/v1/chutes/ holds, told apart by its content. */
export type UploadKind = 'source' | 'image-archive';

/** An uploaded tar, read: what it is, and the files at its root that chutebox reads (`UPLOAD_FILES`). */
export interface Upload {
  kind: UploadKind;
  files: ReadonlyMap<string, Uint8Array>;
}

/** The files at the root of an upload that tell what it is and that chutebox reads. */
const UPLOAD_FILES = [...CHUTE_FILES, 'Dockerfile', 'manifest.json'];

/**
 * Reads an uploaded tar once, to its end: whether it is a chute's source (`paradrop.yaml` or
 * `paradrop.yml` at its root) or an image archive (`docker save`: `manifest.json` at its root), and
 * the files of `UPLOAD_FILES` it has. Damage anywhere, after the files looked for too, is the
 * client's mistake: the engine would fail on it later, with the change already queued.
 *
 * @throws HttpProblem 422 naming `body`, saying what is wrong or what was expected, when it is not a
 *   tar, is damaged or cut short, or is neither.
 * @example
 * (await readUpload(tarArchive({ 'paradrop.yaml': 'name: hello\n', Dockerfile: 'FROM busybox\n' }))).kind // 'source'
 */
export async function readUpload(archive: Uint8Array): Promise<Upload> {
  let files: Map<string, Uint8Array>;
  try {
    files = await tarFiles(archive, UPLOAD_FILES);
  } catch (error) {
    throw invalidInput('the uploaded tar', [{ path: 'body', message: (error as Error).message }]);
  }
  if (CHUTE_FILES.some((name) => files.has(name))) return { kind: 'source', files };
  if (files.has('manifest.json')) return { kind: 'image-archive', files };
  const expected =
    "the tar is neither a chute's source (paradrop.yaml at its root, as pdtools sends it) nor an image archive (manifest.json at its root, as docker save writes it)";
  throw invalidInput('the uploaded tar', [{ path: 'body', message: expected }]);
}

/**
 * Reads a chute's source (an upload `readUpload` read): its paradrop.yaml, mapped onto chutebox's
 * record and configuration (see the table above), everything checked at once.
 *
 * @throws HttpProblem 422 listing every violation, paths under the file in the body
 *   (`body.paradrop.yaml.name`, `body.paradrop.yaml.services.main.type`,
 *   `body.paradrop.yaml.config.net.wlan.ssid`), `body` when the upload is not a chute's source.
 * @example
 * readChuteSource(await readUpload(tarArchive({ 'paradrop.yaml': 'name: hello\nversion: 2\nconfig:\n  web: { port: 80 }\n', Dockerfile: 'FROM busybox\n' })))
 * // { name: 'hello', version: '2', environment: {}, config: { web: { port: 80 } }, namePath: 'body.paradrop.yaml.name', configPath }
 */
export function readChuteSource(upload: Upload): ChuteSource {
  const subject = "the chute's source";
  const file = CHUTE_FILES.find((name) => upload.files.has(name));
  if (file === undefined) throw invalidInput(subject, [{ path: 'body', message: "is not a chute's source: the tar has no paradrop.yaml at its root" }]);
  const at = nestedPath('body', file);
  let spec: Record<string, unknown>;
  try {
    spec = decodeDocumentBody('application/yaml', new TextDecoder().decode(upload.files.get(file)));
  } catch (error) {
    if (!isHttpProblem(error)) throw error;
    throw invalidInput(subject, [{ path: at, message: error.message }]);
  }
  const violations: InputError[] = [];
  const where = (path: string) => nestedPath(at, path);
  const fail = (path: string, message: string) => violations.push({ path: where(path), message });

  const older = 'services' in spec ? undefined : spec.config;
  const name = spec.name ?? mapping(older).name;
  if (name === undefined) fail('name', 'is required: the name of the chute');
  else if (typeof name !== 'string' || !CHUTE_NAME.test(name)) fail('name', CHUTE_NAME_MESSAGE);

  const version = spec.version;
  if (version !== undefined && version !== null && typeof version !== 'string' && !(typeof version === 'number' && Number.isFinite(version))) {
    fail('version', 'must be a version label (a string)');
  }

  const given = spec.environment;
  const environment =
    given === undefined || given === null
      ? {}
      : (collectViolations(violations, () => environmentStrings(validate(EnvironmentSchema, given, `${at}.environment`))) ?? {});

  const form = 'services' in spec ? fromServices(spec, fail) : fromOlderForm(spec, fail);
  if (form !== null) {
    if (!upload.files.has('Dockerfile')) fail(form.source, "has no Dockerfile: chutebox builds the chute's image from a Dockerfile at the root of its source");
    collectViolations(
      violations,
      () => checkChuteConfig(form.config),
      (path) => where(form.pathOf(path)),
    );
  }
  if (violations.length > 0 || form === null) throw invalidInput(subject, violations);
  return {
    name: name as string,
    version: version === undefined || version === null ? null : String(version),
    environment,
    config: form.config,
    namePath: where(spec.name === undefined ? 'config.name' : 'name'),
    configPath: (path) => where(form.pathOf(path)),
  };
}

/** A chute configuration read from paradrop.yaml, where its service's source is, and where each configuration path came from. */
interface Form {
  config: Record<string, unknown>;
  /** The path (under paradrop.yaml) that names the build's source. */
  source: string;
  /** The paradrop.yaml path (without `paradrop.yaml.`) of a configuration path (`net.wlan.ssid`). */
  pathOf(configPath: string): string;
}

type Fail = (path: string, message: string) => void;

/** The types of a service chutebox cannot build, and what to do instead. */
function refusedType(type: unknown): string | null {
  if (type === undefined || type === null || type === 'normal') return null;
  if (type === 'light')
    return 'light is not supported: ParaDrop generates a Dockerfile from a base image for it; add a Dockerfile to the source and set type: normal';
  if (type === 'image')
    return 'image is not supported in a source upload: install a chute from an image already in the engine with a JSON body ({"name", "image"})';
  return 'must be normal (a Dockerfile at the root of the source)';
}

/** The older form: `type`, `use`, `command` and `config` at the top level. */
function fromOlderForm(spec: Record<string, unknown>, fail: Fail): Form | null {
  const reason = refusedType(spec.type);
  if (reason !== null) fail('type', reason);
  const config = spec.config ?? {};
  if (typeof config !== 'object' || config === null || Array.isArray(config)) {
    fail('config', 'must be a mapping: the chute configuration (environment, net, web, host_config)');
    return null;
  }
  return { config: config as Record<string, unknown>, source: '', pathOf: (path) => nestedPath('config', path) };
}

/** The form with `services`: exactly one, of type normal, built from the root of the source. */
function fromServices(spec: Record<string, unknown>, fail: Fail): Form | null {
  const services = spec.services;
  if (typeof services !== 'object' || services === null || Array.isArray(services)) {
    fail('services', 'must be a mapping of service names to services');
    return null;
  }
  const names = Object.keys(services);
  if (names.length !== 1) {
    fail(
      'services',
      `must hold exactly one service: chutebox runs one container per chute (found ${names.length}${names.length > 0 ? `: ${names.join(', ')}` : ''})`,
    );
    return null;
  }
  const serviceName = names[0]!;
  const at = `services.${serviceName}`;
  const service = (services as Record<string, unknown>)[serviceName];
  if (typeof service !== 'object' || service === null || Array.isArray(service)) {
    fail(at, 'must be a mapping: the service (type, source, environment, interfaces, requests)');
    return null;
  }
  const { type, source, environment, interfaces, requests } = service as Record<string, unknown>;
  const reason = refusedType(type);
  if (reason !== null) fail(`${at}.type`, reason);
  if (source !== undefined && source !== null && !isSourceRoot(source)) {
    fail(`${at}.source`, 'must be . : chutebox builds from the root of the upload (move the Dockerfile and its files there)');
  }
  const web = spec.web;
  const webService = mapping(web).service;
  if (webService !== undefined && webService !== serviceName) fail('web.service', `must name the chute's service, ${serviceName}`);

  const config: Record<string, unknown> = {};
  if (environment !== undefined) config.environment = environment;
  if (interfaces !== undefined) config.net = networks(interfaces);
  const portBindings = mapping(requests)['port-bindings'];
  if (portBindings !== undefined) {
    const bindings = hostPortBindings(portBindings);
    if (bindings === null) fail(`${at}.requests.port-bindings`, 'must be a list of {external, internal} port numbers');
    else config.host_config = { port_bindings: bindings };
  }
  if (web !== undefined) config.web = web;
  return { config, source: `${at}.source`, pathOf: (path) => servicePath(at, path) };
}

/**
 * Whether a service's `source` is the root of the upload: `.`, `./` or empty. (YAML 1.1, as the
 * body decoder reads it, takes a bare `.` for a float, NaN, where ParaDrop's PyYAML reads a string.)
 */
function isSourceRoot(source: unknown): boolean {
  return (typeof source === 'string' && /^\.?\/?$/.test(source)) || Number.isNaN(source);
}

/** The wireless fields that chutebox's access point keeps at its top level; the others go to `options`. */
const TOP_LEVEL_WIRELESS = new Set(['ssid', 'key']);

/** ParaDrop's `interfaces` (by interface name, `type: wifi-ap`, `wireless: {…}`) as chutebox's `net`. */
function networks(interfaces: unknown): unknown {
  if (typeof interfaces !== 'object' || interfaces === null || Array.isArray(interfaces)) return interfaces;
  const net: Record<string, unknown> = {};
  for (const [intfName, value] of Object.entries(interfaces)) {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      net[intfName] = value;
      continue;
    }
    const { type, wireless, ...rest } = value as Record<string, unknown>;
    const entry: Record<string, unknown> = { ...rest, intfName };
    if (type === 'wifi-ap') entry.type = 'wifi';
    else if (type === 'wifi-monitor') Object.assign(entry, { type: 'wifi', mode: 'monitor' });
    else entry.type = type;
    const options: Record<string, unknown> = { ...mapping(rest.options) };
    for (const [key, setting] of Object.entries(mapping(wireless))) {
      if (TOP_LEVEL_WIRELESS.has(key)) entry[key] = setting;
      else options[key] = setting;
    }
    if (Object.keys(options).length > 0) entry.options = options;
    net[intfName] = entry;
  }
  return net;
}

/** `[{external: 8080, internal: 80}]` as `{ 80: 8080 }`; a mapping as it is; null for anything else. */
function hostPortBindings(value: unknown): Record<string, unknown> | null {
  if (Array.isArray(value)) {
    const bindings: Record<string, unknown> = {};
    for (const binding of value) {
      const { external, internal } = mapping(binding);
      if ((typeof internal !== 'number' && typeof internal !== 'string') || external === undefined) return null;
      bindings[String(internal)] = external;
    }
    return bindings;
  }
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : null;
}

/** Where a configuration path built from a service came from in paradrop.yaml. */
function servicePath(at: string, path: string): string {
  const [head, network, field, ...rest] = path.split('.');
  if (head === 'environment') return `${at}.${path}`;
  if (head === 'web') return path;
  if (head === 'host_config') return `${at}.requests.port-bindings`;
  if (head === 'net') {
    if (network === undefined) return `${at}.interfaces`;
    const intf = `${at}.interfaces.${network}`;
    if (field === undefined || field === 'intfName') return intf;
    if (TOP_LEVEL_WIRELESS.has(field) && rest.length === 0) return `${intf}.wireless.${field}`;
    if (field === 'options' && rest.length > 0) return `${intf}.wireless.${rest.join('.')}`;
    return [intf, field, ...rest].join('.');
  }
  return path === '' ? at : `${at}.${path}`;
}
