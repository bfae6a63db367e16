import { copyFile, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Built function bundles; `npm test` builds them before vitest runs. */
export const DIST_FUNCTIONS = fileURLToPath(new URL('../../dist/functions/', import.meta.url));

/**
 * Bundle sources for tests of the HTTP layer, each a complete `dist/functions/*.mjs` stand-in:
 * `echo` answers its input, `crash` throws an error full of secrets, `upload` answers the bytes of an
 * `application/x-tar` upload (as a list of numbers) and any other input as echo does.
 */
export const TEST_BUNDLES = {
  'test-echo.mjs': `
export const route = { method: 'POST', path: '/api/v1/test/echo/:name', summary: 'answers its input' };
export const invoke = async (input) => ({ status: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify(input) });
export const handler = async () => ({});`,
  'test-upload.mjs': `
export const route = { method: 'POST', path: '/api/v1/test/upload', summary: 'answers its upload', upload: ['application/x-tar'] };
export const invoke = async (input) => ({ status: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ ...input, bytes: input.bytes && [...input.bytes] }) });
export const handler = async () => ({});`,
  'test-crash.mjs': `
export const route = { method: 'GET', path: '/api/v1/test/crash', summary: 'always fails' };
export const invoke = async () => { throw new Error('cannot open /etc/chutebox/secret-key: EACCES'); };
export const handler = async () => ({});`,
};

/**
 * A temporary functions folder holding the named test bundles and copies of built ones.
 *
 * @example
 * const dir = await functionsFolder(['test-echo.mjs'], ['info-features-get.mjs']);
 */
export async function functionsFolder(testBundles: (keyof typeof TEST_BUNDLES)[], builtBundles: string[] = []): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'chutebox-functions-'));
  for (const name of testBundles) await writeFile(path.join(dir, name), TEST_BUNDLES[name]);
  for (const name of builtBundles) await copyFile(path.join(DIST_FUNCTIONS, name), path.join(dir, name));
  return dir;
}
