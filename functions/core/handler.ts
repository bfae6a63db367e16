import { answerJson } from './answer-json.ts';
import { deepFreeze, oncePerFrozen } from './deep-freeze.ts';
import type { Device } from './device/index.ts';
import { isHttpProblem, PROBLEM_CONTENT_TYPE, toProblem } from './problem.ts';

/** What a transport (the runtime, the emulator, a Lambda event) hands a function. */
export interface FunctionInput {
  /** Path parameters, URI-decoded, not yet validated. */
  params: Record<string, string>;
  query: Record<string, string>;
  /** Request headers with lower-case names. */
  headers: Record<string, string>;
  /** The decoded body (see `readBody`), or undefined when there is none or the route decodes it itself. */
  body: unknown;
  /** The body as sent ('' when none): what a `body: 'document'` route decodes. */
  text: string;
  /** The raw body when its media type is one of the route's `upload` types (see `isUpload`); else undefined. */
  bytes?: Uint8Array;
}

/** The parameters, query or headers of a request that has none: one frozen object, not one a request. */
export const NO_FIELDS: Record<string, string> = Object.freeze({});

/**
 * What a function hands back to its transport: a complete HTTP answer with a serialised body. A
 * transport never changes it: answers share their `headers` (every JSON answer has `JSON_HEADERS`);
 * a transport adds its own headers to a copy.
 */
export interface FunctionOutput {
  status: number;
  headers: Readonly<Record<string, string>>;
  body: string;
  /** `body` as UTF-8, when the core made it (a long GET answer, see `entityTagging`): a transport sends these rather than encode `body` again. */
  bytes?: Uint8Array;
}

/**
 * A handler: thin, it reads the device through `device` and answers a JSON value (status 200), or a
 * `reply` when it serialises the body itself (another media type). To fail, it throws an `HttpProblem`.
 */
export type Handler<Out = unknown> = (input: FunctionInput, device: Device) => Promise<Out>;

const REPLY = Symbol.for('chutebox.reply');

/** A 200 answer whose body the handler serialised itself, in the media type it names. */
export interface Reply {
  readonly [REPLY]: true;
  body: string;
  contentType: string;
  /** More response headers, lower-case names (e.g. `vary`). */
  headers: Record<string, string>;
}

/**
 * A 200 answer with a body the handler serialised itself: what a handler returns to answer in
 * another media type than JSON.
 *
 * @example
 * return reply(stringify(config), 'application/yaml', { vary: 'accept' });
 */
export function reply(body: string, contentType: string, headers: Record<string, string> = {}): Reply {
  return { [REPLY]: true, body, contentType, headers };
}

function isReply(value: unknown): value is Reply {
  return typeof value === 'object' && value !== null && (value as Partial<Reply>)[REPLY] === true;
}

/**
 * Runs a handler and turns its result, or what it threw, into an HTTP answer: a JSON value becomes
 * an `application/json` body, a `reply` is sent as it is.
 *
 * @example
 * const out = await runHandler(handle, { params: {}, query: {}, headers: {}, body: undefined, text: '' }, device);
 * out.status // 200
 */
export async function runHandler(handle: Handler, input: FunctionInput, device: Device): Promise<FunctionOutput> {
  try {
    return valueOutput(await handle(input, device));
  } catch (error) {
    return problemOutput(error);
  }
}

/**
 * The headers of every JSON answer: one frozen object, so that a transport can keep what it adds to them (see `FunctionOutput`).
 * `@__PURE__`, here and below: a bundle that never uses the value (the runtime's) leaves it out, and the freezing with it.
 */
export const JSON_HEADERS: Readonly<Record<string, string>> = /* @__PURE__ */ deepFreeze({ 'content-type': 'application/json' });

/** What a handler answered as a 200: a JSON value as `application/json`, a `reply` as it is. */
export function valueOutput(value: unknown): FunctionOutput {
  if (isReply(value)) return { status: 200, headers: replyHeaders(value), body: value.body };
  return { status: 200, headers: JSON_HEADERS, body: answerJson(value) };
}

/**
 * A reply's headers with its content type. A deep-frozen reply (one a handler keeps, as `reusingLast`
 * freezes it) can never change, so its headers are made once and frozen: the same object on every
 * answer, which the ETag's headers and a transport's can then keep too.
 */
const replyHeaders = /* @__PURE__ */ oncePerFrozen(
  (value: Reply): Readonly<Record<string, string>> => Object.assign({}, value.headers, { 'content-type': value.contentType }),
);

/**
 * Anything thrown as an `application/problem+json` answer (see `toProblem`), its answer never showing
 * an unexpected error's message or stack. An unexpected error is logged with its stack; an
 * `HttpProblem` is an answer the code chose, so a 5xx one is one line (status and detail) and a 4xx
 * none: the client was told.
 */
export function problemOutput(error: unknown): FunctionOutput {
  const { problem, headers } = toProblem(error);
  if (!isHttpProblem(error)) console.error(error);
  else if (problem.status >= 500) console.error(`answered ${problem.status} ${problem.title}: ${problem.detail}`);
  return { status: problem.status, headers: { ...headers, 'content-type': PROBLEM_CONTENT_TYPE }, body: JSON.stringify(problem) };
}
