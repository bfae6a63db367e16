/** A reply of hostapd's control interface to `STATUS` or `GET_CONFIG`: key → value, both verbatim. */
export type HostapdRecord = Record<string, string>;

/** The line hostapd_cli prints before the reply when it picked the interface itself (no `-i`). */
const SELECTED_INTERFACE = /^Selected interface '.*'$/;

/**
 * Parses a `key=value` reply of hostapd's control interface (`STATUS`, `GET_CONFIG`, also through
 * hostapd_cli): each line is split at its first `=`, so values may hold `=` and spaces
 * (`supported_rates=0c 12 18`); keys are kept as they are, indexed per-BSS keys too (`bss[0]`,
 * `ssid[0]`, `num_sta[0]`). Values stay strings exactly as hostapd printed them, SSIDs with their
 * escapes (see `decodeSsid`). hostapd_cli's `Selected interface 'X'` line is not a field, nor is any
 * line without `=` (a `FAIL` reply, text a poster cut with `....`).
 *
 * @example
 * parseHostapdReply("Selected interface 'wlan1'\nstate=ENABLED\nbss[0]=wlan1\nssid[0]=lab\n")
 * // { state: 'ENABLED', 'bss[0]': 'wlan1', 'ssid[0]': 'lab' }
 */
export function parseHostapdReply(text: string): HostapdRecord {
  const record: HostapdRecord = {};
  for (const raw of text.split('\n')) {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    const equals = line.indexOf('=');
    if (equals <= 0 || SELECTED_INTERFACE.test(line)) continue;
    const key = line.slice(0, equals);
    if (key !== '__proto__') record[key] = line.slice(equals + 1);
  }
  return record;
}

/**
 * The answer of a hostapd command that replies with a word (`SET`, `RELOAD`: `OK` or `FAIL`), without
 * hostapd_cli's `Selected interface 'X'` line and surrounding blanks.
 *
 * @example
 * hostapdAnswer("Selected interface 'wlan0'\nOK\n") // 'OK'
 */
export function hostapdAnswer(reply: string): string {
  return reply
    .split('\n')
    .filter((line) => !SELECTED_INTERFACE.test(line.trimEnd()))
    .join('\n')
    .trim();
}

/**
 * The SSID hostapd printed, decoded. hostapd prints an SSID, which may be any 32 bytes, with
 * `printf_encode`: `\\` and `\"` for a backslash and a quote, `\e` `\n` `\r` `\t` for those controls
 * and `\xNN` for every other byte outside 32–126 (so `\xf0\x9f\x8c\x9d` is the UTF-8 of 🌝). This undoes
 * it the way hostapd's `printf_decode` does (also octal `\NNN`; an unknown escape `\q` is `q`), then
 * reads the bytes as UTF-8; a byte sequence that is not UTF-8 shows as U+FFFD.
 *
 * @example
 * decodeSsid('\\xf0\\x9f\\x8c\\x9d') // '🌝'
 * decodeSsid('caf\\xc3\\xa9 \\"lab\\"') // 'café "lab"'
 */
export function decodeSsid(text: string): string {
  if (!text.includes('\\')) return text;
  const bytes: number[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (c !== '\\') {
      const point = text.codePointAt(i)!;
      if (point < 0x80) bytes.push(point);
      else bytes.push(...encoder.encode(String.fromCodePoint(point)));
      i += point > 0xffff ? 2 : 1;
      continue;
    }
    const escaped = text[i + 1];
    i += 2;
    if (escaped === undefined) break;
    if (Object.hasOwn(SIMPLE_ESCAPES, escaped)) {
      bytes.push(SIMPLE_ESCAPES[escaped]!);
    } else if (escaped === 'x') {
      const hex = /^[0-9a-fA-F]{1,2}/.exec(text.slice(i, i + 2))?.[0];
      if (hex !== undefined) {
        bytes.push(parseInt(hex, 16));
        i += hex.length;
      }
    } else if (escaped >= '0' && escaped <= '7') {
      const octal = escaped + (/^[0-7]{1,2}/.exec(text.slice(i, i + 2))?.[0] ?? '');
      bytes.push(parseInt(octal, 8) & 0xff);
      i += octal.length - 1;
    } else {
      i -= 1; // like printf_decode: the backslash goes, the character stays
    }
  }
  return new TextDecoder().decode(Uint8Array.from(bytes));
}

/**
 * An SSID as hostapd prints it (`printf_encode` of its UTF-8 bytes); the inverse of `decodeSsid`.
 * A Device that stands in for hostapd (the emulator, tests) answers `GET_CONFIG` with this.
 *
 * @example
 * encodeSsid('🌝 lab') // '\\xf0\\x9f\\x8c\\x9d lab'
 */
export function encodeSsid(ssid: string): string {
  let out = '';
  for (const byte of encoder.encode(ssid)) {
    const named = NAMED_BYTES[byte];
    if (named !== undefined) out += named;
    else if (byte >= 32 && byte <= 126) out += String.fromCharCode(byte);
    else out += `\\x${byte.toString(16).padStart(2, '0')}`;
  }
  return out;
}

const encoder = new TextEncoder();

/** Escapes of printf_decode that stand for one byte. */
const SIMPLE_ESCAPES: Record<string, number> = { '\\': 0x5c, '"': 0x22, n: 0x0a, r: 0x0d, t: 0x09, e: 0x1b };

/** Bytes printf_encode writes as a named escape. */
const NAMED_BYTES: Record<number, string> = Object.fromEntries(Object.entries(SIMPLE_ESCAPES).map(([letter, byte]) => [byte, `\\${letter}`]));
