import { defineRoute } from '../core/route.ts';
import type { Handler } from '../core/handler.ts';
import { mediaType, unsupportedMediaType } from '../core/body/decode.ts';
import { invalidInput } from '../core/validate.ts';
import { loadChute } from './lookup.ts';
import { pathParams } from './params.ts';
import { ChangeAcceptedSchema, type ChangeAccepted, ChuteSourceUpdateRequestSchema } from './schemas.ts';
import { DOCUMENT_OR_TAR, readChuteSource, readUpload, TAR_TYPE } from './source.ts';
import { submit } from './submit.ts';

export const route = defineRoute('PUT /api/v1/chutes/:chute', "Update an installed chute from its source's tar (a change)", DOCUMENT_OR_TAR);
export const request = ChuteSourceUpdateRequestSchema;
export const response = ChangeAcceptedSchema;

/**
 * Queues an `update` change of an installed chute from its source, as `pdtools node update-chute`
 * sends it: a tar with `paradrop.yaml` (or `paradrop.yml`) and a `Dockerfile` at its root
 * (`readChuteSource` lists how paradrop.yaml maps onto the chute). The change builds the new image,
 * then replaces the chute's image, version, environment and configuration and recreates its
 * container; when that fails, the previous ones come back. Everything is checked before the change is
 * queued: on any 4xx nothing is submitted.
 *
 * @throws HttpProblem 400 for a bad chute name, 404 for a chute that is not installed, 413, 415 for a
 *   body that is not `application/x-tar`, 422 listing every violation (`body` for a tar that is not a
 *   chute's source, `body.paradrop.yaml.name` when it names another chute, paths under
 *   `body.paradrop.yaml`).
 * @example
 * await handle({ …, params: { chute: 'hello' }, headers: { 'content-type': 'application/x-tar' }, bytes: source }, device) // { change_id: 12 }
 */
export const handle: Handler<ChangeAccepted> = async (input, device) => {
  const { chute } = pathParams(input, ['chute']);
  if (input.bytes === undefined) {
    const what = " (the chute's source, with paradrop.yaml at its root, as pdtools update-chute sends it)";
    throw unsupportedMediaType(mediaType(input.headers['content-type']), [TAR_TYPE], what);
  }
  await loadChute(device, chute);
  const upload = await readUpload(input.bytes);
  if (upload.kind !== 'source')
    throw invalidInput("the chute's source", [
      { path: 'body', message: "is an image archive, not a chute's source: a chute is updated from a tar with paradrop.yaml at its root" },
    ]);
  const source = readChuteSource(upload);
  if (source.name !== chute)
    throw invalidInput("the chute's source", [
      { path: source.namePath, message: `names chute ${source.name}, not ${chute}: a chute is updated from its own source` },
    ]);
  const update = {
    action: 'update',
    chute,
    version: source.version,
    config: source.config,
    environment: source.environment,
    source: input.bytes,
    services: source.services,
    owner: source.owner,
  } as const;
  return submit(device, update, source.configPath);
};
