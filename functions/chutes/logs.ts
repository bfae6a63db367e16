import type { FunctionInput } from '../core/handler.ts';
import { type LogRequest, logRequest } from '../core/logs.ts';
import { pathParams } from './params.ts';

/*
 * What `GET /api/v1/chutes/<chute>/logs` takes (docs/api/logs.md#chute-logs): a chute name and the
 * query every log takes (functions/core/logs.ts). The route itself is the runtime's
 * (runtime/http/chute-logs.ts): it streams, which a function's whole answer cannot.
 */

/** What a request for a chute's logs asks for. */
export interface ChuteLogsRequest extends LogRequest {
  chute: string;
}

/**
 * A request for a chute's logs, read: its chute and query, a time ago counted back from `now` (the
 * device's clock, ms since the epoch).
 *
 * @throws HttpProblem 400 naming `params.chute` or a malformed `query.<name>`; 422 as `logRequest`.
 * @example
 * chuteLogsRequest({ params: { chute: 'hello' }, query: { tail: '10' } }, Date.now()) // { chute: 'hello', options: { …, tail: 10 }, timestamps: true }
 */
export function chuteLogsRequest(input: Pick<FunctionInput, 'params' | 'query'>, now: number): ChuteLogsRequest {
  const { chute } = pathParams(input as FunctionInput, ['chute']);
  return { chute, ...logRequest(input.query, now) };
}
