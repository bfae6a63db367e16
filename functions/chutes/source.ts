import { decodeDocumentBody } from '../core/body/index.ts';
import { CHUTE_NAME } from '../core/device/index.ts';
import { isHttpProblem, nestedPath, type InputError } from '../core/problem.ts';
import type { RouteOptions } from '../core/route.ts';
import { invalidInput, validate } from '../core/validate.ts';
import { collectViolations } from '../core/violations.ts';
import { tarFiles } from '../parsers/image-archive.ts';
import { checkChuteConfig, EnvironmentSchema, environmentStrings } from './chute-config.ts';
import { isImageReference } from './chute-body.ts';
import { CHUTE_NAME_MESSAGE } from './params.ts';
import { mapping } from './chute-record.ts';
import { isCommand, isLightRuntime, LIGHT_RUNTIMES } from './light-dockerfile.ts';
import { MAIN_SERVICE, SERVICE_NAME, type ChuteService, type ChuteServices } from './services.ts';

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
 * | older form: `type: light`, `use`, `command`       | service `main`, built with a Dockerfile chutebox writes for `use` |
 * | `owner`                                           | the record's `owner`                             |
 * | `services.<service>`                              | the record's `services.<service>` (type, source folder, image, use, command, environment); one container each |
 * | `services.<main>.environment` (main: `web.service`, else the first) | configuration `environment`           |
 * | `services.<any>.interfaces.<intf>`                | configuration `net.<intf>`, `intfName: <intf>`; `type: wifi-ap` → `type: wifi`, `wifi-monitor` → `type: wifi, mode: monitor`; `wireless.ssid`/`key` → `ssid`/`key`, the other `wireless` fields → `options`; other fields (`dhcp`, `requirements`, …) kept |
 * | `services.<any>.requests.port-bindings` (`[{external, internal}]`) | configuration `host_config.port_bindings` (`{internal: external}`) |
 * | `web` (`{service, port}`)                         | configuration `web`, as written                  |
 *
 * A service is `normal` (built from the Dockerfile of its `source` folder, `.` by default), `light`
 * (`image`, or the older form's `use`, names its runtime; built from its `source` folder with a
 * Dockerfile chutebox writes, functions/chutes/light-dockerfile.ts) or `image` (an image already in
 * the engine). Refused (422, naming the field): any other type, a `source` outside the upload or
 * without a Dockerfile for a normal service, a light service without a runtime chutebox knows or a
 * `command`, a `command` that is not a string or list of strings, a service name that cannot name a
 * container, and one interface named by two services. Other fields (`description`, `requests` other
 * than port bindings) are not kept.
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
  /** Its services (one for the older form, `main`), each built or run as its type says. */
  services: ChuteServices;
  /** paradrop.yaml's `owner`, null when it names none. */
  owner: string | null;
  /** Where the chute's name is in the request: `body.paradrop.yaml.name`. */
  namePath: string;
  /** Where a path of the configuration (`net.wlan.ssid`) came from in the request: `body.paradrop.yaml.services.main.interfaces.wlan.wireless.ssid`. */
  configPath(path: string): string;
}

/** What an upload to POST /api/v1/chutes/ holds, told apart by its content. */
export type UploadKind = 'source' | 'image-archive';

/** An uploaded tar, read: what it is, the files at its root that chutebox reads (`UPLOAD_FILES`), and the path of each of its files. */
export interface Upload {
  kind: UploadKind;
  files: ReadonlyMap<string, Uint8Array>;
  paths: ReadonlySet<string>;
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
  const paths = new Set<string>();
  try {
    files = await tarFiles(archive, UPLOAD_FILES, paths);
  } catch (error) {
    throw invalidInput('the uploaded tar', [{ path: 'body', message: (error as Error).message }]);
  }
  if (CHUTE_FILES.some((name) => files.has(name))) return { kind: 'source', files, paths };
  if (files.has('manifest.json')) return { kind: 'image-archive', files, paths };
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

  const owner = spec.owner;
  if (owner !== undefined && owner !== null && typeof owner !== 'string') fail('owner', "must be a string: the chute's owner");

  const reading: Reading = { paths: upload.paths, fail, violations, where };
  const form = 'services' in spec ? fromServices(spec, reading) : fromOlderForm(spec, reading);
  if (form !== null) {
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
    services: form.services,
    owner: typeof owner === 'string' ? owner : null,
    namePath: where(spec.name === undefined ? 'config.name' : 'name'),
    configPath: (path) => where(form.pathOf(path)),
  };
}

/** A chute configuration read from paradrop.yaml, its services, and where each configuration path came from. */
interface Form {
  config: Record<string, unknown>;
  services: ChuteServices;
  /** The paradrop.yaml path (without `paradrop.yaml.`) of a configuration path (`net.wlan.ssid`). */
  pathOf(configPath: string): string;
}

type Fail = (path: string, message: string) => void;

