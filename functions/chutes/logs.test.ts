import { describe, expect, it } from 'vitest';
import { HttpProblem } from '../core/problem.ts';
import { chuteLogsRequest } from './logs.ts';

const NOW = Date.parse('2026-11-21T12:00:00Z');

/** The request read from a query of `GET /api/v1/chutes/hello/logs`. */
const read = (query: Record<string, string>, chute = 'hello') => chuteLogsRequest({ params: { chute }, query }, NOW);

/** The problem a request is refused with. */
function refusal(query: Record<string, string>, chute = 'hello'): HttpProblem {
  try {
    read(query, chute);
  } catch (error) {
    expect(error).toBeInstanceOf(HttpProblem);
    return error as HttpProblem;
  }
  throw new Error(`${JSON.stringify(query)} was taken`);
}

describe('a chute log request', () => {
  it('names its chute, and reads the query every log takes', () => {
    expect(read({ tail: '20', since: '10m' })).toEqual({
      chute: 'hello',
      options: { follow: false, since: '2026-11-21T11:50:00.000000000Z', until: null, tail: 20 },
      timestamps: true,
    });
  });

  it('refuses a bad chute name with 400 naming params.chute', () => {
    expect(refusal({}, '../x')).toMatchObject({ status: 400, errors: [{ path: 'params.chute' }] });
  });
});
