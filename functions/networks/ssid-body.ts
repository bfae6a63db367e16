import * as z from 'zod/mini';
import { CONTROL_RANGE } from '../chutes/control-characters.ts';

/*
 * The body of PUT …/networks/:network/ssid, which its handler validates at run time (`validate`),
 * and the SSID rule it shares with the chute and host configurations: kept apart from
 * chutes/schemas.ts (which re-exports the body), so the handler's bundle holds only this.
 */

/** The longest SSID, in bytes (IEEE 802.11). */
export const SSID_MAX_BYTES = 32;

/** Bytes of text in UTF-8, the unit of the SSID limit. */
function utf8Length(text: string): number {
  return new TextEncoder().encode(text).length;
}

const SSID_TOO_LONG = { error: `must be at most ${SSID_MAX_BYTES} bytes in UTF-8` };

/**
 * An SSID as chutebox takes it: 1 to 32 bytes, UTF-8 text without control characters. The one rule
 * of PUT …/ssid, of a chute configuration's `ssid`, of the emulator's hostapd `SET ssid` and of its state.
 * The 32 bytes imply at most 32 characters, which the OpenAPI document says (`maxLength`); the
 * refinement counts the bytes of a shorter text, which JSON Schema cannot.
 */
export const SsidSchema = z.string({ error: (issue) => (issue.input === undefined ? 'is required' : 'must be a string') }).check(
  z.minLength(1, { error: 'must not be empty' }),
  z.maxLength(SSID_MAX_BYTES, SSID_TOO_LONG),
  z.refine((ssid: string) => ssid.length > SSID_MAX_BYTES || utf8Length(ssid) <= SSID_MAX_BYTES, SSID_TOO_LONG),
  z.regex(new RegExp(`^[^${CONTROL_RANGE}]*$`), { error: 'must not contain control characters' }),
);

/** The body of PUT …/ssid: `ssid` (`SsidSchema`). Other fields, such as a `bssid` sent back from a GET, are ignored. */
export const SsidUpdateSchema = z.object({ ssid: SsidSchema });
export type SsidUpdate = z.infer<typeof SsidUpdateSchema>;
