import { deepFreeze } from '../core/deep-freeze.ts';
import { defineRoute } from '../core/route.ts';
import { reply, type Handler, type Reply } from '../core/handler.ts';
import { HttpProblem } from '../core/problem.ts';
import { NoInputSchema, type OpenApiDocument, OpenApiDocumentSchema } from './schemas.ts';

export const route = defineRoute('GET /api/v1/openapi.json', 'This API as an OpenAPI 3.1 document', { public: true });
export const request = NoInputSchema;
export const response = OpenApiDocumentSchema;

/**
 * The OpenAPI document the build generated from every endpoint's route and schemas (dist/openapi.json,
 * docs/decisions/0029-openapi-from-the-schemas.md). The build puts it into this bundle, so it costs
 * nothing until it is first asked for; it is serialised then, once, and every later request
 * answers that JSON.
 *
 * @throws HttpProblem 404 from source, where no build gave it a document.
 * @example
 * await handle(input, device) // reply('{"openapi":"3.1.1","info":{"title":"chutebox","version":"0.1.0",…},"paths":{…},…}', 'application/json')
 */
export const handle: Handler<Reply> = async () => {
  if (DOCUMENT === undefined) throw new HttpProblem(404, 'this build has no OpenAPI document: build chutebox with `npm run build`');
  serialised ??= deepFreeze(reply(JSON.stringify(DOCUMENT), 'application/json'));
  return serialised;
};

/** The document as JSON, made on the first request; frozen, so that its answer's headers are made once too (`valueOutput`). */
let serialised: Reply | undefined;

/** Set by the build (esbuild.config.mjs) to the generated document; undefined from source. */
declare const CHUTEBOX_OPENAPI: OpenApiDocument | undefined;

const DOCUMENT: OpenApiDocument | undefined = typeof CHUTEBOX_OPENAPI === 'undefined' ? undefined : CHUTEBOX_OPENAPI;
