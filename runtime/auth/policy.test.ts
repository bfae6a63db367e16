import { randomBytes } from 'node:crypto';
import { sign } from 'hono/jwt';
import { describe, expect, it } from 'vitest';
import type { HttpProblem } from '../../functions/core/problem.ts';
import { hashPassword, verifyPassword } from './passwords.ts';
import { createPolicy, tokenKey, type AuthPolicy, type UserTable } from './policy.ts';

const LAN_CLIENT = '192.168.1.20';
/** Where the policies of the tests that change no password would keep their accounts. */
const UNUSED_STORE = { write: () => Promise.reject(new Error('these tests change no password')), cleared: {} };

async function policyWith(users: UserTable, now?: () => number) {
  const secret = await tokenKey(randomBytes(32));
  return createPolicy({ users: async () => users, secret, openToLoopbackWithoutPassword: true, store: UNUSED_STORE, ...(now ? { now } : {}) });
}

/** `policy.authorize` as a promise, whether it decided at once or not: a refusal made at once is a rejection. */
const ask = async (policy: AuthPolicy, authorization: string | undefined, client: string | undefined) => policy.authorize(authorization, client);

async function refusal(promise: Promise<unknown>): Promise<HttpProblem> {
  try {
    await promise;
  } catch (error) {
    return error as HttpProblem;
  }
  throw new Error('expected a refusal');
}

describe('auth policy without a password', () => {
  it('serves a loopback client without credentials', async () => {
    const policy = await policyWith({});
    await expect(ask(policy, undefined, '127.0.0.1')).resolves.toBeNull();
    await expect(ask(policy, undefined, '::ffff:127.0.0.1')).resolves.toBeNull();
  });

  it('refuses any other client with 403 telling to run chutebox passwd, even with credentials', async () => {
    const policy = await policyWith({});
    for (const authorization of [undefined, `Basic ${Buffer.from('paradrop:').toString('base64')}`]) {
      const problem = await refusal(ask(policy, authorization, LAN_CLIENT));
      expect(problem.status).toBe(403);
      expect(problem.message).toContain('chutebox passwd');
    }
    expect((await refusal(policy.login('paradrop', '', LAN_CLIENT))).status).toBe(403);
  });
});

describe('auth policy with a password', () => {
  it('asks loopback clients for credentials too', async () => {
    const policy = await policyWith({ paradrop: await hashPassword('pw') });
    const problem = await refusal(ask(policy, undefined, '127.0.0.1'));
    expect(problem.status).toBe(401);
    expect(problem.headers['www-authenticate']).toBe('Bearer realm="chutebox", Basic realm="chutebox"');
  });

  it('accepts a token it signed and refuses one it signed more than an hour ago, by its own clock', async () => {
    const users = { paradrop: await hashPassword('pw') };
    // A clock a year from now: the token's times are the policy's, whatever the real time (the emulator's tokens follow its clock).
    let now = Date.now() + 365 * 86_400_000;
    const policy = await policyWith(users, () => now);
    const token = await policy.login('paradrop', 'pw', LAN_CLIENT);
    await expect(ask(policy, `Bearer ${token}`, LAN_CLIENT)).resolves.toBe('paradrop');
    now += 3599_000;
    await expect(ask(policy, `Bearer ${token}`, LAN_CLIENT)).resolves.toBe('paradrop');
    now += 2_000;
    expect((await refusal(ask(policy, `Bearer ${token}`, LAN_CLIENT))).status).toBe(401);
    const again = await policyWith(users, () => now - 2 * 365 * 86_400_000);
    const past = await again.login('paradrop', 'pw', LAN_CLIENT);
    await expect(ask(again, `Bearer ${past}`, LAN_CLIENT)).resolves.toBe('paradrop');
  });

  it('refuses a token whose user is no longer in the password file', async () => {
    const users: UserTable = { paradrop: await hashPassword('pw') };
    const policy = await policyWith(users);
    const token = await policy.login('paradrop', 'pw', LAN_CLIENT);
    delete users.paradrop;
    users.admin = await hashPassword('pw');
    expect((await refusal(ask(policy, `Bearer ${token}`, LAN_CLIENT))).status).toBe(401);
  });

  it('refuses a token without an expiry even when correctly signed', async () => {
    const secret = await tokenKey(randomBytes(32));
    const policy = createPolicy({ users: async () => ({ paradrop: 'scrypt$x' }), secret, openToLoopbackWithoutPassword: true, store: UNUSED_STORE });
    const token = await sign({ sub: 'paradrop' }, secret, 'HS256');
    expect((await refusal(ask(policy, `Bearer ${token}`, LAN_CLIENT))).status).toBe(401);
  });

  it('locks out an address after 5 failed logins, counting Basic and auth/local alike', async () => {
    const policy = await policyWith({ paradrop: await hashPassword('pw') });
    const basic = (password: string) => `Basic ${Buffer.from(`paradrop:${password}`).toString('base64')}`;
    for (let i = 0; i < 3; i++) await expect(policy.login('paradrop', 'wrong', LAN_CLIENT)).resolves.toBeNull();
    for (let i = 0; i < 2; i++) expect((await refusal(ask(policy, basic('wrong'), LAN_CLIENT))).status).toBe(401);
    expect((await refusal(ask(policy, basic('pw'), LAN_CLIENT))).status).toBe(429);
    expect((await refusal(policy.login('paradrop', 'pw', LAN_CLIENT))).status).toBe(429);
    await expect(ask(policy, basic('pw'), '192.168.1.21')).resolves.toBe('paradrop');
  });
});

