/**
 * What the OpenAPI document says of a GET's ETag (functions/core/etag.ts): the `ETag` header of its
 * 200, the `If-None-Match` parameter, and the 304 it may get instead (`NotModified`).
 */
import type { DescribedOperation, Json } from './types.ts';

/** Whether an operation is a GET its module answers (not a websocket, nor a stream of lines): one with an ETag. */
export function isConditional(op: DescribedOperation): boolean {
  return op.route.method === 'GET' && op.response !== undefined && !op.websocket && op.streamed === undefined;
}

/** The request header that asks for a 304. */
export const IF_NONE_MATCH: Json = {
  name: 'If-None-Match',
  in: 'header',
  required: false,
  description: 'The ETags of answers the client holds (or `*`): when the current answer has one of them, a 304 without a body',
  schema: { type: 'string' },
};

/** The headers of a 200 and of a 304. */
export const ETAG_HEADERS: Json = {
  ETag: { description: 'A strong validator of this answer (its media type and body): send it in `If-None-Match`', schema: { type: 'string' } },
};

/** The component response of a 304, and where an operation refers to it. */
export const NOT_MODIFIED: Json = {
  description: 'Not Modified: the answer is the one `If-None-Match` names; no body (`Vary` and `Cache-Control` as the 200 has them)',
  headers: ETAG_HEADERS,
};
export const NOT_MODIFIED_REF: Json = { $ref: '#/components/responses/NotModified' };
