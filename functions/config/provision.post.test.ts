import { describe, expect, it } from 'vitest';
import { callFunction } from '../../test/support/call-function.ts';
import { CREDENTIALS, provisioningDevice } from '../../test/support/provisioning-devices.ts';
import { REFUSED_APITOKEN, UNKNOWN_ROUTER_ID } from '../../emulator/scenario/fake-controller.ts';
import type { ProvisionStatus } from '../core/device/index.ts';
import { NOT_PROVISIONED } from '../../test/support/controller.ts';
import * as provision from './provision.post.ts';
import * as provisionStatus from './provision.get.ts';
import * as pdid from './pdid.get.ts';

describe('POST /api/v1/config/provision', () => {
  it('responds with 200 and the provision status once the controller accepted the credentials, and GET shows them', async () => {
    const { device, provisioning } = provisioningDevice({ now: () => Date.UTC(2026, 10, 21, 12) });
    const answer = await callFunction<ProvisionStatus>(provision, device, {}, CREDENTIALS);
    const expected: ProvisionStatus = {
      provisioned: true,
      routerId: CREDENTIALS.routerId,
      pdserver: CREDENTIALS.pdserver,
      wampRouter: CREDENTIALS.wampRouter,
      httpConnected: true,
      wampConnected: false,
      provisionedAt: '2026-11-21T12:00:00.000Z',
      telemetry: { enabled: true, interval: 60, lastSuccess: null, lastError: null, queued: 0, dropped: 0, delivered: 0, failed: 0 },
    };
    expect(answer).toEqual({ status: 200, body: expected });
    expect(provisioning.fake!.log().checks).toBe(1);
    expect((await callFunction(provisionStatus, device, {})).body).toEqual(expected);
    expect((await callFunction(pdid, device, {})).body).toEqual({ pdid: CREDENTIALS.routerId });
  });

  it('never answers the apitoken, in the POST answer or any GET', async () => {
    const { device } = provisioningDevice();
    const answers = [
      await callFunction(provision, device, {}, CREDENTIALS),
      await callFunction(provisionStatus, device, {}),
      await callFunction(pdid, device, {}),
    ];
    for (const answer of answers) expect(JSON.stringify(answer.body)).not.toContain(CREDENTIALS.apitoken);
  });

  it('ignores fields it does not know, such as a provision status sent back', async () => {
    const { device } = provisioningDevice();
    const answer = await callFunction<ProvisionStatus>(provision, device, {}, { ...NOT_PROVISIONED, ...CREDENTIALS, extra: 1 });
    expect(answer.status).toBe(200);
    expect(answer.body).not.toHaveProperty('extra');
  });

  it('accepts https and wss URLs with a port and a path, and ws/http ones', async () => {
    const { device } = provisioningDevice();
    const body = { ...CREDENTIALS, pdserver: 'http://192.168.1.10:8000/paradrop', wampRouter: 'wss://paradrop.org/ws' };
    expect((await callFunction<ProvisionStatus>(provision, device, {}, body)).body).toMatchObject({ pdserver: body.pdserver, wampRouter: body.wampRouter });
  });

  it('replaces the credentials when posted again, once the controller accepts the new ones', async () => {
    const { device } = provisioningDevice();
    await callFunction(provision, device, {}, CREDENTIALS);
    const next = { ...CREDENTIALS, routerId: 'lab-router.2', pdserver: 'https://controller.example' };
    expect((await callFunction(provision, device, {}, next)).body).toMatchObject({ routerId: 'lab-router.2', pdserver: 'https://controller.example' });
    expect((await callFunction(pdid, device, {})).body).toEqual({ pdid: 'lab-router.2' });
  });

  const invalid: [string, Record<string, unknown>, string, string][] = [
    ['an empty routerId', { routerId: '' }, 'body.routerId', 'must be 1 to 128 letters, digits, ".", "_" or "-" (and not "." or "..")'],
    ['a routerId with a slash', { routerId: '../admin' }, 'body.routerId', 'must be 1 to 128 letters, digits, ".", "_" or "-" (and not "." or "..")'],
    ['a routerId of ..', { routerId: '..' }, 'body.routerId', 'must be 1 to 128 letters, digits, ".", "_" or "-" (and not "." or "..")'],
    ['a routerId of 129 characters', { routerId: 'r'.repeat(129) }, 'body.routerId', 'must be 1 to 128 letters, digits, ".", "_" or "-" (and not "." or "..")'],
    ['a routerId that is a number', { routerId: 42 }, 'body.routerId', 'must be a router id'],
    ['an empty apitoken', { apitoken: '' }, 'body.apitoken', 'must not be empty'],
    ['an apitoken of 4097 characters', { apitoken: 't'.repeat(4097) }, 'body.apitoken', 'must be at most 4096 characters'],
    ['an apitoken with a line feed', { apitoken: 'abc\nX-Evil: 1' }, 'body.apitoken', 'must be printable ASCII without spaces (it is sent as a bearer token)'],
    ['an apitoken with a space', { apitoken: 'abc def' }, 'body.apitoken', 'must be printable ASCII without spaces (it is sent as a bearer token)'],
    ['a pdserver that is not a URL', { pdserver: 'paradrop.org' }, 'body.pdserver', 'must be a URL starting with http:// or https://'],
    ['an ftp pdserver', { pdserver: 'ftp://paradrop.org' }, 'body.pdserver', 'must be a URL starting with http:// or https://'],
    ['a pdserver with a password', { pdserver: 'https://admin:pw@paradrop.org' }, 'body.pdserver', 'must not contain a user name or password'],
    ['a pdserver with a query', { pdserver: 'https://paradrop.org/?key=1' }, 'body.pdserver', 'must not contain a query (?) or a fragment (#)'],
    ['a pdserver with a fragment', { pdserver: 'https://paradrop.org/#top' }, 'body.pdserver', 'must not contain a query (?) or a fragment (#)'],
    ['a pdserver with a space', { pdserver: ' https://paradrop.org' }, 'body.pdserver', 'must not contain spaces or control characters'],
    ['an http wampRouter', { wampRouter: 'http://paradrop.org:9086/ws' }, 'body.wampRouter', 'must be a URL starting with ws:// or wss://'],
    ['a wampRouter that is not a string', { wampRouter: ['ws://paradrop.org'] }, 'body.wampRouter', 'must be a URL such as ws://paradrop.org:9086/ws'],
  ];
  for (const [what, change, path, message] of invalid) {
    it(`responds with 422 naming ${path} for ${what}, asks the controller nothing and stores nothing`, async () => {
      const { device, provisioning } = provisioningDevice();
      const answer = await callFunction(provision, device, {}, { ...CREDENTIALS, ...change });
      expect(answer).toMatchObject({ status: 422, body: { errors: [{ path, message }] } });
      expect(provisioning.fake!.log().checks).toBe(0);
      expect(await provisioning.status()).toEqual(NOT_PROVISIONED);
    });
  }

  it('responds with 422 naming every missing field of an empty mapping', async () => {
    const { device, provisioning } = provisioningDevice();
    const answer = await callFunction<{ errors: unknown[] }>(provision, device, {}, {});
    expect(answer.status).toBe(422);
    expect(answer.body.errors).toEqual(['routerId', 'apitoken', 'pdserver', 'wampRouter'].map((field) => ({ path: `body.${field}`, message: 'is required' })));
    expect(await provisioning.status()).toEqual(NOT_PROVISIONED);
  });

  it('responds with 422 naming the body when there is none, or it is not a mapping', async () => {
    for (const body of [undefined, [CREDENTIALS], 'routerId=1']) {
      const { device, provisioning } = provisioningDevice();
      expect(await callFunction(provision, device, {}, body)).toMatchObject({ status: 422, body: { errors: [{ path: 'body' }] } });
      expect(await provisioning.status()).toEqual(NOT_PROVISIONED);
    }
  });

  it('responds with 422 naming body.apitoken when the controller refuses the credentials, and keeps what was stored', async () => {
    const { device, provisioning } = provisioningDevice();
    await callFunction(provision, device, {}, CREDENTIALS);
    const before = await provisioning.status();
    const answer = await callFunction(provision, device, {}, { ...CREDENTIALS, routerId: 'another', apitoken: REFUSED_APITOKEN }, { refusedByDevice: true });
    expect(answer).toMatchObject({
      status: 422,
      body: {
        detail: 'the controller at https://paradrop.org refused the credentials (401)',
        errors: [{ path: 'body.apitoken', message: 'was refused by the controller (401)' }],
      },
    });
    expect(await provisioning.status()).toEqual(before);
  });

  it('responds with 422 naming body.routerId when the controller knows no such router, and stores nothing', async () => {
    const { device, provisioning } = provisioningDevice();
    const answer = await callFunction(provision, device, {}, { ...CREDENTIALS, routerId: UNKNOWN_ROUTER_ID }, { refusedByDevice: true });
    expect(answer).toMatchObject({ status: 422, body: { errors: [{ path: 'body.routerId', message: 'is not a router the controller knows (404)' }] } });
    expect(await provisioning.status()).toEqual(NOT_PROVISIONED);
  });
});