describe('auth policy with Basic credentials', () => {
  /** A policy whose password checks are counted: each is one scrypt on a device. */
  async function countedPolicy() {
    const users = { paradrop: await hashPassword('pw') };
    let checks = 0;
    const policy = createPolicy({
      users: async () => users,
      secret: await tokenKey(randomBytes(32)),
      openToLoopbackWithoutPassword: true,
      store: UNUSED_STORE,
      limiter: { maxFailures: 100 },
      verify: async (stored, password) => {
        checks++;
        return verifyPassword(stored, password);
      },
    });
    return { policy, checks: () => checks };
  }
  const basic = (password: string) => `Basic ${Buffer.from(`paradrop:${password}`).toString('base64')}`;

  it('checks the same credentials sent on 32 connections at once with one scrypt, and remembers the success', async () => {
    const { policy, checks } = await countedPolicy();
    const users = await Promise.all(Array.from({ length: 32 }, () => ask(policy, basic('pw'), LAN_CLIENT)));
    expect(users).toEqual(Array(32).fill('paradrop'));
    expect(checks()).toBe(1);
    await ask(policy, basic('pw'), LAN_CLIENT);
    expect(checks()).toBe(1);
  });

  it('refuses wrong credentials sent at once with one check, and checks them again on a later request', async () => {
    const { policy, checks } = await countedPolicy();
    const refusals = await Promise.all(Array.from({ length: 8 }, () => refusal(ask(policy, basic('nope'), LAN_CLIENT))));
    expect(refusals.map((problem) => problem.status)).toEqual(Array(8).fill(401));
    expect(checks()).toBe(1);
    expect((await refusal(ask(policy, basic('nope'), LAN_CLIENT))).status).toBe(401);
    expect(checks()).toBe(2);
  });
});

