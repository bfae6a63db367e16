// Writes dist/portal/: the files of the portal at GET / (runtime/http/portal.ts), called by
// esbuild.config.mjs. See docs/decisions/0063-the-portal.md.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';
import { escapeHtml, fillTemplate, pageWriter } from '../page-writer.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));

/**
 * Writes the portal into `<dist>/portal/`, each file only gzipped: `index.html`, and in `assets/` its
 * script (portal.js and what it imports, bundled and minified for browsers) and style sheet
 * (minified), named by their content. The page names them relative to itself.
 *
 * @returns the sizes written (`bytes`, `gzipBytes`), by file name relative to `<dist>/portal/`.
 * @example
 * await writePortalPage({ dist, version: '0.1.0' }); // { 'index.html': { bytes: 1402, gzipBytes: 640 }, … }
 */
export async function writePortalPage({ dist, version }) {
  const { write, asset, written } = await pageWriter(path.join(dist, 'portal'));
  const built = await esbuild.build({
    entryPoints: [path.join(here, 'portal.js'), path.join(here, 'portal.css')],
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    target: ['chrome110', 'firefox115', 'safari16'],
    legalComments: 'none',
    write: false,
    outdir: 'out',
    logLevel: 'warning',
  });
  const output = (ext) => built.outputFiles.find((file) => file.path.endsWith(ext)).contents;
  const values = {
    title: escapeHtml(`chutebox ${version}`),
    product: escapeHtml(`chutebox ${version}`),
    script: `portal/${await asset('portal', 'js', output('.js'))}`,
    style: `portal/${await asset('portal', 'css', output('.css'))}`,
  };
  await write('index.html', fillTemplate(await readFile(path.join(here, 'page.html'), 'utf8'), values));
  return written;
}
