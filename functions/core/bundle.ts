import { entityTagging } from './etag.ts';
import type { Device } from './device/index.ts';
import { runHandler, NO_FIELDS, type FunctionInput, type FunctionOutput, type Handler } from './handler.ts';
import type { Route } from './route.ts';

/**
 * What every function bundle in `dist/functions/` exports.
 * `invoke` runs inside the bundle, so errors are mapped by the bundle's own code.
 */
export interface FunctionBundle {
  route: Route;
  /** The answer (for a GET, with its ETag: see `bundleInvoke`). */
  invoke(input: FunctionInput, device: Device): Promise<FunctionOutput>;
  handler(event: unknown, context?: unknown): Promise<unknown>;
}

/**
 * What a function bundle exports as `invoke` (and the browser's handlers call): its handler run by
 * `invoke`, on every request. A GET is handed its parameters, query and `Accept` header (the only
 * header a read negotiates on), no other header and no body; its 200 gets an ETag, and a request
 * whose `If-None-Match` names it gets a 304 (`entityTagging`, one for the endpoint).
 *
 * @example
 * export const invoke = bundleInvoke(route, handle); // in each bundle, made by the build
 */
export function bundleInvoke(route: Route, handle: Handler): FunctionBundle['invoke'] {
  if (route.method !== 'GET') return (input, device) => runHandler(handle, input, device);
  const withEntityTag = entityTagging();
  return (input, device) => {
    const { accept } = input.headers;
    const read = { params: input.params, query: input.query, headers: accept === undefined ? NO_FIELDS : { accept }, body: undefined, text: '' };
    return runHandler(handle, read, device).then((out) => withEntityTag(out, input.headers['if-none-match']));
  };
}
