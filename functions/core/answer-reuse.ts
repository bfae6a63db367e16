import { isThenable, NOT_AT_HAND, valueAtHand } from './at-hand.ts';
import type { Device } from './device/index.ts';
import { invoke, NO_FIELDS, problemOutput, valueOutput, type FunctionInput, type FunctionOutput, type Handler } from './invoke.ts';

/** One step from the device to a read: a property (a facet such as `hostConfig`) or a call with its arguments. */
interface Step {
  name: string | symbol;
  /** undefined for a property read. */
  args?: unknown[];
}

/** A call the handler made on the device, and what it answered. */
interface Read {
  steps: Step[];
  /** The steps as one string, to hand a replayed answer to the same call. */
  key: string;
  result: unknown;
  /** How many of the calls before it had answered when it was made: calls of one wave were made together. */
  wave: number;
  /** What the call answered, a promise or a value, until the answer is remembered. */
  call?: unknown;
}

/** What a handler read, and the answer it made from that. */
interface Remembered {
  reads: Read[];
  /** Its `bytes` made when it is first given again: an answer that is never reused is not encoded. */
  output: FunctionOutput;
  /** Every read was answered at once: the check is made, and the answer given, in the request's own turn. */
  atHand: boolean;
  /** Up one for each answer made different from the one before, down one for each the same or reused, from 0 to `MOST_CHANGED` (see `CHANGING`). */
  changed: number;
  /** Requests still to be answered by the handler as it is, without a check (see `CHANGING`). */
  unchecked: number;
  /** The body of the last of those, what the next answer made is compared with. */
  uncheckedBody?: string;
}

const ENCODER = new TextEncoder();

/** Inputs remembered per function, the oldest forgotten first: a GET answers a handful of parameter values. */
const REMEMBERED = 16;

/**
 * An answer that keeps changing (it holds the time, or a counter that moves between requests) is not
 * checked for a while: checking its reads, then recording them again, cost more than the handler
 * itself (GET /api/v1/info/telemetry when the time moved: 31 µs a request in-process, against
 * 16 µs). Each answer made that came out different from the one given before counts one up, each
 * answer reused or made the same counts one down; from `CHANGING` on, the handler runs as it is for
 * the next `UNCHECKED[count − CHANGING]` requests of the same input (the last of them for any count
 * above), and the answer is checked again after them. When any two answers in a row that were the
 * same sent it back to checks, telemetry, asked for twice in one millisecond now and then, was
 * checked and recorded again every few requests, and each recording, kept until the next, lived long
 * enough to fill the old generation: V8 promoted 80 bytes a request of the read mix, now 5
 * (docs/decisions/0036-a-get-answer-reused-from-the-same-reads.md).
 */
const CHANGING = 3;
const UNCHECKED = [32, 64, 128, 256];
/** Where the count stops: more gives no longer stretch, and a stable answer counts down from here. */
const MOST_CHANGED = CHANGING + UNCHECKED.length - 1;

/**
 * Answers a read-only request (a GET) again while the device answers every read it was made from the
 * same way. A handler is a function of its input and what the device answers it, so when each call
 * it made on the device last time, made again now, answers the same, its answer is the same: the
 * reads stay (an answer is never older than its request), the parse, the answer and its JSON are not
 * made again. When a read answers differently, the handler runs, and the calls already made for the
 * check are handed to it rather than made twice. Only a 200 made without a failed read is remembered,
 * by the input (`inputKey`), for the last `REMEMBERED` inputs.
 *
 * When the device answered every read at once (`atHand`, as the emulator does from memory, or a
 * host source once known), the check is made at once too, and a same answer is given as a value,
 * not a promise: the transport sends it in the request's own turn.
 *
 * @example
 * const answer = answerReuse(handle);
 * await answer(input, device); // runs the handler
 * await answer(input, device); // reads again, the same answers: the same answer, the handler not run
 */
