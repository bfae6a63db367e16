import { describe, expect, it } from 'vitest';
import { isSecretField, redactDocument } from './redact.ts';

describe('redactDocument', () => {
  it('replaces the values of secret-looking fields at any depth and keeps everything else', () => {
    const cache = {
      containerId: 'cbafb046',
      apiToken: 'tok_123',
      networks: {
        wifi: { hostInterface: 'phy1-ap1', key: 'chutebox-demo', options: { acct_secret: 's3cret', acct_server: '10.0.0.2' } },
      },
      accounts: [{ user: 'ops', password: 'hunter22' }],
    };
    expect(redactDocument(cache)).toEqual({
      containerId: 'cbafb046',
      apiToken: '[redacted]',
      networks: {
        wifi: { hostInterface: 'phy1-ap1', key: '[redacted]', options: { acct_secret: '[redacted]', acct_server: '10.0.0.2' } },
      },
      accounts: [{ user: 'ops', password: '[redacted]' }],
    });
    expect(cache.networks.wifi.key).toBe('chutebox-demo');
  });

  it('redacts a secret field whatever its value holds', () => {
    expect(redactDocument({ credentials: { user: 'ops', pass: 'x' }, tokens: ['a', 'b'], PRIVATE_KEY: 7 })).toEqual({
      credentials: '[redacted]',
      tokens: '[redacted]',
      PRIVATE_KEY: '[redacted]',
    });
  });

  it('redacts the value of a secret-looking NAME=value string, as Docker lists an environment', () => {
    expect(redactDocument({ env: ['API_TOKEN=abc=def', 'TZ=UTC', 'GREETING=hello token'] })).toEqual({
      env: ['API_TOKEN=[redacted]', 'TZ=UTC', 'GREETING=hello token'],
    });
  });

  it('keeps scalars, null and empty documents as they are', () => {
    expect(redactDocument({})).toEqual({});
    expect(redactDocument({ a: null, b: 1, c: true, d: 'text' })).toEqual({ a: null, b: 1, c: true, d: 'text' });
  });
});

describe('isSecretField', () => {
  it("takes the environment rule's names and Wi-Fi secrets", () => {
    for (const name of ['apiToken', 'API_KEY', 'acct_secret', 'password', 'key', 'KEY', 'psk', 'wpa_psk', 'wpa_passphrase', 'passphrase']) {
      expect(isSecretField(name), name).toBe(true);
    }
    for (const name of ['keyboard', 'hostInterface', 'ssid', 'leaseFile', 'monkey']) expect(isSecretField(name), name).toBe(false);
  });
});
