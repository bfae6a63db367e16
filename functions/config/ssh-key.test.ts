import { describe, expect, it, vi } from 'vitest';
import { keyLine, offCurve, sshKey, wireFields, type KeyName } from '../../test/support/ssh-keys.ts';
import { publicKeyProblem } from './ssh-key.ts';

const ED25519 = sshKey('ed25519');
const [, ED25519_KEY] = wireFields(ED25519) as [Buffer, Buffer];
const [, RSA_E, RSA_N] = wireFields(sshKey('rsa-2048')) as [Buffer, Buffer, Buffer];
const [, , P256_POINT] = wireFields(sshKey('ecdsa-256')) as [Buffer, Buffer, Buffer];
const [, , P384_POINT] = wireFields(sshKey('ecdsa-384')) as [Buffer, Buffer, Buffer];
const [SK_P256_TYPE, , SK_P256_POINT, SK_APPLICATION] = wireFields(sshKey('sk-ecdsa-256')) as [Buffer, Buffer, Buffer, Buffer];

/** The point with its X all one bits: a number no smaller than the curve's prime. */
function xOutOfField(point: Buffer): Buffer {
  return Buffer.concat([point.subarray(0, 1), Buffer.alloc((point.length - 1) / 2, 0xff), point.subarray(1 + (point.length - 1) / 2)]);
}

