import { describe, expect, it } from 'vitest';
import { replayedFetch } from './replayed-fetch.ts';

describe('a fetch whose exchanges are made once', () => {
  it('answers a request made again what the first got, without sending it, and sends another URL or method', async () => {
    const sent: string[] = [];
    const fetch = replayedFetch(async (input, init) => {
      sent.push(`${init?.method ?? 'GET'} ${String(input)}`);
      return Response.json({ n: sent.length }, { status: 201, headers: { 'x-n': String(sent.length) } });
    });
    const first = await fetch('http://controller.test/api/routers/r1/telemetry', { method: 'POST', body: '{}' });
    const again = await fetch('http://controller.test/api/routers/r1/telemetry', { method: 'POST', body: '{"other":1}' });
    expect([first.status, await first.json(), again.status, again.headers.get('x-n'), await again.json()]).toEqual([201, { n: 1 }, 201, '1', { n: 1 }]);
    await fetch('http://controller.test/api/routers/r1');
    await fetch('http://controller.test/api/routers/r1/telemetry');
    expect(sent).toEqual([
      'POST http://controller.test/api/routers/r1/telemetry',
      'GET http://controller.test/api/routers/r1',
      'GET http://controller.test/api/routers/r1/telemetry',
    ]);
  });

  it('fails a request made again as the first failed, without sending it', async () => {
    let sent = 0;
    const fetch = replayedFetch(async () => {
      sent += 1;
      throw new TypeError('fetch failed');
    });
    await expect(fetch('http://127.0.0.1:9/api/routers/r1')).rejects.toThrow('fetch failed');
    await expect(fetch('http://127.0.0.1:9/api/routers/r1')).rejects.toThrow('fetch failed');
    expect(sent).toBe(1);
  });
});
