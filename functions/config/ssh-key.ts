import { parseKeyLine } from '../parsers/authorized-keys.ts';

/** The key types a POSTed key may have. */
export const ACCEPTED_KEY_TYPES = [
  'ssh-ed25519',
  'ssh-rsa',
  'ecdsa-sha2-nistp256',
  'ecdsa-sha2-nistp384',
  'ecdsa-sha2-nistp521',
  'sk-ssh-ed25519@openssh.com',
  'sk-ecdsa-sha2-nistp256@openssh.com',
] as const;

/** The longest public key line taken, in bytes of UTF-8 (a 16384-bit RSA key is about 2.8 KB). */
export const MAX_KEY_BYTES = 16 * 1024;

/** RSA moduli below this many bits are refused (NIST SP 800-131A; OpenSSH's default). */
export const MIN_RSA_BITS = 2048;

/** The largest RSA modulus OpenSSH reads (`SSHBUF_MAX_BIGNUM`). */
const MAX_RSA_BITS = 16384;

/** A NIST curve as SSH names it, with what a point on it is: `y² = x³ − 3x + b (mod p)`. */
interface Curve {
  /** `nistp256` … */
  id: string;
  /** Bytes of one coordinate. */
  size: number;
  p: bigint;
  b: bigint;
}

const CURVES: Record<string, Curve> = {
  nistp256: {
    id: 'nistp256',
    size: 32,
    p: 0xffffffff00000001000000000000000000000000ffffffffffffffffffffffffn,
    b: 0x5ac635d8aa3a93e7b3ebbd55769886bc651d06b0cc53b0f63bce3c3e27d2604bn,
  },
  nistp384: {
    id: 'nistp384',
    size: 48,
    p: 0xfffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffeffffffff0000000000000000ffffffffn,
    b: 0xb3312fa7e23ee7e4988e056be3f82d19181d9c6efe8141120314088f5013875ac656398d8a2ed19d2a85c8edd3ec2aefn,
  },
  nistp521: {
    id: 'nistp521',
    size: 66,
    p: 2n ** 521n - 1n,
    b: 0x0051953eb9618e1c9a1f929a21a0b68540eea2da725b99b315f3b8b489918ef109e156193951ec7e937b1652c0bd3bb1bf073573df883d2c34f1ef451fd46b503f00n,
  },
};

/** Why a key is refused: its message is what the 422 answer says about `key`. */
class KeyRefused extends Error {}

/**
 * Why a text is not a public key that may be added to `authorized_keys`, or null when it is one.
 *
 * The text is one line `<type> <base64> [comment]` (white space around it is ignored; no options
 * such as `command="…"`), at most 16 KB. The base64 payload is decoded as the SSH wire format
 * (RFC 4253 §6.6) and must be exactly the key its type names, nothing after it:
 * - `ssh-ed25519`: a 32-byte key;
 * - `ssh-rsa`: exponent odd and at least 3, modulus of 2048 to 16384 bits;
 * - `ecdsa-sha2-nistp256/384/521`: the same curve inside, an uncompressed point (`0x04 ‖ X ‖ Y`) on it;
 * - `sk-ssh-ed25519@openssh.com`, `sk-ecdsa-sha2-nistp256@openssh.com`: as the plain key, then the
 *   FIDO application string.
 * `ssh-dss`, certificates and every other type are refused.
 *
 * @example
 * publicKeyProblem('ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIErzfrvK75/Fl4oVaLVr/hQEZpVW34aj+zMgWqsbmHY+ alice@laptop') // null
 * publicKeyProblem('ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAAAgQDi0UGj… old@box') // 'RSA keys need at least 2048 bits; this one has 1024'
 */
export function publicKeyProblem(text: string): string | null {
  try {
    checkPublicKey(text);
    return null;
  } catch (error) {
    if (error instanceof KeyRefused) return error.message;
    throw error;
  }
}

function checkPublicKey(text: string): void {
  const line = text.trim();
  if (line === '') refuse('must not be empty');
  if (new TextEncoder().encode(text).length > MAX_KEY_BYTES) refuse(`must be at most ${MAX_KEY_BYTES} bytes`);
  if (/[\r\n\u2028\u2029]/.test(line)) refuse('must be one line: a single public key');
  if (/[\u0000-\u0008\u000a-\u001f\u007f-\u009f]/.test(line)) refuse('must not contain control characters');
  const key = parseKeyLine(line);
  if (key?.options != null) {
    refuse('must be the public key alone (type, base64 key and an optional comment), without authorized_keys options such as command="…"');
  }
  const [type = '', data] = line.split(/[ \t]+/);
  checkType(type);
  if (data === undefined) refuse(`has no key after its type ${type}: expected "${type} <base64> [comment]"`);
  const payload = base64Bytes(data);
  if (payload === null) refuse('the key after the type is not base64');
  checkPayload(type, new WireReader(payload));
}