export function answerReuse(handle: Handler): (input: FunctionInput, device: Device) => FunctionOutput | Promise<FunctionOutput> {
  /** By input: the last answer and its reads. */
  const remembered = new Map<string, Remembered>();
  /** Puts `entry` last, forgetting the oldest beyond `REMEMBERED`. */
  const remember = (key: string, entry: Remembered) => {
    remembered.delete(key);
    if (remembered.size >= REMEMBERED) remembered.delete(remembered.keys().next().value!);
    remembered.set(key, entry);
  };
  /** Runs the handler, handing it the calls the check made (`replayed`), and remembers its answer. */
  async function answer(
    key: string,
    input: FunctionInput,
    device: Device,
    replayed: ReadonlyMap<string, unknown>,
    replaced?: Remembered,
  ): Promise<FunctionOutput> {
    const log: ReadLog = { reads: [], replayed, unfit: false, settled: 0 };
    let value: unknown;
    try {
      value = await handle(input, recording(device, [], log) as Device);
    } catch (error) {
      return problemOutput(error);
    }
    const made = valueOutput(value);
    if (log.unfit) return made;
    // The same answer from reads that moved (a clock file whose seconds did not): the remembered output, bytes and all.
    const sameAnswer = replaced !== undefined && made.body === replaced.output.body;
    // Given to every request that reuses it: frozen, headers too (a transport copies what it adds to them).
    const output = sameAnswer ? replaced.output : Object.freeze(made);
    Object.freeze(output.headers);
    // Once the handler has answered: a kept promise (`keptAtHand`) says its value by then.
    const atHand = log.reads.every((read) => valueAtHand(read.call) !== NOT_AT_HAND);
    for (const read of log.reads) read.call = undefined;
    const changed = replaced === undefined ? 0 : counted(replaced.changed, made.body === (replaced.uncheckedBody ?? replaced.output.body));
    remember(key, {
      reads: replaced === undefined ? log.reads : keptReads(log.reads, replaced.reads),
      atHand,
      output,
      changed,
      unchecked: uncheckedFor(changed),
    });
    return output;
  }
  /**
   * The remembered answer once `readsAgain` found the reads the same; checked at once from then on
   * when the device answered them all at once this time (a source that became known, such as an
   * engine socket seen absent, or a read that was in flight when the answer was made).
   */
  function reused(last: Remembered, same: typeof SAME | typeof SAME_AT_HAND): FunctionOutput {
    if (same === SAME_AT_HAND) last.atHand = true;
    last.changed = counted(last.changed, true);
    return last.output.bytes === undefined ? (last.output = encoded(last.output)) : last.output;
  }
  /** The handler's answer as it is, for an answer that kept changing (see `CHANGING`); the last one's body is kept. */
  function unchecked(last: Remembered, input: FunctionInput, device: Device): Promise<FunctionOutput> {
    if (--last.unchecked > 0) return invoke(handle, input, device);
    return invoke(handle, input, device).then((output) => {
      last.uncheckedBody = output.body;
      return output;
    });
  }

  return (input, device) => {
    const key = inputKey(input);
    const last = remembered.get(key);
    if (last === undefined) return answer(key, input, device, NOTHING_REPLAYED);
    if (last.unchecked > 0) return unchecked(last, input, device);
    if (last.atHand) {
      const replayed = readsAtHand(device, last.reads);
      return replayed === true ? reused(last, SAME_AT_HAND) : answer(key, input, device, replayed, last);
    }
    return readsAgain(device, last.reads).then((replayed) => (replayed instanceof Map ? answer(key, input, device, replayed, last) : reused(last, replayed)));
  };
}

/**
 * Makes `reads` again, one after the other, while each is answered at once and the same. Answers
 * true when all were; otherwise the calls it made, by key, for the handler (the last of them one that
 * answered differently, or not at once).
 */
function readsAtHand(device: Device, reads: readonly Read[]): true | Map<string, unknown> {
  const made: unknown[] = [];
  const facets: Facets = [];
  for (let i = 0; i < reads.length; i++) {
    const call = perform(device, reads[i]!.steps, facets);
    made.push(call);
    const answer = valueAtHand(call);
    if (answer === NOT_AT_HAND || !same(answer, reads[i]!.result)) return madeByKey(made, reads);
  }
  return true;
}

/** What `readsAgain` answers when every read answered the same: at once (`SAME_AT_HAND`) or not. */
const SAME = Symbol('same');
const SAME_AT_HAND = Symbol('same, at hand');

/**
 * Makes `reads` again, as the handler made them: the calls it made together (`wave`) together, each
 * wave once the one before has answered, as a shared tool run counts on (concurrent identical reads
 * share one run). Answers `SAME_AT_HAND` when every call answered the same and the device answered
 * each at once (`valueAtHand`), `SAME` when every call answered the same. Otherwise it stops at the
 * first wave that did not, or that failed, and answers the calls it made, by key, for the handler.
 */
async function readsAgain(device: Device, reads: readonly Read[]): Promise<typeof SAME | typeof SAME_AT_HAND | Map<string, unknown>> {
  const made: unknown[] = [];
  const facets: Facets = [];
  let atOnce = true;
  for (let start = 0; start < reads.length; ) {
    let end = start + 1;
    while (end < reads.length && reads[end]!.wave === reads[start]!.wave) end++;
    for (let i = start; i < end; i++) {
      const call = perform(device, reads[i]!.steps, facets);
      made.push(call);
      if (valueAtHand(call) === NOT_AT_HAND) atOnce = false;
    }
    if (!(await answersSame(made, reads, start, end))) return madeByKey(made, reads);
    start = end;
  }
  return atOnce ? SAME_AT_HAND : SAME;
}

