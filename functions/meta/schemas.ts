import * as z from 'zod/mini';

export { NoInputSchema } from '../info/schemas.ts';

/*
 * The requests and responses of the endpoints about the API itself (`/api/v1/openapi.json`).
 */

/**
 * GET /api/v1/openapi.json: the API as an OpenAPI 3.1 document (functions/core/openapi/ says what it
 * holds). Only its frame is checked here; the OpenAPI Specification says the rest.
 */
export const OpenApiDocumentSchema = z.looseObject({
  openapi: z.string().check(z.regex(/^3\.1\.\d+$/)),
  info: z.looseObject({ title: z.string(), version: z.string() }),
  paths: z.record(z.string(), z.record(z.string(), z.unknown())),
  components: z.looseObject({}),
});
export type OpenApiDocument = z.infer<typeof OpenApiDocumentSchema>;
