import { describe, expect, it } from 'vitest';
import { callFunction } from '../../test/support/call-function.ts';
import { memoryDevice } from '../../test/support/memory-device.ts';
import { CHUTE_LABEL, SERVICE_LABEL } from '../core/device/index.ts';
import * as chute from './chute.get.ts';

const RECORD = {
  name: 'hotspot',
  version: '2.1',
  state: 'running',
  environment: { PORTAL_TITLE: 'Café Guest Wi-Fi', SESSION_MINUTES: 60, DEBUG: false, NESTED: { no: 'env' } },
  allocation: { cpu_shares: 512, prioritize_traffic: true, memory: 67108864 },
  resources: { gpio: [17] },
};

function device(record: Record<string, unknown>, containers: Record<string, unknown>[] | null = []) {
  return memoryDevice({ chutes: { hotspot: { record, config: { web: { port: 8080 } } } }, containers });
}

const running = { Id: 'abc', Labels: { [CHUTE_LABEL]: 'hotspot' }, State: 'running', Status: 'Up 2 days' };

describe('GET /api/v1/chutes/:chute', () => {
  it('responds with 200 and the chute record: allocation fields kept, environment values as strings', async () => {
    const { status, body } = await callFunction(chute, device(RECORD, [running]), { chute: 'hotspot' });
    expect(status).toBe(200);
    expect(body).toEqual({
      name: 'hotspot',
      version: '2.1',
      state: 'running',
      environment: { PORTAL_TITLE: 'Café Guest Wi-Fi', SESSION_MINUTES: '60', DEBUG: 'false' },
      allocation: { cpu_shares: 512, prioritize_traffic: true, memory: 67108864 },
      resources: { gpio: [17] },
      services: { main: { state: 'running', allocation: { cpu_shares: 512, prioritize_traffic: true, memory: 67108864 } } },
      owner: null,
    });
  });

  it("takes the state from the chute's container, not from the stored record", async () => {
    const failed = { ...running, State: 'exited', Status: 'Exited (2) 1 minute ago' };
    expect((await callFunction(chute, device(RECORD, [failed]), { chute: 'hotspot' })).body).toMatchObject({ state: 'failed' });
    expect((await callFunction(chute, device(RECORD, []), { chute: 'hotspot' })).body).toMatchObject({ state: 'missing' });
  });

  it('responds with the stored state when no engine is reachable', async () => {
    const stopped = { ...RECORD, state: 'stopped' };
    expect((await callFunction(chute, device(stopped, null), { chute: 'hotspot' })).body).toMatchObject({ state: 'stopped' });
  });

  it('fills what a sparse record lacks: version null, no environment, default allocation, resources null', async () => {
    const { status, body } = await callFunction(chute, device({ allocation: { cpu_shares: 'lots', prioritize_traffic: 'yes' }, resources: 'none' }, null), {
      chute: 'hotspot',
    });
    expect(status).toBe(200);
    expect(body).toEqual({
      name: 'hotspot',
      version: null,
      state: 'missing',
      environment: {},
      allocation: { cpu_shares: 1024, prioritize_traffic: false },
      resources: null,
      services: { main: { state: 'missing', allocation: { cpu_shares: 1024, prioritize_traffic: false } } },
      owner: null,
    });
  });

  it("answers each service's state from its own container, and the chute's from the service furthest from running", async () => {
    const record = { ...RECORD, owner: 'alice', main_service: 'web', services: { web: { type: 'normal', image: 'w' }, db: { type: 'image', image: 'd' } } };
    const db = (State: string, Status: string) => ({ Id: 'def', Labels: { [CHUTE_LABEL]: 'hotspot', [SERVICE_LABEL]: 'db' }, State, Status });
    const both = await callFunction(chute, device(record, [running, db('running', 'Up 1 second')]), { chute: 'hotspot' });
    expect(both.body).toMatchObject({ state: 'running', owner: 'alice', services: { web: { state: 'running' }, db: { state: 'running' } } });
    const dbFailed = await callFunction(chute, device(record, [running, db('exited', 'Exited (1) 1 second ago')]), { chute: 'hotspot' });
    expect(dbFailed.body).toMatchObject({ state: 'failed', services: { web: { state: 'running' }, db: { state: 'failed' } } });
    const dbGone = await callFunction(chute, device(record, [running]), { chute: 'hotspot' });
    expect(dbGone.body).toMatchObject({ state: 'missing', services: { web: { state: 'running' }, db: { state: 'missing' } } });
  });

  it('names the chute by its name on the device, and writes a numeric version as a string', async () => {
    const { body } = await callFunction(chute, device({ name: 'other', version: 3 }, null), { chute: 'hotspot' });
    expect(body).toMatchObject({ name: 'hotspot', version: '3' });
  });

  it('responds with 404 for an unknown chute', async () => {
    const { status, body } = await callFunction<{ detail: string }>(chute, device(RECORD), { chute: 'nope' });
    expect(status).toBe(404);
    expect(body.detail).toContain('nope');
  });

  it('responds with 400 naming params.chute for a name that cannot be a chute', async () => {
    for (const name of ['../etc', '.hidden', 'a'.repeat(65), '']) {
      const { status, body } = await callFunction(chute, device(RECORD), { chute: name });
      expect(status, name).toBe(400);
      expect(body).toMatchObject({ errors: [{ path: 'params.chute' }] });
    }
  });
});
