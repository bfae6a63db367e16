import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { findAccount, parsePasswd, redactPasswd } from './passwd.ts';

const OPENWRT = readFileSync(new URL('../../fixtures/scenarios/default/etc/passwd', import.meta.url), 'utf8');

describe('parsePasswd', () => {
  it("reads every account of the default scenario's OpenWrt passwd, in order", () => {
    const accounts = parsePasswd(OPENWRT);
    expect(accounts.map((account) => account.name)).toEqual(['root', 'daemon', 'network', 'nobody', 'ntp', 'dnsmasq', 'logd', 'ubus', 'paradrop']);
    expect(accounts[0]).toEqual({ name: 'root', uid: 0, gid: 0, home: '/root' });
    expect(accounts.at(-1)).toEqual({ name: 'paradrop', uid: 1000, gid: 1000, home: '/home/paradrop' });
  });

  it('skips comments, blank lines, NIS compat lines and malformed lines, and takes CRLF line ends', () => {
    const text = [
      '# system accounts',
      '',
      'root:x:0:0:root:/root:/bin/sh\r',
      '+@admins::::::',
      '-mallory::::::',
      'short:x:5:5:/home/short',
      'baduid:x:-1:5::/home/baduid:/bin/sh',
      'hexuid:x:0x10:5::/home/hexuid:/bin/sh',
      'hugeuid:x:4294967295:5::/home/huge:/bin/sh',
      ':x:7:7::/home/noname:/bin/sh',
      'nohome:x:9:9:No Home::/usr/sbin/nologin',
    ].join('\n');
    expect(parsePasswd(text)).toEqual([
      { name: 'root', uid: 0, gid: 0, home: '/root' },
      { name: 'nohome', uid: 9, gid: 9, home: '' },
    ]);
  });
});

describe('findAccount', () => {
  it('finds the first line of a name, as getpwnam does, and answers null for an unknown name', () => {
    const text = 'alice:x:1001:1001::/home/alice:/bin/sh\nalice:x:2002:2002::/srv/alice:/bin/sh\n';
    expect(findAccount(text, 'alice')).toEqual({ name: 'alice', uid: 1001, gid: 1001, home: '/home/alice' });
    expect(findAccount(text, 'bob')).toBeNull();
    expect(findAccount('', 'root')).toBeNull();
  });
});

describe('redactPasswd', () => {
  it('replaces password hashes by x and keeps every other byte, locks and comments included', () => {
    const text =
      '# hashes: kept out\nroot:$1$salt$hash:0:0:root:/root:/bin/ash\nold:ab01FAX.bQRSU:5:5::/home/old:/bin/sh\ndaemon:*:1:1:daemon:/var:/bin/false\nnopw::6:6::/:/bin/sh\nx:x:7:7::/:/bin/sh\n';
    expect(redactPasswd(text)).toBe(
      '# hashes: kept out\nroot:x:0:0:root:/root:/bin/ash\nold:x:5:5::/home/old:/bin/sh\ndaemon:*:1:1:daemon:/var:/bin/false\nnopw::6:6::/:/bin/sh\nx:x:7:7::/:/bin/sh\n',
    );
    expect(redactPasswd(OPENWRT)).toBe(OPENWRT);
  });
});
