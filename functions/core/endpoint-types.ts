import type * as z from 'zod/mini';

/**
 * What a controller sends to one endpoint and gets back, inferred from its module's schemas: the
 * path parameters and body its `request` schema takes, and the answer its `response` schema gives.
 * The package's `chutebox/types` lists every endpoint this way (`Endpoints`, written by the build).
 *
 * @example
 * type Install = EndpointTypes<typeof import('../chutes/chutes.post.ts')>;
 * const body: Install['body'] = { name: 'hello', image: 'busybox:latest' };
 */
export interface EndpointTypes<M extends { request: z.ZodMiniType; response: z.ZodMiniType }> {
  params: z.input<M['request']> extends { params: infer P } ? P : never;
  body: z.input<M['request']> extends { body: infer B } ? B : never;
  response: z.output<M['response']>;
}
