import type { Device } from './device.ts';
import { PROBLEM_CONTENT_TYPE, toProblem } from './problem.ts';
import type { Route } from './route.ts';

/** What a transport (the runtime, the emulator, a Lambda event) hands a function. */
export interface FunctionInput {
  /** Path parameters, URI-decoded, not yet validated. */
  params: Record<string, string>;
  query: Record<string, string>;
  /** Request headers with lower-case names. */
  headers: Record<string, string>;
  /** The decoded body (see `decodeBody`), or undefined when there is none. */
  body: unknown;
}

/** What a function hands back to its transport: a complete HTTP answer with a serialised body. */
export interface FunctionOutput {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * A handler: thin, it reads the device through `device` and answers a JSON value (status 200).
 * To fail, it throws an `HttpProblem`.
 */
export type Handler<Out = unknown> = (input: FunctionInput, device: Device) => Promise<Out>;

/**
 * What every function bundle in `dist/functions/` exports.
 * `invoke` runs inside the bundle, so errors are mapped by the bundle's own code.
 */
export interface FunctionBundle {
  route: Route;
  invoke(input: FunctionInput, device: Device): Promise<FunctionOutput>;
  handler(event: unknown, context?: unknown): Promise<unknown>;
}

/**
 * Runs a handler and turns its result, or what it threw, into an HTTP answer.
 *
 * @example
 * const out = await invoke(handle, { params: {}, query: {}, headers: {}, body: undefined }, device);
 * out.status // 200
 */
export async function invoke(handle: Handler, input: FunctionInput, device: Device): Promise<FunctionOutput> {
  try {
    const value = await handle(input, device);
    return { status: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify(value) };
  } catch (error) {
    const { problem, headers } = toProblem(error);
    if (problem.status >= 500) console.error(error);
    return {
      status: problem.status,
      headers: { ...headers, 'content-type': PROBLEM_CONTENT_TYPE },
      body: JSON.stringify(problem),
    };
  }
}
