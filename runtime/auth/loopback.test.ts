import { describe, expect, it } from 'vitest';
import { isLoopback } from './loopback.ts';

describe('isLoopback', () => {
  it.each(['127.0.0.1', '127.255.3.9', '::1', '::ffff:127.0.0.1', '::ffff:127.1.2.3'])('counts %s as this machine', (address) => {
    expect(isLoopback(address)).toBe(true);
  });

  it.each(['192.168.1.20', '10.0.0.1', '128.0.0.1', '::ffff:192.168.1.20', 'fe80::1', '::', '0.0.0.0', 'not an address', '', undefined])(
    'counts %s as another client',
    (address) => {
      expect(isLoopback(address)).toBe(false);
    },
  );
});
