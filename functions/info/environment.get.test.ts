import { describe, expect, it } from 'vitest';
import { infoOf } from '../../test/support/info-devices.ts';
import * as environment from './environment.get.ts';

describe('GET /api/v1/info/environment', () => {
  it('responds with 200 and the daemon’s variables, the values of secret-looking names redacted', async () => {
    const environ =
      'PATH=/usr/sbin:/usr/bin:/sbin:/bin\0HOME=/root\0CHUTEBOX_ADMIN_PASSWORD=hunter2\0GITHUB_TOKEN=ghp_abc\0' +
      'aws_secret_access_key=xyz\0OPENAI_APIKEY=k\0SSH_PRIVATE_KEY=-----BEGIN\0DB_CREDENTIALS=u:p\0PASSWD_FILE=/etc/x\0LANG=C.UTF-8\0';
    expect(await infoOf(environment, { files: { '/proc/self/environ': environ } })).toEqual({
      PATH: '/usr/sbin:/usr/bin:/sbin:/bin',
      HOME: '/root',
      CHUTEBOX_ADMIN_PASSWORD: '[redacted]',
      GITHUB_TOKEN: '[redacted]',
      aws_secret_access_key: '[redacted]',
      OPENAI_APIKEY: '[redacted]',
      SSH_PRIVATE_KEY: '[redacted]',
      DB_CREDENTIALS: '[redacted]',
      PASSWD_FILE: '[redacted]',
      LANG: 'C.UTF-8',
    });
  });

  it('responds with one variable per line from a file without NUL bytes', async () => {
    expect(await infoOf(environment, { files: { '/proc/self/environ': 'TZ=UTC\nAPI_KEY=abc\n' } })).toEqual({ TZ: 'UTC', API_KEY: '[redacted]' });
  });

  it('responds with a variable named __proto__ as an ordinary name', async () => {
    expect(await infoOf(environment, { files: { '/proc/self/environ': '__proto__=x\0' } })).toEqual(JSON.parse('{"__proto__":"x"}'));
  });

  it('responds with {} when the environment cannot be read', async () => {
    expect(await infoOf(environment, {})).toEqual({});
  });
});
