import { createHash } from 'node:crypto';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo, Server } from 'node:net';
import { afterAll, beforeAll } from 'vitest';

/*
 * A cloud controller on a real socket, for tests of the built CLI (a separate process, which an msw
 * interceptor cannot reach): it answers what chutebox asks (runtime/controller/client.ts) and
 * records every request.
 */

/** One request the controller received, body read in full. */
export interface ControllerRequest {
  method: string;
  /** The path with its query, e.g. `/api/routers/r1/telemetry`. */
  path: string;
  /** The `Authorization` header, or null. */
  authorization: string | null;
  body: string;
}

export interface HttpController {
  /** Base URL, e.g. `http://127.0.0.1:41234`: what to give as `pdserver`. */
  url: string;
  /** Every request received so far, oldest first. */
  requests: ControllerRequest[];
  /**
   * The first request from index `from` on (default 0) that `match` takes: one received already, or
   * the next one that is.
   */
  next(match: (request: ControllerRequest) => boolean, from?: number): Promise<ControllerRequest>;
}

export interface HttpControllerOptions {
  /** The one apitoken it accepts, or the one of each router id (a fleet's); any other bearer token (or none) gets 401. */
  apitoken: string | ((routerId: string) => string);
  /** Answers a telemetry report only once this resolves (default at once): to make something happen while a report is in flight. */
  holdReport?: (request: ControllerRequest) => Promise<void>;
  /** A router id whose check it never answers (the connection stays open until the controller closes). */
  silentRouter?: string;
  /** The release of chutebox it offers now, asked at each request: its archive, and a SHA-256 to give instead of the archive's; none by default. */
  release?: () => OfferedRelease | null;
  /** A listening socket to answer on, e.g. one in a router's namespace (`listenIn`); by default a new one on 127.0.0.1. */
  listening?: Server;
}

/** A release the controller offers (runtime/controller/client.ts, `RuntimeRelease`). */
export interface OfferedRelease {
  version: string;
  archive: Uint8Array;
  /** The SHA-256 it gives; the archive's by default. */
  sha256?: string;
}

/** Where the controller serves the archive of the release it offers. */
const RELEASE_ARCHIVE = /^\/releases\/([^/?]+)\.tar$/;

const ROUTER_PATH = /^\/api\/routers\/([^/?]+)(\/telemetry|\/runtime)?\/?$/;

/**
 * Starts the controller before the tests of a file (or describe block) and closes it after them.
 * It answers `GET /api/routers/<id>` with 200 `{_id: <id>}`, `POST /api/routers/<id>/telemetry`
 * with 200 `{}`, `GET /api/routers/<id>/runtime` with the release it offers (204 without one) and
 * `GET /releases/<version>.tar` with its archive, each only with `Authorization: Bearer <apitoken>`
 * (else 401); anything else 404.
 *
 * @example
 * const controller = useHttpController({ apitoken: 'good-token' });
 * // POST /api/v1/config/provision { routerId: 'r1', apitoken: 'good-token', pdserver: controller().url, … }
 */
export function useHttpController(options: HttpControllerOptions): () => HttpController {
  let controller: HttpController | undefined;
  let close: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    ({ controller, close } = await startHttpController(options));
  });
  afterAll(async () => {
    await close?.();
  });
  return () => {
    if (controller === undefined) throw new Error('useHttpController: the controller runs only while the tests run');
    return controller;
  };
}

/** Starts the controller of `useHttpController` now; the caller closes it. */
export async function startHttpController(options: HttpControllerOptions): Promise<{ controller: HttpController; close: () => Promise<void> }> {
  const requests: ControllerRequest[] = [];
  const apitokenOf = (routerId: string) => (typeof options.apitoken === 'string' ? options.apitoken : options.apitoken(routerId));
  const waiters = new Set<{ match: (request: ControllerRequest) => boolean; from: number; resolve: (request: ControllerRequest) => void }>();

  function answer(res: ServerResponse, status: number, body: unknown): void {
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  }

  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const request: ControllerRequest = {
      method: req.method ?? '',
      path: req.url ?? '',
      authorization: req.headers.authorization ?? null,
      body: Buffer.concat(chunks).toString('utf8'),
    };
    requests.push(request);
    for (const waiter of waiters) {
      if (requests.length - 1 >= waiter.from && waiter.match(request)) {
        waiters.delete(waiter);
        waiter.resolve(request);
      }
    }
    const release = options.release?.() ?? null;
    const archive = RELEASE_ARCHIVE.exec(request.path);
    if (archive !== null && release !== null && release.version === archive[1] && request.authorization === `Bearer ${apitokenOf('')}`) {
      return void res.writeHead(200, { 'content-type': 'application/x-tar' }).end(release.archive);
    }
    const match = ROUTER_PATH.exec(request.path);
    if (match === null) return answer(res, 404, { error: 'not found' });
    const routerId = decodeURIComponent(match[1]!);
    const bearer = `Bearer ${apitokenOf(routerId)}`;
    if (match[2] === '/runtime') {
      if (request.authorization !== bearer) return answer(res, 401, { error: 'invalid token' });
      if (release === null) return void res.writeHead(204).end();
      const sha256 = release.sha256 ?? createHash('sha256').update(release.archive).digest('hex');
      return answer(res, 200, { version: release.version, sha256, url: `/releases/${release.version}.tar` });
    }
    const telemetry = match[2] !== undefined;
    if (request.method !== (telemetry ? 'POST' : 'GET')) return answer(res, 405, { error: 'method not allowed' });
    if (!telemetry && routerId === options.silentRouter) return; // never answered
    if (request.authorization !== bearer) return answer(res, 401, { error: 'invalid token' });
    if (telemetry) await options.holdReport?.(request);
    answer(res, 200, telemetry ? {} : { _id: routerId, name: routerId });
  });
  await new Promise<void>((resolve) => (options.listening ? server.listen(options.listening, resolve) : server.listen(0, '127.0.0.1', resolve)));
  const { port } = server.address() as AddressInfo;

  return {
    controller: {
      url: `http://127.0.0.1:${port}`,
      requests,
      next(match, from = 0) {
        const found = requests.slice(from).find(match);
        if (found !== undefined) return Promise.resolve(found);
        return new Promise((resolve) => waiters.add({ match, from, resolve }));
      },
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
