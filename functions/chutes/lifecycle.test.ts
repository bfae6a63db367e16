import { describe, expect, it } from 'vitest';
import { callFunction } from '../../test/support/call-function.ts';
import { chuteDevice } from '../../test/support/chute-devices.ts';
import * as remove from './chute.delete.ts';
import * as restart from './restart.post.ts';
import * as start from './start.post.ts';
import * as stop from './stop.post.ts';

/*
 * The lifecycle calls of a chute: each queues a change and answers its id (ParaDrop's `{change_id}`);
 * what the change does is the device's business (the runtime's engine, the emulator's runner).
 */

const ENDPOINTS = [
  ['POST /api/v1/chutes/:chute/start', start, 'start'],
  ['POST /api/v1/chutes/:chute/stop', stop, 'stop'],
  ['POST /api/v1/chutes/:chute/restart', restart, 'restart'],
  ['DELETE /api/v1/chutes/:chute', remove, 'delete'],
] as const;

for (const [name, module, action] of ENDPOINTS) {
  describe(name, () => {
    it(`responds with 200 and the change_id of a queued ${action} change`, async () => {
      const device = chuteDevice();
      expect(await callFunction(module, device, { chute: 'hello' })).toEqual({ status: 200, body: { change_id: 1 } });
      expect(await callFunction(module, device, { chute: 'bare' })).toEqual({ status: 200, body: { change_id: 2 } });
      expect(device.submitted).toEqual([
        { action, chute: 'hello' },
        { action, chute: 'bare' },
      ]);
      expect(await device.change(2)).toMatchObject({ id: 2, action, chute: 'bare', state: 'queued' });
    });

    it('responds with 404 for a chute that is not installed, and submits nothing', async () => {
      const device = chuteDevice();
      const { status, body } = await callFunction<{ detail: string }>(module, device, { chute: 'nosuch' });
      expect(status).toBe(404);
      expect(body.detail).toContain('nosuch');
      expect(device.submitted).toEqual([]);
    });

    it('responds with 400 naming params.chute for a bad chute name, and submits nothing', async () => {
      const device = chuteDevice();
      for (const chute of ['../etc', '-x', 'a'.repeat(65)]) {
        expect(await callFunction(module, device, { chute })).toMatchObject({ status: 400, body: { errors: [{ path: 'params.chute' }] } });
      }
      expect(device.submitted).toEqual([]);
    });
  });
}

for (const [name, module, action] of [ENDPOINTS[0], ENDPOINTS[2]] as const) {
  describe(`${name} with a body`, () => {
    it('passes the environment of the body with the change', async () => {
      const device = chuteDevice();
      const environment = { MODE: 'demo', EMPTY: '' };
      expect(await callFunction(module, device, { chute: 'hello' }, { environment })).toEqual({ status: 200, body: { change_id: 1 } });
      expect(await callFunction(module, device, { chute: 'hello' }, {})).toEqual({ status: 200, body: { change_id: 2 } });
      expect(device.submitted).toEqual([
        { action, chute: 'hello', environment },
        { action, chute: 'hello' },
      ]);
    });

    const invalid: [string, unknown, { path: string; message: string }[]][] = [
      [
        'an environment value that is not a string',
        { environment: { PORT: 8080, DEBUG: true } },
        [
          { path: 'body.environment.PORT', message: 'must be a string' },
          { path: 'body.environment.DEBUG', message: 'must be a string' },
        ],
      ],
      ['an environment that is a list', { environment: ['A=1'] }, [{ path: 'body.environment', message: 'must be a mapping of names to strings' }]],
      [
        'a variable name with =',
        { environment: { 'A=B': 'x' } },
        [{ path: 'body.environment.A=B', message: 'must be a variable name: not empty, without = or NUL' }],
      ],
      ['a body that is not a mapping', ['start'], [{ path: 'body', message: 'must be a mapping, such as {"environment": {"NAME": "value"}}' }]],
    ];
    for (const [what, body, errors] of invalid) {
      it(`responds with 422 listing every violation for ${what}, and submits nothing`, async () => {
        const device = chuteDevice();
        expect(await callFunction(module, device, { chute: 'hello' }, body)).toMatchObject({ status: 422, body: { errors } });
        expect(device.submitted).toEqual([]);
      });
    }
  });
}
