// npm run bench: bundle sizes of chutebox beside baselines built in the same run
// (a one-route Hono app, the same with hono/tiny, and zod/mini alone), all minified by esbuild.
import * as esbuild from 'esbuild';
import { readFile } from 'node:fs/promises';
import { gzipSync } from 'node:zlib';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

const BASELINES = {
  'hono, one route':
    "import { Hono } from 'hono'; const app = new Hono(); app.get('/api/v1/info/features', (c) => c.json(['hostapd-control'])); export default app;",
  'hono/tiny, one route':
    "import { Hono } from 'hono/tiny'; const app = new Hono(); app.get('/api/v1/info/features', (c) => c.json(['hostapd-control'])); export default app;",
  'zod/mini, one object schema':
    "import * as z from 'zod/mini'; export const s = z.object({ a: z.string() }); export const check = (x) => s.safeParse(x).success;",
};

async function baseline(contents) {
  const result = await esbuild.build({
    stdin: { contents, resolveDir: root, loader: 'js' },
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'node',
    write: false,
    legalComments: 'none',
  });
  return result.outputFiles[0].contents;
}

const kb = (n) => `${(n / 1024).toFixed(1)} KB`.padStart(9);
const rows = [];
for (const [name, contents] of Object.entries(BASELINES)) {
  const bytes = await baseline(contents);
  rows.push([`baseline: ${name}`, bytes.length, gzipSync(bytes).length]);
}
const manifest = JSON.parse(await readFile(path.join(root, 'dist/manifest.json'), 'utf8'));
for (const f of manifest.functions) rows.push([f.file, f.bytes, f.gzipBytes]);
for (const e of manifest.entries) rows.push([e.file, e.bytes, e.gzipBytes]);

console.log(`${'bundle'.padEnd(40)} ${'minified'.padStart(9)} ${'gzip'.padStart(9)}`);
for (const [name, bytes, gzip] of rows) console.log(`${name.padEnd(40)} ${kb(bytes)} ${kb(gzip)}`);
