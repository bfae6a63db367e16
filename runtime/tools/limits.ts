import { HttpProblem } from '../../functions/core/problem.ts';

/*
 * How long a tool the runtime runs may take, and what the runtime answers when it takes longer: kept
 * apart from `runTool` (which needs Node's child_process) so that the emulator answers a hanging tool
 * with the same words, in a browser too.
 */

/** Milliseconds a tool may run when the caller gives no timeout. */
export const DEFAULT_TIMEOUT_MS = 5000;

/**
 * The 504 of a tool that ran past its timeout and was stopped.
 *
 * @example
 * toolTimedOut('iw', 5000).message // 'iw did not finish within 5 s and was stopped'
 */
export function toolTimedOut(name: string, timeoutMs: number): HttpProblem {
  return new HttpProblem(504, `${name} did not finish within ${timeoutMs / 1000} s and was stopped`);
}
