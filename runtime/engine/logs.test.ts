import { createServer, type ServerResponse } from 'node:http';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTempDir } from '../../test/support/temp-dir.ts';
import { CHUTE_LABEL } from '../../functions/core/device/index.ts';
import { chuteLogs } from './logs.ts';

const temp = useTempDir('chutebox-engine-logs-');

/** One message of the engine's multiplexed log answer: its 8-byte header (stream 1 stdout, 2 stderr, then the size) and its text. */
const message = (stream: 1 | 2, text: string) => {
  const header = Buffer.alloc(8);
  header[0] = stream;
  header.writeUInt32BE(Buffer.byteLength(text), 4);
  return Buffer.concat([header, Buffer.from(text)]);
};

/** An engine stand-in on a UNIX socket with one container of chute `printer`, whose log answer is `messages`. */
async function engineWithLog(messages: Buffer[]): Promise<{ socket: string; close(): Promise<void> }> {
  const socket = path.join(await temp.folder('engine'), 'docker.sock');
  const server = createServer((request, response: ServerResponse) => {
    if (request.url?.startsWith('/containers/json')) {
      return response
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify([{ Id: 'c1', Created: 1, Labels: { [CHUTE_LABEL]: 'printer' } }]));
    }
    if (!request.url?.startsWith('/containers/c1/logs')) return response.writeHead(404).end();
    response.writeHead(200, { 'content-type': 'application/vnd.docker.multiplexed-stream' });
    response.end(Buffer.concat(messages));
  });
  await new Promise<void>((resolve) => server.listen(socket, resolve));
  return { socket, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** Each entry of the stream as `time stream message`, a message over 20 characters as its start and length. */
async function read(stream: ReadableStream<{ time: string; stream: string; message: string }>): Promise<string[]> {
  const lines: string[] = [];
  for await (const { time, stream: name, message } of stream)
    lines.push(`${time} ${name} ${message.length > 20 ? `${message.slice(0, 4)}…${message.length}` : message}`);
  return lines;
}

describe("a chute's log from the engine", () => {
  it('answers in time order when a line of the other stream came between the parts of a line over 16 KiB', async () => {
    const part = 'x'.repeat(16384);
    const engine = await engineWithLog([
      message(1, '2026-11-21T12:00:01.1Z printer up\n'),
      message(1, `2026-11-21T12:00:01.2Z long ${part}`),
      message(2, '2026-11-21T12:00:01.3Z low on paper\n'),
      message(1, `2026-11-21T12:00:01.4Z ${part}`),
      message(2, '2026-11-21T12:00:01.5Z out of paper\n'),
      message(1, '2026-11-21T12:00:01.6Z end\n'),
      message(1, '2026-11-21T12:00:02Z tick 1\n'),
    ]);
    const lines = await read(await chuteLogs(engine.socket, 'printer', { follow: false, since: null, until: null, tail: null }));
    expect(lines).toEqual([
      '2026-11-21T12:00:01.1Z stdout printer up',
      `2026-11-21T12:00:01.2Z stdout long…${5 + 2 * part.length + 3}`,
      '2026-11-21T12:00:01.3Z stderr low on paper',
      '2026-11-21T12:00:01.5Z stderr out of paper',
      '2026-11-21T12:00:02Z stdout tick 1',
    ]);
  });
});
