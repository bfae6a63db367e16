import type { Context } from 'hono';
import { incomingMessage } from './request-headers.ts';

/**
 * The peer address of a request served by @hono/node-server, e.g. `127.0.0.1` or `::ffff:10.0.0.5`,
 * read from the socket Node already knows (its peer name is asked once per connection);
 * undefined when the request did not come over a socket (`app.request()` in a test).
 */
export function clientAddress(c: Context): string | undefined {
  return incomingMessage(c)?.socket?.remoteAddress;
}
