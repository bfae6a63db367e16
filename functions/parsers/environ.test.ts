import { describe, expect, it } from 'vitest';
import { parseEnviron } from './environ.ts';

describe('/proc/self/environ', () => {
  it('splits NUL-separated entries at the first equals sign', () => {
    expect(parseEnviron('HOME=/root\0OPTS=a=b\0EMPTY=\0')).toEqual([
      ['HOME', '/root'],
      ['OPTS', 'a=b'],
      ['EMPTY', ''],
    ]);
  });

  it('keeps newlines inside values when entries are NUL-separated', () => {
    expect(parseEnviron('MOTD=line one\nline two\0')).toEqual([['MOTD', 'line one\nline two']]);
  });

  it('reads one entry per line from a file without NUL', () => {
    expect(parseEnviron('LANG=C.UTF-8\r\nTZ=UTC\n')).toEqual([
      ['LANG', 'C.UTF-8'],
      ['TZ', 'UTC'],
    ]);
  });

  it('skips entries without a name and keeps the first of a repeated name', () => {
    expect(parseEnviron('=x\0junk\0A=1\0A=2\0')).toEqual([['A', '1']]);
  });
});
