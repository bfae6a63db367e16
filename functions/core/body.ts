import { HttpProblem } from './problem.ts';
import type { Route } from './route.ts';

/** The default cap on a request body: 1 MiB. */
export const DEFAULT_BODY_LIMIT = 1024 * 1024;

/**
 * Decodes a request body the way every transport must: an empty body is `undefined`; anything else
 * must be JSON (`application/json` or a `+json` type), at most `limit` bytes, and well formed.
 *
 * @throws HttpProblem 413, 415 or 400.
 * @example
 * decodeBody('application/json', '{"ssid":"lab"}') // { ssid: 'lab' }
 */
export function decodeBody(contentType: string | undefined, text: string, limit = DEFAULT_BODY_LIMIT): unknown {
  if (text.length === 0) return undefined;
  if (byteLength(text) > limit) {
    throw new HttpProblem(413, `the request body is larger than ${limit} bytes`);
  }
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/json' && !type.endsWith('+json')) {
    throw new HttpProblem(415, `the request body must be application/json, not ${type || 'untyped'}`);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new HttpProblem(400, `the request body is not valid JSON: ${(error as Error).message}`);
  }
}

function byteLength(text: string): number {
  return new TextEncoder().encode(text).length;
}

/**
 * The `body` a transport hands a function on this route: `decodeBody` for a JSON route; for a
 * `body: 'document'` route nothing (the handler decodes `input.text`), once the size is checked.
 *
 * @throws HttpProblem 413, 415 or 400.
 */
export function readBody(route: Pick<Route, 'body'>, contentType: string | undefined, text: string, limit = DEFAULT_BODY_LIMIT): unknown {
  if (route.body !== 'document') return decodeBody(contentType, text, limit);
  if (byteLength(text) > limit) throw new HttpProblem(413, `the request body is larger than ${limit} bytes`);
  return undefined;
}
