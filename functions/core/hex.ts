/**
 * Bytes as lower-case hex digits, two a byte, in any JavaScript runtime (no Buffer).
 *
 * @example
 * hexBytes(new TextEncoder().encode('lab')) // '6c6162'
 */
export function hexBytes(bytes: Uint8Array): string {
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
}
