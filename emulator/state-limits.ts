import * as z from 'zod/mini';
import { MAX_DEPTH, tooDeep } from '../functions/core/body-formats/depth.ts';

/**
 * `schema` for a document of the state that a client wrote (a chute's record, configuration or cache, a
 * container): refused first, naming it, when it nests mappings and lists deeper than the API takes a
 * request body (MAX_DEPTH), so that nothing walks a deeper one.
 */
export function shallow<S extends z.ZodMiniType>(schema: S) {
  return z.pipe(z.unknown().check(z.refine((value) => !tooDeep(value), `nests mappings and lists more than ${MAX_DEPTH} deep`)), schema);
}

/** Keys that reach an object's prototype where a program looks a name up or assigns it. */
const PROTOTYPE_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

/**
 * A state before its fields are checked: no key `__proto__`, `constructor` or `prototype` at any
 * depth, each named (zod drops a `__proto__` key without a word). Walked without recursion, so that
 * any nesting is safe here.
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
      for (const key of Object.keys(value)) {
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
