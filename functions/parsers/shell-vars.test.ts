import { describe, expect, it } from 'vitest';
import { parseShellVars } from './shell-vars.ts';

describe('os-release and openwrt_release', () => {
  it('reads double-quoted, single-quoted and bare values and skips comments', () => {
    const text = '# os-release for Debian\nPRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\n\nVERSION_CODENAME=bookworm\nDISTRIB_ID=\'OpenWrt\'\n';
    expect(parseShellVars(text)).toEqual({ PRETTY_NAME: 'Debian GNU/Linux 12 (bookworm)', VERSION_CODENAME: 'bookworm', DISTRIB_ID: 'OpenWrt' });
  });

  it('applies backslash escapes in double quotes and none in single quotes', () => {
    const text = 'A="say \\"hi\\" for \\$5 \\n"\nB=\'C:\\path\'\nC=two\\ words\n';
    expect(parseShellVars(text)).toEqual({ A: 'say "hi" for $5 \\n', B: 'C:\\path', C: 'two words' });
  });

  it('joins quoted pieces as the shell does', () => {
    expect(parseShellVars("DISTRIB_DESCRIPTION='Bob'\\''s build'\n").DISTRIB_DESCRIPTION).toBe("Bob's build");
  });

  it('ignores text after an unquoted space, an export in front, CRLF line ends and lines that are not assignments', () => {
    const text = 'export NAME="OpenWrt" # the name\r\nnot an assignment\r\nID=openwrt\r\n=x\n';
    expect(parseShellVars(text)).toEqual({ NAME: 'OpenWrt', ID: 'openwrt' });
  });

  it('keeps the last of a repeated key and reads an empty value', () => {
    expect(parseShellVars("DISTRIB_TAINTS=''\nID=a\nID=b\n")).toEqual({ DISTRIB_TAINTS: '', ID: 'b' });
  });
});
