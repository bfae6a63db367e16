import { readFile } from 'node:fs/promises';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { scenarioSnapd } from '../../emulator/scenario/snapd.ts';

/** One request the stand-in snapd received, as it came over its socket. */
export interface SnapdSeen {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A stand-in snapd on a Unix socket, and what it was asked. */
export interface FakeSnapd {
  socket: string;
  seen: SnapdSeen[];
  close(): Promise<void>;
}

/** An answer the stand-in gives every request to `GET /v2/interfaces`: snapd's sync document. */
export const FAKE_INTERFACES = {
  type: 'sync',
  'status-code': 200,
  status: 'OK',
  result: { plugs: [{ snap: 'paradrop-daemon', plug: 'firewall-control', interface: 'firewall-control' }], slots: [] },
};

/**
 * A small HTTP server on `<dir>/snapd.socket` in snapd's manner, for the tests of what is passed on to
 * snapd: `GET /v2/interfaces` answers `FAKE_INTERFACES`; `POST /v2/interfaces` answers snapd's 202 with
 * the request's body echoed in its `result`; `/v2/hang` never answers; `/v2/huge` answers `hugeBytes`
 * bytes; any other path snapd's 404. Every request is kept in `seen`.
 *
 * @example
 * const snapd = await fakeSnapd(dir);
 * await snapd.close();
 */
export async function fakeSnapd(dir: string, hugeBytes = 5 * 1024 * 1024): Promise<FakeSnapd> {
  const socket = path.join(dir, 'snapd.socket');
  const seen: SnapdSeen[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString();
      seen.push({ method: request.method!, url: request.url!, headers: request.headers, body });
      const route = `${request.method} ${request.url!.replace(/\?.*$/, '')}`;
      if (route.endsWith(' /v2/hang')) return;
      if (route.endsWith(' /v2/huge')) return void response.end(Buffer.alloc(hugeBytes, 'x'));
      const json = (status: number, value: unknown) => response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
      if (route === 'GET /v2/interfaces') return json(200, FAKE_INTERFACES);
      if (route === 'POST /v2/interfaces') return json(202, { type: 'async', 'status-code': 202, status: 'Accepted', result: body, change: '4' });
      json(404, { type: 'error', 'status-code': 404, status: 'Not Found', result: { message: 'not found' } });
    });
  });
  return { socket, seen, close: await listenOn(server, socket) };
}

/** The default scenario's folder, whose `snapd.yaml` is a recorded snapd. */
const DEFAULT_SCENARIO = fileURLToPath(new URL('../../fixtures/scenarios/default/', import.meta.url));

/**
 * The default scenario's recorded snapd (its `snapd.yaml`, answered as the emulator answers it) on a
 * Unix socket `<dir>/snapd.socket`: what serve is told to forward to where no snapd runs (a lab).
 *
 * @example
 * const snapd = await recordedSnapd(dir); // serve … --snapd-socket snapd.socket
 * await snapd.close();
 */
export async function recordedSnapd(dir: string): Promise<Omit<FakeSnapd, 'seen'>> {
  const socket = path.join(dir, 'snapd.socket');
  const answer = scenarioSnapd({ readFile: (file) => readFile(path.join(DEFAULT_SCENARIO, file), 'utf8').catch(() => null) });
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', async () => {
      const body = chunks.length === 0 ? null : Buffer.concat(chunks);
      const answered = await answer({ method: request.method!, target: request.url!, contentType: request.headers['content-type'] ?? null, body });
      response.writeHead(answered.status, { 'content-type': answered.contentType }).end(answered.body);
    });
  });
  return { socket, close: await listenOn(server, socket) };
}

/** Has `server` listen on the Unix socket `socket`; answers how to close it, its connections first. */
async function listenOn(server: Server, socket: string): Promise<() => Promise<void>> {
  await new Promise<void>((resolve) => server.listen(socket, resolve));
  return () =>
    new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
}
