/**
 * A document body (a chute configuration) in JSON or YAML, both ways: decoding a request body and
 * encoding an answer in the format the client accepts. Its parts, one per module:
 * - `media-types.ts`: the media types of a document and the format each names;
 * - `decode.ts`: `decodeDocumentBody`, a request body as a mapping;
 * - `answer.ts`: `negotiate` and `encodeDocument`, the answer in the format the client prefers;
 * - `json.ts` and `yaml.ts`: the two formats read (YAML as 1.1, as ParaDrop read it) and YAML written;
 * - `depth.ts` and `malformed.ts`: the nesting limit and the 400 problems of a bad body.
 */
export { encodeDocument, negotiate } from './answer.ts';
export { decodeDocumentBody } from './decode.ts';
export { MAX_DEPTH } from './depth.ts';
export { parseJson } from './json.ts';
export { DOCUMENT_MEDIA_TYPES, documentKind, type DocumentMediaType } from './media-types.ts';
export { MAX_ALIAS_COUNT, parseYaml } from './yaml.ts';
