import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { mountFunctions } from '../runtime/http/mount-functions.ts';
import { useTempDir } from '../test/support/temp-dir.ts';
import { allFunctions } from './all-functions.ts';

const temp = useTempDir('chutebox-all-functions-');

/** A dist folder with two function bundles, each answering its own name, and (`together`) one bundle of both answering `together`. */
async function dist(together: boolean) {
  const dir = await temp.folder(together ? 'together' : 'apart');
  await mkdir(path.join(dir, 'functions'));
  const route = (name: string) => ({ method: 'GET', path: `/api/v1/${name}`, summary: name });
  const bundle = (name: string, says: string) =>
    `export const route = ${JSON.stringify(route(name))}; export const invoke = async () => ({ status: 200, headers: {}, body: ${JSON.stringify(says)} });`;
  for (const name of ['one', 'two']) await writeFile(path.join(dir, 'functions', `${name}.mjs`), bundle(name, `${name} alone`));
  const functions = ['one', 'two'].map((name) => ({ file: `functions/${name}.mjs`, ...route(name) }));
  await writeFile(path.join(dir, 'manifest.json'), JSON.stringify({ functions, ...(together ? { together: { file: 'all.mjs', dir: 'functions' } } : {}) }));
  // The bundle of all leaves `two` to its own bundle, as the build leaves the OpenAPI document's.
  await writeFile(
    path.join(dir, 'all.mjs'),
    `export const functions = { one: { route: ${JSON.stringify(route('one'))}, invoke: async () => ({ status: 200, headers: {}, body: 'one together' }) } };`,
  );
  return path.join(dir, 'functions');
}

const answers = async (dir: string, options: Awaited<ReturnType<typeof allFunctions>>) =>
  Promise.all((await mountFunctions(dir, options)).map(async (fn) => (await (await fn.load()).invoke({} as never, {} as never)).body));

describe('allFunctions: where emulate takes its functions from', () => {
  it('takes each function from the bundle of all that the manifest names, and one it leaves out from its own bundle', async () => {
    const dir = await dist(true);
    expect(await answers(dir, await allFunctions(dir))).toEqual(['one together', 'two alone']);
  });

  it('mounts one bundle a function, as serve does, where the manifest names no bundle of all', async () => {
    const dir = await dist(false);
    expect(await answers(dir, await allFunctions(dir))).toEqual(['one alone', 'two alone']);
  });
});
