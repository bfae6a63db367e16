import { describe, expect, it } from 'vitest';
import { sshKey } from '../../test/support/ssh-keys.ts';
import { appendLine, keyLines, parseAuthorizedKeys, parseKeyLine, sameKey } from './authorized-keys.ts';

const ED25519 = sshKey('ed25519');
const RSA = sshKey('rsa-2048');
const [, ED25519_DATA] = ED25519.split(' ');

describe('parseAuthorizedKeys', () => {
  it('reads key lines with and without options, and skips comments, blank lines and lines without a key', () => {
    const text = [
      '# keys of the ops team',
      '',
      `   ${ED25519}   `,
      `from="10.0.0.0/8,192.168.1.*",no-pty ${RSA}`,
      `command="echo \\"hello world\\"",restrict ${sshKey('ecdsa-256')}`,
      'this is not a key',
      'ssh-ed25519 not-base64!',
      `environment="A=b c" ${sshKey('sk-ed25519')}`,
      '',
    ].join('\r\n');
    const keys = parseAuthorizedKeys(text);
    expect(keys.map((key) => key.line)).toEqual([
      ED25519,
      `from="10.0.0.0/8,192.168.1.*",no-pty ${RSA}`,
      `command="echo \\"hello world\\"",restrict ${sshKey('ecdsa-256')}`,
      `environment="A=b c" ${sshKey('sk-ed25519')}`,
    ]);
    expect(keys.map((key) => [key.options, key.type, key.comment])).toEqual([
      [null, 'ssh-ed25519', 'alice@laptop'],
      ['from="10.0.0.0/8,192.168.1.*",no-pty', 'ssh-rsa', 'bob@workstation'],
      ['command="echo \\"hello world\\"",restrict', 'ecdsa-sha2-nistp256', 'carol@phone'],
      ['environment="A=b c"', 'sk-ssh-ed25519@openssh.com', 'frank@yubikey'],
    ]);
    expect(keys[0]!.data).toBe(ED25519_DATA);
  });

  it('answers no keys for an empty file', () => {
    expect(parseAuthorizedKeys('')).toEqual([]);
  });
});

describe('keyLines', () => {
  it('answers the key lines as written, and none for a file that does not exist', () => {
    expect(keyLines(`# mine\n  no-pty ${ED25519}\n`)).toEqual([`no-pty ${ED25519}`]);
    expect(keyLines(null)).toEqual([]);
  });
});

describe('parseKeyLine', () => {
  it('keeps a comment with spaces whole, and has no comment for a key without one', () => {
    expect(parseKeyLine(`ssh-ed25519 ${ED25519_DATA} Alice's laptop (2026)`)).toMatchObject({ comment: "Alice's laptop (2026)", options: null });
    expect(parseKeyLine(`ssh-ed25519\t${ED25519_DATA}`)).toMatchObject({ type: 'ssh-ed25519', data: ED25519_DATA, comment: null });
  });

  it('answers null for an options field whose quote is never closed', () => {
    expect(parseKeyLine(`command="uptime ${ED25519}`)).toBeNull();
  });
});

describe('sameKey', () => {
  it('compares type and key data, not options or comments', () => {
    const plain = parseKeyLine(ED25519)!;
    expect(sameKey(plain, parseKeyLine(`no-pty ssh-ed25519 ${ED25519_DATA} alice@phone`)!)).toBe(true);
    expect(sameKey(plain, parseKeyLine(RSA)!)).toBe(false);
    expect(sameKey(plain, { type: 'sk-ssh-ed25519@openssh.com', data: ED25519_DATA! })).toBe(false);
  });
});

describe('appendLine', () => {
  it('adds one line at the end, after a newline the text lacks, keeping every other byte', () => {
    expect(appendLine(null, ED25519)).toBe(`${ED25519}\n`);
    expect(appendLine('', ED25519)).toBe(`${ED25519}\n`);
    expect(appendLine('# mine\r\nno-pty ssh-rsa AAAA', ED25519)).toBe(`# mine\r\nno-pty ssh-rsa AAAA\n${ED25519}\n`);
    expect(appendLine(`${RSA}\n\n`, ED25519)).toBe(`${RSA}\n\n${ED25519}\n`);
  });
});
