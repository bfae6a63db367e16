import { describe, expect, it } from 'vitest';
import { HttpProblem } from '../../functions/core/problem.ts';
import { assertLocal, assertOwnPage, isLocalHost } from './local-request.ts';

describe('isLocalHost', () => {
  it.each([
    'localhost',
    'localhost:8080',
    'LocalHost:8080',
    '127.0.0.1',
    '127.0.0.1:8080',
    '127.3.2.1:80',
    '[::1]',
    '[::1]:8080',
    '[::ffff:127.0.0.1]:8080',
    '0.0.0.0:8080',
    '[::]:8080',
  ])('counts %s as this machine', (host) => {
    expect(isLocalHost(host)).toBe(true);
  });

  it.each([
    'rebind.evil.example',
    'rebind.evil.example:8080',
    'router.localhost:8080',
    'localhost.:8080',
    'localhost.evil.example',
    '127.0.0.1.evil.example:8080',
    '192.168.1.1:8080',
    '[fe80::1]:8080',
    '[::1',
    'localhost:',
    'localhost:8080:80',
    '',
    undefined,
  ])('counts %s as a name DNS could point anywhere', (host) => {
    expect(isLocalHost(host)).toBe(false);
  });
});

describe('assertLocal', () => {
  const refusal = (headers: Record<string, string>) => {
    try {
      assertLocal(headers);
      return undefined;
    } catch (error) {
      return error as HttpProblem;
    }
  };

  it('lets through a loopback Host without an Origin, or with its own', () => {
    expect(refusal({ host: '127.0.0.1:8080' })).toBeUndefined();
    expect(refusal({ host: '127.0.0.1:8080', origin: 'http://127.0.0.1:8080' })).toBeUndefined();
    expect(refusal({ host: 'localhost', origin: 'http://localhost' })).toBeUndefined();
  });

  it.each(['http://evil.example', 'http://localhost:8080', 'http://127.0.0.1:3000', 'https://127.0.0.1:8080', 'null'])(
    'refuses the Origin %s on 127.0.0.1:8080 with a 403 that says to set a password',
    (origin) => {
      const problem = refusal({ host: '127.0.0.1:8080', origin });
      expect(problem).toBeInstanceOf(HttpProblem);
      expect(problem!.status).toBe(403);
      expect(problem!.message).toMatch(/another origin[\s\S]*chutebox passwd/);
    },
  );

  it('refuses a Host that is no loopback name with a 403 that says to set a password', () => {
    const problem = refusal({ host: 'rebind.evil.example:8080', origin: 'http://rebind.evil.example:8080' });
    expect(problem!.status).toBe(403);
    expect(problem!.message).toMatch(/localhost or a loopback address[\s\S]*chutebox passwd/);
  });
});

describe('assertOwnPage', () => {
  const BASIC = `Basic ${btoa('paradrop:secret')}`;
  const refusal = (host: string | undefined, origin: string, listed: string[] = []) => {
    try {
      assertOwnPage({ host, origin, authorization: BASIC }, listed);
      return undefined;
    } catch (error) {
      return error as HttpProblem;
    }
  };

  it.each([
    ['router.lan:8080', 'http://router.lan:8080'],
    ['router.lan:8080', 'https://router.lan:8080'],
    ['router.lan', 'https://router.lan'],
    ['Router.LAN', 'http://router.lan'],
    ['192.168.1.1:8080', 'http://192.168.1.1:8080'],
  ])('takes Basic credentials on Host %s from its own page %s, over http or https (behind a proxy)', (host, origin) => {
    expect(refusal(host, origin)).toBeUndefined();
  });

  it('takes Basic credentials from a page of an origin --cors-origin lists by name', () => {
    expect(refusal('router.lan:8080', 'https://portal.example', ['https://portal.example'])).toBeUndefined();
  });

  it.each([
    ['router.lan:8080', 'http://evil.example'],
    ['router.lan:8080', 'http://router.lan:3000'],
    ['router.lan:8080', 'http://router.lan.evil.example:8080'],
    ['router.lan:8080', 'null'],
    ['router.lan:8080', 'file://router.lan:8080'],
    [undefined, 'http://evil.example'],
  ])('refuses Basic credentials on Host %s from a page of %s with a 403 that says to log in and send a Bearer token', (host, origin) => {
    const problem = refusal(host, origin, ['https://portal.example']);
    expect(problem).toBeInstanceOf(HttpProblem);
    expect(problem!.status).toBe(403);
    expect(problem!.message).toContain(`not from a page of ${origin}`);
    expect(problem!.message).toMatch(/POST \/api\/v1\/auth\/local[\s\S]*Authorization: Bearer <token>/);
  });
});
