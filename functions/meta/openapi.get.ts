import { defineRoute } from '../core/route.ts';
import { deepFreeze } from '../core/deep-freeze.ts';
import type { Handler } from '../core/invoke.ts';
import { HttpProblem } from '../core/problem.ts';
import { NoInputSchema, type OpenApiDocument, OpenApiDocumentSchema } from './schemas.ts';

export const route = defineRoute('GET /api/v1/openapi.json', 'This API as an OpenAPI 3.1 document');
export const request = NoInputSchema;
export const response = OpenApiDocumentSchema;

/**
 * The OpenAPI document the build generated from every endpoint's route and schemas (dist/openapi.json,
 * docs/decisions/0029-openapi-from-the-schemas.md). The build puts it into this bundle, so it costs
 * nothing until it is first asked for, then one frozen value (serialised once).
 *
 * @throws HttpProblem 404 from source, where no build gave it a document.
 * @example
 * await handle(input, device) // { openapi: '3.1.1', info: { title: 'chutebox', version: '0.1.0', … }, paths: { '/api/v1/chutes': { get: { … } }, … }, … }
 */
export const handle: Handler<OpenApiDocument> = async () => {
  if (DOCUMENT === undefined) throw new HttpProblem(404, 'this build has no OpenAPI document: build chutebox with `npm run build`');
  return DOCUMENT;
};

/** Set by the build (esbuild.config.mjs) to the generated document; undefined from source. */
declare const CHUTEBOX_OPENAPI: OpenApiDocument | undefined;

const DOCUMENT: OpenApiDocument | undefined = typeof CHUTEBOX_OPENAPI === 'undefined' ? undefined : deepFreeze(CHUTEBOX_OPENAPI);
