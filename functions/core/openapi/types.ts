/**
 * The shapes the OpenAPI generator works with: the operations it is given (`DescribedOperation`,
 * `DescribedAnswer`), its options, and the document it makes (`OpenApiDocument`).
 */
import type { $ZodType, JSONSchema } from 'zod/v4/core';
import type { Route } from '../route.ts';

/** A zod schema (zod/mini or zod). */
export type Schema = $ZodType;

/** A JSON object of the document. */
export type Json = Record<string, unknown>;

/**
 * One operation to describe: an endpoint module (`route`, `request`, `response`, as it exports them)
 * with its bundle's name, or an operation the HTTP layer answers itself, which may say more.
 */
export interface DescribedOperation {
  /**
   * Its name, unique: the bundle's for an endpoint (`networks-ssid-put`, docs/layout.md), else one of
   * the same form (`auth-local-post`). It is the operationId; its first segment is the tag.
   */
  name: string;
  route: Route;
  /**
   * `z.object({ params, query, body })` as the endpoint modules export it: the path parameters, the
   * query parameters (a `z.object` of strings, as the URL gives them) and the body, each left out when
   * there is none.
   */
  request: Schema;
  /** The 200 answer (JSON, or each line of a `streamed` answer); none for a websocket. */
  response?: Schema;
  /** For an operation that answers text instead (`GET /metrics`): the media types of its 200, without parameters, each a string. */
  textAnswer?: readonly string[];
  /**
   * The media type of a 200 answer streamed as it is read, without an ETag (so no 304):
   * `application/x-ndjson`, each line a JSON document of `response`.
   */
  streamed?: string;
  /** Said under the summary. */
  description?: string;
  /** A websocket: answered `101 Switching Protocols` to an upgrade request. */
  websocket?: boolean;
  /**
   * A stream of Server-Sent Events: the 200 is `text/event-stream`, and this schema is what each
   * event's `data:` holds, as JSON (what OpenAPI 3.2 calls the `itemSchema` of a sequential media type).
   */
  events?: Schema;
  /** Request headers it reads besides the credentials, as OpenAPI Parameter Objects without `name` and `in`, by name. */
  headers?: Readonly<Record<string, Json>>;
  /** Answers besides the 200 and the problems, by status: the login's 401 `{ username, success: false }`. */
  answers?: Readonly<Record<number, DescribedAnswer>>;
  /**
   * The problem statuses it answers, the credentials' and 500 aside. Left out, they follow from the
   * request: 400 and 404 for path parameters, 400, 413, 415 and 422 for a body.
   */
  problems?: readonly number[];
}

/** An answer other than the 200 and the problems. */
export interface DescribedAnswer {
  description: string;
  /** Its JSON body. */
  schema: Schema;
  /** Its headers, as OpenAPI Header Objects by name. */
  headers?: Readonly<Record<string, Json>>;
}

/** What the document is made of. */
export interface OpenApiOptions {
  info: { title: string; version: string; description?: string; license?: Json };
  /** Where the API is served (OpenAPI Server Objects); a relative URL is taken from where the document was fetched. */
  servers?: readonly { url: string; description?: string }[];
  operations: readonly DescribedOperation[];
  /**
   * Modules whose `<Name>Schema` exports (docs/layout.md) name the schemas of the document: each one an
   * operation uses becomes the component `<Name>` (the first name a schema or a name gets wins).
   * Other schemas of an operation are named after it (`ChutesChutesPostBody`, `…Answer`).
   */
  schemaModules?: readonly Readonly<Record<string, unknown>>[];
  /**
   * How a client authenticates (OpenAPI Security Scheme Objects by name). Every operation but one
   * whose route is `public` takes any one of them, and may answer 401, 403 and 429.
   */
  securitySchemes?: Readonly<Record<string, Json>>;
  /** The 200 answer of an operation, by its name: its example in the document. */
  examples?: ReadonlyMap<string, unknown>;
}

/** The document, as the OpenAPI 3.1 Specification names its parts. */
export interface OpenApiDocument {
  openapi: string;
  info: Json;
  servers?: { url: string; description?: string }[];
  tags: { name: string }[];
  paths: Record<string, Record<string, Json>>;
  components: { schemas: Record<string, JSONSchema.BaseSchema>; responses: Record<string, Json>; securitySchemes?: Record<string, Json> };
  security?: Record<string, string[]>[];
}
