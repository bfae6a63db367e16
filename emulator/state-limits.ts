import * as z from 'zod/mini';
import { MAX_DEPTH, tooDeep } from '../functions/core/body/depth.ts';
import { invalidInput } from '../functions/core/validate.ts';

/**
 * How large an emulator state may be (emulator/emulator-state.ts). `PUT /_chutebox/state` and
 * `chutebox emulate --state FILE` refuse a larger one, changing nothing: a 413 over `bytes`, else a 422
 * naming the field. An import at every limit takes a small part of the heap the launcher gives the
 * emulator (256 MiB on a machine with 1 GiB of memory or more: runtime/chutebox.sh), while the export
 * of a busy emulator fits. docs/emulator.md#limits-of-a-state lists them.
 */
export const STATE_LIMITS = {
  /** The JSON text, in bytes. */
  bytes: 4 * 1024 * 1024,
  /** Values in the JSON text (every mapping, list, string, number, boolean and null): small ones cost heap well beyond their bytes. */
  values: 250_000,
  /** Keys of one mapping, at any depth: a mapping with many keys costs heap well beyond its bytes too. */
  keys: 10_000,
  /** Chutes in `chutes`. */
  chutes: 1000,
  /** Containers in `engine.containers`. */
  containers: 1000,
  /** Images in `engine.images`. */
  images: 1000,
  /** Records in `changes.records`. */
  changeRecords: 5000,
  /** Networks in `networks`. */
  networks: 1000,
  /** Stations in a network's `disconnected`. */
  disconnected: 1000,
  /** Fault rules in `faults.rules` (emulator/faults/): what `POST /_chutebox/faults` adds to, too. */
  faultRules: 100,
  /** Request sequences a fault rule counts (`faults.counters.<id>.sequences`, one a method and path): the oldest is forgotten first. */
  faultSequences: 256,
} as const;

/** A list of at most `limit` items, each one of `what`. */
export function atMost(limit: number, what: string) {
  return z.maxLength(limit, { error: `must list at most ${limit} ${what}` });
}

/**
 * `schema` for a document of the state that a client wrote (a chute's record, configuration or cache, a
 * container): refused first, naming it, when it nests mappings and lists deeper than the API takes a
 * request body (MAX_DEPTH), so that nothing walks a deeper one.
 */
export function shallow<S extends z.ZodMiniType>(schema: S) {
  return z.pipe(z.unknown().check(z.refine((value) => !tooDeep(value), `nests mappings and lists more than ${MAX_DEPTH} deep`)), schema);
}

/**
 * Refuses the JSON text of a state that holds more than `most` values (`STATE_LIMITS.values` unless told), before it is
 * parsed: a dense text (`[{},{},…]`) parses into some twenty times its bytes of heap. Every value but
 * the first follows a comma or an opening bracket outside a string, so counting those bounds them.
 *
 * @throws HttpProblem 422 naming `at` (`body` for a request, `''` for a file).
 * @example
 * checkStateText('{"version": 1, "chutes": {}}', 'body') // passes: 4 values at most
 */
export function checkStateText(text: string, at: string, most: number = STATE_LIMITS.values): void {
  let values = 1;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) inString = true;
    else if ((c === COMMA || c === OPEN_LIST || c === OPEN_MAPPING) && ++values > most) {
      throw invalidInput('the state', [{ path: at, message: `holds more than ${most} values (mappings, lists, strings, numbers, …)` }]);
    }
  }
}

const [BACKSLASH, QUOTE, COMMA, OPEN_LIST, OPEN_MAPPING] = ['\\', '"', ',', '[', '{'].map((c) => c.charCodeAt(0));

/** Keys that reach an object's prototype where a program looks a name up or assigns it. */
const PROTOTYPE_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

/**
 * A state before its fields are checked: no mapping with more than `STATE_LIMITS.keys` keys, and no
 * key `__proto__`, `constructor` or `prototype` at any depth, each named (zod drops a `__proto__` key
 * without a word). Walked without recursion, so that any nesting is safe here.
 */
export const StateDocumentSchema = z.unknown().check(z.superRefine(checkKeys));

/** A value of the document, with the way to it. */
interface Node {
  value: unknown;
  parent: Node | null;
  key: PropertyKey;
}

function checkKeys(document: unknown, context: z.core.$RefinementCtx<unknown>): void {
  const stack: Node[] = [{ value: document, parent: null, key: '' }];
  while (stack.length > 0) {
    const node = stack.pop()!;
    const { value } = node;
    if (Array.isArray(value)) for (let i = 0; i < value.length; i++) stack.push({ value: value[i], parent: node, key: i });
    else if (typeof value === 'object' && value !== null) {
      const keys = Object.keys(value);
      if (keys.length > STATE_LIMITS.keys) {
        context.addIssue({ code: 'custom', input: value, path: pathOf(node), message: `must hold at most ${STATE_LIMITS.keys} keys` });
        continue;
      }
      for (const key of keys) {
        const next = { value: (value as Record<string, unknown>)[key], parent: node, key };
        if (PROTOTYPE_KEYS.has(key))
          context.addIssue({
            code: 'custom',
            input: key,
            path: pathOf(next),
            message: "must not be a key: __proto__, constructor and prototype reach an object's prototype",
          });
        else stack.push(next);
      }
    }
  }
}

/** The keys from the document's root to a node. */
function pathOf(node: Node): PropertyKey[] {
  const path: PropertyKey[] = [];
  for (let at: Node | null = node; at?.parent != null; at = at.parent) path.unshift(at.key);
  return path;
}
