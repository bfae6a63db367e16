// The websocket side of the HTTP layer: a bundle of its own (dist/websocket.mjs), loaded on the
// first upgrade request, so that `ws` stays out of the runtime bundle. See
// docs/decisions/0013-hostapd-control-websocket.md and 0014-change-stream-websocket.md.
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Context } from 'hono';
import { WebSocketServer, type WebSocket } from 'ws';
import { handle as changeById } from '../../functions/changes/change.get.ts';
import { loadChute, servingNetwork } from '../../functions/chutes/lookup.ts';
import { pathParams } from '../../functions/chutes/params.ts';
import type { Device } from '../../functions/core/device/index.ts';
import type { FunctionInput } from '../../functions/core/handler.ts';
import { HttpProblem } from '../../functions/core/problem.ts';
import { checkRoomToFollow, type LogLines, MAX_UNREAD_BYTES } from '../log/ring.ts';
import { followChange } from './change-stream.ts';
import { followChuteLog } from './chute-log-socket.ts';
import { CLOSE, hostapdControlSession } from './hostapd-control.ts';
import { problemResponse, writeResponse } from './socket-answer.ts';
import { ACCEPT_WEBSOCKET as ACCEPT, type AcceptWebsocket } from './websocket-accept.ts';

/** The largest message a client may send: the buffer hostapd reads a command into. A longer one closes the websocket with 1009. */
export const MAX_MESSAGE_BYTES = 4096;

/** How long open websockets get to finish their closing handshake when the server stops. */
const CLOSE_GRACE_MS = 2000;

/** What `upgrade` passes to the app as `c.env`: @hono/node-server's bindings, and how a route takes the websocket. */
interface UpgradeBindings {
  incoming: IncomingMessage;
  outgoing: undefined;
  /** How a route takes the upgrade (`AcceptWebsocket`). */
  [ACCEPT]: AcceptWebsocket;
}

/** The open websockets of each server, and when each will have stopped all it started. */
const servers = new WeakMap<Server, Map<WebSocket, Promise<void>>>();
const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_MESSAGE_BYTES, clientTracking: false });

/**
 * Answers an HTTP upgrade request (the server's `upgrade` event) with the app itself, so that CORS,
 * the auth policy and the routes apply as to any request: a route that takes it as a websocket (see
 * `hostapdControl` and `changeStream`) gets one; anything else (a refusal, another path, another
 * protocol such as `h2c`) is written on the socket as an ordinary HTTP answer, and the connection is
 * closed. An upgrade request that carries a body gets a 400: the body of an upgrade is not read.
 * Never rejects.
 *
 * @example
 * server.on('upgrade', (incoming, socket, head) => void upgrade(app, server, incoming, socket, head));
 */
export async function upgrade(
  app: { fetch(request: Request, env: UpgradeBindings): Response | Promise<Response> },
  server: Server,
  incoming: IncomingMessage,
  socket: Duplex,
  head: Buffer,
): Promise<void> {
  socket.on('error', () => socket.destroy());
  try {
    let open: ((ws: WebSocket) => Promise<void>) | undefined;
    const env: UpgradeBindings = { incoming, outgoing: undefined, [ACCEPT]: (start) => (open = start) };
    const request = hasBody(incoming)
      ? new HttpProblem(400, 'an upgrade request cannot carry a body here: send it without the Upgrade header')
      : upgradeRequest(incoming);
    const response = request instanceof HttpProblem ? problemResponse(request) : await app.fetch(request, env);
    if (open === undefined || !response.ok || socket.destroyed) return await writeResponse(socket, response, incoming.method === 'HEAD');
    const start = open;
    wss.handleUpgrade(incoming, socket, head, (ws) => track(server, ws, start(ws)));
  } catch (error) {
    console.error(error);
    socket.destroy();
  }
}

