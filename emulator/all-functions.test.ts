import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { mountFunctions } from '../runtime/http/mount-functions.ts';
import { useTempDir } from '../test/support/temp-dir.ts';
import { allFunctions } from './all-functions.ts';

const temp = useTempDir('chutebox-all-functions-');

/** A dist folder with three function bundles, each answering `<name> alone`, and (`together`) a bundle of `one` and `two` answering `<name> together`. */
async function dist(together: boolean) {
  const dir = await temp.folder(together ? 'together' : 'apart');
  await mkdir(path.join(dir, 'functions'));
  const route = (name: string) => ({ method: 'GET', path: `/api/v1/${name}`, summary: name });
  const bundle = (name: string, says: string) =>
    `export const route = ${JSON.stringify(route(name))}; export const invoke = async () => ({ status: 200, headers: {}, body: ${JSON.stringify(says)} });`;
  for (const name of ['one', 'two', 'three']) await writeFile(path.join(dir, 'functions', `${name}.mjs`), bundle(name, `${name} alone`));
  const functions = ['one', 'two', 'three'].map((name) => ({ file: `functions/${name}.mjs`, ...route(name) }));
  await writeFile(path.join(dir, 'manifest.json'), JSON.stringify({ functions, ...(together ? { together: { file: 'all.mjs', dir: 'functions' } } : {}) }));
  // The bundle of all leaves `three` to its own bundle, as the build leaves the OpenAPI document's.
  const entries = ['one', 'two'].map(
    (name) => `${name}: { route: ${JSON.stringify(route(name))}, invoke: async () => ({ status: 200, headers: {}, body: '${name} together' }) }`,
  );
  await writeFile(path.join(dir, 'all.mjs'), `export const functions = { ${entries.join(', ')} };`);
  return path.join(dir, 'functions');
}

const answers = async (dir: string, options: Awaited<ReturnType<typeof allFunctions>>) =>
  Promise.all((await mountFunctions(dir, options)).map(async (fn) => (await (await fn.load()).invoke({} as never, {} as never)).body));

describe('allFunctions: where emulate takes its functions from', () => {
  it('takes the first function asked for from its own bundle, every other from the bundle of all, and one it leaves out from its own', async () => {
    const dir = await dist(true);
    // In file order: one (asked for first), three (left out), two.
    expect(await answers(dir, await allFunctions(dir))).toEqual(['one alone', 'three alone', 'two together']);
  });

  it('mounts one bundle a function, as serve does, where the manifest names no bundle of all', async () => {
    const dir = await dist(false);
    expect(await answers(dir, await allFunctions(dir))).toEqual(['one alone', 'three alone', 'two alone']);
  });
});
