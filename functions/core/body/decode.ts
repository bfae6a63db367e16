import { unreadableBody } from './malformed.ts';
import { HttpProblem } from '../problem.ts';
import type { Route } from '../route.ts';

/** The default cap on a request body: 1 MiB. */
export const DEFAULT_BODY_LIMIT = 1024 * 1024;

/** The default cap on an upload (a body of one of a route's `upload` media types): 512 MiB. */
export const DEFAULT_UPLOAD_LIMIT = 512 * 1024 * 1024;

/**
 * Whether a request body is an upload: its media type is one of the route's `upload` types, so the
 * transport hands it over as bytes (`input.bytes`), up to the upload limit.
 *
 * @example
 * isUpload({ upload: ['application/x-tar'] }, 'application/x-tar') // true
 * isUpload({ upload: ['application/x-tar'] }, 'application/json')  // false
 */
export function isUpload(route: Pick<Route, 'upload'>, contentType: string | undefined): boolean {
  return route.upload?.includes(mediaType(contentType)) ?? false;
}

/** The media type of a `Content-Type` header, lower case, parameters left out; '' without one. */
export function mediaType(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0]!.trim().toLowerCase();
}

/**
 * Decodes a request body the way every transport must: an empty body is `undefined`; anything else
 * must be JSON (`application/json` or a `+json` type), at most `limit` bytes, and well formed.
 *
 * @throws HttpProblem 413, 415 or 400, each naming the field (`headers.content-type`, `body`).
 * @example
 * decodeBody('application/json', '{"ssid":"lab"}') // { ssid: 'lab' }
 */
export function decodeBody(contentType: string | undefined, text: string, limit = DEFAULT_BODY_LIMIT): unknown {
  if (text.length === 0) return undefined;
  checkBodySize(text, limit);
  const type = mediaType(contentType);
  if (!isJsonMediaType(type)) throw unsupportedMediaType(type, ['application/json']);
  try {
    return JSON.parse(text);
  } catch (error) {
    // Not parseJson, which places the error at a line and column: it would not fit the info-* bundles' budget.
    throw unreadableBody(`is not valid JSON: ${(error as Error).message}`);
  }
}

/**
 * The 415 answer to a body of media type `type` (from `mediaType`), none of `accepted`: the detail
 * lists them (and says what the body must hold, `what`), the extension `accepted` too, and `errors`
 * names `headers.content-type`, as `emulate --validate` does.
 *
 * @example
 * unsupportedMediaType('text/plain', ['application/json'])
 * // HttpProblem 415 'the request body must be one of application/json, not text/plain', errors [{ path: 'headers.content-type', … }]
 */
export function unsupportedMediaType(type: string, accepted: readonly string[], what = ''): HttpProblem {
  const must = `must be one of ${accepted.join(', ')}${what}, not ${type || 'untyped'}`;
  return new HttpProblem(415, `the request body ${must}`, {
    errors: [{ path: 'headers.content-type', message: must }],
    extensions: { accepted: [...accepted] },
  });
}

/** Whether a media type (from `mediaType`) is JSON: `application/json` or a `+json` type. */
export function isJsonMediaType(type: string): boolean {
  return type === 'application/json' || type.endsWith('+json');
}

/** The 413 answer to a request body over `limit` bytes. */
export function bodyTooLarge(limit: number): HttpProblem {
  return new HttpProblem(413, `the request body is larger than ${limit} bytes`);
}

/** @throws HttpProblem 413 when `text` is more than `limit` bytes as UTF-8. */
export function checkBodySize(text: string, limit: number): void {
  if (new TextEncoder().encode(text).length > limit) throw bodyTooLarge(limit);
}

/**
 * The `body` a transport hands a function on this route: `decodeBody` for a JSON route; for a
 * `body: 'document'` route nothing (the handler decodes `input.text`), once the size is checked.
 *
 * @throws HttpProblem 413, 415 or 400.
 */
export function readBody(route: Pick<Route, 'body'>, contentType: string | undefined, text: string, limit = DEFAULT_BODY_LIMIT): unknown {
  if (route.body !== 'document') return decodeBody(contentType, text, limit);
  checkBodySize(text, limit);
  return undefined;
}
