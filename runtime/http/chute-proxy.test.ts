import { createServer as createHttpServer, request, type IncomingHttpHeaders, type OutgoingHttpHeaders, type Server as HttpServer } from 'node:http';
import { createServer as createNetServer, type AddressInfo, type Server as NetServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHUTE_LABEL } from '../../functions/core/device/index.ts';
import { memoryDevice } from '../../test/support/memory-device.ts';
import { apiApp } from './api.ts';
import { listen, type Listening } from './listen.ts';

/**
 * `serve`'s chute pages over HTTP in this process: `apiApp` with `chuteWeb` and `listen`, over a memory
 * device whose chutes run at 127.0.0.1, where a small server of the test stands for each chute's page.
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
let cgi: NetServer;
let server: Listening;

/** What a CGI writes, by path: a head with bare LF line endings and a header value with a control character; a chunked body beside a length. */
const CGI_ANSWERS: Record<string, string> = {
  '/hello': 'HTTP/1.1 200 OK\nContent-Type: text/plain\nX-Cgi: yes\nX-Bell: ring\x07\n\nhello',
  '/chunked': 'HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n',
};

beforeAll(async () => {
  page = createHttpServer((request, response) => {
    if (request.url === '/echo') return void request.pipe(response.writeHead(200, { 'content-type': 'text/plain' }));
    if (request.url === '/login') return void response.writeHead(204, { 'set-cookie': ['session=2; Path=/chutes/lab/; HttpOnly', 'theme=dark'] }).end();
    let body = '';
    request.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
    request.once('end', () => {
      received.push({ method: request.method!, url: request.url!, headers: request.headers, body });
      response.writeHead(200, { 'content-type': 'text/plain' }).end(`page of ${request.url}`);
    });
  });
  // CGI programs as busybox httpd runs them, each writing its whole answer by hand, then closing.
  cgi = createNetServer((socket) => socket.once('data', (head: Buffer) => socket.end(CGI_ANSWERS[head.toString('latin1').split(' ')[1]!] ?? '')));
  const [pagePort, cgiPort] = await Promise.all([page, cgi].map(listenLocally));
  const chutes = { svc42: pagePort!, webchute: pagePort!, lab: pagePort!, cgi: cgiPort! };
  const device = memoryDevice({
    chutes: Object.fromEntries(Object.entries(chutes).map(([name, port]) => [name, { config: { web: { port } } }])),
    containers: Object.keys(chutes).map(running),
  });
  server = await listen(apiApp([], { device, auth: null, chuteWeb: true }), { host: '127.0.0.1', port: 0 });
});

afterAll(async () => {
  await server.close();
  await Promise.all([page, cgi].map((upstream) => new Promise((resolve) => upstream.close(resolve))));
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

  it("never passes on the API's credentials, a proxy's, or the headers of the client's own connection; passes the chute's cookies", async () => {
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
    expect(got).toMatchObject({ 'x-page': 'kept', 'x-forwarded-prefix': '/chutes/lab', cookie: 'session=1' });
    for (const name of ['authorization', 'proxy-authorization', 'x-hop', 'te']) expect(got).not.toHaveProperty(name);
  });

  it('hands the client the cookies a chute sets, each as it set it', async () => {
    const answer = await fetch(`${server.url}/chutes/lab/login`);
    expect(answer.status).toBe(204);
    expect(answer.headers.getSetCookie()).toEqual(['session=2; Path=/chutes/lab/; HttpOnly', 'theme=dark']);
  });

  it('redirects /chutes/<chute> to /chutes/<chute>/ with 308, keeping the query, and serves the page there', async () => {
    const redirect = await fetch(`${server.url}/chutes/lab?tab=2`, { redirect: 'manual' });
    expect({ status: redirect.status, location: redirect.headers.get('location') }).toEqual({ status: 308, location: '/chutes/lab/?tab=2' });
    const answer = await fetch(`${server.url}/chutes/lab/?tab=2`);
    expect({ status: answer.status, body: await answer.text() }).toEqual({ status: 200, body: 'page of /?tab=2' });
  });

  it('answers the page of a CGI that writes its head with bare LF line endings, as browsers and curl accept it', async () => {
    const answer = await fetch(`${server.url}/chutes/cgi/hello`);
    expect(answer.status).toBe(200);
    expect({ type: answer.headers.get('content-type'), cgi: answer.headers.get('x-cgi') }).toEqual({ type: 'text/plain', cgi: 'yes' });
    expect(await answer.text()).toBe('hello');
    // A header our server cannot write on is left out rather than failing the page.
    expect(answer.headers.has('x-bell')).toBe(false);
  });

  it('answers the chunked body of a page that also sends a Content-Length, whole', async () => {
    const answer = await fetch(`${server.url}/chutes/cgi/chunked`);
    expect({ status: answer.status, body: await answer.text() }).toEqual({ status: 200, body: 'hello' });
  });

  it('streams a request body to the chute and its answer back as they come', async () => {
    const { status, echoed } = await pingPong(`${server.url}/chutes/lab/echo`, ['ping-1', 'ping-2']);
    expect({ status, echoed }).toEqual({ status: 200, echoed: 'ping-1ping-2' });
  });
});

/** A container of the engine that runs `chute` at 127.0.0.1. */
function running(chute: string): Record<string, unknown> {
  return { Id: `${chute}-id`, State: 'running', Labels: { [CHUTE_LABEL]: chute }, NetworkSettings: { Networks: { bridge: { IPAddress: '127.0.0.1' } } } };
}

/** Listens on a free port of 127.0.0.1 and answers it. */
function listenLocally(upstream: HttpServer | NetServer): Promise<number> {
  return new Promise((resolve) => upstream.listen(0, '127.0.0.1', () => resolve((upstream.address() as AddressInfo).port)));
}

/** POSTs `body` with `headers` through Node's client and answers the status, once the answer is read. */
function post(url: string, headers: OutgoingHttpHeaders, body: string): Promise<number | undefined> {
  return new Promise((resolve, reject) => {
    const sent = request(url, { method: 'POST', headers }, (answer) => answer.resume().once('end', () => resolve(answer.statusCode)));
    sent.once('error', reject).end(body);
  });
}

/**
 * POSTs `parts` one at a time, each once the answer has echoed all before it: it completes only when
 * both the request body and the answer stream through the proxy. Answers the status and what came back.
 */
function pingPong(url: string, parts: readonly string[]): Promise<{ status: number | undefined; echoed: string }> {
  return new Promise((resolve, reject) => {
    let echoed = '';
    let written = 1;
    const sent = request(url, { method: 'POST', headers: { 'content-type': 'text/plain' } }, (answer) => {
      answer.setEncoding('utf8').on('data', (chunk: string) => {
        echoed += chunk;
        if (echoed !== parts.slice(0, written).join('')) return;
        if (written < parts.length) sent.write(parts[written++]);
        else sent.end();
      });
      answer.once('end', () => resolve({ status: answer.statusCode, echoed }));
    });
    sent.once('error', reject).write(parts[0]);
  });
}