/** Whether the calls `made[start..end)` answer what `reads[start..end)` answered; false when one failed (the handler says what that means). */
async function answersSame(made: readonly unknown[], reads: readonly Read[], start: number, end: number): Promise<boolean> {
  try {
    if (end - start === 1) return same(await made[start], reads[start]!.result);
    const results = await Promise.all(made.slice(start, end));
    return results.every((result, i) => same(result, reads[start + i]!.result));
  } catch {
    return false;
  }
}

/** The calls a check made (`made[k]` the call of `reads[k]`), by key, for the handler. */
const madeByKey = (made: readonly unknown[], reads: readonly Read[]) => new Map(made.map((call, k) => [reads[k]!.key, call]));

/**
 * `reads`, with each that the handler made as it made it last time, and that answered the same, the
 * one remembered from then (`last`): a read that moved (a clock file) is recorded again, not every
 * read beside it. What is remembered lives until the answer is made again, long enough for V8 to
 * move it to the old generation, which only a full collection empties.
 */
function keptReads(reads: Read[], last: readonly Read[]): Read[] {
  for (let i = 0; i < reads.length; i++) {
    const before = last[i];
    if (before !== undefined && before.key === reads[i]!.key && before.wave === reads[i]!.wave && same(before.result, reads[i]!.result)) reads[i] = before;
  }
  return reads;
}

/** An answer's count (see `CHANGING`) after one more answer, the same as the one before or not. */
const counted = (changed: number, sameAgain: boolean) => (sameAgain ? Math.max(changed - 1, 0) : Math.min(changed + 1, MOST_CHANGED));

/** How many requests an answer is given unchecked after it changed, by its count (see `CHANGING`). */
const uncheckedFor = (changed: number) => (changed < CHANGING ? 0 : UNCHECKED[changed - CHANGING]!);

/** No call made before the handler runs. */
const NOTHING_REPLAYED: ReadonlyMap<string, unknown> = new Map();

/** The key of a request with no `Accept` header, no path parameters and no query: what `inputKey` answers for it. */
const PLAIN_KEY = '0:?';

/**
 * What an answer is remembered by: all a GET handler is handed (see `functionInvoke`). Each name and
 * value comes after its length, so no two inputs give the same key, whatever they hold; cheaper than
 * quoting them (`JSON.stringify`), which a request with path parameters paid for each of them.
 *
 * @example
 * inputKey({ params: { chute: 'hotspot' }, query: {}, headers: {}, … }) // '0:5:chute7:hotspot?'
 */
function inputKey(input: FunctionInput): string {
  if (input.headers.accept === undefined && input.params === NO_FIELDS && input.query === NO_FIELDS) return PLAIN_KEY;
  let key = field(input.headers.accept ?? '');
  for (const name in input.params) key += field(name) + field(input.params[name]!);
  key += '?';
  for (const name in input.query) key += field(name) + field(input.query[name]!);
  return key;
}

/** A part of `inputKey`: `text` after its length. A part starts with a digit, so the `?` before the query's parts is never taken for one. */
const field = (text: string) => `${text.length}:${text}`;

/**
 * A remembered output with its body's UTF-8, made when it is first given again: an answer that is
 * never reused is not encoded. Frozen, as every remembered output: it is given to every request
 * that reuses it.
 */
const encoded = (output: FunctionOutput): FunctionOutput => Object.freeze({ ...output, bytes: ENCODER.encode(output.body) });

/**
 * The parts of the device (`network(target)`'s host) a check reached, each after the step that
 * reached it: `[step, part, step, part, …]`. A check reaches one or two; an empty list costs less
 * than a `Map` for the many checks that reach none.
 */
type Facets = unknown[];

/**
 * Makes the call `steps` names on `device` again; answers what it answers (a promise, or a value). A
 * part of the device that an earlier read of the same check reached by the same step (`facets`) is
 * not asked for again: the handler, too, asked for it once and made its reads of it.
 */
function perform(device: Device, steps: readonly Step[], facets: Facets): unknown {
  try {
    let at = device as unknown as Record<string | symbol, unknown>;
    const last = steps.length - 1;
    for (let k = 0; k < last; k++) at = facetOf(at, steps[k]!, facets);
    return take(at, steps[last]!);
  } catch (error) {
    return Promise.reject(error);
  }
}

