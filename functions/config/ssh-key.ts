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

/**
 * The longest public key line taken, in bytes of UTF-8: the largest RSA key taken, in base64, with
 * room for a long comment.
 */
export const MAX_KEY_BYTES = 16 * 1024;

/** RSA moduli below this many bits are refused (NIST SP 800-131A; OpenSSH's default). */
export const MIN_RSA_BITS = 2048;

/** The largest RSA modulus OpenSSH reads (`SSHBUF_MAX_BIGNUM`). */
const MAX_RSA_BITS = 16384;

/** The NIST curves as SSH names them: Web Crypto's name, and the bytes of one coordinate. */
const CURVES = {
  nistp256: { namedCurve: 'P-256', size: 32 },
  nistp384: { namedCurve: 'P-384', size: 48 },
  nistp521: { namedCurve: 'P-521', size: 66 },
} as const;

type CurveId = keyof typeof CURVES;

/** A public key as its payload holds it, which Web Crypto then checks (`checkKey`). */
type WireKey =
  | { kind: 'Ed25519'; key: Uint8Array }
  | { kind: 'RSA'; exponent: Uint8Array; modulus: Uint8Array }
  | { kind: 'ECDSA'; curve: CurveId; point: Uint8Array };

/** What Web Crypto tells of an imported RSA key (`RsaKeyAlgorithm`). */
interface RsaKeyAlgorithm {
  name: string;
  modulusLength: number;
  publicExponent: Uint8Array;
}

