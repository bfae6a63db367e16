/**
 * Randomness from a seed, for the living network and the fault rules. A draw is a pure function of
 * the seed and the parts that name it (a station's index, a request's key, a tick): the same seed and
 * parts give the same number in any process and whatever else was drawn before, so no shared counter
 * makes concurrent requests or a fast-forwarded clock depend on the order of calls.
 */

/** The seed of an emulator that is given none (`chutebox emulate` prints the one it uses). */
export const DEFAULT_SEED = 1;

/** What names one draw: strings and numbers, joined unambiguously. */
export type DrawParts = readonly (string | number)[];

/**
 * A number in [0, 1) made from `seed` and `parts`, with 53 bits of a hash of both (two 32-bit
 * multiply–xorshift lanes over the UTF-16 code units, as cyrb53 mixes them).
 *
 * @example
 * draw(7, 'station', 3, 'session', 12); // 0.41… every time, in every process
 */
export function draw(seed: number, ...parts: DrawParts): number {
  // The code units of the parts joined by NUL, each with its kind's mark (`#` a number, `'` a
  // string), hashed as they come: the living network draws for every station at every read, and
  // making the joined text allocated more than the rest of its work.
  const lanes = [0xdeadbeef ^ seed, 0x41c6ce57 ^ Math.floor(seed / 0x100000000)] as [number, number];
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!;
    if (i > 0) mix(lanes, 0);
    mix(lanes, typeof part === 'number' ? 35 : 39);
    const text = typeof part === 'number' ? String(part) : part;
    for (let j = 0; j < text.length; j++) mix(lanes, text.charCodeAt(j));
  }
  let [h1, h2] = lanes;
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return ((h2 >>> 0) * 0x200000 + ((h1 >>> 0) >>> 11)) / 2 ** 53;
}

/** One code unit into the two lanes of `draw`. */
function mix(lanes: [number, number], code: number): void {
  lanes[0] = Math.imul(lanes[0] ^ code, 2654435761);
  lanes[1] = Math.imul(lanes[1] ^ code, 1597334677);
}

/** A draw from an exponential distribution with this mean, from a uniform `u` in [0, 1). */
export function exponential(mean: number, u: number): number {
  return -mean * Math.log(1 - u);
}

/**
 * A draw from a lognormal distribution with this median and sigma (of the underlying normal), from two
 * uniforms in [0, 1) (Box–Muller).
 */
export function lognormal(median: number, sigma: number, u1: number, u2: number): number {
  return median * Math.exp(sigma * standardNormal(u1, u2));
}

/** A standard normal draw from two uniforms in [0, 1) (Box–Muller). */
export function standardNormal(u1: number, u2: number): number {
  return Math.sqrt(-2 * Math.log(1 - u1)) * Math.cos(2 * Math.PI * u2);
}