/** The part of the device `step` reaches from `at`: the one reached before in this check (`facets`), or a new one. */
function facetOf(at: Record<string | symbol, unknown>, step: Step, facets: Facets): Record<string | symbol, unknown> {
  for (let i = 0; i < facets.length; i += 2) if (facets[i] === step) return facets[i + 1] as Record<string | symbol, unknown>;
  const facet = take(at, step) as Record<string | symbol, unknown>;
  facets.push(step, facet);
  return facet;
}

/** What one step answers of `at`: its property, or what calling its method answers. */
function take(at: Record<string | symbol, unknown>, { name, args }: Step): unknown {
  const value = at[name];
  return args === undefined ? value : (value as (...args: unknown[]) => unknown).apply(at, args);
}

/** Where `recording` logs the calls of one request, and what it hands back instead of calling. */
interface ReadLog {
  reads: Read[];
  /** Calls the check made already, by key. */
  replayed: ReadonlyMap<string, unknown>;
  /** Set when a call failed or took a callback: the answer is not remembered. */
  unfit: boolean;
  /** How many calls have answered so far. */
  settled: number;
}

/**
 * `target` (the device, or a facet of it), whose every call is logged in `log.reads` with what it
 * answered, or answered from `log.replayed` when the check made the same call. A facet it answers (an
 * object of methods, such as `network(target)`'s host) is recorded likewise.
 */
function recording(target: object, steps: Step[], log: ReadLog): object {
  return new Proxy(target, {
    get(object, name) {
      const value = Reflect.get(object, name);
      if (typeof value === 'function') {
        return (...args: unknown[]) => {
          const path = [...steps, { name, args }];
          if (args.some((arg) => typeof arg === 'function')) log.unfit = true; // a callback: not a read to make again
          const key = stepsKey(path);
          let result: unknown;
          try {
            result = log.replayed.has(key) ? log.replayed.get(key) : value.apply(object, args);
          } catch (error) {
            log.unfit = true;
            throw error;
          }
          if (isFacet(result)) return recording(result, path, log);
          const read: Read = { steps: path, key, result, wave: log.settled, call: result };
          log.reads.push(read);
          if (!isThenable(result)) {
            log.settled++;
            read.result = snapshot(result);
            return result;
          }
          return result.then(
            (answer) => (log.settled++, (read.result = snapshot(answer)), answer),
            (error: unknown) => {
              log.unfit = true;
              throw error;
            },
          );
        };
      }
      const path = [...steps, { name }];
      if (isFacet(value)) return recording(value, path, log);
      log.reads.push({ steps: path, key: stepsKey(path), result: value, wave: log.settled++ });
      return value;
    },
  });
}

const stepsKey = (steps: readonly Step[]) => JSON.stringify(steps.map(({ name, args }) => [String(name), args ?? null]));

/**
 * A part of the device (`hostConfig`, a network's host), not data it answered: an object, not a
 * promise, that is a plain object with a method or an instance of a class. Data is a list, bytes or
 * a plain object of data.
 */
function isFacet(value: unknown): value is object {
  if (typeof value !== 'object' || value === null || isThenable(value) || Array.isArray(value) || ArrayBuffer.isView(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return (proto !== Object.prototype && proto !== null) || Object.values(value).some((v) => typeof v === 'function');
}

/** An answer as it was when read: a list is copied, as a handler may sort it in place. */
const snapshot = (value: unknown) => (Array.isArray(value) && !Object.isFrozen(value) ? value.slice() : value);

/** Whether two answers of the device are the same: equal values, or lists and plain objects of the same. */
export function same(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return Number.isNaN(a) && Number.isNaN(b);
  if (Array.isArray(a)) return Array.isArray(b) && sameItems(a, b);
  if (ArrayBuffer.isView(a)) return ArrayBuffer.isView(b) && sameBytes(bytesOf(a), bytesOf(b));
  const proto = Object.getPrototypeOf(a);
  if ((proto !== Object.prototype && proto !== null) || Object.getPrototypeOf(b) !== proto) return false;
  return sameFields(a as Record<string, unknown>, b as Record<string, unknown>);
}

// Loops rather than `every` over `Object.keys`: a check compares every list and object a handler
// read (a folder's entries, a status), on every request that reuses an answer.
function sameItems(a: readonly unknown[], b: readonly unknown[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (!same(a[i], b[i])) return false;
  return true;
}

/** Two plain objects (their prototype checked) with the same own fields, each the same. */
function sameFields(a: Record<string, unknown>, b: Record<string, unknown>): boolean {
  let fields = 0;
  for (const key in a) {
    if (!Object.hasOwn(b, key) || !same(a[key], b[key])) return false;
    fields++;
  }
  for (const _ in b) fields--;
  return fields === 0;
}

const bytesOf = (view: ArrayBufferView) => new Uint8Array(view.buffer, view.byteOffset, view.byteLength);

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
