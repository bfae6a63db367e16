import type * as z from 'zod/mini';

/**
 * What a controller sends to one endpoint and gets back, inferred from the schemas that describe it
 * (an endpoint module, or an operation of the HTTP layer, runtime/http/openapi.ts): the path
 * parameters and body its `request` schema takes, and its 200 answer: its `response` (JSON, or each
 * line of a streamed answer), each event's data of an event stream (`events`), the text of a text
 * answer (`textAnswer`), `never` for a websocket (it answers `101`). The package's `chutebox/types`
 * lists every operation of the API this way (`Endpoints`, written by the build).
 *
 * @example
 * type Install = EndpointTypes<typeof import('../chutes/chutes.post.ts')>;
 * const body: Install['body'] = { name: 'hello', image: 'busybox:latest' };
 */
export interface EndpointTypes<M extends { request: z.ZodMiniType; response?: z.ZodMiniType; events?: z.ZodMiniType; textAnswer?: readonly string[] }> {
  params: z.input<M['request']> extends { params: infer P } ? P : never;
  body: z.input<M['request']> extends { body: infer B } ? B : never;
  response: M extends { response: infer R extends z.ZodMiniType }
    ? z.output<R>
    : M extends { events: infer E extends z.ZodMiniType }
      ? z.output<E>
      : M extends { textAnswer: readonly string[] }
        ? string
        : never;
}
