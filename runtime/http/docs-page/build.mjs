// Writes dist/docs/: the files of GET /docs (runtime/http/docs.ts), called by esbuild.config.mjs once
// the OpenAPI document is generated. See docs/decisions/0032-the-docs-page.md.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { escapeHtml, fillTemplate, pageWriter } from '../page-writer.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));

/**
 * Writes the docs page and its assets into `<dist>/docs/`, each only gzipped (`<name>.gz`; served as
 * such, or unpacked for a client that takes no gzip):
 * - `index.html`: the page, with the OpenAPI document inlined as JSON (`<script type="application/json">`);
 * - `assets/<name>.<hash>.<ext>`: Redoc's standalone bundle, the script that starts it, and the
 *   licences of what the bundle holds; named by their content, so they may be cached for good.
 *
 * @returns the sizes written (`bytes`, `gzipBytes`), by file name relative to `<dist>/docs/`.
 * @example
 * await writeDocsPage({ root, dist, document: openApi }); // { 'index.html': { bytes: 98213, gzipBytes: 16845 }, … }
 */
export async function writeDocsPage({ root, dist, document }) {
  const redoc = path.join(root, 'node_modules', 'redoc');
  const { version } = JSON.parse(await readFile(path.join(redoc, 'package.json'), 'utf8'));
  const licences = [
    `Redoc ${version} (redoc.standalone.js), MIT licence:\n\n${await readFile(path.join(redoc, 'LICENSE'), 'utf8')}`,
    `What redoc.standalone.js bundles:\n\n${await readFile(path.join(redoc, 'bundles', 'redoc.standalone.js.LICENSE.txt'), 'utf8')}`,
  ].join('\n\n');
  const { write, asset, written } = await pageWriter(path.join(dist, 'docs'));
  /** An asset's URL path. */
  const docsAsset = async (base, ext, content) => `/docs/${await asset(base, ext, content)}`;
  const viewer = await docsAsset('redoc.standalone', 'js', offline(await readFile(path.join(redoc, 'bundles', 'redoc.standalone.js'), 'utf8')));
  const start = await docsAsset('start', 'js', await readFile(path.join(here, 'start.js')));
  const licence = await docsAsset('redoc-licences', 'txt', licences);
  const values = {
    title: escapeHtml(`${document.info.title} ${document.info.version}: API reference`),
    credits: `Rendered by Redoc ${version} (MIT licence; its licences and those of what it bundles: ${licence})`,
    // `<` escaped, so the document cannot close the script element; JSON.parse reads \u003c as `<`.
    document: JSON.stringify(document).replace(/</g, '\\u003c'),
    viewer,
    start,
  };
  const template = await readFile(path.join(here, 'page.html'), 'utf8');
  await write('index.html', fillTemplate(template, values));
  return written;
}

/**
 * Redoc's bundle with the one thing it loads from elsewhere taken out: the side menu's Redocly logo
 * (`https://cdn.redoc.ly/redoc/logo-mini.svg`) becomes an empty `data:` image, which fails to decode,
 * and Redoc then leaves the logo out. Fails when the bundle no longer has it exactly once: a new Redoc
 * may load something else, and test/docs-browser.test.ts says what.
 */
function offline(bundle) {
  const logo = 'src:"https://cdn.redoc.ly/redoc/logo-mini.svg"';
  const found = bundle.split(logo).length - 1;
  if (found !== 1)
    throw new Error(
      `redoc.standalone.js has ${found} times ${logo}, not once: check what this Redoc loads from other origins (runtime/http/docs-page/build.mjs)`,
    );
  return bundle.replace(logo, () => 'src:"data:,"');
}
