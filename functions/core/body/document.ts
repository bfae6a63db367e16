/**
 * Decoding a request body that holds one document, a mapping (a chute configuration), in JSON or
 * YAML (`decodeDocumentBody`).
 */
import { checkBodySize, DEFAULT_BODY_LIMIT, mediaType, unsupportedMediaType } from './decode.ts';
import { HttpProblem } from '../problem.ts';
import { tooDeep, tooDeepProblem } from './depth.ts';
import { parseJson } from './json.ts';
import { DOCUMENT_MEDIA_TYPES, documentKind } from './media-types.ts';
import { parseYaml } from './yaml.ts';

/**
 * Decodes a request body that holds one document, a mapping (a chute configuration): JSON
 * (`application/json` or a `+json` type) or YAML (`application/yaml`, `application/x-yaml`,
 * `text/yaml` or a `+yaml` type), at most `limit` bytes.
 *
 * @throws HttpProblem 413 for a body over `limit` bytes; 415 for any other content type, listing the
 *   accepted ones (also in the extension `accepted`, and naming `headers.content-type`); 400 for a malformed body, naming the line and
 *   column (also in the extensions `line` and `column`), for a YAML body with more than
 *   MAX_ALIAS_COUNT alias expansions, several documents, or one nested deeper than MAX_DEPTH (each
 *   naming `body` in `errors`); 422 naming `body` when the document is not a mapping or the body is
 *   empty: it is read, but breaks the rule that it be one (docs/api/README.md#errors).
 * @example
 * decodeDocumentBody('application/yaml', 'web:\n  port: 8000\n') // { web: { port: 8000 } }
 * decodeDocumentBody('application/json', '{"web": {"port": 8000}}') // { web: { port: 8000 } }
 * decodeDocumentBody('text/plain', 'x') // throws 415 "… must be one of application/json, application/yaml, application/x-yaml, text/yaml, not text/plain"
 */
export function decodeDocumentBody(contentType: string | undefined, text: string, limit = DEFAULT_BODY_LIMIT): Record<string, unknown> {
  if (text.length === 0) throw notAMapping('the request body is empty');
  checkBodySize(text, limit);
  const type = mediaType(contentType);
  const kind = documentKind(type);
  if (kind === null) throw unsupportedMediaType(type, DOCUMENT_MEDIA_TYPES);
  const value = kind === 'json' ? parseJson(text) : parseYaml(text);
  if (tooDeep(value)) throw tooDeepProblem();
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw notAMapping(`the request body is ${kind === 'json' ? 'JSON' : 'a YAML document'} but not a mapping`);
  }
  return value as Record<string, unknown>;
}

function notAMapping(why: string): HttpProblem {
  return new HttpProblem(422, `${why}; it must be a mapping of fields`, {
    errors: [{ path: 'body', message: 'must be a mapping' }],
  });
}
