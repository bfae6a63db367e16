/**
 * Reading request bodies off the wire, each within its limit (`limitedBody`), and handing them to the
 * core to decode (functions/core/body/): the API's bodies (`requestBody`), the login's credentials,
 * and the emulator's state (emulator/state-api.ts).
 */
import type { Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { bodyTooLarge, decodeBody, isUpload, readBody } from '../../functions/core/body/decode.ts';
import type { FunctionInput } from '../../functions/core/handler.ts';
import { HttpProblem } from '../../functions/core/problem.ts';
import type { Route } from '../../functions/core/route.ts';

/** How runtime/http/api.ts reads a request's body: `requestBody(limit, uploadLimit)`. */
export type RequestBody = ReturnType<typeof requestBody>;

/**
 * Reading request bodies, within `limit` bytes (`uploadLimit` for a route's `upload` media types).
 * A bundle of its own (dist/request-body.mjs), loaded on the first request that has a body: a GET
 * never needs it.
 *
 * @example
 * const body = requestBody(1024 * 1024, 512 * 1024 * 1024);
 * await body.readInto(input, c, route); // input.body decoded, or input.bytes for an upload
 */
export function requestBody(limit: number, uploadLimit: number) {
  const readText = limitedBody(limit, (c) => c.req.text());
  const readBytes = limitedBody(uploadLimit, async (c) => new Uint8Array(await c.req.arrayBuffer()));
  return {
    /** Reads the body into `input` (decoded, or as bytes for an upload). */
    async readInto(input: FunctionInput, c: Context, route: Route): Promise<FunctionInput> {
      const contentType = input.headers['content-type'];
      if (isUpload(route, contentType)) input.bytes = await readBytes(c);
      else input.body = readBody(route, contentType, (input.text = await readText(c)), limit);
      return input;
    },
    /** The username and password of a login's body. */
    async readCredentials(c: Context): Promise<{ username: string; password: string }> {
      return credentials(await this.readJson(c));
    },
    /** A JSON body, decoded; undefined when there is none. */
    async readJson(c: Context): Promise<unknown> {
      return decodeBody(c.req.header('content-type'), await readText(c), limit);
    },
  };
}

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

/**
 * The username and password of a login body (`{"username": …, "password": …}`, decoded).
 *
 * @throws HttpProblem 422 naming each field that is missing or not a string (a body that is read but
 *   breaks a rule, docs/api/README.md#errors).
 */
export function credentials(body: unknown): { username: string; password: string } {
  const fields = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  const errors = (['username', 'password'] as const)
    .filter((name) => typeof fields[name] !== 'string')
    .map((name) => ({ path: `body.${name}`, message: fields[name] === undefined ? 'is required' : 'must be a string' }));
  if (errors.length > 0) throw new HttpProblem(422, 'a login needs a JSON body {"username": …, "password": …}', { errors });
  return { username: fields.username as string, password: fields.password as string };
}
