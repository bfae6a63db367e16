import { spawn, spawnSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { EMULATOR_STATE_VERSION } from '../emulator/emulator-state.ts';
import { callApi } from './support/http-client.ts';
import { fencedBlocks } from './support/markdown.ts';
import { waitUntil } from './support/netns.ts';
import { CLEAN_ENV, startChutebox, useChutebox, type Started } from './support/spawn.ts';
import { useTempDir } from './support/temp-dir.ts';

/*
 * The examples of docs/emulator.md, run as a reader runs them against `chutebox emulate` as it starts
 * by default (authentication on): its shell blocks with bash and curl, its Node example with node, in
 * a folder of the test's, with the emulator's address in place of `localhost:8080`.
 */

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const PAGE = 'docs/emulator.md';
const BASIC = { authorization: `Basic ${Buffer.from('paradrop:').toString('base64')}` };
const temp = useTempDir('chutebox-emulator-doc-');
const start = useChutebox();

/** The one block of `language` under `heading` of the page. */
async function example(heading: string, language: string): Promise<string> {
  const blocks = fencedBlocks(await readFile(path.join(ROOT, PAGE), 'utf8'), heading, language);
  expect(blocks, `${PAGE}: the \`\`\`${language} blocks under "${heading}"`).toHaveLength(1);
  return blocks[0]!;
}

describe(`the examples of ${PAGE}, run as written`, () => {
  let server: Started;
  let dir: string;
  /** An example with this emulator's address and this checkout's `dist/`. */
  const asWritten = (text: string) => text.replaceAll('localhost:8080', new URL(server.url).host).replaceAll('dist/chutebox', path.join(ROOT, 'dist/chutebox'));
  const guestSsid = async () => (await callApi<{ ssid: string }>(server, 'GET', '/chutes/hotspot/networks/guest/ssid', undefined, undefined, BASIC)).body.ssid;

  beforeAll(async () => {
    dir = await temp.folder('reader');
    server = await start(['emulate', '--port', '0']);
  });

  it("the admin API's curl lines export the state to state.json, reset the emulator and import the state again", async () => {
    expect((await callApi(server, 'PUT', '/chutes/hotspot/networks/guest/ssid', { ssid: 'exported' }, undefined, BASIC)).status).toBe(200);
    const lines = asWritten(await example('Over HTTP: the admin API', 'sh'))
      .trim()
      .split('\n');
    const run = (line: string) => expect(spawnSync('bash', ['-euo', 'pipefail', '-c', line], { cwd: dir, encoding: 'utf8' }).status, line).toBe(0);
    expect(lines).toHaveLength(3);
    const [exported, reset, imported] = lines as [string, string, string];
    run(exported);
    expect(JSON.parse(await readFile(path.join(dir, 'state.json'), 'utf8'))).toMatchObject({ version: EMULATOR_STATE_VERSION, scenario: 'default' });
    run(reset);
    expect(await guestSsid()).toBe('Café Guest');
    run(imported);
    expect(await guestSsid()).toBe('exported');
  });

  it('emulate --state starts from the exported file', async () => {
    const words = asWritten(await example('From the command line', 'sh'))
      .trim()
      .split(/\s+/);
    expect(words).toEqual([path.join(ROOT, 'dist/chutebox'), 'emulate', '--state', 'state.json']);
    const from = await startChutebox([...words.slice(1, -1), path.join(dir, 'state.json'), '--port', '0', '--no-auth'], CLEAN_ENV, { command: words[0]! });
    try {
      expect((await callApi<{ ssid: string }>(from, 'GET', '/chutes/hotspot/networks/guest/ssid')).body.ssid).toBe('exported');
    } finally {
      await from.stop();
    }
  });

  it("the websocket example prints STATUS's reply and OK, then the event of a station a DELETE disconnects", async () => {
    const script = asWritten(await example("A network's hostapd, over its websocket", 'js'));
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    try {
      await waitUntil(
        'STATUS and ATTACH answered',
        async () => /^state=ENABLED$/m.test(output) && /^OK$/m.test(output),
        15_000,
        async () => output,
      );
      expect((await callApi(server, 'DELETE', '/chutes/hotspot/networks/guest/stations/d2:19:7f:a4:e5:38', undefined, undefined, BASIC)).status).toBe(200);
      await waitUntil(
        'the event came',
        async () => output.includes('<3>AP-STA-DISCONNECTED d2:19:7f:a4:e5:38'),
        15_000,
        async () => output,
      );
    } finally {
      child.kill();
    }
  });
});
