import { describe, expect, it } from 'vitest';
import { hashPassword, verifyPassword } from './passwords.ts';

describe('hashPassword', () => {
  it('answers an scrypt$N$r$p$salt$hash string that does not contain the password', async () => {
    const hash = await hashPassword('correct horse');
    expect(hash).toMatch(/^scrypt\$16384\$8\$1\$[A-Za-z0-9+/]+=*\$[A-Za-z0-9+/]+=*$/);
    expect(hash).not.toContain('correct horse');
  });

  it('salts every hash, so the same password hashes differently twice', async () => {
    expect(await hashPassword('same')).not.toBe(await hashPassword('same'));
  });
});

describe('verifyPassword', () => {
  it('accepts the password that was hashed and refuses any other', async () => {
    const hash = await hashPassword('correct horse');
    expect(await verifyPassword(hash, 'correct horse')).toBe(true);
    expect(await verifyPassword(hash, 'correct horse ')).toBe(false);
    expect(await verifyPassword(hash, '')).toBe(false);
  });

  it('accepts an empty password when that is what was hashed', async () => {
    expect(await verifyPassword(await hashPassword(''), '')).toBe(true);
  });

  it.each(['', 'plain', 'scrypt$16384$8$1$$', 'scrypt$3$8$1$c2FsdA==$aGFzaA==', 'scrypt$2147483648$8$1$c2FsdA==$aGFzaA==', 'bcrypt$1$2$3$4$5'])(
    'never matches the malformed hash %j',
    async (stored) => {
      expect(await verifyPassword(stored, 'plain')).toBe(false);
    },
  );
});
