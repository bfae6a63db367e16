import { describe, expect, it } from 'vitest';
import { isSecretField, redactDocument, resolvePlaceholders, restoreRedacted } from './secret-placeholders.ts';

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

describe('restoreRedacted', () => {
  const stored = { env: ['API_TOKEN=abc', 'TZ=UTC'], net: { wlan: { key: 'hunter22', ssid: 'old' } }, credentials: { user: 'u', pass: 'p' } };

  it('puts the stored value back wherever a GET wrote a placeholder, and keeps everything else as edited', () => {
    const edited = redactDocument(stored);
    edited.net.wlan.ssid = 'new';
    expect(restoreRedacted(edited, stored)).toEqual({ document: { ...stored, net: { wlan: { key: 'hunter22', ssid: 'new' } } }, errors: [] });
  });

  it('reports a placeholder with nothing stored behind it, by path, and leaves a [redacted] that is no placeholder alone', () => {
    const { errors, document } = restoreRedacted({ env: ['TZ=UTC', 'NEW_TOKEN=[redacted]'], net: { mesh: { key: '[redacted]' } }, ssid: '[redacted]' }, stored);
    expect(errors.map((error) => error.path)).toEqual(['env[1]', 'net.mesh.key']);
    expect(document.ssid).toBe('[redacted]');
  });
});

describe('resolvePlaceholders', () => {
  it('answers the document with each placeholder holding the secret in effect', () => {
    const queued = { net: { wlan: { ssid: 'renamed', key: '[redacted]' } }, env: ['API_TOKEN=[redacted]'] };
    const inEffect = { net: { wlan: { ssid: 'lab', key: 'set-since-the-put' } }, env: ['API_TOKEN=new'] };
    expect(resolvePlaceholders(queued, inEffect, 'the configuration of chute hello')).toEqual({
      net: { wlan: { ssid: 'renamed', key: 'set-since-the-put' } },
      env: ['API_TOKEN=new'],
    });
    expect(queued.net.wlan.key).toBe('[redacted]');
  });

  it('throws naming the subject and the path of every placeholder without a secret behind it, and no value', () => {
    const queued = { net: { wlan: { key: '[redacted]' }, lan: { key: '[redacted]' } } };
    // An Error given to toThrow must match the whole message.
    expect(() => resolvePlaceholders(queued, { net: { lan: { key: 'hunter22' } } }, 'the host configuration')).toThrow(
      new Error(
        'net.wlan.key is [redacted], the placeholder of a secret, but the host configuration in effect now has no secret there to keep (a change since the PUT removed it): nothing was applied',
      ),
    );
    expect(() => resolvePlaceholders(queued, {}, 'the host configuration')).toThrow(
      /^net\.wlan\.key, net\.lan\.key are \[redacted\], placeholders of secrets, but /,
    );
  });
});
