import { describe, expect, it } from 'vitest';
import { entityTag, entityTagging, matchesTag, webCryptoEntityTag } from './etag.ts';
import { JSON_HEADERS } from './handler.ts';

const ok = (body: string, headers: Record<string, string> = JSON_HEADERS) => ({ status: 200, headers, body });

describe('entityTag', () => {
  it('is a strong tag that changes with the body and with the content type', async () => {
    const json = await entityTag('application/json', '{"ssid":"guest"}');
    expect(json).toMatch(/^"[0-9a-f]{32}"$/);
    expect(await entityTag('application/json', '{"ssid":"guest"}')).toBe(json);
    expect(await entityTag('application/json', '{"ssid":"guesT"}')).not.toBe(json);
    expect(await entityTag('application/yaml', '{"ssid":"guest"}')).not.toBe(json);
  });

  it('is the same made by node:crypto and by Web Crypto, as in a browser', async () => {
    for (const body of ['', '["hostapd-control"]', 'name: Café ☕\n']) {
      expect(await webCryptoEntityTag('application/yaml', body)).toBe(await entityTag('application/yaml', body));
    }
  });
});

describe('entityTagging', () => {
  it('gives a 200 its tag, and a 304 without a body to a request that names it', async () => {
    const withEntityTag = entityTagging();
    const answer = await withEntityTag(ok('["hostapd-control"]'), undefined);
    const etag = answer.headers.etag!;
    expect(answer).toEqual({ status: 200, headers: { 'content-type': 'application/json', etag }, body: '["hostapd-control"]' });
    expect(await withEntityTag(ok('["hostapd-control"]'), etag)).toEqual({ status: 304, headers: { etag }, body: '' });
  });

  it('answers the new body with its new tag to a request that names the old one', async () => {
    const withEntityTag = entityTagging();
    const old = (await withEntityTag(ok('{"ssid":"guest"}'), undefined)).headers.etag!;
    const answer = await withEntityTag(ok('{"ssid":"visitors"}'), old);
    expect(answer.status).toBe(200);
    expect(answer.body).toBe('{"ssid":"visitors"}');
    expect(answer.headers.etag).not.toBe(old);
  });

  it("keeps the 200's Vary and Cache-Control on the 304, and no other header", async () => {
    const withEntityTag = entityTagging();
    const headers = { 'content-type': 'application/yaml', vary: 'accept', 'cache-control': 'no-cache', link: '</next>; rel="next"' };
    const { etag } = (await withEntityTag(ok('a: 1\n', headers), undefined)).headers;
    expect(await withEntityTag(ok('a: 1\n', headers), `W/"x", ${etag}`)).toEqual({
      status: 304,
      headers: { etag, vary: 'accept', 'cache-control': 'no-cache' },
      body: '',
    });
  });

  it('hands the same frozen headers for a JSON answer with the same tag, and new ones for another tag', async () => {
    const withEntityTag = entityTagging();
    const first = await withEntityTag(ok('["a"]'), undefined);
    const again = await withEntityTag(ok('["a"]'), undefined);
    expect(again.headers).toBe(first.headers);
    expect(Object.isFrozen(first.headers)).toBe(true);
    expect((await withEntityTag(ok('["b"]'), undefined)).headers).not.toBe(first.headers);
  });

  it("keeps an endpoint's tag and bytes while other endpoints answer other bodies in between", async () => {
    const [openapi, others] = [entityTagging(), entityTagging()];
    const document = `{"paths":${JSON.stringify('x'.repeat(4096))}}`;
    const first = await openapi(ok(document), undefined);
    for (let i = 0; i < 10; i++) await others(ok(`{"answer":${i}}`), undefined);
    const again = await openapi(ok(document), undefined);
    expect(again.headers).toBe(first.headers);
    expect(again.bytes).toBe(first.bytes);
  });

  it('leaves any other status as it is', async () => {
    const withEntityTag = entityTagging();
    const problem = { status: 404, headers: { 'content-type': 'application/problem+json' }, body: '{"status":404}' };
    expect(await withEntityTag(problem, '*')).toBe(problem);
  });
});

describe('matchesTag', () => {
  it('takes *, a list of tags, and weak tags by the weak comparison', () => {
    expect(matchesTag('*', '"a1"')).toBe(true);
    expect(matchesTag(' * ', '"a1"')).toBe(true);
    expect(matchesTag('"a1"', '"a1"')).toBe(true);
    expect(matchesTag('"b2", "a1"', '"a1"')).toBe(true);
    expect(matchesTag('"b2",W/"a1"', '"a1"')).toBe(true);
    expect(matchesTag('"b2"', '"a1"')).toBe(false);
    expect(matchesTag('a1', '"a1"')).toBe(false);
    expect(matchesTag('"a1', '"a1"')).toBe(false);
    expect(matchesTag('', '"a1"')).toBe(false);
  });
});
