import { readFile, stat, writeFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import { delay, http, HttpResponse } from 'msw';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { DeviceEventBody } from '../../functions/core/device/index.ts';
import { HttpProblem } from '../../functions/core/problem.ts';
import { useTempDir } from '../../test/support/temp-dir.ts';
import { CONTROLLER, CONTROLLER_CREDENTIALS, NOT_PROVISIONED, useMockController } from '../../test/support/controller.ts';
import { controllerClient } from '../controller/client.ts';
import { fileProvisionStore, PROVISION_FILE, provisioning, type ProvisioningOptions, type ProvisioningService } from './provisioning.ts';

const CREDENTIALS = CONTROLLER_CREDENTIALS;
const START = Date.UTC(2026, 10, 21, 12, 0, 0);

/** How the mocked controller answers the credential check. */
type CheckAnswer = 'accept' | 'refuse' | 'hang' | 'malformed' | 'when-opened';

const server = useMockController();
const temp = useTempDir('chutebox-provisioning-');
let checkAnswer: CheckAnswer;
/** With `when-opened`, the check is accepted once this is called. */
let openGate: () => void;
/** Telemetry reports the controller received: the router they were for, and the bearer token. */
let reports: { routerId: string; authorization: string | null }[];
let stateDir: string;
let folders = 0;
const started: ProvisioningService[] = [];

beforeEach(async () => {
  checkAnswer = 'accept';
  const gate = new Promise<void>((resolve) => (openGate = resolve));
  reports = [];
  stateDir = await temp.folder(`state-${++folders}`);
  server.use(
    http.get(`${CONTROLLER}/api/routers/:id`, async ({ params }) => {
      if (checkAnswer === 'refuse') return HttpResponse.json({ message: 'Unauthorized' }, { status: 401 });
      if (checkAnswer === 'malformed') return HttpResponse.text('<html>It works!</html>');
      if (checkAnswer === 'hang') await delay('infinite');
      if (checkAnswer === 'when-opened') await gate;
      return HttpResponse.json({ _id: params.id, name: 'lab' });
    }),
    http.post(`${CONTROLLER}/api/routers/:id/telemetry`, ({ params, request }) => {
      reports.push({ routerId: String(params.id), authorization: request.headers.get('authorization') });
      return HttpResponse.json({});
    }),
  );
  vi.useFakeTimers({ now: START });
});
afterEach(() => {
  for (const service of started.splice(0)) service.stop();
});

const file = () => path.join(stateDir, PROVISION_FILE);
const seconds = (s: number) => vi.advanceTimersByTimeAsync(s * 1000);

function service(options: Partial<ProvisioningOptions> = {}): ProvisioningService {
  const made = provisioning({
    store: fileProvisionStore(file()),
    client: controllerClient({ timeoutMs: 10_000 }),
    report: async () => ({ time: Date.now() / 1000 }),
    ...options,
  });
  started.push(made);
  return made;
}

/** The state dir's entries: no temporary file may be left behind. */
const stateFiles = () => readdir(stateDir);

async function rejection(promise: Promise<unknown>): Promise<HttpProblem> {
  const outcome = await promise.then(
    () => null,
    (error: unknown) => error,
  );
  expect(outcome, 'the promise rejects').toBeInstanceOf(HttpProblem);
  return outcome as HttpProblem;
}

describe('provisioning the device (POST /api/v1/config/provision on the runtime)', () => {
  it('stores the credentials in provision.json, mode 600, once the controller accepted them', async () => {
    const provision = service();
    const status = await provision.provision(CREDENTIALS);
    expect(status).toEqual({
      provisioned: true,
      routerId: CREDENTIALS.routerId,
      pdserver: CONTROLLER,
      wampRouter: CREDENTIALS.wampRouter,
      httpConnected: true,
      wampConnected: false,
      provisionedAt: '2026-11-21T12:00:00.000Z',
      telemetry: { enabled: true, interval: 60, lastSuccess: null, lastError: null, queued: 0, dropped: 0, delivered: 0, failed: 0 },
    });
    expect(JSON.parse(await readFile(file(), 'utf8'))).toEqual({ ...CREDENTIALS, provisionedAt: '2026-11-21T12:00:00.000Z' });
    expect((await stat(file())).mode & 0o777).toBe(0o600);
    expect(await stateFiles()).toEqual([PROVISION_FILE]);
  });

  const failures: [string, CheckAnswer, number, number | null][] = [
    ['refuses the credentials (401)', 'refuse', 422, null],
    ['answers something that is not JSON', 'malformed', 502, null],
    ['does not answer within the timeout', 'hang', 504, 10],
  ];
  for (const [what, answer, status, waitSeconds] of failures) {
    it(`answers ${status} and stores nothing when the controller ${what}`, async () => {
      checkAnswer = answer;
      const provision = service();
      await provision.ready(); // the stored state is read from disk first, in real time
      const outcome = rejection(provision.provision(CREDENTIALS));
      if (waitSeconds !== null) await seconds(waitSeconds);
      expect((await outcome).status).toBe(status);
      expect(await stateFiles()).toEqual([]);
      expect(await provision.status()).toEqual(NOT_PROVISIONED);
      expect(await service().status(), 'a runtime started afterwards').toEqual(NOT_PROVISIONED);
    });
  }

  it('keeps the stored credentials, file and status unchanged, when new ones are refused', async () => {
    const provision = service();
    await provision.provision(CREDENTIALS);
    const stored = await readFile(file(), 'utf8');
    const before = await provision.status();
    checkAnswer = 'refuse';
    expect((await rejection(provision.provision({ ...CREDENTIALS, routerId: 'other', apitoken: 'wrong' }))).status).toBe(422);
    expect(await readFile(file(), 'utf8')).toBe(stored);
    expect(await provision.status()).toEqual(before);
  });

  it('replaces the credentials when new ones are accepted, and telemetry goes to the new router', async () => {
    const provision = service();
    await provision.provision(CREDENTIALS);
    await seconds(30);
    await provision.provision({ ...CREDENTIALS, routerId: 'router-2', apitoken: 'second-token' });
    expect(JSON.parse(await readFile(file(), 'utf8'))).toMatchObject({
      routerId: 'router-2',
      apitoken: 'second-token',
      provisionedAt: '2026-11-21T12:00:30.000Z',
    });
    await seconds(30);
    expect(reports).toEqual([{ routerId: 'router-2', authorization: 'Bearer second-token' }]);
  });

  it('loads the stored credentials at start and sends telemetry with them at the interval', async () => {
    await service().provision(CREDENTIALS);
    for (const s of started.splice(0)) s.stop();
    const restarted = service({ telemetry: { enabled: true, interval: 120 } });
    await restarted.ready();
    expect(await restarted.status()).toMatchObject({
      provisioned: true,
      routerId: CREDENTIALS.routerId,
      httpConnected: false,
      provisionedAt: '2026-11-21T12:00:00.000Z',
    });
    await seconds(119);
    expect(reports).toEqual([]);
    await seconds(1);
    expect(reports).toEqual([{ routerId: CREDENTIALS.routerId, authorization: `Bearer ${CREDENTIALS.apitoken}` }]);
    expect(await restarted.status()).toMatchObject({
      httpConnected: true,
      telemetry: { enabled: true, interval: 120, lastSuccess: '2026-11-21T12:02:00.000Z' },
    });
  });

  it('fails to start, naming the file, when provision.json is not a provisioning record', async () => {
    await writeFile(file(), '{"routerId": "r1"}\n');
    await expect(service().ready()).rejects.toThrow(`${file()} has no apitoken (a non-empty string)`);
  });

  it('forgets an unreadable provision.json on a factory reset, and works again', async () => {
    await writeFile(file(), 'not json');
    const provision = service();
    await expect(provision.status()).rejects.toThrow(`${file()} is not JSON`);
    await provision.clear();
    expect(await stateFiles()).toEqual([]);
    expect(await provision.status()).toEqual(NOT_PROVISIONED);
  });
});

describe('telemetry switched by the host configuration', () => {
  it('sends nothing while telemetry is disabled, and starts when it is enabled', async () => {
    const provision = service({ telemetry: { enabled: false, interval: 60 } });
    await provision.provision(CREDENTIALS);
    await seconds(600);
    expect(reports).toEqual([]);
    expect((await provision.status()).telemetry).toMatchObject({ enabled: false, interval: 60 });
    provision.configure({ enabled: true, interval: 60 });
    await seconds(60);
    expect(reports).toHaveLength(1);
  });

  it('stops at once when telemetry is disabled: no timer is left', async () => {
    const provision = service();
    await provision.provision(CREDENTIALS);
    await seconds(60);
    expect(reports).toHaveLength(1);
    provision.configure({ enabled: false, interval: 60 });
    expect(vi.getTimerCount()).toBe(0);
    await seconds(600);
    expect(reports).toHaveLength(1);
  });

  it('sends nothing before the device is provisioned', async () => {
    service();
    await seconds(600);
    expect(reports).toEqual([]);
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe('telemetry sent at once, and what the deliveries came to', () => {
  it('sends one report at once with the stored credentials, counted as a scheduled one, and answers 409 while telemetry does not run', async () => {
    const provision = service({ telemetry: { enabled: false, interval: 60 } });
    expect((await rejection(provision.sendNow())).status).toBe(409);
    await provision.provision(CREDENTIALS);
    expect((await rejection(provision.sendNow())).status).toBe(409);
    provision.configure({ enabled: true, interval: 60 });
    await seconds(10);
    expect(await provision.sendNow()).toBe(true);
    expect(reports).toEqual([{ routerId: CREDENTIALS.routerId, authorization: `Bearer ${CREDENTIALS.apitoken}` }]);
    expect((await provision.status()).telemetry).toMatchObject({ delivered: 1, failed: 0, lastSuccess: '2026-11-21T12:00:10.000Z' });
    // The schedule goes on as it was: the next report one interval after telemetry was enabled.
    await seconds(50);
    expect(reports).toHaveLength(2);
  });

  it('goes on from the deliveries it starts with, whether the last exchange worked included', async () => {
    await service().provision(CREDENTIALS);
    for (const s of started.splice(0)) s.stop();
    const before = { lastSuccess: '2026-11-21T11:59:00.000Z', lastError: null, dropped: 0, delivered: 4, failed: 1, httpConnected: true };
    const restarted = service({ deliveries: before });
    await restarted.ready();
    expect(restarted.deliveries()).toEqual(before);
    expect(await restarted.status()).toMatchObject({ httpConnected: true, telemetry: { delivered: 4, failed: 1, lastSuccess: before.lastSuccess } });
    server.use(http.post(`${CONTROLLER}/api/routers/:id/telemetry`, () => HttpResponse.json({ message: 'maintenance' }, { status: 503 })));
    expect(await restarted.sendNow()).toBe(false);
    expect(restarted.deliveries()).toEqual({
      ...before,
      failed: 2,
      lastError: {
        time: '2026-11-21T12:00:00.000Z',
        message: `the controller at ${CONTROLLER} answered POST /api/routers/${CREDENTIALS.routerId}/telemetry with 503 Service Unavailable`,
      },
      httpConnected: false,
    });
  });
});

describe('clearing the provisioning (POST /api/v1/config/factoryReset)', () => {
  it('stops telemetry at once, deletes provision.json and forgets the telemetry status', async () => {
    const provision = service();
    await provision.provision(CREDENTIALS);
    await seconds(60);
    const clearing = provision.clear();
    expect(vi.getTimerCount(), 'no timer right after clear()').toBe(0);
    await clearing;
    expect(await stateFiles()).toEqual([]);
    expect(await provision.status()).toEqual(NOT_PROVISIONED);
    await seconds(600);
    expect(reports).toHaveLength(1);
  });

  it('stores nothing from a provisioning whose check was still running: it answers 409', async () => {
    checkAnswer = 'when-opened';
    const provision = service();
    await provision.ready();
    const outcome = rejection(provision.provision(CREDENTIALS));
    await seconds(1);
    await provision.clear();
    openGate();
    const problem = await outcome;
    expect(problem.status).toBe(409);
    expect(problem.message).toBe('provisioning was cleared (a factory reset) while the controller checked the credentials; nothing was stored');
    expect(await stateFiles()).toEqual([]);
    expect(await provision.status()).toEqual(NOT_PROVISIONED);
  });
});

describe('the events of deliveries to the controller', () => {
  it('publishes controller.delivery for each credential check and each telemetry delivery, with the reason of a failure', async () => {
    const published: DeviceEventBody[] = [];
    const provision = service({ telemetry: { enabled: true, interval: 60 }, publish: (body) => published.push(body) });
    checkAnswer = 'refuse';
    const refused = await rejection(provision.provision(CREDENTIALS));
    checkAnswer = 'accept';
    await provision.provision(CREDENTIALS);
    server.use(http.post(`${CONTROLLER}/api/routers/:id/telemetry`, () => HttpResponse.json({ message: 'down' }, { status: 503 }), { once: true }));
    // The first report is refused, its retry 5 s later delivered.
    await seconds(65);
    expect(reports).toHaveLength(1);
    expect(published).toEqual([
      { kind: 'controller.delivery', what: 'provisioning', success: false, error: refused.message },
      { kind: 'controller.delivery', what: 'provisioning', success: true, error: null },
      { kind: 'controller.delivery', what: 'telemetry', success: false, error: expect.stringContaining('503') },
      { kind: 'controller.delivery', what: 'telemetry', success: true, error: null },
    ]);
  });
});
