import { createServer, type AddressInfo } from 'node:net';
import { delay, http, HttpResponse } from 'msw';
import { describe, expect, it, vi } from 'vitest';
import { HttpProblem } from '../../functions/core/problem.ts';
import { CONTROLLER, CONTROLLER_CREDENTIALS, useMockController } from '../../test/support/controller.ts';
import { controllerClient, MAX_ANSWER_BYTES } from './client.ts';

const CREDENTIALS = CONTROLLER_CREDENTIALS;
const ROUTER_URL = `${CONTROLLER}/api/routers/${CREDENTIALS.routerId}`;

const server = useMockController();

/** A loopback port that nothing listens on: one the system just gave out and took back. */
async function freePort(): Promise<number> {
  const listener = createServer();
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  const { port } = listener.address() as AddressInfo;
  await new Promise((resolve) => listener.close(resolve));
  return port;
}

/** What a promise rejected with (the test fails when it resolved). */
async function rejection(promise: Promise<unknown>): Promise<HttpProblem> {
  const outcome = await promise.then(
    () => null,
    (error: unknown) => error,
  );
  expect(outcome, 'the promise rejects').toBeInstanceOf(HttpProblem);
  const problem = outcome as HttpProblem;
  expect(problem.message).not.toContain(CREDENTIALS.apitoken);
  return problem;
}

describe('checking credentials with the controller (POST /api/v1/config/provision)', () => {
  it('accepts a router record whose _id is the routerId, asking with the bearer token and for JSON', async () => {
    const seen: Request[] = [];
    server.use(
      http.get(ROUTER_URL, ({ request }) => {
        seen.push(request);
        return HttpResponse.json({ _id: CREDENTIALS.routerId, name: 'lab router' });
      }),
    );
    await expect(controllerClient().check(CREDENTIALS)).resolves.toBeUndefined();
    expect(seen).toHaveLength(1);
    expect(seen[0]!.headers.get('authorization')).toBe(`Bearer ${CREDENTIALS.apitoken}`);
    expect(seen[0]!.headers.get('accept')).toBe('application/json');
  });

  it('accepts a record with id instead of _id, and a pdserver with a path and a trailing slash', async () => {
    server.use(http.get(`${CONTROLLER}/paradrop/api/routers/:id`, ({ params }) => HttpResponse.json({ id: params.id })));
    await expect(controllerClient().check({ ...CREDENTIALS, pdserver: `${CONTROLLER}/paradrop/` })).resolves.toBeUndefined();
  });

  it('sends every request to baseUrl instead of pdserver when one is given', async () => {
    server.use(http.get('http://127.0.0.1:8000/api/routers/:id', ({ params }) => HttpResponse.json({ _id: params.id })));
    await expect(controllerClient({ baseUrl: 'http://127.0.0.1:8000' }).check(CREDENTIALS)).resolves.toBeUndefined();
  });

  for (const status of [401, 403]) {
    it(`answers 422 naming body.apitoken when the controller answers ${status}`, async () => {
      server.use(http.get(ROUTER_URL, () => HttpResponse.json({ error: 'bad token' }, { status })));
      const problem = await rejection(controllerClient().check(CREDENTIALS));
      expect(problem.status).toBe(422);
      expect(problem.message).toBe(`the controller at ${CONTROLLER} refused the credentials (${status})`);
      expect(problem.errors).toEqual([{ path: 'body.apitoken', message: `was refused by the controller (${status})` }]);
    });
  }

  it('answers 422 naming body.routerId when the controller knows no such router (404)', async () => {
    server.use(http.get(ROUTER_URL, () => HttpResponse.json({ error: 'not found' }, { status: 404 })));
    const problem = await rejection(controllerClient().check(CREDENTIALS));
    expect(problem.status).toBe(422);
    expect(problem.message).toBe(`the controller at ${CONTROLLER} knows no router ${CREDENTIALS.routerId} (404)`);
    expect(problem.errors).toEqual([{ path: 'body.routerId', message: 'is not a router the controller knows (404)' }]);
  });

  const nonsense: [string, () => Response, string][] = [
    ['a 500', () => HttpResponse.json({}, { status: 500 }), `with 500 Internal Server Error`],
    [
      'a redirect',
      () => new HttpResponse(null, { status: 302, headers: { location: 'https://elsewhere.test/login' } }),
      'with a redirect to https://elsewhere.test/login',
    ],
    ['an answer that is not JSON', () => HttpResponse.text('<html>welcome</html>'), 'with something that is not JSON'],
    ['the record of another router', () => HttpResponse.json({ _id: 'someone-else' }), `with a record that is not router ${CREDENTIALS.routerId}`],
    ['a JSON list', () => HttpResponse.json([CREDENTIALS.routerId]), `with a record that is not router ${CREDENTIALS.routerId}`],
    ['an answer over 64 KiB', () => HttpResponse.json({ _id: CREDENTIALS.routerId, pad: 'x'.repeat(MAX_ANSWER_BYTES) }), 'with more than 64 KiB'],
  ];
  for (const [what, answer, detail] of nonsense) {
    it(`answers 502 naming the controller for ${what}`, async () => {
      server.use(http.get(ROUTER_URL, answer));
      const problem = await rejection(controllerClient().check(CREDENTIALS));
      expect(problem.status).toBe(502);
      expect(problem.message).toContain(`the controller at ${CONTROLLER} answered GET /api/routers/${CREDENTIALS.routerId} ${detail}`);
    });
  }

  it('answers 502 saying the controller could not be reached on a network error', async () => {
    server.use(http.get(ROUTER_URL, () => HttpResponse.error()));
    const problem = await rejection(controllerClient().check(CREDENTIALS));
    expect(problem.status).toBe(502);
    expect(problem.message).toMatch(new RegExp(`^the controller at ${CONTROLLER} could not be reached: .+`));
  });

  it('answers 502 with the reason when nothing listens at pdserver (real fetch, no interceptor)', async () => {
    const port = await freePort();
    server.close();
    try {
      const problem = await rejection(controllerClient().check({ ...CREDENTIALS, pdserver: `http://127.0.0.1:${port}` }));
      expect(problem.status).toBe(502);
      expect(problem.message).toMatch(new RegExp(`^the controller at http://127\\.0\\.0\\.1:${port} could not be reached: .*ECONNREFUSED`));
    } finally {
      server.listen({ onUnhandledRequest: 'error' });
    }
  });

  it('answers 504 when the controller does not answer within the timeout', async () => {
    server.use(
      http.get(ROUTER_URL, async () => {
        await delay('infinite');
        return HttpResponse.json({ _id: CREDENTIALS.routerId });
      }),
    );
    vi.useFakeTimers();
    const outcome = rejection(controllerClient({ timeoutMs: 3000 }).check(CREDENTIALS));
    await vi.advanceTimersByTimeAsync(3000);
    const problem = await outcome;
    expect(problem.status).toBe(504);
    expect(problem.message).toBe(`the controller at ${CONTROLLER} did not answer within 3 s`);
  });
});

