/**
 * A JSON text as a plain value (`parseJson`), its errors placed at a line and column, which V8's
 * messages do not always say.
 */
import { malformed } from './malformed.ts';

/**
 * A JSON text as a plain value.
 *
 * @throws HttpProblem 400 naming the line and column of the error.
 */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    const message = (error as Error).message;
    const reason = message.replace(/ in JSON at position \d+.*$/s, '').replace(/^(Unexpected token '.*?'),.*$/s, '$1');
    throw malformed('JSON', reason, linePos(text, jsonErrorOffset(text, message)));
  }
}

/**
 * Where JSON.parse failed, as an offset into `text`. V8 says "at position N" for most errors, nothing
 * for an unexpected token and for a text that ends too early. For an unexpected token, the offset is
 * found as the end of the shortest prefix that fails before its end: a prefix of well-formed JSON only
 * ever fails at its end ("Unexpected end of JSON input", or a position equal to its length).
 */
function jsonErrorOffset(text: string, message: string): number {
  const at = /at position (\d+)/.exec(message);
  if (at) return Math.min(Number(at[1]), text.length);
  if (!message.startsWith('Unexpected token')) return text.length;
  let good = 0; // a prefix length known not to fail before its end
  let bad = text.length; // a prefix length known to fail before its end
  while (bad - good > 1) {
    const middle = Math.floor((good + bad) / 2);
    if (failsInside(text.slice(0, middle))) bad = middle;
    else good = middle;
  }
  return bad - 1;
}

function failsInside(prefix: string): boolean {
  try {
    JSON.parse(prefix);
    return false;
  } catch (error) {
    const message = (error as Error).message;
    const at = /at position (\d+)/.exec(message);
    if (at) return Number(at[1]) < prefix.length;
    return message.startsWith('Unexpected token');
  }
}

/** 1-based line and column of an offset. */
function linePos(text: string, offset: number): { line: number; col: number } {
  const before = text.slice(0, offset);
  const lineStart = before.lastIndexOf('\n') + 1;
  return { line: before.split('\n').length, col: offset - lineStart + 1 };
}