/** What the reading of paradrop.yaml's forms shares: the upload's files, and where violations go. */
interface Reading {
  paths: ReadonlySet<string>;
  fail: Fail;
  violations: InputError[];
  where(path: string): string;
}

/** The older form: `type`, `use`, `command` and `config` at the top level, one service, `main`. */
function fromOlderForm(spec: Record<string, unknown>, reading: Reading): Form | null {
  const { fail } = reading;
  if (spec.type === 'image')
    fail('type', 'image is not supported in a source upload: install a chute from an image already in the engine with a JSON body ({"name", "image"})');
  const config = spec.config ?? {};
  if (typeof config !== 'object' || config === null || Array.isArray(config)) {
    fail('config', 'must be a mapping: the chute configuration (environment, net, web, host_config)');
    return null;
  }
  const main = serviceOf({ type: spec.type, source: '.', image: spec.use, command: spec.command }, '', reading, { image: 'use', source: '' });
  if (main === null) return null;
  return {
    config: config as Record<string, unknown>,
    services: { main: MAIN_SERVICE, services: { [MAIN_SERVICE]: main } },
    pathOf: (path) => nestedPath('config', path),
  };
}

/**
 * The form with `services`: each service checked (`serviceOf`); the main one is `web.service`, else
 * the first. The chute's configuration gets the main service's `environment`, and every service's
 * `interfaces` and port bindings: all services are on the chute's networks.
 */
function fromServices(spec: Record<string, unknown>, reading: Reading): Form | null {
  const { fail } = reading;
  const services = spec.services;
  if (typeof services !== 'object' || services === null || Array.isArray(services) || Object.keys(services).length === 0) {
    fail('services', 'must be a mapping of service names to services, at least one');
    return null;
  }
  const names = Object.keys(services);
  const web = spec.web;
  const webService = mapping(web).service;
  if (webService !== undefined && !names.includes(webService as string)) fail('web.service', `must name one of the chute's services: ${names.join(', ')}`);
  const main = typeof webService === 'string' && names.includes(webService) ? webService : names[0]!;
  const config: Record<string, unknown> = {};
  const stored: Record<string, ChuteService> = {};
  const origin = new Map<string, string>();
  for (const name of names) {
    const at = `services.${name}`;
    const service = (services as Record<string, unknown>)[name];
    if (!SERVICE_NAME.test(name)) fail(at, 'must be named with lower-case letters, digits and dashes (at most 32), as a container and a host name take it');
    else if (typeof service !== 'object' || service === null || Array.isArray(service))
      fail(at, 'must be a mapping: the service (type, source, image, command, environment, interfaces, requests)');
    else {
      const entry = serviceOf(service as Record<string, unknown>, at, reading);
      if (entry !== null) stored[name] = entry;
      joinChuteConfig(config, service as Record<string, unknown>, name === main, at, origin, fail);
    }
  }
  if (web !== undefined) config.web = web;
  // The main service's environment is the configuration's (GET …/config shows it, PUT …/config changes it).
  if (stored[main] !== undefined) delete stored[main].environment;
  return { config, services: { main, services: stored }, pathOf: (path) => servicePath(origin, main, path) };
}

/** Where a service's fields are named in its errors: `image` and `source` as they are, or the older form's `use` and the root. */
interface FieldNames {
  image: string;
  source: string;
}

/**
 * A service as the record keeps it: `normal` (built from the Dockerfile of its `source` folder),
 * `light` (`image`, or the older form's `use`, names the runtime; built with a Dockerfile chutebox
 * writes, `command` required) or `image` (an image already in the engine); its `command` and, for a
 * service other than the main one, its `environment`.
 */
function serviceOf(
  service: Record<string, unknown>,
  at: string,
  reading: Reading,
  names: FieldNames = { image: `${at}.image`, source: `${at}.source` },
): ChuteService | null {
  const { fail } = reading;
  const { type, source, image, command, environment } = service;
  const commandOk = command === undefined || command === null || isCommand(command);
  if (!commandOk) fail(nestedPath(at, 'command'), 'must be a command: a string or a list of strings, not empty, without control characters');
  const own = at === '' || environment === undefined ? undefined : serviceEnvironment(environment, at, reading);
  const extra = { ...(isCommand(command) ? { command } : {}), ...(own === undefined ? {} : { environment: own }) };
  if (type === undefined || type === null || type === 'normal') {
    const folder = sourceFolder(source, names.source, reading);
    if (folder !== null && !reading.paths.has(nestedFile(folder, 'Dockerfile')))
      fail(names.source, "has no Dockerfile: chutebox builds a normal service's image from a Dockerfile at the root of its source");
    return folder === null ? null : { type: 'normal', image: null, source: folder, ...extra };
  }
  if (type === 'light') {
    if (!isLightRuntime(image)) fail(names.image, `must name the runtime of a light service: ${Object.keys(LIGHT_RUNTIMES).join(', ')}`);
    if (command === undefined || command === null) fail(nestedPath(at, 'command'), 'is required for a light service: what its container runs');
    const folder = sourceFolder(source, names.source, reading);
    return folder === null || !isLightRuntime(image) ? null : { type: 'light', image: null, source: folder, use: image, ...extra };
  }
  if (type === 'image' && at !== '') {
    if (typeof image !== 'string' || !isImageReference(image)) fail(names.image, 'must be an image already in the engine: repo[:tag] or repo@sha256:<digest>');
    return typeof image === 'string' ? { type: 'image', image, ...extra } : null;
  }
  if (type !== 'image')
    fail(nestedPath(at, 'type'), 'must be normal (its Dockerfile), light (a Dockerfile chutebox writes for a runtime) or image (an image in the engine)');
  return null;
}

