import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SnapdAnswer } from '../../functions/core/device/index.ts';
import { HttpProblem } from '../../functions/core/problem.ts';
import { FAKE_INTERFACES, fakeSnapd, type FakeSnapd } from '../../test/support/fake-snapd.ts';
import { useTempDir } from '../../test/support/temp-dir.ts';
import { snapdOverSocket } from './socket.ts';

const temp = useTempDir('chutebox-snapd-socket-');
let snapd: FakeSnapd;
beforeAll(async () => {
  snapd = await fakeSnapd(temp.path(), 64 * 1024);
});
afterAll(() => snapd.close());

const text = (answer: SnapdAnswer) => new TextDecoder().decode(answer.body);
const get = (target: string) => ({ method: 'GET', target, contentType: null, body: null });

/** That `promise` rejects with the problem of `status` and `message`. */
async function expectProblem(promise: Promise<unknown>, status: number, message: string): Promise<void> {
  const error = await promise.catch((thrown: unknown) => thrown);
  expect(error).toBeInstanceOf(HttpProblem);
  expect(error).toMatchObject({ status, message });
}

describe('snapd over its socket', () => {
  it("answers snapd's own answer: its status, type and body", async () => {
    const answer = await snapdOverSocket({ socketPath: snapd.socket })(get('/v2/interfaces?select=all'));
    expect(answer).toMatchObject({ status: 200, contentType: 'application/json' });
    expect(JSON.parse(text(answer))).toEqual(FAKE_INTERFACES);
    expect(snapd.seen.at(-1)).toMatchObject({ method: 'GET', url: '/v2/interfaces?select=all', body: '' });
  });

  it('passes on the body and its type, and no other header of the client', async () => {
    const body = new TextEncoder().encode('{"action":"connect","plugs":[{"snap":"paradrop-daemon","plug":"docker"}]}');
    const answer = await snapdOverSocket({ socketPath: snapd.socket })({ method: 'POST', target: '/v2/interfaces', contentType: 'application/json', body });
    expect(answer.status).toBe(202);
    expect(JSON.parse(text(answer)).result).toBe(new TextDecoder().decode(body));
    const { headers } = snapd.seen.at(-1)!;
    expect(headers['content-type']).toBe('application/json');
    expect(Object.keys(headers).sort()).toEqual(['connection', 'content-length', 'content-type', 'host']);
  });

  it("answers snapd's errors as they are: a 404 is snapd's, not the API's", async () => {
    const answer = await snapdOverSocket({ socketPath: snapd.socket })(get('/v2/nothing'));
    expect(answer.status).toBe(404);
    expect(JSON.parse(text(answer))).toMatchObject({ type: 'error', result: { message: 'not found' } });
  });

  it('is a 503 naming the socket where nothing listens', async () => {
    const socketPath = path.join(temp.path(), 'absent.socket');
    await expectProblem(snapdOverSocket({ socketPath })(get('/v2/interfaces')), 503, `snapd is not running on this device: nothing listens on ${socketPath}`);
  });

  it('is a 504 when snapd does not answer in time', async () => {
    await expectProblem(snapdOverSocket({ socketPath: snapd.socket, timeoutMs: 200 })(get('/v2/hang')), 504, 'snapd did not answer within 0.2 s');
  });

  it('is a 502 when snapd answers more than the limit', async () => {
    await expectProblem(snapdOverSocket({ socketPath: snapd.socket, answerLimit: 1024 })(get('/v2/huge')), 502, 'snapd answered more than 1024 bytes');
  });
});
