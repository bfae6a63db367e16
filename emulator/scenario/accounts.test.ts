import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { callFunction } from '../../test/support/call-function.ts';
import * as sshKeys from '../../functions/config/ssh-keys.get.ts';
import * as sshKeysAdd from '../../functions/config/ssh-keys.post.ts';
import { findAccount } from '../../functions/parsers/passwd.ts';
import { rootedFiles } from '../../runtime/device/files.ts';
import { memoryDevice } from '../../test/support/memory-device.ts';
import { sshKey } from '../../test/support/ssh-keys.ts';
import { memoryAccounts, scenarioAccounts } from './accounts.ts';

const DEFAULT = fileURLToPath(new URL('../../fixtures/scenarios/default/', import.meta.url));
const PARADROP_KEYS = new URL('../../fixtures/scenarios/default/home/paradrop/.ssh/authorized_keys', import.meta.url);

/** A device whose accounts are those of the default scenario. */
function scenarioDevice() {
  return { ...memoryDevice(), accounts: scenarioAccounts(rootedFiles(DEFAULT)) };
}

describe('the accounts of the default scenario', () => {
  it('has the system user paradrop, with one ed25519 key, in an OpenWrt passwd database', async () => {
    const passwd = await scenarioAccounts(rootedFiles(DEFAULT)).passwd();
    expect(findAccount(passwd, 'paradrop')).toEqual({ name: 'paradrop', uid: 1000, gid: 1000, home: '/home/paradrop' });
    expect(findAccount(passwd, 'root')).toMatchObject({ uid: 0, home: '/root' });
    const { status, body } = await callFunction<string[]>(sshKeys, scenarioDevice(), { user: 'paradrop' });
    expect(status).toBe(200);
    expect(body).toHaveLength(1);
    expect(body[0]).toMatch(/^ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI\S+ paradrop@default-scenario$/);
  });

  it('keeps an added key in memory: later reads show it, the scenario folder stays as it was, a new emulator starts from it again', async () => {
    const recorded = await readFile(PARADROP_KEYS, 'utf8');
    const device = scenarioDevice();
    expect(await callFunction(sshKeysAdd, device, { user: 'paradrop' }, { key: sshKey('ed25519') })).toEqual({
      status: 200,
      body: [recorded.trim(), sshKey('ed25519')],
    });
    expect((await callFunction(sshKeys, device, { user: 'paradrop' })).body).toEqual([recorded.trim(), sshKey('ed25519')]);
    expect(await callFunction(sshKeysAdd, device, { user: 'root' }, { key: sshKey('rsa-2048') })).toEqual({ status: 200, body: [sshKey('rsa-2048')] });
    expect(await readFile(PARADROP_KEYS, 'utf8')).toBe(recorded);
    expect((await callFunction(sshKeys, scenarioDevice(), { user: 'paradrop' })).body).toEqual([recorded.trim()]);
    expect((await callFunction(sshKeys, scenarioDevice(), { user: 'root' })).body).toEqual([]);
  });

  it('has an empty passwd database in a scenario without etc/passwd', async () => {
    const accounts = scenarioAccounts({ readFile: async () => null });
    expect(await accounts.passwd()).toBe('');
  });
});

describe('memoryAccounts', () => {
  it("serves the given passwd text and each user's keys, and refuses keys for a user the passwd lacks", async () => {
    const passwd = 'alice:x:1000:1000::/home/alice/:/bin/sh\n';
    const accounts = memoryAccounts({ passwd, keys: { alice: 'ssh-ed25519 AAAA a\n' } });
    expect(await accounts.passwd()).toBe(passwd);
    expect(await accounts.authorizedKeys({ name: 'alice', uid: 1000, gid: 1000, home: '/home/alice/' })).toBe('ssh-ed25519 AAAA a\n');
    await accounts.updateAuthorizedKeys({ name: 'alice', uid: 1000, gid: 1000, home: '/home/alice' }, () => null);
    expect(await accounts.authorizedKeys({ name: 'alice', uid: 1000, gid: 1000, home: '/home/alice' })).toBe('ssh-ed25519 AAAA a\n');
    expect(() => memoryAccounts({ passwd, keys: { bob: '' } })).toThrow('memoryAccounts: keys are given for bob, whom the passwd text lacks');
  });
});
