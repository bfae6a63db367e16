import { describe, expect, it } from 'vitest';
import { formatEnviron, isSecretName, parseEnviron, REDACTED, redactSecrets } from './environ.ts';

describe('/proc/self/environ', () => {
  it('splits NUL-separated entries at the first equals sign', () => {
    expect(parseEnviron('HOME=/root\0OPTS=a=b\0EMPTY=\0')).toEqual([
      ['HOME', '/root'],
      ['OPTS', 'a=b'],
      ['EMPTY', ''],
    ]);
  });

  it('keeps newlines inside values when entries are NUL-separated', () => {
    expect(parseEnviron('MOTD=line one\nline two\0')).toEqual([['MOTD', 'line one\nline two']]);
  });

  it('reads one entry per line from a file without NUL', () => {
    expect(parseEnviron('LANG=C.UTF-8\r\nTZ=UTC\n')).toEqual([
      ['LANG', 'C.UTF-8'],
      ['TZ', 'UTC'],
    ]);
  });

  it('skips entries without a name and keeps the first of a repeated name', () => {
    expect(parseEnviron('=x\0junk\0A=1\0A=2\0')).toEqual([['A', '1']]);
  });
});

describe('redactSecrets', () => {
  it('replaces the values of secret-looking names, in any case, and keeps the others and the order', () => {
    const names = [
      'ADMIN_PASSWORD',
      'PASSWD_FILE',
      'aws_secret_access_key',
      'GITHUB_TOKEN',
      'OPENAI_APIKEY',
      'X_API_KEY',
      'SSH_PRIVATE_KEY',
      'PRIVATEKEY',
      'DB_CREDENTIALS',
    ];
    const entries: [string, string][] = [['PATH', '/bin'], ...names.map((name): [string, string] => [name, 'hunter2']), ['KEYBOARD', 'us']];
    expect(redactSecrets(entries)).toEqual([['PATH', '/bin'], ...names.map((name) => [name, REDACTED]), ['KEYBOARD', 'us']]);
    expect(REDACTED).toBe('[redacted]');
  });

  it('leaves its input unchanged', () => {
    const entries: [string, string][] = [['TOKEN', 'abc']];
    redactSecrets(entries);
    expect(entries).toEqual([['TOKEN', 'abc']]);
  });
});

describe('formatEnviron', () => {
  it('writes each entry as NAME=value ended by a NUL byte', () => {
    expect(
      formatEnviron([
        ['HOME', '/root'],
        ['EMPTY', ''],
      ]),
    ).toBe('HOME=/root\0EMPTY=\0');
    expect(formatEnviron([])).toBe('');
  });

  it('writes what parseEnviron reads back unchanged, newlines and equals signs in values included', () => {
    const entries: [string, string][] = [
      ['MOTD', 'line one\nline two'],
      ['OPTS', 'a=b'],
      ['TZ', 'UTC'],
    ];
    expect(parseEnviron(formatEnviron(entries))).toEqual(entries);
  });

  it('writes a redacted file from a line-per-entry file', () => {
    expect(formatEnviron(redactSecrets(parseEnviron('TZ=UTC\nAPI_KEY=abc\n')))).toBe('TZ=UTC\0API_KEY=[redacted]\0');
  });
});

describe('isSecretName', () => {
  it('tells the names of secrets, in any case, from the others', () => {
    for (const name of ['DB_PASSWORD', 'passwd', 'acct_secret', 'GITHUB_TOKEN', 'apiKey', 'API_KEY', 'PRIVATE_KEY', 'AWS_CREDENTIALS'])
      expect(isSecretName(name), name).toBe(true);
    for (const name of ['PATH', 'HOME', 'KEYMAP', 'ssid']) expect(isSecretName(name), name).toBe(false);
  });
});
