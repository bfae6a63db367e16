import { describe, expect, it } from 'vitest';
import { callFunction, callFunctionRaw } from '../../test/support/call-function.ts';
import { CHANGES, endedChange } from '../../test/support/change-log.ts';
import { memoryDevice } from '../../test/support/memory-device.ts';
import type { ChangeRecord } from '../core/device/index.ts';
import * as list from './changes.get.ts';

/** A device that keeps changes 1 to `count`. */
const withChanges = (count: number) => memoryDevice({ changes: Array.from({ length: count }, (_, i) => endedChange(i + 1)) });

/** The ids of a page of changes. */
const ids = (body: { id: number }[]) => body.map((change) => change.id);

describe('GET /api/v1/changes/', () => {
  it('responds with 200 and every change record, newest first, when they fit in one page', async () => {
    expect(await callFunction(list, memoryDevice({ changes: CHANGES }), {})).toEqual({ status: 200, body: [...CHANGES].reverse() });
  });

  it('responds with 200 and [] on a device without changes, then lists a change once one is queued', async () => {
    const device = memoryDevice({ chutes: { hello: {} } });
    expect(await callFunction(list, device, {})).toEqual({ status: 200, body: [] });
    await device.submitChange({ action: 'stop', chute: 'hello' });
    expect(await callFunction(list, device, {})).toMatchObject({ status: 200, body: [{ id: 1, action: 'stop', chute: 'hello', state: 'queued' }] });
  });

  it('answers the 50 newest changes by default, with a Link to the next page', async () => {
    const answer = await callFunctionRaw<ChangeRecord[]>(list, withChanges(120));
    expect(ids(answer.body)).toEqual(Array.from({ length: 50 }, (_, i) => 120 - i));
    expect(answer.headers.link).toBe('</api/v1/changes?limit=50&before=71>; rel="next"');
  });

  it('leads from the first page to the last by its Link headers, each change once, and the last page has none', async () => {
    const device = withChanges(120);
    const seen: number[] = [];
    let query: Record<string, string> = { limit: '45' };
    for (let pages = 1; ; pages++) {
      const answer = await callFunctionRaw<ChangeRecord[]>(list, device, { query });
      expect(answer.status).toBe(200);
      seen.push(...ids(answer.body));
      if (answer.headers.link === undefined) {
        expect(pages).toBe(3);
        break;
      }
      const next = /^<\/api\/v1\/changes\?(.+)>; rel="next"$/.exec(answer.headers.link)![1]!;
      query = Object.fromEntries(new URLSearchParams(next));
    }
    expect(seen).toEqual(Array.from({ length: 120 }, (_, i) => 120 - i));
  });

  it('answers the changes below ?before=, at most ?limit=, with no Link when no older change is kept', async () => {
    const device = withChanges(10);
    const answer = await callFunctionRaw<ChangeRecord[]>(list, device, { query: { limit: '3', before: '4' } });
    expect(ids(answer.body)).toEqual([3, 2, 1]);
    expect(answer.headers.link).toBeUndefined();
    expect(ids((await callFunction<ChangeRecord[]>(list, device, {}, undefined, { query: { before: '1' } })).body)).toEqual([]);
    expect(ids((await callFunction<ChangeRecord[]>(list, device, {}, undefined, { query: { before: '999' } })).body)).toHaveLength(10);
    expect(ids((await callFunction<ChangeRecord[]>(list, device, {}, undefined, { query: { limit: '200' } })).body)).toHaveLength(10);
  });

  it('responds with 400 naming query.limit or query.before when it is not a whole number', async () => {
    const queries: Record<string, string>[] = [
      { limit: 'ten' },
      { limit: '-1' },
      { limit: '1.5' },
      { limit: '' },
      { before: 'abc' },
      { before: '1e3' },
      { before: '9999999999999999' },
    ];
    for (const query of queries) {
      const [name] = Object.keys(query);
      expect(await callFunction(list, withChanges(3), {}, undefined, { query }), JSON.stringify(query)).toMatchObject({
        status: 400,
        body: { errors: [{ path: `query.${name}`, message: 'must be a whole number' }] },
      });
    }
  });

  it('responds with 422 naming query.limit when it is not from 1 to 200', async () => {
    for (const limit of ['0', '201', '100000']) {
      expect(await callFunction(list, withChanges(3), {}, undefined, { query: { limit } }), limit).toMatchObject({
        status: 422,
        body: { errors: [{ path: 'query.limit', message: 'must be from 1 to 200' }] },
      });
    }
  });
});
