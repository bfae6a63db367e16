import type { IdentityValue, MemberIdentity } from './identity-values.ts';

/**
 * Where identity values are in a recorded text, found once per scenario, and the text a fleet's
 * device reads in its place: the recorded text with each value replaced by the device's own.
 */

/** The MACs and container ids of a scenario, each by its slot (`IdentityValue`), and the SSIDs it marks. */
export interface IdentityTables {
  /** Each MAC found, in lower case. */
  macs: ReadonlyMap<string, number>;
  /** Each container id of the engine recordings, long. */
  containers: ReadonlyMap<string, number>;
  /** `identity.ssids` of device.yaml. */
  ssids: ReadonlySet<string>;
}

/** One identity value in a text: its place and what it is. */
export interface Span {
  start: number;
  end: number;
  value: IdentityValue;
}

/** Finds the values of one kind of place in a text (a sysfs attribute, a line of a configuration). */
export type Site = (text: string) => Span[];

/** A text cut where its identity values are: `literals` around `values` (one literal more than values). */
export interface TextTemplate {
  literals: readonly string[];
  values: readonly IdentityValue[];
}

/**
 * The template of a recorded text: the values `site` finds in it (where it is one the scenario says
 * holds them), then the container ids and the MACs of `tables` anywhere in it (also inside a longer
 * run, such as a DHCP client id or DUID); null when it holds none. A value that overlaps one found
 * before it is left out.
 *
 * @example
 * textTemplate('bssid=04:f0:21:34:5a:9e\n', tables)?.literals // ['bssid=', '\n']
 */
export function textTemplate(text: string, tables: IdentityTables, site?: Site): TextTemplate | null {
  const found = [...(site?.(text) ?? []), ...containerSpans(text, tables.containers), ...macSpans(text, tables.macs)];
  if (found.length === 0) return null;
  const kept: Span[] = [];
  for (const span of found) if (kept.every((other) => span.end <= other.start || span.start >= other.end)) kept.push(span);
  kept.sort((a, b) => a.start - b.start);
  const literals: string[] = [];
  let at = 0;
  for (const span of kept) {
    literals.push(text.slice(at, span.start));
    at = span.end;
  }
  literals.push(text.slice(at));
  return { literals, values: kept.map((span) => span.value) };
}

/** The text of a template as one device of a fleet reads it. */
export function filled(template: TextTemplate, identity: MemberIdentity): string {
  let text = template.literals[0]!;
  for (let i = 0; i < template.values.length; i++) text += identity.value(template.values[i]!) + template.literals[i + 1]!;
  return text;
}

/**
 * Runs of two-digit hexadecimal groups joined by colons, six or more (a MAC, a client id, a DUID), not
 * part of a longer run of hexadecimal digits.
 */
const OCTET_RUN = /(?<![0-9A-Fa-f]:?)[0-9A-Fa-f]{2}(?::[0-9A-Fa-f]{2}){5,}(?!:?[0-9A-Fa-f])/g;

/** The characters of one MAC, `aa:bb:cc:dd:ee:ff`. */
const MAC_LENGTH = 17;

/**
 * Each MAC written alone in a text (a run of exactly six groups), in lower case: unicast and not all
 * zeros, so not a broadcast, multicast or placeholder address.
 *
 * @example
 * recordedMacs('Station 6e:8d:3a:5f:21:c4 (on phy1-ap1)\nlo 00:00:00:00:00:00\n'); // ['6e:8d:3a:5f:21:c4']
 */
export function recordedMacs(text: string): string[] {
  const macs: string[] = [];
  for (const [run] of text.matchAll(OCTET_RUN)) {
    if (run.length !== MAC_LENGTH) continue;
    const mac = run.toLowerCase();
    if ((Number.parseInt(mac.slice(0, 2), 16) & 1) === 0 && mac !== '00:00:00:00:00:00') macs.push(mac);
  }
  return macs;
}

/** Each recorded MAC in a text, on the group boundaries of each run. */
function macSpans(text: string, macs: IdentityTables['macs']): Span[] {
  const spans: Span[] = [];
  if (macs.size === 0) return spans;
  for (const match of text.matchAll(OCTET_RUN)) {
    const run = match[0];
    for (let at = 0; at + MAC_LENGTH <= run.length; at += 3) {
      const written = run.slice(at, at + MAC_LENGTH);
      const slot = macs.get(written.toLowerCase());
      if (slot === undefined) continue;
      const start = match.index + at;
      spans.push({ start, end: start + MAC_LENGTH, value: { kind: 'mac', slot, upper: written !== written.toLowerCase() } });
      at += MAC_LENGTH - 2;
    }
  }
  return spans;
}

/** A container id, 64 hexadecimal digits, or its short form of 12, not part of a longer run. */
const CONTAINER_ID = /(?<![0-9a-f])[0-9a-f]{12}(?:[0-9a-f]{52})?(?![0-9a-f])/g;

/** The length of a container's short id. */
const SHORT_ID = 12;

/** Each recorded container id in a text, long or short. */
function containerSpans(text: string, containers: IdentityTables['containers']): Span[] {
  const spans: Span[] = [];
  if (containers.size === 0) return spans;
  for (const match of text.matchAll(CONTAINER_ID)) {
    const short = match[0].length === SHORT_ID;
    const slot = short ? shortSlot(containers, match[0]) : containers.get(match[0]);
    if (slot !== undefined) spans.push({ start: match.index, end: match.index + match[0].length, value: { kind: 'container', slot, short } });
  }
  return spans;
}

/** The slot of the container whose id begins with `short`. */
function shortSlot(containers: IdentityTables['containers'], short: string): number | undefined {
  for (const [id, slot] of containers) if (id.startsWith(short)) return slot;
  return undefined;
}
