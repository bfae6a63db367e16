import { createServer, type Server, type ServerResponse } from 'node:http';
import { createServer as createNetServer, type Socket } from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { useTempDir } from '../../test/support/temp-dir.ts';
import { chuteContainerEvent, followChuteContainerEvents, type ChuteContainerEvent, type FollowedEvents } from './events.ts';

const temp = useTempDir('chutebox-engine-events-');

/** An engine stand-in on a UNIX socket that answers `GET /events` with a stream the test writes to. */
async function fakeEngine(socket: string) {
  const streams: ServerResponse[] = [];
  const urls: string[] = [];
  let server: Server | undefined;
  const engine = {
    streams,
    urls,
    /** How many streams the client closed. */
    closedByClient: 0,
    listen: () =>
      new Promise<void>((resolve) => {
        server = createServer((request, response) => {
          urls.push(request.url ?? '');
          if (!request.url?.startsWith('/events')) return response.writeHead(404).end();
          response.writeHead(200, { 'content-type': 'application/json' }).flushHeaders();
          response.on('close', () => !response.writableEnded && engine.closedByClient++);
          streams.push(response);
        });
        server.listen(socket, resolve);
      }),
    /** Goes away: its streams end and its socket is removed. */
    close: () =>
      new Promise<void>((resolve) => {
        for (const stream of streams.splice(0)) stream.end();
        server?.close(() => resolve());
      }),
  };
  await engine.listen();
  return engine;
}

const line = (action: string, chute: string | null, id = 'c1', exitCode?: string) =>
  `${JSON.stringify({ Type: 'container', Action: action, Actor: { ID: id, Attributes: { ...(chute === null ? {} : { 'io.chutebox.chute': chute }), ...(exitCode === undefined ? {} : { exitCode }) } } })}\n`;

let following: FollowedEvents | undefined;
afterEach(async () => {
  await following?.stop();
  following = undefined;
});

describe("followChuteContainerEvents: the engine's events of the chute containers", () => {
  it('asks GET /events for container events of the chute label, and hands on each chute event as it comes, a line cut in two included', async () => {
    const socket = path.join(await temp.folder('events'), 'docker.sock');
    const engine = await fakeEngine(socket);
    const events: ChuteContainerEvent[] = [];
    let connected = 0;
    following = followChuteContainerEvents(socket, {
      onEvent: (event) => events.push(event),
      onConnected: () => connected++,
    });
    await expect.poll(() => connected).toBe(1);
    const filters = JSON.parse(new URL(engine.urls[0]!, 'http://engine').searchParams.get('filters')!);
    expect(filters).toEqual({ type: ['container'], label: ['io.chutebox.chute'], event: ['start', 'restart', 'kill', 'die', 'pause', 'unpause', 'destroy'] });
    const [stream] = engine.streams;
    const die = line('die', 'hello', 'c2', '143');
    stream!.write(line('start', 'hello'));
    stream!.write(`not json\n${line('start', null)}${die.slice(0, 20)}`);
    stream!.write(die.slice(20));
    await expect
      .poll(() => events)
      .toEqual([
        { chute: 'hello', action: 'start', id: 'c1', exitCode: null },
        { chute: 'hello', action: 'die', id: 'c2', exitCode: 143 },
      ]);
    await engine.close();
  });

  it('opens the stream again when the engine goes away and comes back, waiting longer after each failure', async () => {
    const socket = path.join(await temp.folder('reconnect'), 'docker.sock');
    const engine = await fakeEngine(socket);
    const seen: string[] = [];
    following = followChuteContainerEvents(
      socket,
      { onEvent: () => undefined, onConnected: () => seen.push('connected'), onClosed: () => seen.push('closed') },
      { firstMs: 100, maxMs: 400 },
    );
    await expect.poll(() => seen).toEqual(['connected']);
    await engine.close();
    await new Promise((resolve) => setTimeout(resolve, 500));
    // Tries at about 0, 100, 300 ms after it went away (700 would be the next): no busy loop.
    const closed = seen.filter((what) => what === 'closed').length;
    expect(closed).toBeGreaterThanOrEqual(1);
    expect(closed).toBeLessThanOrEqual(4);
    await engine.listen();
    await expect.poll(() => seen.filter((what) => what === 'connected').length, { timeout: 5000 }).toBe(2);
    engine.streams[0]!.write(line('start', 'hello'));
    await engine.close();
  });

  it('counts an engine that accepts the connection and never answers as gone, and tries again', async () => {
    const socket = path.join(await temp.folder('hung'), 'docker.sock');
    const connections: Socket[] = [];
    const hung = createNetServer((connection) => void connections.push(connection.on('data', () => undefined)));
    await new Promise<void>((resolve) => hung.listen(socket, resolve));
    const seen: string[] = [];
    following = followChuteContainerEvents(
      socket,
      { onEvent: () => undefined, onConnected: () => seen.push('connected'), onClosed: () => seen.push('closed') },
      { firstMs: 50, maxMs: 50, openMs: 200 },
    );
    await expect.poll(() => seen.length, { timeout: 2000 }).toBeGreaterThanOrEqual(2);
    expect(seen.every((what) => what === 'closed')).toBe(true);
    // Each attempt's connection was given up, not left open.
    await expect.poll(() => connections.filter((connection) => !connection.destroyed).length).toBeLessThanOrEqual(1);
    await following.stop();
    await new Promise<void>((resolve) => hung.close(() => resolve()));
  });

  it('stop ends the stream and opens none after', async () => {
    const socket = path.join(await temp.folder('stop'), 'docker.sock');
    const engine = await fakeEngine(socket);
    let connected = 0;
    following = followChuteContainerEvents(socket, { onEvent: () => undefined, onConnected: () => connected++ }, { firstMs: 10, maxMs: 10 });
    await expect.poll(() => connected).toBe(1);
    await following.stop();
    await expect.poll(() => engine.closedByClient).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(engine.urls).toHaveLength(1);
    await engine.close();
  });
});

describe('chuteContainerEvent: one line of the stream', () => {
  it('reads the chute, action, id and exit code of a chute container event; anything else is null', () => {
    expect(chuteContainerEvent(line('die', 'hello', 'c9', '0'))).toEqual({ chute: 'hello', action: 'die', id: 'c9', exitCode: 0 });
    expect(chuteContainerEvent(line('kill', 'hello'))).toEqual({ chute: 'hello', action: 'kill', id: 'c1', exitCode: null });
    expect(chuteContainerEvent(line('start', null))).toBeNull();
    expect(chuteContainerEvent('{"Type":"image","Action":"pull","Actor":{"ID":"x","Attributes":{"io.chutebox.chute":"hello"}}}')).toBeNull();
    expect(chuteContainerEvent('null')).toBeNull();
    expect(chuteContainerEvent('{')).toBeNull();
  });
});
