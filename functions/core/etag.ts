import type { FunctionOutput } from './handler.ts';
import { reusingLast } from './reusing-last.ts';

/** The part of node:crypto that `entityTag` uses: the one-shot digest, which makes no hash object (and no native memory to free). */
interface NodeHashes {
  hash(algorithm: 'sha256', data: string | Uint8Array, encoding: 'hex'): string;
}

/**
 * node:crypto where the runtime has it (Node 20.16 and later give it to any code through
 * `process.getBuiltinModule`, and have `hash`), else undefined: a browser hashes with Web Crypto,
 * whose digest is a promise and far slower a call.
 */
const nodeHashes = (globalThis as { process?: { getBuiltinModule?(id: string): unknown } }).process?.getBuiltinModule?.('node:crypto') as
  | NodeHashes
  | undefined;

const ENCODER = new TextEncoder();

/** How many hex digits of the SHA-256 an ETag keeps (128 bits). */
const TAG_DIGITS = 32;

/**
 * The strong ETag of a representation: the first 128 bits of the SHA-256 of its content type and its
 * body (as UTF-8), in hex and quoted. Made from both, the JSON and the YAML of one resource, negotiated
 * by `Accept`, have tags of their own. node:crypto and Web Crypto give the same tag.
 *
 * @example
 * entityTag('application/json', '["hostapd-control"]') // '"5b2c…"' (32 hex digits), or its promise in a browser
 */
export function entityTag(contentType: string, body: string | Uint8Array): string | Promise<string> {
  if (nodeHashes === undefined) return webCryptoEntityTag(contentType, body);
  return quoted(nodeHashes.hash('sha256', typeof body === 'string' ? `${contentType}\n${body}` : taggedBytes(contentType, body), 'hex'));
}

/** `entityTag` made with Web Crypto, as in a browser. */
export async function webCryptoEntityTag(contentType: string, body: string | Uint8Array): Promise<string> {
  const data = taggedBytes(contentType, typeof body === 'string' ? ENCODER.encode(body) : body);
  const digest = new Uint8Array(await globalThis.crypto.subtle.digest('SHA-256', data));
  return quoted(Array.from(digest, (byte) => byte.toString(16).padStart(2, '0')).join(''));
}

/** What a tag is the digest of, as bytes: the content type, a line feed, the body. */
function taggedBytes(contentType: string, body: Uint8Array): Uint8Array {
  const head = ENCODER.encode(`${contentType}\n`);
  const data = new Uint8Array(head.length + body.length);
  data.set(head);
  data.set(body, head.length);
  return data;
}

const quoted = (hex: string) => `"${hex.slice(0, TAG_DIGITS)}"`;

/**
 * From this many characters on, a body is also given as its UTF-8 (`FunctionOutput.bytes`), which a
 * transport writes as it is rather than encode the string again; a shorter one is written as its
 * string, which Node sends in one piece with the head.
 */
const LONG_BODY = 1024;

/** A 200's tag, and its body's UTF-8 when the body is long (`LONG_BODY`). */
interface Entity {
  etag: string;
  bytes: Uint8Array | undefined;
}

function entityOf(contentType: string, body: string): Entity | Promise<Entity> {
  const bytes = body.length >= LONG_BODY ? ENCODER.encode(body) : undefined;
  const etag = entityTag(contentType, bytes ?? body);
  return typeof etag === 'string' ? { etag, bytes } : etag.then((made) => ({ etag: made, bytes }));
}

/** A 200's headers with its ETag after them. Copied name by name: spreading an object and adding a field costs V8 microseconds. */
function headersWithTag(headers: Readonly<Record<string, string>>, etag: string): Record<string, string> {
  const tagged: Record<string, string> = {};
  for (const name in headers) tagged[name] = headers[name]!;
  tagged.etag = etag;
  return tagged;
}

/** The headers of a 200 that its 304 carries beside the ETag (RFC 9110 §15.4.5). */
const KEPT_ON_304 = ['vary', 'cache-control'] as const;

/** Gives a GET's answer its ETag, or its 304: see `entityTagging`. */
export type EntityTagging = (out: FunctionOutput, ifNoneMatch: string | undefined) => FunctionOutput | Promise<FunctionOutput>;

/**
 * What gives one endpoint's answers as they are sent: a 200 with its ETag (`entityTag`), or a 304
 * without a body when `ifNoneMatch` (the request's `If-None-Match`) names that tag or is `*`; any other
 * status as it is. The 304 carries the ETag and the 200's `Vary` and `Cache-Control`.
 *
 * Each endpoint makes its own (`bundleInvoke`), and it keeps its last entities (`reusingLast`) by
 * their content type and whole body, so what it gives is never another body's: a body that stays the
 * same (the OpenAPI document, a resource a dashboard polls) is hashed and encoded once, even while
 * other endpoints answer in between. Its 200s with the same frozen headers (every JSON answer's,
 * `JSON_HEADERS`) and tag share one headers object, to which a transport adds its own once
 * (runtime/http/cors.ts).
 *
 * @example
 * const tagging = entityTagging();
 * await tagging({ status: 200, headers: JSON_HEADERS, body: '[]' }, undefined) // { status: 200, headers: { 'content-type': 'application/json', etag: '"…"' }, body: '[]' }
 * await tagging({ status: 200, headers: JSON_HEADERS, body: '[]' }, '"…"') // the same tag: { status: 304, headers: { etag: '"…"' }, body: '' }
 */
export function entityTagging(): EntityTagging {
  // Kept for the endpoint, not for each device: a body many devices answer alike (the OpenAPI document) is encoded once.
  const endpoint = {};
  const lastEntity = reusingLast(entityOf);
  const taggedHeaders = reusingLast(headersWithTag);
  /** `out` with its entity's tag (and bytes), or its 304 when `ifNoneMatch` names the tag. */
  const tagged = (out: FunctionOutput, { etag, bytes }: Entity, ifNoneMatch: string | undefined): FunctionOutput => {
    if (ifNoneMatch === undefined || !matchesTag(ifNoneMatch, etag)) {
      const headers = taggedHeaders(endpoint, out.headers, etag);
      return bytes === undefined ? { status: 200, headers, body: out.body } : { status: 200, headers, body: out.body, bytes };
    }
    const headers: Record<string, string> = { etag };
    for (const name of KEPT_ON_304) if (out.headers[name] !== undefined) headers[name] = out.headers[name];
    return { status: 304, headers, body: '' };
  };
  return (out, ifNoneMatch) => {
    if (out.status !== 200) return out;
    const entity = lastEntity(endpoint, out.headers['content-type'] ?? '', out.body);
    return 'etag' in entity ? tagged(out, entity, ifNoneMatch) : entity.then((made) => tagged(out, made, ifNoneMatch));
  };
}

/**
 * Whether an `If-None-Match` header names `etag`: `*`, or a list of tags one of which is `etag` by
 * the weak comparison (RFC 9110 §13.1.2: `W/"x"` names `"x"`).
 *
 * @example
 * matchesTag('W/"a1", "b2"', '"b2"') // true
 * matchesTag('"a1"', '"b2"') // false
 */
export function matchesTag(ifNoneMatch: string, etag: string): boolean {
  if (ifNoneMatch.trim() === '*') return true;
  for (const [tag] of ifNoneMatch.matchAll(TAG)) if (tag === etag) return true;
  return false;
}

/** One quoted opaque tag of a list (the `W/` before a weak one is left out of the match). */
const TAG = /"[^"]*"/g;
