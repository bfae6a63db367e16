import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { Hono } from 'hono';
import { PROBLEM_CONTENT_TYPE, problem } from '../../functions/core/problem.ts';
import { corsPolicy } from '../../runtime/http/cors.ts';
import { ACCEPT_WEBSOCKET, type AcceptWebsocket } from '../../runtime/http/websocket-accept.ts';
import type { FaultEngine, Meeting } from './engine.ts';
import { faultedBody, faultedStream, faultedWebsocket, type Drop, type StreamEffect } from './streams.ts';

/** A Fetch handler as Hono's `app.fetch` is one: the request, and the server's bindings (`c.env`). */
type Fetch = Hono['fetch'];

/** The header that gives a request its own draws: the same key meets the same fate, whatever runs beside it. */
export const FAULT_KEY_HEADER = 'chutebox-fault-key';

/** The emulator's admin routes, which no rule touches. */
const ADMIN_PREFIX = '/_chutebox/';

/**
 * How faults reach a client, where the Fetch answer alone cannot say it: how to wait, what a broken
 * connection answers, how a body breaks mid-way. Over Node's sockets (`chutebox emulate`,
 * `startEmulator`) the socket itself is reset or closed; msw gives its own (`delay`,
 * `HttpResponse.error()`) in the bindings under `FAULT_TRANSPORT`; else a network error as a Fetch
 * `Response.error()` and a body that fails.
 */
export interface FaultTransport {
  sleep(ms: number): Promise<void>;
  /** The answer of a connection reset by the device, or closed before any answer. */
  broken(fault: 'connection-reset' | 'empty-response'): Response;
  /** Breaks the connection of a body mid-way. */
  drop: Drop;
}

/** The key of a transport in the bindings handed to `app.fetch` (msw-router.ts). */
export const FAULT_TRANSPORT = Symbol.for('chutebox.faultTransport');

/** The bindings of a request, as a fault rule reads them: Node's request, a websocket's acceptance, a transport. */
interface Bindings {
  incoming?: IncomingMessage;
  [ACCEPT_WEBSOCKET]?: AcceptWebsocket;
  [FAULT_TRANSPORT]?: Partial<FaultTransport>;
}

/**
 * `fetch` with the fault rules of `faults` applied to every request but the admin routes
 * (`/_chutebox/…`): a request meets its rules (`FaultEngine.meet`, with its `Chutebox-Fault-Key`),
 * waits its delay, then is answered by its outcome: a problem of the rule's status (with the CORS
 * headers of an answer), a broken connection, or the real answer with its body or stream faulted. A
 * request that meets none goes to `fetch` at once.
 *
 * @example
 * app.fetch = faultingFetch(app.fetch, faults, { corsOrigin });
 */
export function faultingFetch(fetch: Fetch, faults: FaultEngine, options: { corsOrigin?: string | undefined }): Fetch {
  const cors = corsPolicy(options.corsOrigin);
  return (request, env, executionCtx) => {
    if (faults.empty) return fetch(request, env, executionCtx);
    const path = new URL(request.url).pathname;
    if (path.startsWith(ADMIN_PREFIX)) return fetch(request, env, executionCtx);
    const key = request.headers.get(FAULT_KEY_HEADER);
    const meeting = faults.meet({ method: request.method, path, ...(key === null ? {} : { key }) });
    if (meeting.latencyMs === 0 && meeting.outcome === null) {
      meeting.done();
      return fetch(request, env, executionCtx);
    }
    const bindings = env as Bindings | undefined;
    const real = (given: Bindings | undefined = bindings) => fetch(request, given, executionCtx);
    const problemHeaders = { 'content-type': PROBLEM_CONTENT_TYPE, ...cors.headers(request.headers.get('origin') ?? undefined) };
    return answer(meeting, transportOf(bindings), bindings, real, problemHeaders).finally(meeting.done);
  };
}

/** The answer of a request that met faults: after its delay, its outcome's, or the real one (`real(bindings)`). */
async function answer(
  meeting: Meeting,
  transport: FaultTransport,
  bindings: Bindings | undefined,
  real: (bindings?: Bindings) => Response | Promise<Response>,
  problemHeaders: Record<string, string>,
): Promise<Response> {
  if (meeting.latencyMs > 0) await transport.sleep(meeting.latencyMs);
  const found = meeting.outcome;
  if (found === null) return real();
  const { effect, rule } = found;
  switch (effect.kind) {
    case 'status': {
      const body = problem(effect.status, effect.detail ?? `the emulator answers ${effect.status}, as fault rule ${rule} asks`);
      return new Response(JSON.stringify(body), { status: effect.status, headers: problemHeaders });
    }
    case 'fault': {
      if (effect.fault === 'connection-reset' || effect.fault === 'empty-response') return transport.broken(effect.fault);
      const response = await real();
      return streamedAnswer(response) ? response : faultedBody(response, effect, transport.sleep, transport.drop);
    }
    case 'stream': {
      const accept = bindings?.[ACCEPT_WEBSOCKET];
      if (accept !== undefined) return real({ ...bindings, [ACCEPT_WEBSOCKET]: websocketWith(accept, effect, rule) });
      const response = await real();
      if (response.body === null) return response;
      return new Response(faultedStream(response.body, effect, transport.drop), {
        status: response.status,
        statusText: response.statusText,
        headers: response.headers,
      });
    }
  }
}

/** The media types of answers streamed for as long as they follow (the events, a chute's log): a body fault leaves them alone. */
const STREAMED_TYPES = ['text/event-stream', 'application/x-ndjson'];

/** Whether `response` streams for as long as it follows (the events, a chute's log). */
export function streamedAnswer(response: Response): boolean {
  const type = response.headers.get('content-type') ?? '';
  return STREAMED_TYPES.some((streamedType) => type.startsWith(streamedType));
}

/** The acceptance of a websocket upgrade, with the stream fault applied to the websocket once open. */
function websocketWith(accept: AcceptWebsocket, effect: StreamEffect, rule: string): AcceptWebsocket {
  return (open) =>
    accept((ws) => {
      faultedWebsocket(ws, effect, rule);
      return open(ws);
    });
}

/** The transport of a request: msw's when its bindings give one, Node's socket when it came over one, else Fetch's. */
function transportOf(env: Bindings | undefined): FaultTransport {
  const socket = env?.incoming?.socket;
  const base = socket === undefined ? FETCH_TRANSPORT : socketTransport(socket);
  return { ...base, ...env?.[FAULT_TRANSPORT] };
}

const NOTHING = new Uint8Array(0);

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Without a socket: a network error, a body that fails. */
const FETCH_TRANSPORT: FaultTransport = {
  sleep,
  broken: () => Response.error(),
  drop: (controller) => controller.error(new TypeError('the connection was dropped by a fault rule')),
};

/**
 * Over a socket: a reset sends TCP RST, an empty response closes the connection before any byte, a
 * drop resets it once what was written is handed to the kernel (an answer that ends with the
 * connection, as the events stream does, would look whole if it were only closed).
 */
function socketTransport(socket: Socket): FaultTransport {
  return {
    sleep,
    broken(fault) {
      if (fault === 'connection-reset') socket.resetAndDestroy();
      else socket.destroy();
      return new Response(null, { status: 500 });
    },
    // An empty write's callback comes once everything written before it has gone out.
    drop: () => void socket.write(NOTHING, () => socket.resetAndDestroy()),
  };
}
