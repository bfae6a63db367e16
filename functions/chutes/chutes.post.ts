import { defineRoute } from '../core/route.ts';
import { decodeDocumentBody } from '../core/body/index.ts';
import type { Handler } from '../core/handler.ts';
import { HttpProblem, nestedPath, type InputError } from '../core/problem.ts';
import { invalidInput, validate, validateQuery } from '../core/validate.ts';
import { collectViolations } from '../core/violations.ts';
import { manifestTags } from '../parsers/image-archive.ts';
import { ChuteInstallBodySchema, ImageUploadQuerySchema } from './chute-body.ts';
import { checkChuteConfig } from './chute-config.ts';
import { ChangeAcceptedSchema, type ChangeAccepted, ChuteInstallRequestSchema } from './schemas.ts';
import { DOCUMENT_OR_TAR, readChuteSource, readUpload, type Upload } from './source.ts';
import { submit } from './submit.ts';

export const route = defineRoute('POST /api/v1/chutes', "Install a chute from an engine image, an image tar or its source's tar (a change)", DOCUMENT_OR_TAR);
export const request = ChuteInstallRequestSchema;
export const response = ChangeAcceptedSchema;

const SUBJECT = 'the install request';
const UPLOAD_SUBJECT = 'the image upload';

/**
 * Queues an `install` change: a new chute named `name` whose container runs `image`, an image already
 * in the engine, with the chute configuration `config`, the record's `environment`, `version` and
 * `allocation`. The body is JSON or YAML (`application/yaml`, `application/x-yaml`, `text/yaml`).
 * Everything is checked before the change is queued: on any 4xx nothing is submitted.
 *
 * @throws HttpProblem 400 for a malformed body, 413, 415, 422 listing every violation with its path
 *   (`body.name`, `body.image`, `body.environment.PORT`, `body.allocation.cpu_shares`,
 *   `body.config.net.wlan.ssid`), and 409 when a chute by that name is installed.
 *
 * With `Content-Type: application/x-tar` the body is a tar, told apart by its content. A chute's source,
 * as `pdtools node install-chute` sends it (`paradrop.yaml` or `paradrop.yml` at its root, no query):
 * the chute's name, version and configuration come from paradrop.yaml (`readChuteSource`, which
 * lists the mapping), and the change builds the chute's image from the tar's Dockerfile before it
 * installs the chute (422 with paths under `body.paradrop.yaml`, 409 for a name that is taken). Or an
 * image archive (`docker save`, `manifest.json` at its root), the
 * chute's name and version are in the query (`?name=hello&version=2`): the archive is loaded into the
 * engine and the chute installed from its first repo tag, with an empty configuration (422 naming
 * `body` when the archive is not a docker-save archive or names no image, `query.name` for a missing
 * name; 400 naming `query.name` for a name that is not one).
 * Any other tar, or bytes that are not a tar: 422 naming `body`, saying what was expected.
 * @example
 * await handle({ …, headers: { 'content-type': 'application/yaml' }, text: 'name: hello\nimage: hello-world:1\nconfig:\n  web: { port: 80 }\n' }, device) // { change_id: 4 }
 * await handle({ …, query: { name: 'hello' }, headers: { 'content-type': 'application/x-tar' }, bytes: archive }, device) // { change_id: 5 }
 */
export const handle: Handler<ChangeAccepted> = async (input, device) => {
  if (input.bytes !== undefined) {
    const upload = await readUpload(input.bytes);
    return upload.kind === 'source' ? installSource(input.bytes, upload, device) : installUpload(input.query, input.bytes, upload, device);
  }
  const document = decodeDocumentBody(input.headers['content-type'], input.text);
  const violations: InputError[] = [];
  const fields = collectViolations(violations, () => validate(ChuteInstallBodySchema, document, 'body', SUBJECT));
  collectViolations(violations, () => checkChuteConfig(document.config ?? {}), inConfig);
  if (fields === undefined || violations.length > 0) throw invalidInput(SUBJECT, violations);
  await checkNotInstalled(device, fields.name);
  const request = {
    action: 'install',
    chute: fields.name,
    image: fields.image,
    version: fields.version === undefined ? null : String(fields.version),
    config: (document.config ?? {}) as Record<string, unknown>,
    environment: fields.environment ?? {},
    allocation: fields.allocation ?? {},
  } as const;
  return submit(device, request, inConfig);
};

/** An install from a chute's source: paradrop.yaml checked, then queued; the change builds the image. */
async function installSource(archive: Uint8Array, upload: Upload, device: Parameters<Handler>[1]): Promise<ChangeAccepted> {
  const { name, version, environment, config, services, owner, configPath } = readChuteSource(upload);
  await checkNotInstalled(device, name);
  const request = { action: 'install', chute: name, image: null, source: archive, version, config, environment, allocation: {}, services, owner } as const;
  return submit(device, request, configPath);
}

/** An install from an uploaded image archive: checked, loaded into the engine, then queued. */
async function installUpload(query: Record<string, string>, archive: Uint8Array, upload: Upload, device: Parameters<Handler>[1]): Promise<ChangeAccepted> {
  const { name } = validateQuery(ImageUploadQuerySchema, query);
  const violations: InputError[] = [];
  if (name === undefined) violations.push({ path: 'query.name', message: 'is required (in the query: ?name=<chute>)' });
  let tags: string[] = [];
  try {
    tags = manifestTags(upload.files.get('manifest.json')!);
    if (tags.length === 0) violations.push({ path: 'body', message: 'the archive names no image: its manifest.json has no RepoTags' });
  } catch (error) {
    violations.push({ path: 'body', message: (error as Error).message });
  }
  if (name === undefined || violations.length > 0) throw invalidInput(UPLOAD_SUBJECT, violations);
  await checkNotInstalled(device, name);
  await device.loadImage(archive);
  return submit(device, { action: 'install', chute: name, image: tags[0]!, version: query.version ?? null, config: {}, environment: {}, allocation: {} });
}

/** @throws HttpProblem 409 when a chute of this name is installed. */
async function checkNotInstalled(device: Parameters<Handler>[1], name: string): Promise<void> {
  if ((await device.chute(name)) !== null) throw new HttpProblem(409, `a chute named ${name} is already installed`);
}

/** `net.wlan.ssid` of the configuration is `body.config.net.wlan.ssid` of the request. */
function inConfig(path: string): string {
  return nestedPath('body.config', path);
}
