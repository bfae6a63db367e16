import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callApi, changeOver, getJson, type HttpAnswer } from './support/http-client.ts';
import { installChute } from './support/chute-state.ts';
import { dockerUnavailableReason, startDockerd, type Dockerd } from './support/dockerd.ts';
import { useChutebox, type Started } from './support/spawn.ts';
import { useStillScenario } from './support/still-scenario.ts';
import { useTempDir } from './support/temp-dir.ts';

/**
 * Each chute's `PARADROP_API_TOKEN`, as ParaDrop gives it: on `chutebox serve` read from the
 * environment of the chute's container on a private Docker Engine, on `chutebox emulate` made as
 * docs/emulator.md says. A chute's token opens its own chute and networks, and nothing else.
 */

const temp = useTempDir('chutebox-chute-tokens-');
const start = useChutebox();

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const asChute = (server: Started, token: string, method: string, endpoint: string, body?: unknown) =>
  callApi(server, method, endpoint, body, 'application/json', bearer(token));

/** Checks a 403 problem that says the token opens only its own chute. */
function refusedAsAnotherChutes(answer: HttpAnswer, chute: string): void {
  expect(answer.status, answer.text).toBe(403);
  expect(answer.type).toBe('application/problem+json');
  expect((answer.body as { detail: string }).detail).toContain(`/api/v1/chutes/${chute}/`);
}

/** What a chute's token may not reach: the other chute, the chute list and install, and the device. */
async function expectOnlyItsOwn(server: Started, token: string, own: string, other: string): Promise<void> {
  for (const [method, endpoint, body] of [
    ['GET', `/chutes/${other}`],
    ['GET', `/chutes/${other}/config`],
    ['GET', `/chutes/${other}/networks`],
    ['PUT', `/chutes/${other}/config`, { environment: { TAKEN: 'yes' } }],
    ['POST', `/chutes/${other}/stop`],
    ['DELETE', `/chutes/${other}`],
    ['GET', '/chutes'],
    ['GET', '/info/hardware'],
    ['GET', '/network/devices'],
    ['GET', '/config/hostconfig'],
    ['POST', '/config/factoryReset'],
    ['POST', '/password/change', { password: 'taken over' }],
    ['GET', '/changes'],
  ] as const) {
    refusedAsAnotherChutes(await asChute(server, token, method, endpoint, body), own);
  }
  for (const endpoint of ['/api/v1/events', '/metrics', '/docs/']) {
    const answer = await fetch(`${server.url}${endpoint}`, { headers: bearer(token) });
    expect(answer.status, endpoint).toBe(403);
    await answer.body?.cancel();
  }
}

const unavailable = dockerUnavailableReason();
const skipped = unavailable !== null && !process.env.CHUTEBOX_REQUIRE_DOCKER;
if (skipped) console.warn(`test/chute-tokens.test.ts (serve) skipped: ${unavailable}; set CHUTEBOX_REQUIRE_DOCKER=1 to make this a failure`);

describe.skipIf(skipped)(`chutebox serve: PARADROP_API_TOKEN of each chute${skipped ? ` (skipped: ${unavailable})` : ''}`, () => {
  let engine: Dockerd | undefined;
  let server: Started;
  let token: string;

  afterAll(async () => {
    await engine?.stop();
  });
  // After the clean-up above (hooks run in reverse), so that serve stops before the engine.
  const serve = useChutebox();

  beforeAll(async () => {
    engine = await startDockerd();
    const image = await engine.importBusybox('chutebox-test', 'sleeper', { cmd: ['sh', '-c', 'trap "exit 143" TERM; sleep 3600 & wait'] });
    const stateDir = await temp.folder('state');
    await installChute(stateDir, 'alpha', image, { environment: { GREETING: 'hello' } });
    await installChute(stateDir, 'beta', image, { environment: { MODE: 'one' } });
    const flags = ['--state-dir', stateDir, '--docker-socket', engine.socket, '--container-network', 'none'];
    server = await serve(['serve', '--host', '127.0.0.1', '--port', '0', ...flags]);
    for (const chute of ['alpha', 'beta']) expect((await changeOver(server, 'POST', `/chutes/${chute}/start`)).state).toBe('succeeded');
    const env = (await engine.chuteContainers('alpha'))[0]!.Config.Env;
    token = env.find((entry) => entry.startsWith('PARADROP_API_TOKEN='))!.slice('PARADROP_API_TOKEN='.length);
    expect(env).toContain('PARADROP_CHUTE_NAME=alpha');
  }, 120_000);

  it("gives each chute's container a token of its own", async () => {
    const beta = (await engine!.chuteContainers('beta'))[0]!.Config.Env.find((entry) => entry.startsWith('PARADROP_API_TOKEN='));
    expect(token).toMatch(/^chute\.alpha\./);
    expect(beta).toMatch(/^PARADROP_API_TOKEN=chute\.beta\./);
  });

  it('opens its own chute, its configuration and its networks, and never returns the token', async () => {
    for (const endpoint of ['/chutes/alpha', '/chutes/alpha/config', '/chutes/alpha/cache', '/chutes/alpha/networks']) {
      const answer = await asChute(server, token, 'GET', endpoint);
      expect(answer.status, `${endpoint}: ${answer.text}`).toBe(200);
      expect(answer.text).not.toContain(token.split('.')[2]);
    }
  });

  it('cannot read or change the other chute, nor anything of the device: 403, and beta still runs', async () => {
    await expectOnlyItsOwn(server, token, 'alpha', 'beta');
    expect((await getJson<{ state: string }>(server, '/chutes/beta')).state).toBe('running');
    expect((await engine!.chuteContainers('beta'))[0]!.Config.Env).toContain('MODE=one');
  });

  it('is refused with 401 once forged', async () => {
    const forged = `chute.beta.${token.split('.')[2]}`;
    expect((await asChute(server, forged, 'GET', '/chutes/beta')).status).toBe(401);
  });
});

describe("chutebox emulate: a chute's token", () => {
  const stillDefault = useStillScenario('default');
  let server: Started;
  /** The token of a chute on the emulator, made as docs/emulator.md says. */
  const tokenOf = (chute: string, secret = 'chutebox-emulator') =>
    `chute.${chute}.${createHmac('sha256', secret).update(`chute-token:${chute}`).digest('base64url')}`;

  beforeAll(async () => {
    server = await start(['emulate', '--port', '0', '--scenario', await stillDefault()]);
  });

  it('opens its own chute and its networks', async () => {
    for (const endpoint of ['/chutes/hello-world', '/chutes/hello-world/networks', '/chutes/hello-world/networks/wifi/stations']) {
      expect((await asChute(server, tokenOf('hello-world'), 'GET', endpoint)).status, endpoint).toBe(200);
    }
  });

  it('cannot read or change the other chute, nor anything of the device', async () => {
    await expectOnlyItsOwn(server, tokenOf('hello-world'), 'hello-world', 'hotspot');
    expect((await getJson<{ state: string }>(server, '/chutes/hotspot', bearer(tokenOf('hotspot')))).state).toBe('running');
  });

  it('is refused with 401 when made with another secret', async () => {
    expect((await asChute(server, tokenOf('hello-world', 'guessed'), 'GET', '/chutes/hello-world')).status).toBe(401);
  });
});
