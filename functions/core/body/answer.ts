/**
 * Answering a document: the media type the client prefers (`negotiate`), and the document written
 * in it (`encodeDocument`).
 */
import { stringify } from 'yaml';
import { preferredMediaType } from '../negotiate.ts';
import { DOCUMENT_MEDIA_TYPES, type DocumentMediaType } from './media-types.ts';
import { YAML_WRITE } from './yaml.ts';

/**
 * The media type to answer a document in, from the request's `Accept` header: YAML when it prefers
 * `application/yaml`, `application/x-yaml` or `text/yaml` (under the name it asked for), JSON
 * otherwise: without the header, for `*\/*`, on a tie, or when nothing offered is acceptable.
 * q-values are honoured (see preferredMediaType).
 *
 * @example
 * negotiate('application/yaml')                          // 'application/yaml'
 * negotiate('text/yaml;q=0.5, application/json;q=0.9')   // 'application/json'
 * negotiate('application/json;q=0, application/x-yaml') // 'application/x-yaml'
 * negotiate(undefined)                                   // 'application/json'
 */
export function negotiate(accept: string | undefined): DocumentMediaType {
  return preferredMediaType(accept, DOCUMENT_MEDIA_TYPES);
}

/**
 * A document written in a media type, with the `Content-Type` to send it under (`text/yaml` gets
 * `charset=utf-8`, which a `text/*` type needs to say; the others are UTF-8 by definition).
 *
 * @example
 * encodeDocument({ web: { port: 8000 } }, 'application/yaml') // { body: 'web:\n  port: 8000\n', contentType: 'application/yaml' }
 * encodeDocument({ web: { port: 8000 } }, negotiate(input.headers.accept))
 */
export function encodeDocument(value: unknown, type: DocumentMediaType): { body: string; contentType: string } {
  if (type === 'application/json') return { body: JSON.stringify(value), contentType: type };
  return { body: stringify(value, YAML_WRITE), contentType: type === 'text/yaml' ? 'text/yaml; charset=utf-8' : type };
}
