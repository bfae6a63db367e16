/**
 * Proactive content negotiation (RFC 9110 §12.5.1): which of the media types a handler can answer
 * the client's `Accept` header prefers.
 *
 * Each offered type gets the weight (`q`) of the most specific range that matches it (`text/yaml`
 * before `text/*` before `*\/*`); the highest weight wins; on a tie, the type matched by the more
 * specific range, then by the range written first, then the type offered first. Without an `Accept`
 * header, with one that cannot be read, or when nothing offered is acceptable, the answer is the first
 * offered type: RFC 9110 lets a server disregard the header rather than answer 406.
 *
 * @param offered the media types the handler can produce, lower case, the default first.
 * @example
 * preferredMediaType('application/yaml', ['application/json', 'application/yaml'])                  // 'application/yaml'
 * preferredMediaType('application/yaml;q=0.5, application/json', ['application/json', 'application/yaml']) // 'application/json'
 * preferredMediaType('text/*', ['application/json', 'text/yaml'])                                    // 'text/yaml'
 * preferredMediaType(undefined, ['application/json', 'application/yaml'])                            // 'application/json'
 */
export function preferredMediaType<T extends string>(accept: string | undefined, offered: readonly [T, ...T[]]): T {
  const ranges = parseAccept(accept ?? '');
  let best: { type: T; q: number; specificity: number; position: number } | null = null;
  for (const type of offered) {
    const match = bestRange(ranges, type);
    if (match === null || match.q <= 0) continue;
    const candidate = { type, q: match.q, specificity: match.specificity, position: match.position };
    if (best === null || better(candidate, best)) best = candidate;
  }
  return best?.type ?? offered[0];
}

/** One media range of an `Accept` header: `type/subtype`, either part possibly `*`. */
interface MediaRange {
  type: string;
  subtype: string;
  q: number;
  position: number;
}

/** The media ranges of an `Accept` header, in order; a range that cannot be read is skipped. */
function parseAccept(header: string): MediaRange[] {
  const ranges: MediaRange[] = [];
  header.split(',').forEach((part, position) => {
    const [range = '', ...params] = part.split(';').map((piece) => piece.trim());
    const [type, subtype, extra] = range.toLowerCase().split('/');
    if (!type || !subtype || extra !== undefined || (type === '*' && subtype !== '*')) return;
    let q = 1;
    for (const param of params) {
      const [name, value] = param.split('=').map((piece) => piece.trim());
      if (name?.toLowerCase() === 'q') q = qValue(value);
    }
    ranges.push({ type, subtype, q, position });
  });
  return ranges;
}

/** A weight from 0 to 1 with up to three decimals; anything else counts as 0 (not acceptable). */
function qValue(text: string | undefined): number {
  if (text === undefined || !/^(?:0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/.test(text)) return 0;
  return Number(text);
}

/** The most specific range matching `mediaType`, with its weight; null when none does. */
function bestRange(ranges: readonly MediaRange[], mediaType: string): { q: number; specificity: number; position: number } | null {
  const [type, subtype] = mediaType.split('/');
  let best: { q: number; specificity: number; position: number } | null = null;
  for (const range of ranges) {
    const specificity = range.type === type && range.subtype === subtype ? 2 : range.type === type && range.subtype === '*' ? 1 : range.type === '*' ? 0 : -1;
    if (specificity < 0) continue;
    if (best === null || specificity > best.specificity) best = { q: range.q, specificity, position: range.position };
  }
  return best;
}

function better(a: { q: number; specificity: number; position: number }, b: { q: number; specificity: number; position: number }): boolean {
  if (a.q !== b.q) return a.q > b.q;
  if (a.specificity !== b.specificity) return a.specificity > b.specificity;
  return a.position < b.position;
}
