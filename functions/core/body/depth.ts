/**
 * How deep a decoded document may nest (`MAX_DEPTH`), the check of a decoded value, and the problem
 * a deeper one is answered with.
 */
import type { HttpProblem } from '../problem.ts';
import { unreadableBody } from './malformed.ts';

/** How deep a decoded document may nest mappings and lists; a chute configuration needs about 5. */
export const MAX_DEPTH = 64;

/** Whether mappings and lists nest deeper than MAX_DEPTH, checked without recursion. */
export function tooDeep(value: unknown): boolean {
  const stack: { value: unknown; depth: number }[] = [{ value, depth: 0 }];
  while (stack.length > 0) {
    const { value: current, depth } = stack.pop()!;
    if (typeof current !== 'object' || current === null) continue;
    if (depth >= MAX_DEPTH) return true;
    for (const child of Object.values(current)) stack.push({ value: child, depth: depth + 1 });
  }
  return false;
}

/** The 400 problem of a body nested deeper than MAX_DEPTH. */
export function tooDeepProblem(): HttpProblem {
  return unreadableBody(`nests mappings and lists more than ${MAX_DEPTH} deep`);
}
