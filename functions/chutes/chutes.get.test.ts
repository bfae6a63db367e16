import { describe, expect, it } from 'vitest';
import { callFunction } from '../../test/support/call-function.ts';
import { memoryDevice } from '../../test/support/memory-device.ts';
import { CHUTE_LABEL } from '../core/device/index.ts';
import * as list from './chutes.get.ts';

const container = (chute: string, State: string, Status: string) => ({ Id: `${chute}-id`, Labels: { [CHUTE_LABEL]: chute }, State, Status });

/** Three chutes in three states, and an engine that runs one, has stopped one and lost one. */
function device(containers: Record<string, unknown>[] | null) {
  return memoryDevice({
    chutes: {
      web: {
        record: {
          name: 'web',
          version: '3',
          state: 'running',
          environment: { PORT: '80' },
          allocation: { cpu_shares: 256, prioritize_traffic: true },
          resources: null,
        },
      },
      batch: { record: { name: 'batch', version: 7, state: 'running' } },
      lost: { record: { name: 'lost', version: '1', state: 'stopped' } },
    },
    containers,
  });
}

describe('GET /api/v1/chutes/', () => {
  it('responds with 200 and the record of every chute, sorted by name, states from the engine', async () => {
    const containers = [container('web', 'running', 'Up 2 hours'), container('batch', 'exited', 'Exited (0) 3 minutes ago')];
    const { status, body } = await callFunction(list, device(containers), {});
    expect(status).toBe(200);
    expect(body).toEqual([
      {
        name: 'batch',
        version: '7',
        state: 'stopped',
        environment: {},
        allocation: { cpu_shares: 1024, prioritize_traffic: false },
        resources: null,
        services: { main: { state: 'stopped', allocation: { cpu_shares: 1024, prioritize_traffic: false } } },
        owner: null,
      },
      {
        name: 'lost',
        version: '1',
        state: 'missing',
        environment: {},
        allocation: { cpu_shares: 1024, prioritize_traffic: false },
        resources: null,
        services: { main: { state: 'missing', allocation: { cpu_shares: 1024, prioritize_traffic: false } } },
        owner: null,
      },
      {
        name: 'web',
        version: '3',
        state: 'running',
        environment: { PORT: '80' },
        allocation: { cpu_shares: 256, prioritize_traffic: true },
        resources: null,
        services: { main: { state: 'running', allocation: { cpu_shares: 256, prioritize_traffic: true } } },
        owner: null,
      },
    ]);
  });

  it('responds with the stored states when no engine is reachable', async () => {
    const { body } = await callFunction<{ name: string; state: string }[]>(list, device(null), {});
    expect(body.map(({ name, state }) => [name, state])).toEqual([
      ['batch', 'running'],
      ['lost', 'stopped'],
      ['web', 'running'],
    ]);
  });

  it('sorts by name whatever order the device lists them in, and leaves out a name without a chute', async () => {
    const base = device([]);
    const unsorted = { ...base, chuteNames: async () => ['web', 'ghost', 'batch'] };
    const { body } = await callFunction<{ name: string }[]>(list, unsorted, {});
    expect(body.map((chute) => chute.name)).toEqual(['batch', 'web']);
  });

  it('responds with 200 and an empty list on a device without chutes', async () => {
    expect(await callFunction(list, memoryDevice({ containers: [] }), {})).toEqual({ status: 200, body: [] });
  });
});
