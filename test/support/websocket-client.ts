import type { IncomingMessage } from 'node:http';
import { WebSocket } from 'ws';

/** An open websocket whose messages a test takes one at a time. */
export interface WebSocketClient {
  /** The next text message, in the order they came. */
  next(): Promise<string>;
  /** Sends a text message. */
  send(text: string | Buffer, options?: { binary?: boolean }): void;
  /** Starts the closing handshake. */
  close(): void;
  /** Resolves when the websocket has closed, with the code and reason the server gave. */
  closed: Promise<{ code: number; reason: string }>;
}

/** An answer to a websocket upgrade that refused it: an ordinary HTTP response. */
export interface Refusal {
  status: number;
  type: string | null;
  headers: IncomingMessage['headers'];
  /** The decoded JSON body, or the text. */
  body: unknown;
}

/**
 * Opens a websocket to `url` (`http://…` becomes `ws://…`), or answers the HTTP response of a
 * server that refused the upgrade.
 *
 * @example
 * const ws = await openWebSocket(`${server.url}/api/v1/chutes/hello/networks/wifi/hostapd_control/ws`);
 * if ('status' in ws) throw new Error(`refused: ${ws.status}`);
 * ws.send('STATUS');
 * await ws.next(); // 'state=ENABLED\n…'
 */
export function openWebSocket(url: string, headers: Record<string, string> = {}): Promise<WebSocketClient | Refusal> {
  const ws = new WebSocket(url.replace(/^http/, 'ws'), { headers });
  const queued: string[] = [];
  const waiting: ((text: string) => void)[] = [];
  ws.on('message', (data, isBinary) => {
    const text = isBinary ? `(binary) ${data.toString()}` : data.toString();
    const waiter = waiting.shift();
    if (waiter !== undefined) waiter(text);
    else queued.push(text);
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) => ws.once('close', (code, reason) => resolve({ code, reason: reason.toString() })));
  return new Promise((resolve, reject) => {
    ws.once('open', () =>
      resolve({
        next: () => (queued.length > 0 ? Promise.resolve(queued.shift()!) : new Promise((done) => waiting.push(done))),
        send: (text, options) => ws.send(text, { binary: options?.binary ?? false }),
        close: () => ws.close(),
        closed,
      }),
    );
    ws.once('unexpected-response', (_request, response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.on('end', () => {
        const type = response.headers['content-type'] ?? null;
        resolve({ status: response.statusCode ?? 0, type, headers: response.headers, body: /json/.test(type ?? '') && text !== '' ? JSON.parse(text) : text });
      });
    });
    ws.once('error', reject);
  });
}

/** The websocket of an open answer; fails the test with the refusal otherwise. */
export function opened(answer: WebSocketClient | Refusal): WebSocketClient {
  if ('status' in answer) throw new Error(`the websocket upgrade was refused: ${answer.status} ${JSON.stringify(answer.body)}`);
  return answer;
}

/** The refusal of an answer; fails the test when the websocket opened. */
export function refused(answer: WebSocketClient | Refusal): Refusal {
  if (!('status' in answer)) {
    answer.close();
    throw new Error('the websocket upgrade was accepted');
  }
  return answer;
}
