/*
 * Broken copies of a good tar, as hostile or unlucky clients send them: cut short at every kind of
 * place, a header's checksum that no longer adds up, a size field that lies (its checksum made to
 * agree), a header damaged after a good first entry, and bytes after the end blocks.
 */

const BLOCK = 512;

/** One broken copy of a tar, and what was done to it. */
export interface BrokenTar {
  what: string;
  bytes: Uint8Array;
}

/**
 * Every broken copy of `good` (a tar as test/support/tar.ts writes it: ustar headers, no empty file),
 * each one a tar that no tool can unpack as it is.
 *
 * @example
 * brokenTars(tarArchive({ 'paradrop.yaml': 'name: hello\n' }))[0] // { what: 'cut short to 0 of 2048 bytes', bytes: Uint8Array(0) }
 */
export function brokenTars(good: Uint8Array): BrokenTar[] {
  const headers = headerOffsets(good);
  const broken: BrokenTar[] = [];

  // Cut short: every 64th byte, both sides of every block boundary, and where each file's data ends.
  const cuts = new Set<number>();
  for (let at = 0; at < good.length; at += 64) cuts.add(at);
  for (let block = BLOCK; block < good.length; block += BLOCK) for (const at of [block - 1, block, block + 1]) cuts.add(at);
  for (const { at, size } of headers) cuts.add(at + BLOCK + size);
  for (const at of [...cuts].filter((cut) => cut < good.length).sort((a, b) => a - b)) {
    broken.push({ what: `cut short to ${at} of ${good.length} bytes`, bytes: good.slice(0, at) });
  }

  headers.forEach(({ at }, index) => {
    const entry = `header ${index + 1} (byte ${at})`;
    // A damaged header: one byte of its name, its checksum, its type flag or its magic changed.
    for (const [field, offset] of [
      ['name', 5],
      ['checksum', 148],
      ['type flag', 156],
      ['magic', 257],
    ] as const) {
      broken.push({ what: `${entry}: its ${field} changed, its checksum no longer adds up`, bytes: changed(good, at + offset) });
    }
    // A size field that lies, its checksum made to agree: not a number, larger than the archive, far too large.
    const rest = good.length - at - BLOCK;
    const sizes: [string, Uint8Array][] = [
      ['not octal', text('zzzzzzzzzzz\0')],
      [`${rest + 1} bytes, past the end of the archive`, text(`${(rest + 1).toString(8).padStart(11, '0')}\0`)],
      ['8 GiB in octal', text('77777777777\0')],
      ['2^88 - 1 in base-256', Uint8Array.from({ length: 12 }, (_, i) => (i === 0 ? 0x80 : 0xff))],
    ];
    for (const [what, field] of sizes) broken.push({ what: `${entry}: a size of ${what}`, bytes: withField(good, at, 124, field) });
    if (index > 0) {
      // After a good first entry: the header replaced by text, by noise, or by zeros (a lone end block before more entries).
      const noise = Uint8Array.from({ length: BLOCK }, (_, i) => (i * 151 + 7) % 256);
      for (const [what, block] of [
        ['text', text('not a header '.repeat(40).slice(0, BLOCK))],
        ['noise', noise],
        ['zeros', new Uint8Array(BLOCK)],
      ] as const) {
        broken.push({ what: `${entry} replaced by ${what}`, bytes: replaced(good, at, block) });
      }
    }
  });

  broken.push({ what: 'text after the end blocks', bytes: appended(good, text('and more\n')) });
  broken.push({ what: 'a whole header after the end blocks', bytes: appended(good, good.subarray(0, BLOCK)) });
  return broken;
}

/** Where each header of a tar is, and its entry's size, up to the end blocks. */
function headerOffsets(tar: Uint8Array): { at: number; size: number }[] {
  const found: { at: number; size: number }[] = [];
  for (let at = 0; at + BLOCK <= tar.length && tar.subarray(at, at + BLOCK).some((byte) => byte !== 0); ) {
    const size = parseInt(new TextDecoder().decode(tar.subarray(at + 124, at + 135)), 8);
    found.push({ at, size });
    at += BLOCK + Math.ceil(size / BLOCK) * BLOCK;
  }
  return found;
}

function text(value: string): Uint8Array {
  return new TextEncoder().encode(value);
}

/** A copy with one byte changed (its lowest bit flipped). */
function changed(tar: Uint8Array, at: number): Uint8Array {
  const copy = tar.slice();
  copy[at]! ^= 1;
  return copy;
}

/** A copy with the block at `at` replaced. */
function replaced(tar: Uint8Array, at: number, block: Uint8Array): Uint8Array {
  const copy = tar.slice();
  copy.set(block, at);
  return copy;
}

/** A copy with a field of the header at `at` set to `value`, and the header's checksum made to agree. */
function withField(tar: Uint8Array, at: number, offset: number, value: Uint8Array): Uint8Array {
  const copy = tar.slice();
  const header = copy.subarray(at, at + BLOCK);
  header.set(value, offset);
  header.fill(0x20, 148, 156);
  const sum = header.reduce((total, byte) => total + byte, 0);
  header.set(text(`${sum.toString(8).padStart(6, '0')}\0 `), 148);
  return copy;
}

/** A copy with `extra` after its end. */
function appended(tar: Uint8Array, extra: Uint8Array): Uint8Array {
  const copy = new Uint8Array(tar.length + extra.length);
  copy.set(tar);
  copy.set(extra, tar.length);
  return copy;
}
