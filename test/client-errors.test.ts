import { maxHeaderSize } from 'node:http';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseAnswer, rawRequest, rawRequestAfter } from './support/raw-http.ts';
import { serveArgs, useChutebox, type Started } from './support/spawn.ts';
import { useTempDir } from './support/temp-dir.ts';

/**
 * Requests Node's HTTP server cannot read, over a plain socket (fetch would refuse to send them), on
 * `chutebox serve` and `chutebox emulate`: each gets a problem document and the connection closes.
 */

const temp = useTempDir('chutebox-client-errors-');
const start = useChutebox();

const SERVERS = {
  serve: async () => start(serveArgs(path.join(await temp.folder('serve'), 'state'), path.join(temp.path(), 'none.sock'))),
  emulate: () => start(['emulate', '--port', '0', '--no-auth']),
};

/** A GET whose one header makes its head 17 KiB, over Node's 16 KiB. */
const HUGE_HEAD = `GET /api/v1/info/features HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Filler: ${'a'.repeat(17 * 1024)}\r\n\r\n`;

/** The problem document of a raw answer, checked to be one with `status` that closes the connection. */
function problemOf(text: string, status: number) {
  const answer = parseAnswer(text);
  expect(answer.status, text.slice(0, 300)).toBe(status);
  expect(answer.headers['content-type']).toBe('application/problem+json');
  expect(answer.headers.connection).toBe('close');
  expect(Number(answer.headers['content-length'])).toBe(Buffer.byteLength(answer.body));
  const problem = JSON.parse(answer.body);
  expect(problem).toMatchObject({ type: 'about:blank', status });
  return problem as { title: string; detail: string };
}

describe.each(Object.keys(SERVERS) as (keyof typeof SERVERS)[])('chutebox %s, to a request it cannot read', (name) => {
  let server: Started;

  beforeAll(async () => {
    server = await SERVERS[name]();
  });

  it('answers a 17 KiB request head with a 431 problem naming the limit', async () => {
    const problem = problemOf(await rawRequest(server.url, HUGE_HEAD), 431);
    expect(problem.title).toBe('Request Header Fields Too Large');
    expect(problem.detail).toContain(`${maxHeaderSize} bytes`);
  });

  it('answers the 17 KiB head of a second request on a connection with a 431 problem too', async () => {
    const first = 'GET /api/v1/info/features HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n';
    expect(problemOf(await rawRequestAfter(server.url, first, HUGE_HEAD), 431).title).toBe('Request Header Fields Too Large');
  });

  it.each([
    ['a request line that is not HTTP', 'NOT HTTP AT ALL\r\n\r\n', /Invalid method/],
    ['a header name with a space', 'GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nBad Header: 1\r\n\r\n', /Invalid header token/],
  ])("answers %s with a 400 problem naming the parser's reason", async (_, text, reason) => {
    const problem = problemOf(await rawRequest(server.url, text), 400);
    expect(problem.title).toBe('Bad Request');
    expect(problem.detail).toMatch(reason);
  });

  it('still answers requests afterwards', async () => {
    expect((await fetch(`${server.url}/api/v1/info/features`)).status).toBe(200);
  });
});