describe('publicKeyProblem', () => {
  const accepted: KeyName[] = ['ed25519', 'rsa-2048', 'ecdsa-256', 'ecdsa-384', 'ecdsa-521', 'sk-ed25519', 'sk-ecdsa-256'];
  for (const name of accepted) {
    it(`accepts the ${name} key that ssh-keygen made`, async () => {
      expect(await publicKeyProblem(sshKey(name))).toBeNull();
    });
  }

  it('accepts a key without a comment, a comment with spaces, tabs and any script, and white space around the line such as the newline of a .pub file', async () => {
    expect(await publicKeyProblem(ED25519.split(' ').slice(0, 2).join(' '))).toBeNull();
    expect(await publicKeyProblem(`${ED25519.split(' ').slice(0, 2).join(' ')}\tÉlodie's laptop 🔑 (2026)`)).toBeNull();
    expect(await publicKeyProblem(`  ${ED25519}\n`)).toBeNull();
  });

  const refused: [string, string, string][] = [
    ['an RSA key of 1024 bits', sshKey('rsa-1024'), 'RSA keys need at least 2048 bits; this one has 1024'],
    ['a DSA key', sshKey('dsa'), 'DSA keys (ssh-dss) are not accepted: they are weak, and OpenSSH no longer takes them; use ssh-ed25519'],
    [
      'an unknown type',
      `ssh-foo ${ED25519.split(' ')[1]}`,
      'has an unsupported key type "ssh-foo"; accepted: ssh-ed25519, ssh-rsa, ecdsa-sha2-nistp256, ecdsa-sha2-nistp384, ecdsa-sha2-nistp521, sk-ssh-ed25519@openssh.com, sk-ecdsa-sha2-nistp256@openssh.com',
    ],
    [
      'a long word without spaces',
      'x'.repeat(100),
      `has an unsupported key type "${'x'.repeat(48)}…"; accepted: ssh-ed25519, ssh-rsa, ecdsa-sha2-nistp256, ecdsa-sha2-nistp384, ecdsa-sha2-nistp521, sk-ssh-ed25519@openssh.com, sk-ecdsa-sha2-nistp256@openssh.com`,
    ],
    [
      'a certificate',
      `ssh-ed25519-cert-v01@openssh.com ${ED25519.split(' ')[1]}`,
      'certificates (ssh-ed25519-cert-v01@openssh.com) are not accepted; add the plain public key',
    ],
    ['an empty text', ' \n', 'must not be empty'],
    ['two keys on two lines', `${ED25519}\n${sshKey('rsa-2048')}`, 'must be one line: a single public key'],
    ['a control character in the comment', `${ED25519}\u001b[2J`, 'must not contain control characters'],
    ['a C1 control character in the comment', `${ED25519} next\u0085line`, 'must not contain control characters'],
    ['a Unicode line separator in the comment', `${ED25519} two\u2028lines`, 'must be one line: a single public key'],
    [
      'authorized_keys options',
      `command="/bin/sh",no-pty ${ED25519}`,
      'must be the public key alone (type, base64 key and an optional comment), without authorized_keys options such as command="…"',
    ],
    ['a type alone', 'ssh-ed25519', 'has no key after its type ssh-ed25519: expected "ssh-ed25519 <base64> [comment]"'],
    ['a key that is not base64', 'ssh-ed25519 AAAA$$$$ me', 'the key after the type is not base64'],
    ['base64 cut short', `ssh-ed25519 ${ED25519.split(' ')[1]!.slice(0, -1)}`, 'the key after the type is not base64'],
    ['an ed25519 line holding an RSA key', `ssh-ed25519 ${sshKey('rsa-2048').split(' ')[1]}`, 'the key is of type "ssh-rsa", not ssh-ed25519 as the line says'],
    [
      'an sk- line holding a plain ECDSA key',
      `sk-ecdsa-sha2-nistp256@openssh.com ${sshKey('ecdsa-256').split(' ')[1]}`,
      'the key is of type "ecdsa-sha2-nistp256", not sk-ecdsa-sha2-nistp256@openssh.com as the line says',
    ],
    ['an Ed25519 key of 31 bytes', keyLine('ssh-ed25519', ['ssh-ed25519', ED25519_KEY.subarray(1)]), 'an Ed25519 key is 32 bytes; this one has 31'],
    ['an Ed25519 payload that ends after the type', keyLine('ssh-ed25519', ['ssh-ed25519']), 'the key ends before its Ed25519 key'],
    ['bytes after the key', keyLine('ssh-ed25519', ['ssh-ed25519', ED25519_KEY, 'extra']), 'the key has 9 unexpected bytes after its end'],
    [
      'an RSA exponent that is even',
      keyLine('ssh-rsa', ['ssh-rsa', Buffer.from([1, 0, 0]), RSA_N]),
      'the RSA public exponent must be odd and at least 3; this one is 65536',
    ],
    ['an RSA exponent of 1', keyLine('ssh-rsa', ['ssh-rsa', Buffer.from([1]), RSA_N]), 'the RSA public exponent must be odd and at least 3; this one is 1'],
    ['a negative RSA modulus', keyLine('ssh-rsa', ['ssh-rsa', RSA_E, RSA_N.subarray(1)]), 'the RSA modulus is negative'],
    [
      'an RSA key of 16385 bits',
      keyLine('ssh-rsa', ['ssh-rsa', RSA_E, Buffer.concat([Buffer.from([1]), Buffer.alloc(2048, 0xff)])]),
      'RSA keys of more than 16384 bits are not supported; this one has 16385',
    ],
    [
      'an RSA key of 2047 bits',
      keyLine('ssh-rsa', ['ssh-rsa', RSA_E, Buffer.concat([Buffer.from([0x7f]), RSA_N.subarray(2)])]),
      'RSA keys need at least 2048 bits; this one has 2047',
    ],
    ['an RSA key whose modulus is empty (zero)', keyLine('ssh-rsa', ['ssh-rsa', RSA_E, Buffer.alloc(0)]), 'RSA keys need at least 2048 bits; this one has 0'],
    ['an RSA key without its modulus', keyLine('ssh-rsa', ['ssh-rsa', RSA_E]), 'the key ends before its RSA modulus'],
    [
      'a P-256 line holding a P-384 curve',
      keyLine('ecdsa-sha2-nistp256', ['ecdsa-sha2-nistp256', 'nistp384', P384_POINT]),
      'the key is on curve "nistp384", not nistp256 as ecdsa-sha2-nistp256 says',
    ],
    [
      'a compressed point',
      keyLine('ecdsa-sha2-nistp256', [
        'ecdsa-sha2-nistp256',
        'nistp256',
        Buffer.concat([Buffer.from([2 + (P256_POINT[64]! & 1)]), P256_POINT.subarray(1, 33)]),
      ]),
      'the nistp256 point must be uncompressed (its first byte 0x04)',
    ],
    [
      'a P-384 point on a P-256 key',
      keyLine('ecdsa-sha2-nistp256', ['ecdsa-sha2-nistp256', 'nistp256', P384_POINT]),
      'a nistp256 point is 65 bytes (0x04, then X and Y); this one has 97',
    ],
    ['a point off the curve', keyLine('ecdsa-sha2-nistp256', ['ecdsa-sha2-nistp256', 'nistp256', offCurve(P256_POINT)]), 'the point is not on curve nistp256'],
    [
      'a security key whose P-256 point is off the curve',
      keyLine('sk-ecdsa-sha2-nistp256@openssh.com', [SK_P256_TYPE, 'nistp256', offCurve(SK_P256_POINT), SK_APPLICATION]),
      'the point is not on curve nistp256',
    ],
    [
      'an sk- key without its application',
      keyLine('sk-ssh-ed25519@openssh.com', ['sk-ssh-ed25519@openssh.com', ED25519_KEY]),
      'the key ends before its FIDO application',
    ],
    ['a line over 16 KB', `ssh-ed25519 ${'A'.repeat(16 * 1024)}`, 'must be at most 16384 bytes'],
  ];
  for (const [what, line, message] of refused) {
    it(`refuses ${what}: "${message}"`, async () => {
      expect(await publicKeyProblem(line)).toBe(message);
    });
  }

  const curves: [KeyName, string][] = [
    ['ecdsa-256', 'nistp256'],
    ['ecdsa-384', 'nistp384'],
    ['ecdsa-521', 'nistp521'],
  ];
  for (const [name, curve] of curves) {
    const type = `ecdsa-sha2-${curve}`;
    const [, , point] = wireFields(sshKey(name)) as [Buffer, Buffer, Buffer];
    it(`refuses a ${curve} point off the curve, and one whose X is not below the curve's prime: "the point is not on curve ${curve}"`, async () => {
      expect(await publicKeyProblem(keyLine(type, [type, curve, offCurve(point)]))).toBe(`the point is not on curve ${curve}`);
      expect(await publicKeyProblem(keyLine(type, [type, curve, xOutOfField(point)]))).toBe(`the point is not on curve ${curve}`);
    });
  }

  it('refuses a length that runs past the end of the key', async () => {
    const payload = Buffer.from(ED25519.split(' ')[1]!, 'base64');
    payload.writeUInt32BE(33, 4 + 'ssh-ed25519'.length);
    expect(await publicKeyProblem(`ssh-ed25519 ${payload.toString('base64')}`)).toBe('the key ends inside its Ed25519 key');
  });

  it('refuses a key Web Crypto will not import, as Chromium refuses an RSA key its library does not take (OperationError)', async () => {
    const importKey = vi.spyOn(globalThis.crypto.subtle, 'importKey').mockRejectedValue(new DOMException('', 'OperationError'));
    try {
      expect(await publicKeyProblem(sshKey('rsa-2048'))).toBe('the RSA key is not valid');
      expect(await publicKeyProblem(ED25519)).toBe('the Ed25519 key is not valid');
    } finally {
      importKey.mockRestore();
    }
  });

  it('gives no verdict on a key when Web Crypto cannot check its type at all, rather than calling it bad', async () => {
    const unsupported = new DOMException('Unrecognized algorithm name', 'NotSupportedError');
    const importKey = vi.spyOn(globalThis.crypto.subtle, 'importKey').mockRejectedValue(unsupported);
    try {
      await expect(publicKeyProblem(ED25519)).rejects.toBe(unsupported);
    } finally {
      importKey.mockRestore();
    }
    expect(await publicKeyProblem(ED25519)).toBeNull();
  });
});
