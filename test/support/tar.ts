/*
 * Hand-made tar archives for tests: ustar headers, as `tar` and `docker save` write them.
 */

/**
 * A tar archive of `files` (path → contents), in order, ended by two zero blocks.
 *
 * @example
 * tarArchive({ 'manifest.json': '[]' })
 */
export function tarArchive(files: Record<string, string | Uint8Array>): Uint8Array {
  const blocks: Uint8Array[] = [];
  for (const [path, contents] of Object.entries(files)) {
    const data = typeof contents === 'string' ? new TextEncoder().encode(contents) : contents;
    const header = new Uint8Array(512);
    const put = (offset: number, text: string) => header.set(new TextEncoder().encode(text), offset);
    put(0, path);
    put(100, '0000644\0');
    put(108, '0000000\0');
    put(116, '0000000\0');
    put(124, `${data.length.toString(8).padStart(11, '0')}\0`);
    put(136, '00000000000\0');
    put(156, '0');
    put(257, 'ustar\0');
    put(263, '00');
    put(148, '        ');
    const sum = header.reduce((total, byte) => total + byte, 0);
    put(148, `${sum.toString(8).padStart(6, '0')}\0 `);
    blocks.push(header, data, new Uint8Array((512 - (data.length % 512)) % 512));
  }
  blocks.push(new Uint8Array(1024));
  const archive = new Uint8Array(blocks.reduce((total, block) => total + block.length, 0));
  let at = 0;
  for (const block of blocks) {
    archive.set(block, at);
    at += block.length;
  }
  return archive;
}

/** A small archive as `docker save` writes it for one image tagged `tags` (its layers left out). */
export function dockerSaveArchive(tags: string[]): Uint8Array {
  const config = 'a'.repeat(64);
  return tarArchive({
    [`${config}.json`]: '{"architecture":"amd64","os":"linux","config":{}}',
    'manifest.json': JSON.stringify([{ Config: `${config}.json`, RepoTags: tags, Layers: [] }]),
    repositories: '{}',
  });
}
