import { spawn } from 'node:child_process';
import { cp, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { findOnPath } from '../test/support/dockerd.ts';
import { useChutebox } from '../test/spawn.ts';
import { useTempDir } from '../test/temp-dir.ts';

/*
 * What `chutebox emulate` reads per request, seen from outside the process: strace, attached to the
 * running emulator, lists every file it opens or stats. Without strace the test is skipped, unless
 * CHUTEBOX_REQUIRE_STRACE is set, as in CI.
 */

const temp = useTempDir('chutebox-scenario-reads-');
const start = useChutebox();
const DEFAULT = fileURLToPath(new URL('../fixtures/scenarios/default/', import.meta.url));
const MANIFEST = new URL('../dist/manifest.json', import.meta.url);
const STRACE = findOnPath('strace');
const skipped = STRACE === null && !process.env.CHUTEBOX_REQUIRE_STRACE;
if (skipped) console.warn('emulator/scenario-reads.test.ts skipped: strace is not on PATH (apt-get install -y strace); set CHUTEBOX_REQUIRE_STRACE=1 to make this a failure');

/** A value of the default scenario for each path parameter of a GET route; `id` has none (no change yet). */
const PARAMS: Record<string, string | null> = { chute: 'hello-world', network: 'wifi', mac: '6e:8d:3a:5f:21:c4', user: 'paradrop', id: null };

/** Traces the file system calls of a running process until `stop()`, which answers the paths they named. */
async function traceFiles(pid: number): Promise<{ stop(): Promise<string[]> }> {
  const tracer = spawn(STRACE!, ['-f', '-qq', '-e', 'trace=%file', '-p', String(pid)], { stdio: ['ignore', 'ignore', 'pipe'] });
  let output = '';
  tracer.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  await new Promise((resolve) => setTimeout(resolve, 300));
  return {
    stop: () =>
      new Promise((resolve) => {
        // Every quoted argument, empty ones too (`statx(21, "", …)`), so that quotes pair up right.
        tracer.once('exit', () => resolve([...output.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((match) => match[1]!)));
        tracer.kill('SIGINT');
      }),
  };
}

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
