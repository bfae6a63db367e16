import { withEntityTag } from './etag.ts';
import { invoke, NO_FIELDS, type FunctionBundle, type Handler } from './invoke.ts';
import type { Route } from './route.ts';

/**
 * What a function bundle exports as `invoke` (and the browser's handlers call): its handler run by
 * `invoke`, on every request. A GET is handed its parameters, query and `Accept` header (the only
 * header a read negotiates on), no other header and no body; its 200 gets an ETag, and a request
 * whose `If-None-Match` names it gets a 304 (`withEntityTag`).
 *
 * @example
 * export const invoke = functionInvoke(route, handle); // in each bundle, made by the build
 */
export function functionInvoke(route: Route, handle: Handler): FunctionBundle['invoke'] {
  if (route.method !== 'GET') return (input, device) => invoke(handle, input, device);
  return (input, device) => {
    const { accept } = input.headers;
    const read = { params: input.params, query: input.query, headers: accept === undefined ? NO_FIELDS : { accept }, body: undefined, text: '' };
    return invoke(handle, read, device).then((out) => withEntityTag(out, input.headers['if-none-match']));
  };
}
