/**
 * The OpenAPI 3.1 document of the API, generated from the routes and zod schemas that describe it
 * (docs/decisions/0029-openapi-from-the-schemas.md). Its parts, one per module:
 * - `document.ts`: `openApiDocument`, the document, path by path;
 * - `operation.ts`: one operation (parameters, answers), `request-body.ts` its request body;
 * - `problem-answers.ts`: the problem answer's schema, the problem statuses and their component responses;
 * - `schema-names.ts` and `used-schemas.ts`: the component schemas, named and kept when used;
 * - `paths.ts`: route paths as OpenAPI writes them; `zod-schemas.ts`: what is read of a zod schema;
 * - `types.ts`: the operations it is given and the document it makes.
 */
export { OPENAPI_VERSION, openApiDocument } from './document.ts';
export { pathParameters } from './paths.ts';
export { PROBLEM_ANSWERS } from './problem-answers.ts';
export type { DescribedAnswer, DescribedOperation, OpenApiDocument, OpenApiOptions } from './types.ts';
