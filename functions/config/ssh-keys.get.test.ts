import { describe, expect, it } from 'vitest';
import { callFunction } from '../../test/support/call-function.ts';
import { accountsDevice } from '../../test/support/account-devices.ts';
import { sshKey } from '../../test/support/ssh-keys.ts';
import * as sshKeys from './ssh-keys.get.ts';

describe('GET /api/v1/config/sshKeys/:user', () => {
  it('responds with 200 and the key lines as written, options kept, comments and blank lines left out', async () => {
    const file = `# paradrop's keys\n${sshKey('ed25519')}\n\nfrom="10.0.0.0/8",no-pty ${sshKey('rsa-2048')}\n`;
    expect(await callFunction(sshKeys, accountsDevice({ paradrop: file }), { user: 'paradrop' })).toEqual({
      status: 200,
      body: [sshKey('ed25519'), `from="10.0.0.0/8",no-pty ${sshKey('rsa-2048')}`],
    });
  });

  it('responds with 200 and [] for a user without authorized_keys', async () => {
    expect(await callFunction(sshKeys, accountsDevice(), { user: 'root' })).toEqual({ status: 200, body: [] });
  });

  it('takes a user name that ends in $, as useradd does', async () => {
    expect(await callFunction(sshKeys, accountsDevice({ machine$: `${sshKey('ed25519')}\n` }), { user: 'machine$' })).toEqual({
      status: 200,
      body: [sshKey('ed25519')],
    });
  });

  it('responds with 404 for a valid name the passwd database lacks', async () => {
    expect(await callFunction(sshKeys, accountsDevice(), { user: 'mallory' })).toMatchObject({
      status: 404,
      body: { detail: 'no user named mallory in the passwd database of this device' },
    });
  });

  const badNames = ['../root', 'root/..', '.ssh', 'Root', '0day', 'a'.repeat(33), 'par adrop', 'root:x', 'ro$ot', ''];
  for (const user of badNames) {
    it(`responds with 400 naming params.user for ${JSON.stringify(user)}`, async () => {
      expect(await callFunction(sshKeys, accountsDevice(), { user })).toMatchObject({ status: 400, body: { errors: [{ path: 'params.user' }] } });
    });
  }

  it('responds with 409 for a user whose home is not an absolute path', async () => {
    expect(await callFunction(sshKeys, accountsDevice(), { user: 'homeless' })).toMatchObject({
      status: 409,
      body: { detail: 'user homeless has no home folder to keep SSH keys in (its home in the passwd database is "relative/home")' },
    });
  });
});
