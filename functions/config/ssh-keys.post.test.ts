import { describe, expect, it } from 'vitest';
import { callFunction } from '../../test/support/call-function.ts';
import { accountsDevice } from '../../test/support/account-devices.ts';
import { sshKey } from '../../test/support/ssh-keys.ts';
import type { Device } from '../core/device/index.ts';
import * as sshKeys from './ssh-keys.get.ts';
import * as sshKeysAdd from './ssh-keys.post.ts';

const PARADROP = { user: 'paradrop' };
const EXISTING = `# laptop\n${sshKey('ed25519')}\n\nno-pty ${sshKey('ecdsa-256')}`;

/** The raw authorized_keys of paradrop on the device. */
async function paradropFile(device: Device): Promise<string | null> {
  return device.accounts.authorizedKeys({ name: 'paradrop', uid: 1000, gid: 1000, home: '/home/paradrop' });
}

describe('POST /api/v1/config/sshKeys/:user', () => {
  it('responds with 200 and the new list, and appends the key as one line, every existing byte kept', async () => {
    const device = accountsDevice({ paradrop: EXISTING });
    expect(await callFunction(sshKeysAdd, device, PARADROP, { key: sshKey('rsa-2048') })).toEqual({
      status: 200,
      body: [sshKey('ed25519'), `no-pty ${sshKey('ecdsa-256')}`, sshKey('rsa-2048')],
    });
    expect(await paradropFile(device)).toBe(`${EXISTING}\n${sshKey('rsa-2048')}\n`);
    expect((await callFunction(sshKeys, device, PARADROP)).body).toEqual([sshKey('ed25519'), `no-pty ${sshKey('ecdsa-256')}`, sshKey('rsa-2048')]);
  });

  it('creates the file for a user who has none, and stores the key without the white space around it', async () => {
    const device = accountsDevice();
    expect(await callFunction(sshKeysAdd, device, { user: 'root' }, { key: `${sshKey('sk-ed25519')}\n` })).toEqual({
      status: 200,
      body: [sshKey('sk-ed25519')],
    });
    expect(await device.accounts.authorizedKeys({ name: 'root', uid: 0, gid: 0, home: '/root' })).toBe(`${sshKey('sk-ed25519')}\n`);
  });

  it('keeps every key when several are added at once', async () => {
    const device = accountsDevice();
    const names = ['ed25519', 'rsa-2048', 'ecdsa-256', 'ecdsa-384', 'ecdsa-521', 'sk-ecdsa-256'] as const;
    const answers = await Promise.all(names.map((name) => callFunction(sshKeysAdd, device, PARADROP, { key: sshKey(name) })));
    expect(answers.map((answer) => answer.status)).toEqual(names.map(() => 200));
    expect((await callFunction<string[]>(sshKeys, device, PARADROP)).body.sort()).toEqual(names.map((name) => sshKey(name)).sort());
  });

  it('responds with 409 for a key the user already has under another comment and options, and changes nothing', async () => {
    const device = accountsDevice({ paradrop: EXISTING });
    const [type, data] = sshKey('ecdsa-256').split(' ');
    expect(await callFunction(sshKeysAdd, device, PARADROP, { key: `${type} ${data} carol@new-phone` })).toMatchObject({
      status: 409,
      body: { detail: 'user paradrop already has this ecdsa-sha2-nistp256 key (commented "carol@phone")' },
    });
    expect(await paradropFile(device)).toBe(EXISTING);
  });

  const invalid: [string, unknown, string][] = [
    ['an RSA key of 1024 bits', { key: sshKey('rsa-1024') }, 'RSA keys need at least 2048 bits; this one has 1024'],
    ['a DSA key', { key: sshKey('dsa') }, 'DSA keys (ssh-dss) are not accepted: they are weak, and OpenSSH no longer takes them; use ssh-ed25519'],
    [
      'a key with options',
      { key: `no-pty ${sshKey('ed25519')}` },
      'must be the public key alone (type, base64 key and an optional comment), without authorized_keys options such as command="…"',
    ],
    ['a mismatched payload', { key: `ssh-ed25519 ${sshKey('rsa-2048').split(' ')[1]}` }, 'the key is of type "ssh-rsa", not ssh-ed25519 as the line says'],
    ['a missing key', {}, 'is required'],
    ['a key that is not a string', { key: ['ssh-ed25519', 'AAAA'] }, 'must be a string: one public key line'],
  ];
  for (const [what, body, message] of invalid) {
    it(`responds with 422 naming body.key for ${what}, and changes nothing`, async () => {
      const device = accountsDevice({ paradrop: EXISTING });
      expect(await callFunction(sshKeysAdd, device, PARADROP, body)).toMatchObject({ status: 422, body: { errors: [{ path: 'body.key', message }] } });
      expect(await paradropFile(device)).toBe(EXISTING);
    });
  }

  it('responds with 422 naming the body when there is none, and changes nothing', async () => {
    const device = accountsDevice({ paradrop: EXISTING });
    expect(await callFunction(sshKeysAdd, device, PARADROP)).toMatchObject({ status: 422, body: { errors: [{ path: 'body' }] } });
    expect(await paradropFile(device)).toBe(EXISTING);
  });

  it('responds with 400 for a bad user name and 404 for an unknown user before looking at the body', async () => {
    const device = accountsDevice({ paradrop: EXISTING });
    expect(await callFunction(sshKeysAdd, device, { user: '../paradrop' }, { key: 'nonsense' })).toMatchObject({
      status: 400,
      body: { errors: [{ path: 'params.user' }] },
    });
    expect(await callFunction(sshKeysAdd, device, { user: 'mallory' }, { key: 'nonsense' })).toMatchObject({ status: 404 });
    expect(await paradropFile(device)).toBe(EXISTING);
  });
});
