import type { IncomingMessage } from 'node:http';
import type { Context } from 'hono';

/**
 * A request's headers by lower-case name: over HTTP the object Node's parser already made, otherwise
 * Hono's. `c.req.header(name)` would build a Fetch `Headers` of the whole request first (with
 * @hono/node-server): the auth step did so for every request with credentials and every request to
 * serve.
 *
 * @example
 * requestHeaders(c).authorization // 'Bearer eyJ…', or undefined
 */
export function requestHeaders(c: Context): Record<string, string> {
  const incoming = incomingMessage(c);
  return incoming === undefined ? c.req.header() : (incoming.headers as Record<string, string>);
}

/** The request as Node's server received it, when it came over HTTP (@hono/node-server's bindings, or the websockets'). */
export function incomingMessage(c: Context): IncomingMessage | undefined {
  return (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
}
