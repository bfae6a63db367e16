import { describe, expect, it } from 'vitest';
import { callFunctionRaw, type InputProblem } from '../../test/support/call-function.ts';
import type { ChangeAccepted } from '../chutes/schemas.ts';
import { memoryDevice } from '../../test/support/memory-device.ts';
import * as create from './changes.post.ts';

const REBOOT = { name: '__PARADROP__', updateClass: 'ROUTER', updateType: 'reboot' };

/** POST /api/v1/changes/ on a fresh device with a body of `contentType`; answers the status, the decoded body and what the device was asked to do. */
async function post<T = unknown>(text: string, contentType = 'application/json', device = memoryDevice()) {
  const { status, body } = await callFunctionRaw<T>(create, device, { body: { contentType, text } });
  return { status, body, submitted: device.submitted };
}

const json = <T = unknown>(body: unknown) => post<T>(JSON.stringify(body));

describe('POST /api/v1/changes/', () => {
  it('responds with 200 and {change_id} and queues a reboot of the device for what pdtools node reboot sends', async () => {
    const answer = await json<ChangeAccepted>(REBOOT);
    expect(answer).toMatchObject({ status: 200, body: { change_id: 1 } });
    expect(Object.keys(answer.body)).toEqual(['change_id']);
    expect(answer.submitted).toEqual([{ action: 'reboot' }]);
  });

  it('responds with 200 and queues a shutdown for updateType shutdown, as JSON or YAML, with or without name', async () => {
    expect((await json({ ...REBOOT, updateType: 'shutdown' })).submitted).toEqual([{ action: 'shutdown' }]);
    expect((await post('updateClass: ROUTER\nupdateType: shutdown\n', 'application/yaml')).submitted).toEqual([{ action: 'shutdown' }]);
    expect((await json({ updateClass: 'ROUTER', updateType: 'reboot', tok: 1 })).submitted).toEqual([{ action: 'reboot' }]);
  });

  it('records the change as one of the device itself: chute null', async () => {
    const device = memoryDevice();
    await post(JSON.stringify(REBOOT), 'application/json', device);
    expect(await device.changes()).toMatchObject([{ id: 1, action: 'reboot', chute: null, state: 'queued' }]);
  });

  it('responds with 422 naming body.updateClass for a chute update, saying where chute changes and the host configuration go, and queues nothing', async () => {
    const answer = await json<InputProblem>({ name: 'hello', updateClass: 'CHUTE', updateType: 'start' });
    expect(answer.status).toBe(422);
    const paths = answer.body.errors.map((error: { path: string }) => error.path).sort();
    expect(paths).toEqual(['body.name', 'body.updateClass', 'body.updateType']);
    const updateClass = answer.body.errors.find((error: { path: string }) => error.path === 'body.updateClass')!;
    expect(updateClass.message).toMatch(/^must be ROUTER: /);
    expect(updateClass.message).toContain('POST /api/v1/chutes/<chute>/start');
    expect(updateClass.message).toContain('PUT /api/v1/config/hostconfig');
    expect(answer.submitted).toEqual([]);
  });

  it('responds with 422 naming body.updateType for a ROUTER update other than reboot or shutdown, and naming the field that is missing', async () => {
    const other = await json({ ...REBOOT, updateType: 'sethostconfig' });
    expect(other).toMatchObject({
      status: 422,
      body: { errors: [{ path: 'body.updateType', message: expect.stringMatching(/^must be reboot or shutdown: .*PUT \/api\/v1\/config\/hostconfig/) }] },
    });
    const missing = await json<InputProblem>({ updateType: 'reboot' });
    expect(missing).toMatchObject({ status: 422, body: { errors: [{ path: 'body.updateClass', message: expect.stringMatching(/^is required: /) }] } });
    expect(missing.body.detail).toMatch(/^the change request is not valid: body\.updateClass is required/);
    expect(other.submitted).toEqual([]);
  });

  it('responds with 422 naming body.name when it is not __PARADROP__', async () => {
    const answer = await json({ ...REBOOT, name: 'hello' });
    expect(answer).toMatchObject({
      status: 422,
      body: { errors: [{ path: 'body.name', message: expect.stringMatching(/^must be __PARADROP__ \(the device itself\) when given: /) }] },
    });
    expect(answer.submitted).toEqual([]);
  });

  it('responds with 400 for a malformed body, 415 for another content type, 422 for a body that is not a mapping, and queues nothing', async () => {
    for (const [text, type, status] of [
      ['{"updateClass": ', 'application/json', 400],
      ['updateClass: [ROUTER\n', 'application/yaml', 400],
      [JSON.stringify(REBOOT), 'text/plain', 415],
      ['', 'application/json', 422],
      ['["reboot"]', 'application/json', 422],
    ] as const) {
      const out = await post(text, type);
      expect(out.status, text).toBe(status);
      expect(out.submitted).toEqual([]);
    }
  });
});
