import { setupServer, type SetupServerApi } from 'msw/node';
import { afterAll, afterEach, beforeAll, vi } from 'vitest';
import type { ProvisionCredentials, ProvisionStatus } from '../../functions/core/device/index.ts';

/** The base URL of the controller that `useMockController` stands in for. */
export const CONTROLLER = 'https://controller.test';

/** Credentials for the mocked controller, of the shape ParaDrop's controller hands out. */
export const CONTROLLER_CREDENTIALS: ProvisionCredentials = {
  routerId: '5c3f2e8a9b1d4e0012ab34cd',
  apitoken: 'eyJhbGciOiJIUzI1NiJ9.c2VjcmV0.sig',
  pdserver: CONTROLLER,
  wampRouter: 'wss://controller.test:9086/ws',
};

/** The provision status of a device that was never provisioned (telemetry as a default host configuration asks). */
export const NOT_PROVISIONED: ProvisionStatus = {
  provisioned: false,
  routerId: null,
  pdserver: null,
  wampRouter: null,
  httpConnected: false,
  wampConnected: false,
  provisionedAt: null,
  telemetry: { enabled: false, interval: 60, lastSuccess: null, lastError: null, queued: 0, dropped: 0, delivered: 0, failed: 0 },
};

/**
 * An msw server for the tests of one file: it listens before them (a request nobody handles is an
 * error), forgets each test's handlers and fake timers after it, and closes after them all.
 *
 * @example
 * const server = useMockController();
 * server.use(http.get(`${CONTROLLER}/api/routers/:id`, ({ params }) => HttpResponse.json({ _id: params.id })));
 */
export function useMockController(): SetupServerApi {
  const server = setupServer();
  beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
  afterEach(() => {
    server.resetHandlers();
    vi.useRealTimers();
  });
  afterAll(() => server.close());
  return server;
}
