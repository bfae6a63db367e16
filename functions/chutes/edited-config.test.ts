import { describe, expect, it } from 'vitest';
import { invalidInput } from '../core/validate.ts';
import { checkEditedConfig } from './edited-config.ts';

/** A check that takes a `key` of at least 8 characters and an `ssid`, as a configuration check throws. */
function checkWifi(config: Record<string, unknown>): void {
  const violations = [];
  if (typeof config.key !== 'string' || config.key.length < 8) violations.push({ path: 'key', message: 'must be 8 to 63 characters' });
  if (config.ssid === undefined) violations.push({ path: 'ssid', message: 'is required' });
  if (violations.length > 0) throw invalidInput('the Wi-Fi check', violations);
}

describe('checkEditedConfig', () => {
  it('checks the configuration with the stored secret in place of its placeholder, and leaves the edited one as it is', () => {
    const edited = { ssid: 'renamed', key: '[redacted]' };
    let checked: unknown;
    checkEditedConfig(edited, { ssid: 'lab', key: 'hunter22' }, (restored) => (checked = restored), 'the Wi-Fi settings', 'body');
    expect(checked).toEqual({ ssid: 'renamed', key: 'hunter22' });
    expect(edited.key).toBe('[redacted]');
    expect(() => checkEditedConfig(edited, { key: 'hunter22' }, checkWifi, 'the Wi-Fi settings', 'body')).not.toThrow();
  });

  it("throws one 422 naming the subject and listing the check's violations, then each placeholder with no stored secret, each where the configuration is in the request", () => {
    expect(() => checkEditedConfig({ key: 'short', psk: '[redacted]' }, {}, checkWifi, 'the Wi-Fi settings', 'body.config')).toThrow(
      expect.objectContaining({
        status: 422,
        message: 'the Wi-Fi settings is not valid: body.config.key must be 8 to 63 characters (and 2 more)',
        errors: [
          { path: 'body.config.key', message: 'must be 8 to 63 characters' },
          { path: 'body.config.ssid', message: 'is required' },
          {
            path: 'body.config.psk',
            message: expect.stringMatching(/^is \[redacted\], the placeholder of a secret, but the stored configuration has no secret here/),
          },
        ],
      }),
    );
  });

  it('throws a placeholder with nothing behind it even when the check passes', () => {
    expect(() => checkEditedConfig({ ssid: 'lab', key: 'hunter22', psk: '[redacted]' }, { ssid: 'lab' }, checkWifi, 'the Wi-Fi settings', 'body')).toThrow(
      expect.objectContaining({ status: 422, errors: [expect.objectContaining({ path: 'body.psk' })] }),
    );
  });

  it('throws an error of the check that is no 422 as it is', () => {
    const broken = new TypeError('bug');
    expect(() =>
      checkEditedConfig(
        {},
        {},
        () => {
          throw broken;
        },
        'the Wi-Fi settings',
        'body',
      ),
    ).toThrow(broken);
  });
});
