import { getConnInfo } from '@hono/node-server/conninfo';
import type { Context } from 'hono';

/**
 * The peer address of a request served by @hono/node-server, e.g. `127.0.0.1` or `::ffff:10.0.0.5`;
 * undefined when the request did not come over a socket (`app.request()` in a test).
 */
export function clientAddress(c: Context): string | undefined {
  try {
    return getConnInfo(c).remote.address;
  } catch {
    return undefined;
  }
}
