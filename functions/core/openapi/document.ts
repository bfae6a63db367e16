/**
 * The OpenAPI 3.1 document of the API, generated from what already describes it: each endpoint
 * module's route, request schema and response schema, and the few operations the HTTP layer answers
 * itself (the login, the websockets: runtime/http/openapi.ts), described once beside them. Nothing
 * here knows an endpoint; the build runs it (esbuild.config.mjs → dist/openapi.json) and
 * `GET /api/v1/openapi.json` answers what it made (functions/meta/openapi.get.ts).
 * See docs/decisions/0029-openapi-from-the-schemas.md.
 */
import { routePaths } from '../route.ts';
import { NOT_MODIFIED } from './conditional.ts';
import { operation, tagOf } from './operation.ts';
import { openApiPath } from './paths.ts';
import { problemResponses } from './problem-answers.ts';
import { schemaNames } from './schema-names.ts';
import type { Json, OpenApiDocument, OpenApiOptions } from './types.ts';
import { usedSchemas } from './used-schemas.ts';

/** The OpenAPI version the document follows. Its Schema Objects are JSON Schema 2020-12, what zod emits. */
export const OPENAPI_VERSION = '3.1.1';

const METHOD_ORDER = ['get', 'put', 'post', 'delete'];

/**
 * The OpenAPI 3.1 document of `options.operations`: a path for each route path and alias (`:name`
 * becomes `{name}`), with its path parameters, request body and answers, and the schemas they use as
 * components. A request body is JSON, or JSON and YAML for a `body: 'document'` route, plus the
 * route's `upload` media types as raw bytes; the 200 answer is JSON, with the example
 * `options.examples` gives, and a GET's has an ETag (with an `If-None-Match` parameter and a 304,
 * `NotModified`); every error is `application/problem+json` (`Problem`).
 *
 * @throws Error when two operations answer the same method and path, or a schema cannot be a component.
 * @example
 * const document = openApiDocument({ info: { title: 'chutebox', version: '0.1.0' }, operations: [{ name: 'info-features-get', ...features }] });
 * document.paths['/api/v1/info/features'].get.operationId // 'info-features-get'
 */
export function openApiDocument(options: OpenApiOptions): OpenApiDocument {
  const secured = options.securitySchemes !== undefined && Object.keys(options.securitySchemes).length > 0;
  const names = schemaNames(options);
  const paths: Record<string, Record<string, Json>> = {};
  for (const op of options.operations) {
    routePaths(op.route).forEach((routePath, alias) => {
      const item = (paths[openApiPath(routePath)] ??= {});
      const method = op.route.method.toLowerCase();
      if (item[method] !== undefined) throw new Error(`${op.name} and ${item[method].operationId} both answer ${op.route.method} ${routePath}`);
      const described = operation(op, names, secured, options.examples?.get(op.name));
      item[method] =
        alias === 0
          ? described
          : { ...described, operationId: `${op.name}-alias-${alias}`, description: `Another path of ${op.route.method} ${openApiPath(op.route.path)}.` };
    });
  }
  const sortedPaths = Object.fromEntries(
    Object.keys(paths)
      .sort()
      .map((key) => [key, Object.fromEntries(Object.entries(paths[key]!).sort(([a], [b]) => METHOD_ORDER.indexOf(a) - METHOD_ORDER.indexOf(b)))]),
  );
  const responses = { NotModified: NOT_MODIFIED, ...problemResponses() };
  const document: OpenApiDocument = {
    openapi: OPENAPI_VERSION,
    info: options.info,
    ...(options.servers === undefined ? {} : { servers: [...options.servers] }),
    tags: [...new Set(options.operations.map(tagOf))].sort().map((name) => ({ name })),
    paths: sortedPaths,
    components: { schemas: {}, responses },
    ...(secured ? { security: Object.keys(options.securitySchemes!).map((scheme) => ({ [scheme]: [] })) } : {}),
  };
  document.components.schemas = usedSchemas(names, document);
  if (secured) document.components.securitySchemes = { ...options.securitySchemes };
  return document;
}
