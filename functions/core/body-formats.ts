import { Composer, LineCounter, Parser, stringify, type CST, type DocumentOptions, type ParseOptions, type SchemaOptions, type ToJSOptions } from 'yaml';
import { checkBodySize, DEFAULT_BODY_LIMIT, isJsonMediaType, mediaType } from './body.ts';
import { preferredMediaType } from './negotiate.ts';
import { HttpProblem } from './problem.ts';

/*
 * A document body (a chute configuration) in JSON or YAML, both ways: decoding a request body and
 * encoding an answer in the format the client accepts.
 *
 * YAML is read as YAML 1.1, the version PyYAML (and so ParaDrop) reads a chute developer's
 * service.yaml with: `yes`/`no`/`on`/`off` are booleans, `0755` is octal, `~` is null, and `<<`
 * merge keys work. Tags whose values JSON cannot hold, or that would rewrite what the client wrote,
 * are left out: timestamps (`2015-07-30` stays a string), sexagesimal numbers (`12:30` stays a
 * string), `!!binary`, `!!set`, `!!omap` and `!!pairs`. A `%YAML 1.2` directive in the document
 * switches to YAML 1.2. Numbers are numbers: `2.0` reads as 2.
 */

/** The media types a document body can be written in: JSON first (the default answer), then YAML's three names. */
export const DOCUMENT_MEDIA_TYPES = ['application/json', 'application/yaml', 'application/x-yaml', 'text/yaml'] as const;
export type DocumentMediaType = (typeof DOCUMENT_MEDIA_TYPES)[number];

/** How deep a decoded document may nest mappings and lists; a chute configuration needs about 5. */
export const MAX_DEPTH = 64;

/** At most this many alias expansions in a YAML document: a guard against "billion laughs" bombs. */
export const MAX_ALIAS_COUNT = 100;

const YAML_1_1_DROPPED = new Set(['binary', 'omap', 'pairs', 'set', 'timestamp'].map((name) => `tag:yaml.org,2002:${name}`));

const YAML_READ: ParseOptions & DocumentOptions & SchemaOptions = {
  version: '1.1',
  customTags: (tags) => tags.filter((tag) => typeof tag === 'string' || (!YAML_1_1_DROPPED.has(tag.tag) && tag.format !== 'TIME')),
  prettyErrors: false,
  uniqueKeys: true,
};

/**
 * Written as YAML 1.1 with every 1.1 tag known, so a string that any 1.1 reader would take for
 * something else (`"yes"`, `"0755"`, `"12:30"`, `"2015-07-30"`) is quoted; lines are never folded.
 */
const YAML_WRITE = { version: '1.1', lineWidth: 0 } as const;

/**
 * The format of a document's text from its media type (from `mediaType`): JSON (`application/json`, a
 * `+json` type), YAML (its three names, a `+yaml` type); null for any other type.
 */
export function documentKind(type: string): 'json' | 'yaml' | null {
  if (isJsonMediaType(type)) return 'json';
  if (type === 'application/yaml' || type === 'application/x-yaml' || type === 'text/yaml' || type.endsWith('+yaml')) return 'yaml';
  return null;
}

/**
 * Decodes a request body that holds one document, a mapping (a chute configuration): JSON
 * (`application/json` or a `+json` type) or YAML (`application/yaml`, `application/x-yaml`,
 * `text/yaml` or a `+yaml` type), at most `limit` bytes.
 *
 * @throws HttpProblem 413 for a body over `limit` bytes; 415 for any other content type, listing the
 *   accepted ones (also in the extension `accepted`); 400 for a malformed body, naming the line and
 *   column (also in the extensions `line` and `column`), for a YAML body with more than
 *   MAX_ALIAS_COUNT alias expansions, several documents, or one nested deeper than MAX_DEPTH;
 *   422 with the error `{ path: '', message }` when the document is not a mapping (or the body is empty).
 * @example
 * decodeDocumentBody('application/yaml', 'web:\n  port: 8000\n') // { web: { port: 8000 } }
 * decodeDocumentBody('application/json', '{"web": {"port": 8000}}') // { web: { port: 8000 } }
 * decodeDocumentBody('text/plain', 'x') // throws 415 "… must be application/json, application/yaml, application/x-yaml or text/yaml, not text/plain"
 */
export function decodeDocumentBody(contentType: string | undefined, text: string, limit = DEFAULT_BODY_LIMIT): Record<string, unknown> {
  if (text.length === 0) throw notAMapping('the request body is empty');
  checkBodySize(text, limit);
  const type = mediaType(contentType);
  const kind = documentKind(type);
  if (kind === null) {
    throw new HttpProblem(415, `the request body must be ${listed(DOCUMENT_MEDIA_TYPES)}, not ${type || 'untyped'}`, {
      extensions: { accepted: [...DOCUMENT_MEDIA_TYPES] },
    });
  }
  const value = kind === 'json' ? parseJson(text) : parseYaml(text);
  if (tooDeep(value)) throw tooDeepProblem();
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw notAMapping(`the request body is ${kind === 'json' ? 'JSON' : 'a YAML document'} but not a mapping`);
  }
  return value as Record<string, unknown>;
}

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

/**
 * One YAML document (YAML 1.1, see above) as a plain value. The nesting is measured on yaml's
 * syntax tree, which is built without recursion, before the document is composed (which recurses):
 * a deeply nested body must not reach the end of the stack, where V8 can fail fatally.
 *
 * @throws HttpProblem 400 naming the line and column of the first error, or for a document nested
 *   deeper than MAX_DEPTH, several documents, an alias without its anchor or too many aliases.
 */
