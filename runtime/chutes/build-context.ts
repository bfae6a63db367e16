import { packTar, unpackTar, type TarEntry } from 'modern-tar';

/**
 * The build context of one service of a chute: the files of the source's folder `folder` (`''`: the
 * whole source), moved to the context's root, with `dockerfile` as its `Dockerfile` when chutebox
 * writes one (a light service). The source itself when it is used whole.
 *
 * @example
 * await serviceContext(source, 'web')                      // web/Dockerfile → Dockerfile, web/app.js → app.js
 * await serviceContext(source, '', 'FROM node:20-slim\n…') // the source, its Dockerfile chutebox's
 */
export async function serviceContext(source: Uint8Array, folder: string, dockerfile?: string): Promise<Uint8Array> {
  if (folder === '' && dockerfile === undefined) return source;
  const prefix = folder === '' ? '' : `${folder}/`;
  const entries: TarEntry[] = [];
  for (const { header, data } of await unpackTar(source)) {
    const name = header.name.startsWith('./') ? header.name.slice(2) : header.name;
    if (!name.startsWith(prefix) || name === prefix) continue;
    const inside = name.slice(prefix.length);
    if (dockerfile !== undefined && inside === 'Dockerfile') continue;
    entries.push({ header: { ...header, name: inside }, body: data ?? new Uint8Array(0) });
  }
  if (dockerfile !== undefined) {
    const body = new TextEncoder().encode(dockerfile);
    entries.push({ header: { name: 'Dockerfile', size: body.length, type: 'file', mode: 0o644 }, body });
  }
  return packTar(entries);
}
