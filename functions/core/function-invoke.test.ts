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

  it('answers a GET again from the same reads without running its handler, and runs a PUT on every request', async () => {
    let runs = 0;
    const handle: Handler = async (_input, device) => (runs++, { hostname: await device.readFile('/etc/hostname') });
    const device = memoryDevice({ files: { '/etc/hostname': 'router\n' } });
    const get = functionInvoke(defineRoute('GET /api/v1/info/hostname', 'The hostname'), handle);
    const answers = [await get(request, device), await get(request, device)];
    expect(answers.map((out) => out.body)).toEqual(['{"hostname":"router\\n"}', '{"hostname":"router\\n"}']);
    expect(runs).toBe(1);
    const put = functionInvoke(defineRoute('PUT /api/v1/info/hostname', 'Set the hostname'), handle);
    await put(request, device);
    await put(request, device);
    expect(runs).toBe(3);
  });
});
