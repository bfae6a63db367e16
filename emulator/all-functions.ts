import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { MANIFEST_FILE, type Mountable, type MountOptions } from '../runtime/http/mount-functions.ts';

/**
 * Where emulate takes its functions from: the one bundle of every function that the build writes
 * beside the functions folder (`together` in its manifest, dist/all-functions.mjs), so that the code
 * they share is compiled and optimized once, not once a bundle. The first function asked for comes
 * from its own bundle, and the bundle of all is imported once that one is in (after a turn of the
 * event loop), so that the first answer waits for no more than it did: every other function waits
 * for the bundle of all. A function it leaves out (the OpenAPI document's) comes from its own
 * bundle; a folder without that bundle mounts as serve mounts it, one bundle a function (its memory
 * budget).
 *
 * @example
 * await mountFunctions(dir, await allFunctions(dir)) // info-features-get.mjs's function from dist/all-functions.mjs
 */
export async function allFunctions(dir: string): Promise<MountOptions> {
  const distDir = path.dirname(path.resolve(dir));
  let together: { file: string; dir: string } | undefined;
  try {
    together = (JSON.parse(await readFile(path.join(distDir, MANIFEST_FILE), 'utf8')) as { together?: { file: string; dir: string } }).together;
  } catch {
    return {};
  }
  if (together === undefined || path.resolve(distDir, together.dir) !== path.resolve(dir)) return {};
  const file = path.join(distDir, together.file);
  let importing: Promise<Record<string, Mountable>> | undefined;
  return {
    async importing(bundle) {
      if (importing === undefined) {
        const own = import(pathToFileURL(bundle).href) as Promise<Mountable>;
        const all = own.then(
          () => new Promise((resolve) => setTimeout(resolve, 0)),
          () => undefined,
        );
        importing = all.then(() => import(pathToFileURL(file).href)).then((module: { functions: Record<string, Mountable> }) => module.functions);
        return own;
      }
      return (await importing)[path.basename(bundle, '.mjs')];
    },
  };
}
