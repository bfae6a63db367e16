import { connect } from 'node:net';

/*
 * HTTP/1.1 over a plain socket, for what fetch will not send: a `Host` of another name, a head over
 * Node's limit, text that is not HTTP at all.
 */

/** An answer read off the socket: the status, the headers by lower-case name, and the body as it came. */
export interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * Sends `text` as it is to the server at `url` (e.g. `http://127.0.0.1:41234`) and answers everything
 * it writes until the connection closes (also when it closes with a reset after its answer).
 *
 * @example
 * await rawRequest(server.url, 'GET / HTTP/1.1\r\nHost: device\r\nConnection: close\r\n\r\n') // 'HTTP/1.1 404 Not Found\r\n…'
 */
export function rawRequest(url: string, text: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname, () => socket.write(text));
    let answer = '';
    socket.setEncoding('utf8').on('data', (chunk: string) => (answer += chunk));
    socket.on('error', () => undefined);
    socket.once('close', () => resolve(answer));
  });
}

/**
 * Sends `first` to the server at `url`, waits for its whole answer (a head and a `Content-Length`
 * body), then sends `then` on the same connection, and answers everything written after the first
 * answer until the connection closes.
 *
 * @example
 * await rawRequestAfter(server.url, 'GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n', 'GARBAGE\r\n\r\n') // 'HTTP/1.1 400 Bad Request\r\n…'
 */
export function rawRequestAfter(url: string, first: string, then: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname, () => socket.write(first));
    let answer = Buffer.alloc(0);
    /** Where the answer to `then` begins, once the first answer is whole. */
    let rest: number | undefined;
    socket.on('data', (chunk: Buffer) => {
      answer = Buffer.concat([answer, chunk]);
      const end = answer.indexOf('\r\n\r\n');
      if (rest !== undefined || end < 0) return;
      const length = end + 4 + Number(parseAnswer(answer.toString()).headers['content-length']);
      if (answer.length < length) return;
      rest = length;
      socket.write(then);
    });
    socket.on('error', () => undefined);
    socket.once('close', () => resolve(answer.subarray(rest ?? 0).toString()));
  });
}

/**
 * `method path` with `headers` (a `Host` among them, or none) and `Connection: close`, sent with
 * `rawRequest`, and its answer read.
 *
 * @example
 * const { status, headers, body } = await rawCall(server.url, 'GET', '/api/v1/info/features', { host: 'rebind.evil.example' });
 */
export async function rawCall(url: string, method: string, path: string, headers: Record<string, string>): Promise<RawAnswer> {
  const head = Object.entries({ ...headers, connection: 'close' }).map(([name, value]) => `${name}: ${value}\r\n`);
  return parseAnswer(await rawRequest(url, `${method} ${path} HTTP/1.1\r\n${head.join('')}\r\n`));
}

/**
 * The status, headers and body of an HTTP/1.1 answer as written on the socket (a body with a
 * `Content-Length`, as chutebox writes its problems).
 *
 * @throws Error for text that is no HTTP answer.
 */
export function parseAnswer(text: string): RawAnswer {
  const end = text.indexOf('\r\n\r\n');
  const [statusLine = '', ...lines] = text.slice(0, end).split('\r\n');
  const status = /^HTTP\/1\.1 (\d{3}) /.exec(statusLine);
  if (end < 0 || status === null) throw new Error(`not an HTTP/1.1 answer: ${JSON.stringify(text.slice(0, 200))}`);
  const headers = Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
  return { status: Number(status[1]), headers, body: text.slice(end + 4) };
}