describe('delivering a telemetry report to the controller', () => {
  const TELEMETRY_URL = `${ROUTER_URL}/telemetry`;

  it('POSTs the report as JSON with the bearer token, and answers on a 2xx', async () => {
    const received: { body: unknown; type: string | null; authorization: string | null }[] = [];
    server.use(
      http.post(TELEMETRY_URL, async ({ request }) => {
        received.push({ body: await request.json(), type: request.headers.get('content-type'), authorization: request.headers.get('authorization') });
        return new HttpResponse(null, { status: 204 });
      }),
    );
    await controllerClient().sendReport(CREDENTIALS, { time: 1, system: { cpu_count: 2 } });
    expect(received).toEqual([{ body: { time: 1, system: { cpu_count: 2 } }, type: 'application/json', authorization: `Bearer ${CREDENTIALS.apitoken}` }]);
  });

  it('rejects with a 502 naming the status when the controller answers otherwise', async () => {
    server.use(http.post(TELEMETRY_URL, () => HttpResponse.json({}, { status: 503 })));
    const problem = await rejection(controllerClient().sendReport(CREDENTIALS, {}));
    expect(problem.status).toBe(502);
    expect(problem.message).toBe(`the controller at ${CONTROLLER} answered POST /api/routers/${CREDENTIALS.routerId}/telemetry with 503 Service Unavailable`);
  });

  it('rejects with the reason of the signal that aborts it', async () => {
    server.use(
      http.post(TELEMETRY_URL, async () => {
        await delay('infinite');
        return HttpResponse.json({});
      }),
    );
    const abort = new AbortController();
    const sending = controllerClient().sendReport(CREDENTIALS, {}, abort.signal);
    const reason = new Error('telemetry was stopped');
    abort.abort(reason);
    await expect(sending).rejects.toBe(reason);
  });
});

describe("asking the controller who a user's token is for (POST /api/v1/auth/cloud)", () => {
  const USER_TOKEN = 'user-t0k3n';
  const ME_URL = `${CONTROLLER}/api/users/me`;
  const user = { _id: 'u1', email: 'dev@example.com' };
  /** The controller answering the user and the router with `accessRights`, each only to the user's token. */
  function controllerWith(accessRights: unknown) {
    const seen: (string | null)[] = [];
    const onlyUser =
      (answer: () => Response) =>
      ({ request }: { request: Request }) => {
        seen.push(request.headers.get('authorization'));
        return request.headers.get('authorization') === `Bearer ${USER_TOKEN}` ? answer() : HttpResponse.json({}, { status: 401 });
      };
    server.use(
      http.get(
        ME_URL,
        onlyUser(() => HttpResponse.json(user)),
      ),
      http.get(
        ROUTER_URL,
        onlyUser(() => HttpResponse.json({ _id: CREDENTIALS.routerId, access_rights: accessRights })),
      ),
    );
    return seen;
  }

  it("answers the user's email and strongest role on the router, asking with the user's token and never the device's", async () => {
    const seen = controllerWith([
      { user_id: 'u2', role: 'owner' },
      { user_id: 'u1', role: 'user' },
      { user_id: 'u1', role: 'admin' },
    ]);
    expect(await controllerClient().verifyUser(CREDENTIALS, USER_TOKEN)).toEqual({ email: 'dev@example.com', role: 'admin' });
    expect(seen).toEqual([`Bearer ${USER_TOKEN}`, `Bearer ${USER_TOKEN}`]);
  });

  it('refuses a user without a role on the router with 403, a token the controller refuses with 401', async () => {
    controllerWith([
      { user_id: 'u2', role: 'owner' },
      { user_id: 'u1', role: 'guest' },
    ]);
    expect((await rejection(controllerClient().verifyUser(CREDENTIALS, USER_TOKEN))).status).toBe(403);
    expect((await rejection(controllerClient().verifyUser(CREDENTIALS, 'another'))).status).toBe(401);
  });

  it('answers 502 when the controller names no email for the user', async () => {
    server.use(http.get(ME_URL, () => HttpResponse.json({ _id: 'u1' })));
    expect((await rejection(controllerClient().verifyUser(CREDENTIALS, USER_TOKEN))).status).toBe(502);
  });
});
