import { describe, expect, it } from 'vitest';
import { memoryDevice } from '../../test/support/memory-device.ts';
import { bundleInvoke } from './bundle.ts';
import type { FunctionInput, Handler } from './handler.ts';
import { defineRoute } from './route.ts';

const request: FunctionInput = {
  params: { chute: 'hotspot' },
  query: { verbose: '1' },
  headers: { accept: 'application/yaml', authorization: 'Bearer secret', 'user-agent': 'pdtools' },
  body: { ignored: true },
  text: '{"ignored":true}',
};

describe('bundleInvoke', () => {
  it('hands a GET handler its parameters, query and Accept header, and no other header nor any body', async () => {
    const seen: FunctionInput[] = [];
    const handle: Handler = async (input) => (seen.push(input), { ok: true });
    await bundleInvoke(defineRoute('GET /api/v1/chutes/:chute', 'One chute'), handle)(request, memoryDevice());
    expect(seen).toEqual([{ params: { chute: 'hotspot' }, query: { verbose: '1' }, headers: { accept: 'application/yaml' }, body: undefined, text: '' }]);
  });

  it('runs a GET handler on every request, so that each answer is what its device holds now', async () => {
    const states = ['running'];
    const handle: Handler = async (_input, device) => ({ states: await device.programs(), hostname: await device.readFile('/etc/hostname') });
    const device = memoryDevice({ files: { '/etc/hostname': 'router\n' }, programs: states });
    const get = bundleInvoke(defineRoute('GET /api/v1/info/hostname', 'The hostname'), handle);
    const first = await get(request, device);
    states[0] = 'exited';
    const second = await get(request, device);
    expect([first.body, second.body]).toEqual(['{"states":["running"],"hostname":"router\\n"}', '{"states":["exited"],"hostname":"router\\n"}']);
    expect(second.headers.etag).not.toBe(first.headers.etag);
  });

  it('answers a GET with an ETag and a 304 to a request that names it, and a PUT with neither', async () => {
    const handle: Handler = async () => ({ ok: true });
    const get = bundleInvoke(defineRoute('GET /api/v1/info/ok', 'OK'), handle);
    const first = await get(request, memoryDevice());
    expect(first.headers.etag).toMatch(/^"[0-9a-f]{32}"$/);
    const again = await get({ ...request, headers: { ...request.headers, 'if-none-match': first.headers.etag! } }, memoryDevice());
    expect(again).toEqual({ status: 304, headers: { etag: first.headers.etag }, body: '' });
    const put = bundleInvoke(defineRoute('PUT /api/v1/info/ok', 'Set OK'), handle);
    const written = await put({ ...request, headers: { 'if-none-match': '*' } }, memoryDevice());
    expect(written.status).toBe(200);
    expect(written.headers.etag).toBeUndefined();
  });
});
