/**
 * The fenced code blocks of `language` (```sh, ```js) under the heading `heading` of a Markdown text,
 * in order, each block's lines with a final newline. The section runs from that heading (of any
 * level) to the next heading of its level or above; lines inside code blocks are never headings (a
 * shell comment is no heading). For tests that run a page's examples as written.
 *
 * @example
 * fencedBlocks(await readFile('docs/lab.md', 'utf8'), 'Clean up', 'sh') // ['kill …\n']
 */
export function fencedBlocks(markdown: string, heading: string, language: string): string[] {
  const blocks: string[] = [];
  let fenced: string[] | null | undefined; // undefined: outside a block; null: in a block not kept
  let level = 0; // the level of the section's heading, 0 outside it
  for (const line of markdown.split('\n')) {
    const fence = /^```(\S*)/.exec(line);
    if (fence !== null) {
      if (fenced === undefined) fenced = level > 0 && fence[1] === language ? [] : null;
      else {
        if (fenced !== null) blocks.push(`${fenced.join('\n')}\n`);
        fenced = undefined;
      }
    } else if (fenced !== undefined) fenced?.push(line);
    else {
      const title = /^(#{1,6}) (.*)$/.exec(line);
      if (title !== null && level > 0 && title[1]!.length <= level) level = 0;
      if (title !== null && title[2] === heading) level = title[1]!.length;
    }
  }
  return blocks;
}
