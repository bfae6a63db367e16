import { describe, expect, it } from 'vitest';
import { memoryDevice } from '../../test/support/memory-device.ts';
import { functionInvoke } from './function-invoke.ts';
import type { FunctionInput, Handler } from './invoke.ts';
import { defineRoute } from './route.ts';

const request: FunctionInput = {
  params: { chute: 'hotspot' },
  query: { verbose: '1' },
  headers: { accept: 'application/yaml', authorization: 'Bearer secret', 'user-agent': 'pdtools' },
  body: { ignored: true },
  text: '{"ignored":true}',
};

describe('functionInvoke', () => {
  it('hands a GET handler its parameters, query and Accept header, and no other header nor any body', async () => {
    const seen: FunctionInput[] = [];
    const handle: Handler = async (input) => (seen.push(input), { ok: true });
    await functionInvoke(defineRoute('GET /api/v1/chutes/:chute', 'One chute'), handle)(request, memoryDevice());
    expect(seen).toEqual([{ params: { chute: 'hotspot' }, query: { verbose: '1' }, headers: { accept: 'application/yaml' }, body: undefined, text: '' }]);
  });

  it('runs a GET handler on every request, so that each answer is what its device holds now', async () => {
    const states = ['running'];
    const handle: Handler = async (_input, device) => ({ states: await device.programs(), hostname: await device.readFile('/etc/hostname') });
    const device = memoryDevice({ files: { '/etc/hostname': 'router\n' }, programs: states });
    const get = functionInvoke(defineRoute('GET /api/v1/info/hostname', 'The hostname'), handle);
    const first = await get(request, device);
    states[0] = 'exited';
    const second = await get(request, device);
    expect([first.body, second.body]).toEqual(['{"states":["running"],"hostname":"router\\n"}', '{"states":["exited"],"hostname":"router\\n"}']);
  });
});