/** A service's own `environment`, its values as text; its violations named under the service. */
function serviceEnvironment(environment: unknown, at: string, { violations, where }: Reading): Record<string, string> | undefined {
  return collectViolations(
    violations,
    () => environmentStrings(validate(EnvironmentSchema, environment, 'environment')),
    (path) => where(nestedPath(at, path)),
  );
}

/**
 * The folder of the upload a service is built from, `''` for its root (`.`, `./`, none), `web` for
 * `web`, `./web` or `web/`; null, failed, for one outside the upload or that holds no file.
 */
function sourceFolder(source: unknown, path: string, { paths, fail }: Reading): string | null {
  if (source === undefined || source === null || isSourceRoot(source)) return '';
  const folder = typeof source === 'string' ? source.replace(/^\.\//, '').replace(/\/+$/, '') : '';
  const inside = folder !== '' && !folder.startsWith('/') && !folder.split('/').some((part) => part === '..' || part === '.' || part === '');
  if (!inside) fail(path, 'must be a folder inside the source, such as . or web');
  else if (![...paths].some((file) => file.startsWith(`${folder}/`))) fail(path, `names no folder of the source: the upload has no file under ${folder}/`);
  else return folder;
  return null;
}

/** `Dockerfile` in folder `web` is `web/Dockerfile`; in the root, `Dockerfile`. */
function nestedFile(folder: string, file: string): string {
  return folder === '' ? file : `${folder}/${file}`;
}

/**
 * Adds a service's part of the chute's configuration: its `environment` for the main service, its
 * `interfaces` as networks of `net` (an interface named by two services fails), its port bindings.
 * `origin` notes which service each network and the port bindings came from.
 */
function joinChuteConfig(
  config: Record<string, unknown>,
  service: Record<string, unknown>,
  isMain: boolean,
  at: string,
  origin: Map<string, string>,
  fail: Fail,
): void {
  const { environment, interfaces, requests } = service;
  if (isMain && environment !== undefined) config.environment = environment;
  if (interfaces !== undefined) {
    const net = networks(interfaces);
    if (typeof net !== 'object' || net === null || Array.isArray(net)) config.net = net;
    else {
      const joined = mapping(config.net);
      for (const [intf, entry] of Object.entries(net)) {
        if (origin.has(`net.${intf}`))
          fail(`${at}.interfaces.${intf}`, `is also an interface of ${origin.get(`net.${intf}`)}: the services of a chute share its networks`);
        else origin.set(`net.${intf}`, at);
        joined[intf] = entry;
      }
      config.net = joined;
    }
  }
  const portBindings = mapping(requests)['port-bindings'];
  if (portBindings === undefined) return;
  const bindings = hostPortBindings(portBindings);
  if (bindings === null) fail(`${at}.requests.port-bindings`, 'must be a list of {external, internal} port numbers');
  else {
    config.host_config = { port_bindings: { ...mapping(mapping(config.host_config).port_bindings), ...bindings } };
    if (!origin.has('host_config')) origin.set('host_config', at);
  }
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

/** Where a configuration path built from the services came from in paradrop.yaml (`origin`: the service of each network and of the port bindings). */
function servicePath(origin: ReadonlyMap<string, string>, main: string, path: string): string {
  const [head, network, field, ...rest] = path.split('.');
  const mainAt = `services.${main}`;
  if (head === 'environment') return `${mainAt}.${path}`;
  if (head === 'web') return path;
  if (head === 'host_config') return `${origin.get('host_config') ?? mainAt}.requests.port-bindings`;
  if (head === 'net') {
    if (network === undefined) return `${mainAt}.interfaces`;
    const intf = `${origin.get(`net.${network}`) ?? mainAt}.interfaces.${network}`;
    if (field === undefined || field === 'intfName') return intf;
    if (TOP_LEVEL_WIRELESS.has(field) && rest.length === 0) return `${intf}.wireless.${field}`;
    if (field === 'options' && rest.length > 0) return `${intf}.wireless.${rest.join('.')}`;
    return [intf, field, ...rest].join('.');
  }
  return path === '' ? mainAt : `${mainAt}.${path}`;
}