/** The algorithm an `ssh-rsa` key is imported for: `rsa-sha2-256` signatures. */
const RSA_IMPORT = { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' };

/** The errors of `importKey` that mean the key data is not a valid key (Chromium throws the second for an RSA key it will not take). */
const INVALID_KEY_ERRORS = ['DataError', 'OperationError'];

/** Why a key is refused: its message is what the 422 answer says about `key`. */
class KeyRefused extends Error {}

/**
 * Why a text is not a public key that may be added to `authorized_keys`, or null when it is one.
 *
 * The text is one line `<type> <base64> [comment]` (white space around it is ignored; no options
 * such as `command="…"`), at most `MAX_KEY_BYTES`. The base64 payload is decoded as the SSH wire
 * format (RFC 4253 §6.6) and must be exactly the key its type names, nothing after it:
 * - `ssh-ed25519`: a 32-byte key;
 * - `ssh-rsa`: exponent odd and at least 3, modulus of 2048 to 16384 bits;
 * - `ecdsa-sha2-nistp256/384/521`: the same curve inside, an uncompressed point (`0x04 ‖ X ‖ Y`) on it;
 * - `sk-ssh-ed25519@openssh.com`, `sk-ecdsa-sha2-nistp256@openssh.com`: as the plain key, then the
 *   FIDO application string.
 * `ssh-dss`, certificates and every other type are refused. Web Crypto (`crypto.subtle.importKey`)
 * then imports the key: it checks that an ECDSA point is on its curve, and reads an RSA key's size and
 * exponent for the policy above (docs/decisions/0042-ssh-keys-checked-by-web-crypto.md).
 *
 * @throws what Web Crypto throws when it cannot check a key of this type at all (not a `DataError`).
 * @example
 * await publicKeyProblem('ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIErzfrvK75/Fl4oVaLVr/hQEZpVW34aj+zMgWqsbmHY+ alice@laptop') // null
 * await publicKeyProblem('ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAAAgQDi0UGj… old@box') // 'RSA keys need at least 2048 bits; this one has 1024'
 */
export async function publicKeyProblem(text: string): Promise<string | null> {
  try {
    await checkKey(readPublicKey(text));
    return null;
  } catch (error) {
    if (error instanceof KeyRefused) return error.message;
    throw error;
  }
}

/** The key of a public key line, its form checked: everything but the key's own validity. */
function readPublicKey(text: string): WireKey {
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
  return readPayload(type, new WireReader(payload));
}

function checkType(type: string): asserts type is (typeof ACCEPTED_KEY_TYPES)[number] {
  if ((ACCEPTED_KEY_TYPES as readonly string[]).includes(type)) return;
  if (type === 'ssh-dss') refuse('DSA keys (ssh-dss) are not accepted: they are weak, and OpenSSH no longer takes them; use ssh-ed25519');
  if (type.endsWith('-cert-v01@openssh.com')) refuse(`certificates (${type}) are not accepted; add the plain public key`);
  const shown = type.length > 48 ? `${type.slice(0, 48)}…` : type;
  refuse(`has an unsupported key type ${JSON.stringify(shown)}; accepted: ${ACCEPTED_KEY_TYPES.join(', ')}`);
}

/** Reads the decoded payload as the key its type names; every byte must be used. */
function readPayload(type: (typeof ACCEPTED_KEY_TYPES)[number], reader: WireReader): WireKey {
  const inner = reader.text('key type');
  if (inner !== type) refuse(`the key is of type ${JSON.stringify(inner)}, not ${type} as the line says`);
  const key = readKey(type, reader);
  if (type.startsWith('sk-')) reader.text('FIDO application');
  if (reader.left > 0) refuse(`the key has ${reader.left} unexpected bytes after its end`);
  return key;
}

function readKey(type: (typeof ACCEPTED_KEY_TYPES)[number], reader: WireReader): WireKey {
  switch (type) {
    case 'ssh-ed25519':
    case 'sk-ssh-ed25519@openssh.com': {
      const key = reader.string('Ed25519 key');
      if (key.length !== 32) refuse(`an Ed25519 key is 32 bytes; this one has ${key.length}`);
      return { kind: 'Ed25519', key };
    }
    case 'ssh-rsa':
      return { kind: 'RSA', exponent: reader.mpint('RSA exponent'), modulus: reader.mpint('RSA modulus') };
    default: {
      const curve = type.replace(/^(?:sk-)?ecdsa-sha2-|@openssh\.com$/g, '') as CurveId;
      const named = reader.text('curve name');
      if (named !== curve) refuse(`the key is on curve ${JSON.stringify(named)}, not ${curve} as ${type} says`);
      return { kind: 'ECDSA', curve, point: readPoint(curve, reader.string('ECDSA point')) };
    }
  }
}

/** An ECDSA point as SSH writes it (uncompressed, as OpenSSH reads only that), its form checked. */
function readPoint(curve: CurveId, point: Uint8Array): Uint8Array {
  const length = 1 + 2 * CURVES[curve].size;
  if (point[0] !== 0x04) refuse(`the ${curve} point must be uncompressed (its first byte 0x04)`);
  if (point.length !== length) refuse(`a ${curve} point is ${length} bytes (0x04, then X and Y); this one has ${point.length}`);
  return point;
}

/** Has Web Crypto import the key, which checks it (an ECDSA point on its curve), then applies the RSA policy. */
async function checkKey(key: WireKey): Promise<void> {
  const { subtle } = globalThis.crypto;
  switch (key.kind) {
    case 'Ed25519':
      await imported(subtle.importKey('raw', key.key, { name: 'Ed25519' }, false, ['verify']), 'the Ed25519 key is not valid');
      return;
    case 'ECDSA': {
      const algorithm = { name: 'ECDSA', namedCurve: CURVES[key.curve].namedCurve };
      await imported(subtle.importKey('raw', key.point, algorithm, false, ['verify']), `the point is not on curve ${key.curve}`);
      return;
    }
    case 'RSA': {
      const jwk = { kty: 'RSA', n: jwkNumber(key.modulus), e: jwkNumber(key.exponent) };
      const rsa = await imported(subtle.importKey('jwk', jwk, RSA_IMPORT, false, ['verify']), 'the RSA key is not valid');
      checkRsa(rsa.algorithm as RsaKeyAlgorithm);
    }
  }
}

/**
 * The key Web Crypto imports, or a refusal saying `message` when it finds the key invalid
 * (`INVALID_KEY_ERRORS`). Any other error (`NotSupportedError`: it cannot check this type at all) is
 * thrown as it is.
 */
async function imported<K>(importing: Promise<K>, message: string): Promise<K> {
  try {
    return await importing;
  } catch (error) {
    if (error instanceof Error && INVALID_KEY_ERRORS.includes(error.name)) refuse(message);
    throw error;
  }
}

/** chutebox's RSA policy (decision 0010), on the exponent and modulus size Web Crypto read. */
function checkRsa({ modulusLength, publicExponent }: RsaKeyAlgorithm): void {
  const e = toBigInt(publicExponent);
  if (e < 3n || e % 2n === 0n) refuse(`the RSA public exponent must be odd and at least 3; this one is ${e}`);
  if (modulusLength < MIN_RSA_BITS) refuse(`RSA keys need at least ${MIN_RSA_BITS} bits; this one has ${modulusLength}`);
  if (modulusLength > MAX_RSA_BITS) refuse(`RSA keys of more than ${MAX_RSA_BITS} bits are not supported; this one has ${modulusLength}`);
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

/** An unsigned big-endian number as a `bigint` (the RSA exponent, to name it). */
function toBigInt(bytes: Uint8Array): bigint {
  let value = 0n;
  for (const byte of bytes) value = (value << 8n) | BigInt(byte);
  return value;
}

/** An unsigned big-endian number as JWK writes one (RFC 7518 §2, Base64urlUInt): its fewest bytes, in base64url. */
function jwkNumber(bytes: Uint8Array): string {
  const first = bytes.findIndex((byte) => byte !== 0);
  const digits = first === -1 ? [] : bytes.subarray(first);
  return btoa(String.fromCharCode(...digits))
    .replace(/=+$/, '')
    .replace(/\+/g, '-')
    .replace(/\//g, '_');
}

function refuse(message: string): never {
  throw new KeyRefused(message);
}