/**
 * Closes the websockets of a server that is stopping (1001), and drops those that do not finish
 * their closing handshake in time: the server's `close()` waits for every connection. Resolves once
 * each has stopped what it started (a hostapd_cli process).
 */
export async function closeUpgraded(server: Server): Promise<void> {
  const open = servers.get(server) ?? new Map<WebSocket, Promise<void>>();
  for (const ws of open.keys()) {
    ws.close(1001, 'the server is stopping');
    setTimeout(() => ws.terminate(), CLOSE_GRACE_MS).unref();
  }
  await Promise.all(open.values());
}

/**
 * `GET /api/v1/chutes/:chute/networks/:network/hostapd_control/ws` (ParaDrop's path): after the
 * checks of `…/hostapd_status` (400 bad names, 404 unknown chute or network, 409 no access point),
 * a websocket upgrade becomes the network's hostapd control channel (`hostapdControlSession`);
 * any other request answers 426 Upgrade Required.
 */
export async function hostapdControl(c: Context, device: Device): Promise<Response> {
  const params = pathParams({ params: c.req.param() } as FunctionInput, ['chute', 'network']);
  const network = await servingNetwork(device, params, ['access-point'], 'control the access point');
  const accept = websocketUpgrade(c);
  const host = device.network(network.target);
  accept((ws) => {
    const session = hostapdControlSession(host, {
      send: (text) => ws.send(text),
      close: (code, reason) => ws.close(code, reason),
    });
    ws.on('message', (data, isBinary) => session.receive(isBinary ? null : data.toString()));
    // ws closes the websocket itself after an error (such as a message over the size limit).
    ws.on('error', () => undefined);
    return new Promise((resolve) => ws.once('close', () => void session.closed().then(resolve, resolve)));
  });
  return c.body(null, 200);
}

/**
 * `GET /ws/changes/:id/stream` (ParaDrop's change stream, which pdtools opens after each change):
 * after the checks of `GET /api/v1/changes/:id` (400 naming params.id, 404 unknown change), a
 * websocket upgrade gets the change's messages as JSON `{time, message}`, those so far and then each
 * new one, and closes with 1000 once the change is final (`followChange`). Text messages from the
 * client are ignored; a binary one closes with 1003. Any other request answers 426 Upgrade Required.
 */
export async function changeStream(c: Context, device: Device): Promise<Response> {
  const { id } = await changeById({ params: c.req.param() } as FunctionInput, device);
  return sendingSocket(c, 'the change stream', (sink) => followChange(device, id, sink));
}

/**
 * ParaDrop's websockets of a chute's log, `GET /ws/chute_logs/:chute` and `GET /sockjs/logs/:chute`
 * (and any path below them, as ParaDrop's daemon routes them; pdtools' `node watch-chute-logs` opens
 * the second): after the checks of `GET /api/v1/chutes/:chute/logs` (400 bad name, 404 unknown
 * chute), a websocket upgrade gets the chute's last lines and then each new one as ParaDrop sends them
 * (`followChuteLog`), and closes with 1000 when the chute stops. Text messages from the client are
 * ignored; a binary one closes with 1003. Any other request answers 426 Upgrade Required.
 */
export async function chuteLogSocket(c: Context, device: Device): Promise<Response> {
  const { chute } = pathParams({ params: c.req.param() } as FunctionInput, ['chute']);
  await loadChute(device, chute);
  return sendingSocket(c, "the chute's log", (sink) => followChuteLog(device, chute, sink));
}

/** What a websocket that only sends is given: `send` resolves once the message is written (or dropped, closing), so that a slow client slows the sender. */
interface SendingSink {
  send(text: string): Promise<void>;
  close(code: number, reason: string): void;
}

/**
 * Takes a websocket upgrade for a websocket that only sends: `start` begins sending through the
 * sink it is given, and answers how to stop once the websocket closed. Text messages from the client
 * are ignored; a binary one closes with 1003, saying that `what` reads nothing from the client.
 */
