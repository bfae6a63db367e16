import { AsyncResource } from 'node:async_hooks';

let kept: object | undefined;

/**
 * Keeps, for the life of the process, one object of the shape of the tick objects that
 * `process.nextTick` makes for every stream event of every request, so that V8 never loses that
 * shape (docs/decisions/0038-the-shape-of-a-tick-kept.md).
 *
 * Node builds a tick object from a literal with two computed keys (its `async_id_symbol` and
 * `trigger_async_id_symbol`, then `callback` and `args`). While the server idles, no tick object
 * is alive, and V8's memory reducer collects the hidden classes of that shape. The literal's
 * feedback then sees a second class, and `nextTick` is optimized to define each computed key
 * through the runtime: from the first idle of a few seconds (a device idles after start), every
 * request is slower for the life of the process (the figures are in the decision). One object alive
 * keeps the classes, and their feedback stays on the fast path. The keys are taken from an
 * `AsyncResource`, which carries the same two symbols; the ids are doubles, as Node's (read from a
 * `Float64Array`).
 * Answers the kept object; a second call keeps no other.
 *
 * @example
 * keepTickShape(); // once, before the server listens
 */
export function keepTickShape(): object {
  if (kept !== undefined) return kept;
  const symbols = Object.getOwnPropertySymbols(new AsyncResource('chutebox.tickShape', { requireManualDestroy: true }));
  const asyncId = symbols.find((symbol) => symbol.description === 'async_id_symbol');
  const triggerId = symbols.find((symbol) => symbol.description === 'trigger_async_id_symbol');
  if (asyncId === undefined || triggerId === undefined) return (kept = {});
  const ids = new Float64Array([1, 0]);
  kept = { [asyncId]: ids[0], [triggerId]: ids[1], callback: keepTickShape, args: undefined };
  return kept;
}
