import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { fencedBlocks } from './markdown.ts';

describe('the fenced blocks of a section of a Markdown page', () => {
  const page = [
    '# Page',
    '## Start',
    '```sh',
    '# a comment, no heading',
    'run one',
    '```',
    '### More',
    '```js',
    'one();',
    '```',
    '```sh',
    'run two',
    '```',
    '## Stop',
    '```sh',
    'stop',
    '```',
  ].join('\n');

  it('answers the blocks of its language under the heading and its sub-headings, to the next heading of its level', () => {
    expect(fencedBlocks(page, 'Start', 'sh')).toEqual(['# a comment, no heading\nrun one\n', 'run two\n']);
    expect(fencedBlocks(page, 'More', 'js')).toEqual(['one();\n']);
    expect(fencedBlocks(page, 'Stop', 'sh')).toEqual(['stop\n']);
    expect(fencedBlocks(page, 'Missing', 'sh')).toEqual([]);
  });

  it("answers docs/lab.md's blocks of each section as the page splits them at its `## ` headings", async () => {
    const lab = await readFile(new URL('../../docs/lab.md', import.meta.url), 'utf8');
    for (const section of lab.split(/^## /m).slice(1)) {
      const heading = section.slice(0, section.indexOf('\n'));
      const split = [...section.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((match) => match[1]);
      expect(fencedBlocks(lab, heading, 'sh'), heading).toEqual(split);
    }
  });
});
