/**
 * Request bodies as the core decodes them, and a document answer as it is written. Its parts, one
 * per module:
 * - `decode.ts`: the body every transport hands a function (`readBody`: JSON, `decodeBody`), its
 *   limits, uploads and media types, and the 413 and 415 problems; every endpoint's bundle carries
 *   it, so it is imported by itself, not from here (what is exported here carries the YAML parser);
 * - `document.ts`: `decodeDocumentBody`, a document body (a chute configuration) in JSON or YAML, as
 *   a mapping;
 * - `answer.ts`: `negotiate` and `encodeDocument`, a document answered in the format the client prefers;
 * - `media-types.ts`: the media types of a document and the format each names;
 * - `json.ts` and `yaml.ts`: the two formats read (YAML as 1.1, as ParaDrop read it) and YAML written;
 * - `depth.ts` and `malformed.ts`: the nesting limit and the 400 problems of a bad body.
 */
export { encodeDocument, negotiate } from './answer.ts';
export { decodeDocumentBody } from './document.ts';
export { MAX_DEPTH } from './depth.ts';
export { parseJson } from './json.ts';
export { DOCUMENT_MEDIA_TYPES, documentKind, type DocumentMediaType } from './media-types.ts';
export { MAX_ALIAS_COUNT, parseYaml } from './yaml.ts';
