import { createServer as createHttpServer, request, type IncomingHttpHeaders, type OutgoingHttpHeaders, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHUTE_LABEL } from '../../functions/core/device.ts';
import { memoryDevice } from '../../test/support/memory-device.ts';
import { apiApp } from './api.ts';
import { listen, type Listening } from './listen.ts';

/**
 * `serve`'s chute pages over HTTP in this process: `apiApp` with `chuteWeb` and `listen`, over a memory
 * device whose chutes run at 127.0.0.1, where a small server of the test stands for the chutes' page.
 */

/** What the page server of a chute was asked. */
interface Received {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

const received: Received[] = [];
let page: HttpServer;
let server: Listening;

beforeAll(async () => {
  page = createHttpServer((request, response) => {
    let body = '';
    request.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
    request.once('end', () => {
      received.push({ method: request.method!, url: request.url!, headers: request.headers, body });
      response.writeHead(200, { 'content-type': 'text/plain' }).end(`page of ${request.url}`);
    });
  });
  const pagePort = await listenLocally(page);
  const chutes = { svc42: pagePort, webchute: pagePort, lab: pagePort };
  const device = memoryDevice({
    chutes: Object.fromEntries(Object.entries(chutes).map(([name, port]) => [name, { config: { web: { port } } }])),
    containers: Object.keys(chutes).map(running),
  });
  server = await listen(apiApp([], { device, auth: null, chuteWeb: true }), { host: '127.0.0.1', port: 0 });
});

afterAll(async () => {
  await server.close();
  await new Promise((resolve) => page.close(resolve));
});

describe('a chute page at /chutes/<chute>/ on serve', () => {
  it("answers a percent-encoded chute name from that chute's web.port, with the path and query after the name", async () => {
    for (const [path, upstream] of [
      ['/chutes/%73vc42/secret?q=1', '/secret?q=1'],
      ['/chutes/web%63hute/x', '/x'],
      ['/chutes/lab/a%2Fb/%7E?x=%20y', '/a%2Fb/%7E?x=%20y'],
      ['/chutes/lab//example.com/x', '//example.com/x'],
    ] as const) {
      const answer = await fetch(`${server.url}${path}`);
      expect({ status: answer.status, body: await answer.text() }).toEqual({ status: 200, body: `page of ${upstream}` });
      expect(received.at(-1)).toMatchObject({ method: 'GET', url: upstream });
    }
  });

  it("never passes on the API's credentials, a proxy's, or the headers of the client's own connection", async () => {
    const headers = {
      authorization: 'Basic cGFyYWRyb3A6c2VjcmV0',
      'proxy-authorization': 'Basic cHJveHk6c2VjcmV0',
      cookie: 'session=1',
      connection: 'keep-alive, x-hop',
      'x-hop': 'for this connection only',
      te: 'trailers',
      'x-page': 'kept',
    };
    // Node's client, as fetch refuses to send a Connection header that names another.
    expect(await post(`${server.url}/chutes/lab/form`, headers, 'name=value')).toBe(200);
    const { method, headers: got, body } = received.at(-1)!;
    expect({ method, body }).toEqual({ method: 'POST', body: 'name=value' });
    expect(got).toMatchObject({ 'x-page': 'kept', 'x-forwarded-prefix': '/chutes/lab' });
    for (const name of ['authorization', 'proxy-authorization', 'cookie', 'x-hop', 'te']) expect(got).not.toHaveProperty(name);
  });

  it('redirects /chutes/<chute> to /chutes/<chute>/ with 308, keeping the query, and serves the page there', async () => {
    const redirect = await fetch(`${server.url}/chutes/lab?tab=2`, { redirect: 'manual' });
    expect({ status: redirect.status, location: redirect.headers.get('location') }).toEqual({ status: 308, location: '/chutes/lab/?tab=2' });
    const answer = await fetch(`${server.url}/chutes/lab/?tab=2`);
    expect({ status: answer.status, body: await answer.text() }).toEqual({ status: 200, body: 'page of /?tab=2' });
  });
});

/** A container of the engine that runs `chute` at 127.0.0.1. */
function running(chute: string): Record<string, unknown> {
  return { Id: `${chute}-id`, State: 'running', Labels: { [CHUTE_LABEL]: chute }, NetworkSettings: { Networks: { bridge: { IPAddress: '127.0.0.1' } } } };
}

/** Listens on a free port of 127.0.0.1 and answers it. */
function listenLocally(upstream: HttpServer): Promise<number> {
  return new Promise((resolve) => upstream.listen(0, '127.0.0.1', () => resolve((upstream.address() as AddressInfo).port)));
}

/** POSTs `body` with `headers` through Node's client and answers the status, once the answer is read. */
function post(url: string, headers: OutgoingHttpHeaders, body: string): Promise<number | undefined> {
  return new Promise((resolve, reject) => {
    const sent = request(url, { method: 'POST', headers }, (answer) => answer.resume().once('end', () => resolve(answer.statusCode)));
    sent.once('error', reject).end(body);
  });
}
