import type { Server } from 'node:http';
import { serve } from '@hono/node-server';
import type { Hono } from 'hono';
import { openEventStreams } from './api.ts';
import { keepTickShape } from './tick-shape.ts';

export interface Listening {
  /** Base URL with the real port, e.g. `http://127.0.0.1:41234`. */
  url: string;
  /** Stops accepting connections, ends the events streams, and waits for open requests to finish, and for open websockets to close and stop what they started. */
  close(): Promise<void>;
}

/** How long `close()` lets open requests finish before it drops their connections. */
const CLOSE_GRACE_MS = 5000;

/**
 * Serves an app over HTTP on @hono/node-server. Port 0 picks a free port. Upgrade requests (the
 * websockets) go to runtime/http/websocket.ts, a bundle of its own loaded on the first one, which
 * answers them with the app too; `close()` ends the app's events streams and closes the websockets as well. A request Node's server
 * cannot read (a head over 16 KiB, a malformed one) gets a problem from runtime/http/client-error.ts,
 * loaded likewise, where Node would write a bare status line. The shape of Node's tick
 * objects is kept alive (`keepTickShape`), so that the server is as fast after an idle as before.
 *
 * @example
 * const server = await listen(app, { host: '127.0.0.1', port: 0 });
 * console.log(`listening on ${server.url}`);
 * await server.close();
 */
export function listen(app: Hono, address: { host: string; port: number }): Promise<Listening> {
  keepTickShape();
  return new Promise((resolve, reject) => {
    let websockets: Promise<typeof import('./websocket.ts')> | undefined;
    const server = serve({ fetch: app.fetch, hostname: address.host, port: address.port }, (info) => {
      server.off('error', reject);
      const host = address.host.includes(':') ? `[${address.host}]` : address.host;
      resolve({
        url: `http://${host}:${info.port}`,
        close: async () => {
          for (const end of openEventStreams.get(app) ?? []) end();
          await Promise.all([websockets?.then((module) => module.closeUpgraded(server as Server)), close(server as Server)]);
        },
      });
    });
    server.once('error', reject);
    server.on('clientError', (error, socket) => {
      import('./client-error.ts').then(
        (module) => module.answerClientError(error, socket),
        (failure: unknown) => {
          console.error(failure);
          socket.destroy();
        },
      );
    });
    server.on('upgrade', (incoming, socket, head) => {
      (websockets ??= import('./websocket.ts')).then(
        (module) => module.upgrade(app, server as Server, incoming, socket, head),
        (error: unknown) => {
          console.error(error);
          socket.destroy();
        },
      );
    });
  });
}

function close(server: Server): Promise<void> {
  return new Promise((resolve, reject) => {
    server.close((error) => (error ? reject(error) : resolve()));
    server.closeIdleConnections();
    setTimeout(() => server.closeAllConnections(), CLOSE_GRACE_MS).unref();
  });
}
