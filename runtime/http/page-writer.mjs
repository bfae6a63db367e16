// Writes the files of a page the runtime serves from dist/ (runtime/http/page-files.ts): the docs page
// and the portal, each called by esbuild.config.mjs.
import { createHash } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { gzipSync } from 'node:zlib';

/**
 * A writer of the files of a page into the folder `out`, each only gzipped (`<name>.gz`; served as
 * such, or unpacked for a client that takes no gzip):
 * - `write(name, content)`: a file under its own name (the page, `index.html`);
 * - `asset(base, ext, content)`: `assets/<base>.<hash>.<ext>`, named by its content so that it may be
 *   cached for good; answers that name.
 * `written` holds the size of each file written, unpacked (`bytes`) and as stored (`gzipBytes`).
 *
 * @example
 * const { write, asset, written } = await pageWriter(path.join(dist, 'portal'));
 * const script = await asset('portal', 'js', code); // 'assets/portal.3f2a9c01d4e5.js'
 */
export async function pageWriter(out) {
  await mkdir(path.join(out, 'assets'), { recursive: true });
  const written = {};
  const write = async (name, content) => {
    const gzipped = gzipSync(content, { level: 9 });
    await writeFile(path.join(out, `${name}.gz`), gzipped);
    written[name] = { bytes: Buffer.byteLength(content), gzipBytes: gzipped.length };
  };
  const asset = async (base, ext, content) => {
    const name = `assets/${base}.${createHash('sha256').update(content).digest('hex').slice(0, 12)}.${ext}`;
    await write(name, content);
    return name;
  };
  return { write, asset, written };
}

/**
 * A page's template with each `{{key}}` replaced by `values[key]` (a function as the replacement, so
 * that `$&` and the like in a value stay as they are).
 */
export function fillTemplate(template, values) {
  return template.replace(/\{\{(\w+)\}\}/g, (_, key) => values[key]);
}

/** Text made safe to put in HTML. */
export function escapeHtml(text) {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