function checkType(type: string): asserts type is (typeof ACCEPTED_KEY_TYPES)[number] {
  if ((ACCEPTED_KEY_TYPES as readonly string[]).includes(type)) return;
  if (type === 'ssh-dss') refuse('DSA keys (ssh-dss) are not accepted: they are weak, and OpenSSH no longer takes them; use ssh-ed25519');
  if (type.endsWith('-cert-v01@openssh.com')) refuse(`certificates (${type}) are not accepted; add the plain public key`);
  const shown = type.length > 48 ? `${type.slice(0, 48)}…` : type;
  refuse(`has an unsupported key type ${JSON.stringify(shown)}; accepted: ${ACCEPTED_KEY_TYPES.join(', ')}`);
}

/** Checks the decoded key against its type; every byte must be used. */
function checkPayload(type: (typeof ACCEPTED_KEY_TYPES)[number], reader: WireReader): void {
  const inner = reader.text('key type');
  if (inner !== type) refuse(`the key is of type ${JSON.stringify(inner)}, not ${type} as the line says`);
  switch (type) {
    case 'ssh-ed25519':
    case 'sk-ssh-ed25519@openssh.com':
      checkEd25519(reader.string('Ed25519 key'));
      break;
    case 'ssh-rsa':
      checkRsa(reader.mpint('RSA exponent'), reader.mpint('RSA modulus'));
      break;
    default: {
      const curve = CURVES[type.replace(/^(?:sk-)?ecdsa-sha2-|@openssh\.com$/g, '')]!;
      const named = reader.text('curve name');
      if (named !== curve.id) refuse(`the key is on curve ${JSON.stringify(named)}, not ${curve.id} as ${type} says`);
      checkPoint(curve, reader.string('ECDSA point'));
    }
  }
  if (type.startsWith('sk-')) reader.text('FIDO application');
  if (reader.left > 0) refuse(`the key has ${reader.left} unexpected bytes after its end`);
}

function checkEd25519(key: Uint8Array): void {
  if (key.length !== 32) refuse(`an Ed25519 key is 32 bytes; this one has ${key.length}`);
}

function checkRsa(exponent: Uint8Array, modulus: Uint8Array): void {
  const e = toBigInt(exponent);
  if (e < 3n || e % 2n === 0n) refuse(`the RSA public exponent must be odd and at least 3; this one is ${e}`);
  const bits = bitLength(modulus);
  if (bits < MIN_RSA_BITS) refuse(`RSA keys need at least ${MIN_RSA_BITS} bits; this one has ${bits}`);
  if (bits > MAX_RSA_BITS) refuse(`RSA keys of more than ${MAX_RSA_BITS} bits are not supported; this one has ${bits}`);
}

function checkPoint(curve: Curve, point: Uint8Array): void {
  const length = 1 + 2 * curve.size;
  if (point[0] !== 0x04) refuse(`the ${curve.id} point must be uncompressed (its first byte 0x04)`);
  if (point.length !== length) refuse(`a ${curve.id} point is ${length} bytes (0x04, then X and Y); this one has ${point.length}`);
  const x = toBigInt(point.subarray(1, 1 + curve.size));
  const y = toBigInt(point.subarray(1 + curve.size));
  const { p, b } = curve;
  if (x >= p || y >= p || (y * y - (x * x * x - 3n * x + b)) % p !== 0n) refuse(`the point is not on curve ${curve.id}`);
}

/** Reads the SSH wire format (RFC 4251 §5): `string` and `mpint` fields, each a 32-bit length first. */
class WireReader {
  private at = 0;

  constructor(private readonly bytes: Uint8Array) {}

  get left(): number {
    return this.bytes.length - this.at;
  }

  /** A `string` field's bytes; `what` names it in the message when the key ends before it. */
  string(what: string): Uint8Array {
    if (this.left < 4) refuse(`the key ends before its ${what}`);
    const view = new DataView(this.bytes.buffer, this.bytes.byteOffset + this.at, 4);
    const length = view.getUint32(0);
    if (this.left - 4 < length) refuse(`the key ends inside its ${what}`);
    this.at += 4 + length;
    return this.bytes.subarray(this.at - length, this.at);
  }

  /** A `string` field of text (ASCII, as type, curve and application names are). */
  text(what: string): string {
    return String.fromCharCode(...this.string(what));
  }

  /** An `mpint` field: a positive number, big-endian two's complement. */
  mpint(what: string): Uint8Array {
    const bytes = this.string(what);
    if (bytes.length > 0 && bytes[0]! >= 0x80) refuse(`the ${what} is negative`);
    return bytes;
  }
}

/** Strict base64 (padded, no white space) decoded, or null when it is not. */
function base64Bytes(text: string): Uint8Array | null {
  if (text.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(text)) return null;
  try {
    return Uint8Array.from(atob(text), (char) => char.charCodeAt(0));
  } catch {
    return null;
  }
}

function toBigInt(bytes: Uint8Array): bigint {
  let value = 0n;
  for (const byte of bytes) value = (value << 8n) | BigInt(byte);
  return value;
}

/** Bits of an unsigned big-endian number, leading zeros not counted. */
function bitLength(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length && bytes[i] === 0) i++;
  return i === bytes.length ? 0 : (bytes.length - i - 1) * 8 + (32 - Math.clz32(bytes[i]!));
}

function refuse(message: string): never {
  throw new KeyRefused(message);
}
