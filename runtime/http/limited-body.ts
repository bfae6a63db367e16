import type { Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { bodyTooLarge } from '../../functions/core/body/decode.ts';

/**
 * Reads a request body of at most `maxSize` bytes with Hono's body limit: a streamed body is cut
 * (413, `bodyTooLarge`) as soon as it passes the limit, not read to its end.
 *
 * @example
 * const readText = limitedBody(1 << 20, (c) => c.req.text());
 * const text = await readText(c);
 */
export function limitedBody<T>(maxSize: number, read: (c: Context) => Promise<T>): (c: Context) => Promise<T> {
  const limiter = bodyLimit({
    maxSize,
    onError: () => {
      throw bodyTooLarge(maxSize);
    },
  });
  return async (c) => {
    let body: T | undefined;
    await limiter(c, async () => {
      body = await read(c);
    });
    return body as T;
  };
}