export function parseYaml(text: string): unknown {
  const lineCounter = new LineCounter();
  const tokens = Array.from(new Parser(lineCounter.addNewLine).parse(text));
  if (tokens.some(nestsTooDeep)) throw tooDeepProblem();
  const documents = Array.from(new Composer(YAML_READ).compose(tokens, true, text.length));
  const document = documents[0]!;
  if (documents.length > 1) {
    throw malformed('YAML', 'it holds more than one document', lineCounter.linePos(documents[1]!.range[0]));
  }
  const [first] = document.errors;
  if (first !== undefined) {
    const more = document.errors.length > 1 ? ` (and ${document.errors.length - 1} more)` : '';
    throw malformed('YAML', first.message + more, lineCounter.linePos(first.pos[0]));
  }
  try {
    return document.toJS({ maxAliasCount: MAX_ALIAS_COUNT } satisfies ToJSOptions);
  } catch (error) {
    // An alias to a missing anchor, or more alias expansions than MAX_ALIAS_COUNT.
    if (error instanceof ReferenceError) throw new HttpProblem(400, `the request body is not valid YAML: ${error.message}`);
    throw error;
  }
}

/** Whether a YAML syntax tree nests collections more than MAX_DEPTH deep, checked without recursion. */
function nestsTooDeep(root: CST.Token): boolean {
  const stack: { token: CST.Token; depth: number }[] = [{ token: root, depth: 0 }];
  while (stack.length > 0) {
    const { token, depth } = stack.pop()!;
    if (token.type === 'document' && token.value) stack.push({ token: token.value, depth });
    if (token.type !== 'block-map' && token.type !== 'block-seq' && token.type !== 'flow-collection') continue;
    if (depth >= MAX_DEPTH) return true;
    for (const item of token.items) {
      if ('key' in item && item.key) stack.push({ token: item.key, depth: depth + 1 });
      if (item.value) stack.push({ token: item.value, depth: depth + 1 });
    }
  }
  return false;
}

/**
 * A JSON text as a plain value.
 *
 * @throws HttpProblem 400 naming the line and column of the error.
 */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    const message = (error as Error).message;
    const reason = message.replace(/ in JSON at position \d+.*$/s, '').replace(/^(Unexpected token '.*?'),.*$/s, '$1');
    throw malformed('JSON', reason, linePos(text, jsonErrorOffset(text, message)));
  }
}

/**
 * Where JSON.parse failed, as an offset into `text`. V8 says "at position N" for most errors, nothing
 * for an unexpected token and for a text that ends too early. For an unexpected token, the offset is
 * found as the end of the shortest prefix that fails before its end: a prefix of well-formed JSON only
 * ever fails at its end ("Unexpected end of JSON input", or a position equal to its length).
 */
function jsonErrorOffset(text: string, message: string): number {
  const at = /at position (\d+)/.exec(message);
  if (at) return Math.min(Number(at[1]), text.length);
  if (!message.startsWith('Unexpected token')) return text.length;
  let good = 0; // a prefix length known not to fail before its end
  let bad = text.length; // a prefix length known to fail before its end
  while (bad - good > 1) {
    const middle = Math.floor((good + bad) / 2);
    if (failsInside(text.slice(0, middle))) bad = middle;
    else good = middle;
  }
  return bad - 1;
}

function failsInside(prefix: string): boolean {
  try {
    JSON.parse(prefix);
    return false;
  } catch (error) {
    const message = (error as Error).message;
    const at = /at position (\d+)/.exec(message);
    if (at) return Number(at[1]) < prefix.length;
    return message.startsWith('Unexpected token');
  }
}

/** 1-based line and column of an offset. */
function linePos(text: string, offset: number): { line: number; col: number } {
  const before = text.slice(0, offset);
  const lineStart = before.lastIndexOf('\n') + 1;
  return { line: before.split('\n').length, col: offset - lineStart + 1 };
}

function malformed(format: 'JSON' | 'YAML', message: string, { line, col }: { line: number; col: number }): HttpProblem {
  return new HttpProblem(400, `the request body is not valid ${format}: ${message} at line ${line}, column ${col}`, {
    extensions: { line, column: col },
  });
}

function tooDeepProblem(): HttpProblem {
  return new HttpProblem(400, `the request body nests mappings and lists more than ${MAX_DEPTH} deep`);
}

function notAMapping(why: string): HttpProblem {
  return new HttpProblem(422, `${why}; it must be a mapping of fields`, {
    errors: [{ path: '', message: 'must be a mapping' }],
  });
}

/** Whether mappings and lists nest deeper than MAX_DEPTH, checked without recursion. */
function tooDeep(value: unknown): boolean {
  const stack: { value: unknown; depth: number }[] = [{ value, depth: 0 }];
  while (stack.length > 0) {
    const { value: current, depth } = stack.pop()!;
    if (typeof current !== 'object' || current === null) continue;
    if (depth >= MAX_DEPTH) return true;
    for (const child of Object.values(current)) stack.push({ value: child, depth: depth + 1 });
  }
  return false;
}

/** `a, b or c`. */
function listed(items: readonly string[]): string {
  return items.length < 2 ? items.join('') : `${items.slice(0, -1).join(', ')} or ${items.at(-1)}`;
}
