/**
 * Files of shell variable assignments: `/etc/os-release`, `/usr/lib/os-release`,
 * `/etc/openwrt_release`.
 *
 * One `KEY=value` per line (an `export ` in front is allowed). The value is a shell word: `"double"`
 * quotes (where a backslash escapes `$`, `` ` ``, `"`, `\` and a newline), `'single'` quotes (no
 * escapes), unquoted text (a backslash escapes any character), or pieces of these put together
 * (`'it'\''s'`). An unquoted space ends the value, and what follows on the line is ignored. Lines
 * starting with `#` are comments. Variables are not expanded. When a key repeats, the last one wins.
 *
 * @example
 * parseShellVars(`# comment\nNAME="Debian GNU/Linux"\nDISTRIB_DESCRIPTION='OpenWrt 23.05.3 r23809'\nID=debian\n`)
 * // { NAME: 'Debian GNU/Linux', DISTRIB_DESCRIPTION: 'OpenWrt 23.05.3 r23809', ID: 'debian' }
 */
export function parseShellVars(text: string): Record<string, string> {
  const entries: [string, string][] = [];
  const assignment = /[ \t]*(?:export[ \t]+)?([A-Za-z_][A-Za-z0-9_]*)=/y;
  let i = 0;
  while (i < text.length) {
    assignment.lastIndex = i;
    const match = assignment.exec(text);
    if (match) {
      const word = readWord(text, assignment.lastIndex);
      entries.push([match[1]!, word.value]);
      i = word.end;
    }
    const newline = text.indexOf('\n', i);
    i = newline < 0 ? text.length : newline + 1;
  }
  return Object.fromEntries(entries);
}

/** Characters a backslash escapes inside double quotes; before anything else it stays. */
const DOUBLE_QUOTE_ESCAPES = new Set(['$', '`', '"', '\\', '\n']);

/** Reads one shell word starting at `start`; `end` is where it stopped. */
function readWord(text: string, start: number): { value: string; end: number } {
  let value = '';
  let i = start;
  while (i < text.length) {
    const c = text[i]!;
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r') break;
    if (c === "'") {
      const close = text.indexOf("'", i + 1);
      const stop = close < 0 ? text.length : close;
      value += text.slice(i + 1, stop);
      i = stop + 1;
    } else if (c === '"') {
      i++;
      while (i < text.length && text[i] !== '"') {
        const next = text[i + 1];
        if (text[i] === '\\' && next !== undefined && DOUBLE_QUOTE_ESCAPES.has(next)) {
          if (next !== '\n') value += next;
          i += 2;
        } else {
          value += text[i];
          i++;
        }
      }
      i++;
    } else if (c === '\\') {
      const next = text[i + 1];
      if (next !== undefined && next !== '\n') value += next;
      i += 2;
    } else {
      value += c;
      i++;
    }
  }
  return { value, end: Math.min(i, text.length) };
}
