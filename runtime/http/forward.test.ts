import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { forward } from './forward.ts';

/**
 * `forward` on its own, outside @hono/node-server (whose own `Response` takes what Fetch's refuses),
 * against a server of the test on 127.0.0.1.
 */

/** How long the tests give the upstream to start answering. */
const TIMEOUT_MS = 500;

let upstream: Server;
let port: number;

beforeAll(async () => {
  upstream = createServer((request, response) => {
    if (request.url === '/silent') return;
    if (request.url === '/slow') {
      response.writeHead(200, { 'content-type': 'text/plain' }).flushHeaders();
      return void setTimeout(() => response.end('at last'), 2 * TIMEOUT_MS);
    }
    response.writeHead(Number(request.url!.slice(1))).end();
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  port = (upstream.address() as AddressInfo).port;
});

afterAll(async () => {
  upstream.closeAllConnections();
  await new Promise((resolve) => upstream.close(resolve));
});

const get = (path: string) => forward(new Request('http://chutebox.invalid/'), new URL(`http://127.0.0.1:${port}${path}`), {}, TIMEOUT_MS);

describe('forward', () => {
  it('answers a 204 or 304 of the upstream without a body', async () => {
    for (const status of [204, 304]) expect(await get(`/${status}`)).toMatchObject({ status, body: null });
  });

  it('gives up on an upstream that sends no answer in time, but not on a body that comes slowly after the head', async () => {
    await expect(get('/silent')).rejects.toThrow(`no answer within ${TIMEOUT_MS / 1000} s`);
    const slow = await get('/slow');
    expect({ status: slow.status, body: await slow.text() }).toEqual({ status: 200, body: 'at last' });
  });
});
