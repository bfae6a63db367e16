import { maxHeaderSize } from 'node:http';
import { describe, expect, it } from 'vitest';
import { type ClientError, clientProblem } from './client-error.ts';

const reported = (code: string, reason?: string): ClientError => Object.assign(new Error(`Parse Error: ${reason ?? code}`), { code, reason });

describe('clientProblem', () => {
  it("answers a head over Node's limit with 431 naming the limit in bytes", () => {
    const problem = clientProblem(reported('HPE_HEADER_OVERFLOW', 'Header overflow'));
    expect(problem.toJSON()).toMatchObject({ status: 431, title: 'Request Header Fields Too Large' });
    expect(problem.message).toContain(`${maxHeaderSize} bytes`);
  });

  it('answers chunk extensions over their limit with 413, and a request not received in time with 408', () => {
    expect(clientProblem(reported('HPE_CHUNK_EXTENSIONS_OVERFLOW')).toJSON()).toMatchObject({ status: 413, title: 'Content Too Large' });
    expect(clientProblem(Object.assign(new Error('Request timeout'), { code: 'ERR_HTTP_REQUEST_TIMEOUT' })).toJSON()).toMatchObject({
      status: 408,
      title: 'Request Timeout',
    });
  });

  it("answers any other parse error with 400 naming the parser's reason", () => {
    const problem = clientProblem(reported('HPE_INVALID_HEADER_TOKEN', 'Invalid header token'));
    expect(problem.toJSON()).toMatchObject({ status: 400, title: 'Bad Request' });
    expect(problem.message).toContain('(Invalid header token)');
  });
});
