import { cp, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { skipWithoutStrace, traceFiles } from '../../test/support/strace.ts';
import { useChutebox } from '../../test/support/spawn.ts';
import { useTempDir } from '../../test/support/temp-dir.ts';

/*
 * What `chutebox emulate` reads per request, seen from outside the process: strace, attached to the
 * running emulator, lists every file it opens or stats. Without strace the test is skipped, unless
 * CHUTEBOX_REQUIRE_STRACE is set, as in CI.
 */

const temp = useTempDir('chutebox-scenario-reads-');
const start = useChutebox();
const DEFAULT = fileURLToPath(new URL('../../fixtures/scenarios/default/', import.meta.url));
const MANIFEST = new URL('../../dist/manifest.json', import.meta.url);
const skipped = skipWithoutStrace('emulator/scenario/reads.test.ts');

/** A value of the default scenario for each path parameter of a GET route; `id` has none (no change yet). */
const PARAMS: Record<string, string | null> = { chute: 'hello-world', network: 'wifi', mac: '6e:8d:3a:5f:21:c4', user: 'paradrop', id: null };

/** Every GET route of the build with its parameters filled in, but those with a parameter that has no value. */
async function getPaths(): Promise<string[]> {
  const { functions } = JSON.parse(await readFile(MANIFEST, 'utf8')) as { functions: { method: string; path: string }[] };
  const paths: string[] = [];
  for (const route of functions.filter((fn) => fn.method === 'GET')) {
    const names = [...route.path.matchAll(/:(\w+)/g)].map((match) => match[1]!);
    for (const name of names) expect(Object.keys(PARAMS), `a value for :${name} of GET ${route.path}`).toContain(name);
    if (names.every((name) => PARAMS[name] !== null)) paths.push(route.path.replace(/:(\w+)/g, (_match, name: string) => PARAMS[name]!));
  }
  return paths;
}

describe.skipIf(skipped)('chutebox emulate: what a request reads', () => {
  it('reads no file of the scenario once every GET endpoint has answered: a scenario is read once, then served from memory', async () => {
    const dir = path.join(await temp.folder('scenario'), 'default');
    await cp(DEFAULT, dir, { recursive: true, verbatimSymlinks: true });
    const server = await start(['emulate', '--scenario', dir, '--port', '0', '--no-auth']);
    const paths = await getPaths();
    expect(paths.length).toBeGreaterThan(20);
    const answer = async (endpoint: string) => [endpoint, (await fetch(`${server.url}${endpoint}`)).status];
    for (const endpoint of paths) expect(await answer(endpoint)).toEqual([endpoint, 200]);

    const trace = await traceFiles(server.child.pid!);
    for (let round = 0; round < 2; round++) for (const endpoint of paths) expect(await answer(endpoint)).toEqual([endpoint, 200]);
    expect((await trace.stop()).filter((file) => file.startsWith(dir))).toEqual([]);
  });
});