function sendingSocket(c: Context, what: string, start: (sink: SendingSink) => { stop(): Promise<void> }): Response {
  const accept = websocketUpgrade(c);
  accept((ws) => {
    const sending = start({
      // Written, or not sent as the websocket is closing: its close then stops the sender.
      send: (text) => new Promise((resolve) => ws.send(text, () => resolve())),
      close: (code, reason) => ws.close(code, reason),
    });
    ws.on('message', (_data, isBinary) => {
      if (isBinary) ws.close(CLOSE.unsupportedData, `binary messages are not accepted: ${what} reads nothing from the client`);
    });
    ws.on('error', () => undefined);
    return new Promise((resolve) => ws.once('close', () => void sending.stop().then(resolve, resolve)));
  });
  return c.body(null, 200);
}

/**
 * `GET /ws/paradrop_logs` (ParaDrop's websocket of the daemon's log, which `pdtools node watch-logs`
 * prints): a websocket upgrade gets each new line of the daemon's log as one text message, the JSON
 * line as written to standard output, as ParaDrop sends each new log message's text. A client that
 * leaves more than `MAX_UNREAD_BYTES` unsent is closed with 1008; the server's stop closes with 1001.
 * Text messages from the client are ignored; a binary one closes with 1003. Any other request answers
 * 426 Upgrade Required, and 503 when too many clients follow the log.
 */
export async function paradropLogs(c: Context, logs: LogLines): Promise<Response> {
  const accept = websocketUpgrade(c);
  checkRoomToFollow(logs);
  accept((ws) => {
    const unfollow = logs.follow(
      (entry) => {
        if (ws.bufferedAmount > MAX_UNREAD_BYTES) ws.close(CLOSE.policy, 'the log is read too slowly');
        else ws.send(entry.message);
      },
      () => ws.close(1001, 'the server is stopping'),
    );
    ws.on('message', (_data, isBinary) => {
      if (isBinary) ws.close(CLOSE.unsupportedData, 'binary messages are not accepted: the log reads nothing from the client');
    });
    ws.on('error', () => undefined);
    return new Promise((resolve) =>
      ws.once('close', () => {
        unfollow();
        resolve();
      }),
    );
  });
  return c.body(null, 200);
}

/** How a route takes a websocket upgrade request; a 426 Upgrade Required for any other request. */
function websocketUpgrade(c: Context): UpgradeBindings[typeof ACCEPT] {
  const accept = (c.env as Partial<UpgradeBindings> | undefined)?.[ACCEPT];
  if (accept === undefined || c.req.header('upgrade')?.toLowerCase() !== 'websocket') {
    throw new HttpProblem(426, `${c.req.path} is a websocket: send a websocket upgrade request (Upgrade: websocket)`, { headers: { upgrade: 'websocket' } });
  }
  return accept;
}

function track(server: Server, ws: WebSocket, stopped: Promise<void>): void {
  let open = servers.get(server);
  if (open === undefined) servers.set(server, (open = new Map()));
  const sockets = open;
  sockets.set(ws, stopped);
  void stopped.then(() => sockets.delete(ws));
}

function hasBody(incoming: IncomingMessage): boolean {
  const length = incoming.headers['content-length'];
  return incoming.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/** The Fetch request of an upgrade request: its method, URL and headers (no body); a 400 when it has none. */
function upgradeRequest(incoming: IncomingMessage): Request | HttpProblem {
  try {
    const headers = new Headers();
    for (const [name, value] of Object.entries(incoming.headers)) {
      if (value === undefined) continue;
      for (const one of Array.isArray(value) ? value : [value]) headers.append(name, one);
    }
    const url = new URL(incoming.url ?? '/', `http://${incoming.headers.host ?? 'localhost'}`);
    return new Request(url, { method: incoming.method ?? 'GET', headers });
  } catch (error) {
    return new HttpProblem(400, `not a request that can be served: ${(error as Error).message}`);
  }
}