describe('auth policy remembering the credentials it checked', () => {
  it('decides at once, without a promise, for a loopback client while no password is set, and for the token or Basic credentials accepted last', async () => {
    const open = createPolicy({ users: () => ({}), secret: await tokenKey(randomBytes(32)), openToLoopbackWithoutPassword: true, store: UNUSED_STORE });
    expect(open.authorize(undefined, '127.0.0.1')).toBeNull();
    const users = { paradrop: await hashPassword('pw') };
    const policy = createPolicy({ users: () => users, secret: await tokenKey(randomBytes(32)), openToLoopbackWithoutPassword: true, store: UNUSED_STORE });
    const decidedTwice = async (authorization: string) => {
      await expect(ask(policy, authorization, LAN_CLIENT)).resolves.toBe('paradrop');
      expect(policy.authorize(authorization, LAN_CLIENT)).toBe('paradrop');
    };
    await decidedTwice(`Basic ${Buffer.from('paradrop:pw').toString('base64')}`);
    await decidedTwice(`Bearer ${await policy.login('paradrop', 'pw', LAN_CLIENT)}`);
  });

  it('accepts a token it checked before, and Basic credentials it verified before, again', async () => {
    const policy = await policyWith({ paradrop: await hashPassword('pw') });
    const decidedTwice = async (authorization: string) => {
      await expect(ask(policy, authorization, LAN_CLIENT)).resolves.toBe('paradrop');
      await expect(ask(policy, authorization, LAN_CLIENT)).resolves.toBe('paradrop');
    };
    await decidedTwice(`Basic ${Buffer.from('paradrop:pw').toString('base64')}`);
    await decidedTwice(`Bearer ${await policy.login('paradrop', 'pw', LAN_CLIENT)}`);
  });

  it('checks remembered Basic credentials again once the password changed', async () => {
    let users: UserTable = { paradrop: await hashPassword('pw') };
    const policy = createPolicy({
      users: async () => users,
      secret: await tokenKey(randomBytes(32)),
      openToLoopbackWithoutPassword: true,
      store: UNUSED_STORE,
    });
    const basic = `Basic ${Buffer.from('paradrop:pw').toString('base64')}`;
    await expect(ask(policy, basic, LAN_CLIENT)).resolves.toBe('paradrop');
    await expect(ask(policy, basic, LAN_CLIENT)).resolves.toBe('paradrop');
    users = { paradrop: await hashPassword('new') }; // chutebox passwd
    expect((await refusal(ask(policy, basic, LAN_CLIENT))).status).toBe(401);
  });

  it('refuses remembered Basic credentials with 429 from a client locked out meanwhile', async () => {
    const policy = await policyWith({ paradrop: await hashPassword('pw') });
    const good = `Basic ${Buffer.from('paradrop:pw').toString('base64')}`;
    await expect(ask(policy, good, LAN_CLIENT)).resolves.toBe('paradrop');
    for (let i = 0; i < 5; i++) await refusal(ask(policy, `Basic ${Buffer.from(`paradrop:wrong${i}`).toString('base64')}`, LAN_CLIENT));
    expect((await refusal(ask(policy, good, LAN_CLIENT))).status).toBe(429);
    await expect(ask(policy, good, '192.168.1.21')).resolves.toBe('paradrop');
  });

  it('refuses a remembered token once it has expired', async () => {
    let now = Date.now();
    const policy = await policyWith({ paradrop: await hashPassword('pw') }, () => now);
    const bearer = `Bearer ${await policy.login('paradrop', 'pw', LAN_CLIENT)}`;
    await expect(ask(policy, bearer, LAN_CLIENT)).resolves.toBe('paradrop');
    now += 3601_000;
    expect((await refusal(ask(policy, bearer, LAN_CLIENT))).status).toBe(401);
  });
});

describe('auth policy changing passwords', () => {
  /** A policy over accounts kept in memory, as the emulator keeps them; none at first. */
  async function changeable() {
    let users: UserTable = {};
    const store = {
      write: async (table: UserTable) => {
        users = table;
      },
      cleared: {},
    };
    const policy = createPolicy({ users: () => users, secret: await tokenKey(randomBytes(32)), openToLoopbackWithoutPassword: true, store });
    return { policy, users: () => users };
  }

  it('makes one first account when two changes arrive at once on a device without one: the other is refused naming body.username', async () => {
    const { policy, users } = await changeable();
    const results = await Promise.allSettled([policy.changePassword('alice', 'one'), policy.changePassword('bob', 'two')]);
    expect(results[0]).toMatchObject({ status: 'fulfilled' });
    expect(results[1]).toMatchObject({ status: 'rejected', reason: { status: 422, errors: [{ path: 'body.username' }] } });
    expect(Object.keys(users())).toEqual(['alice']);
    expect(await verifyPassword(users().alice!, 'one')).toBe(true);
  });

  it('ends the tokens of the accounts it clears', async () => {
    const { policy } = await changeable();
    await policy.changePassword('paradrop', 'pw');
    const token = await policy.login('paradrop', 'pw', LAN_CLIENT);
    await expect(ask(policy, `Bearer ${token}`, LAN_CLIENT)).resolves.toBe('paradrop');
    await policy.clearPasswords();
    expect((await refusal(ask(policy, `Bearer ${token}`, LAN_CLIENT))).status).toBe(403);
  });
});
