import { readdir, readlink } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ChangeRecord } from '../functions/core/device/index.ts';
import { call, finalChange } from './support/http-client.ts';
import { useHttpController, type OfferedRelease } from './support/http-controller.ts';
import { serveArgs, useChutebox, type Started } from './support/spawn.ts';
import { tarArchive } from './support/tar.ts';
import { useTempDir } from './support/temp-dir.ts';

/*
 * POST /api/v1/config/startUpdate: chutebox's own update from the controller it is provisioned with
 * (docs/decisions/0062-updates-and-snapd.md), on serve (a release unpacked, checked and made current)
 * and in the emulator (taken and checked, not installed), against a controller on a real socket.
 */

const APITOKEN = 'update-token';
let offered: OfferedRelease | null = null;
const controller = useHttpController({ apitoken: APITOKEN, release: () => offered });
const temp = useTempDir('chutebox-runtime-update-');
const start = useChutebox();

/** A built `dist/` in little: its manifest, a CLI that prints its version, one function bundle (one that throws when loaded, `broken`). */
function release(version: string, broken = false): OfferedRelease {
  const bundle = broken ? "throw new Error('this bundle is broken');\n" : 'export const invoke = async () => ({ status: 200 });\n';
  const archive = tarArchive({
    'manifest.json': JSON.stringify({ version, functions: [{ name: 'info-x-get', file: 'functions/info-x-get.mjs' }], entries: [] }),
    'chutebox.mjs': `if (process.argv.includes('--version')) console.log(${JSON.stringify(version)});\n`,
    'functions/info-x-get.mjs': bundle,
  });
  return { version, archive };
}

/** Provisions `server` with the test's controller. */
async function provision(server: Started): Promise<void> {
  const credentials = { routerId: 'r1', apitoken: APITOKEN, pdserver: controller().url, wampRouter: 'ws://127.0.0.1:9/ws' };
  expect((await call(server.url, 'POST', '/api/v1/config/provision', { json: credentials })).status).toBe(200);
}

/** startUpdate, and the change it queued once final. */
async function startUpdate(server: Started): Promise<ChangeRecord> {
  const answer = await call<{ change_id: number }>(server.url, 'POST', '/api/v1/config/startUpdate');
  expect(answer.status).toBe(200);
  return finalChange(server.url, answer.body.change_id);
}

const outcome = (record: ChangeRecord) => record.messages.at(-1)!.text;

describe('startUpdate on serve', () => {
  it('takes the release, checks it, makes it current and keeps the one before; refuses one of another digest or that does not load', async () => {
    const stateDir = path.join(temp.path(), 'state');
    const releases = path.join(stateDir, 'releases');
    const server = await start(serveArgs(stateDir, path.join(temp.path(), 'no-docker.sock')));
    const refused = await call<{ errors: unknown[] }>(server.url, 'POST', '/api/v1/config/startUpdate', { json: { now: true } });
    expect([refused.status, refused.body.errors]).toEqual([422, [{ path: 'body', message: 'startUpdate takes no body (or an empty object)' }]]);
    expect(outcome(await startUpdate(server))).toMatch(/^failed: the device is not provisioned/);

    await provision(server);
    expect(outcome(await startUpdate(server))).toBe('succeeded');
    expect(await readdir(stateDir)).not.toContain('releases');

    offered = release('9.9.9');
    const first = await startUpdate(server);
    expect(outcome(first)).toBe('succeeded');
    const firstName = await readlink(path.join(releases, 'current'));
    expect(firstName).toMatch(/^9\.9\.9-[0-9a-f]{12}$/);
    expect(await readdir(path.join(releases, firstName))).toEqual(expect.arrayContaining(['manifest.json', 'chutebox.mjs', 'functions']));

    offered = { ...release('9.9.10'), sha256: '0'.repeat(64) };
    expect(outcome(await startUpdate(server))).toMatch(/^failed: release 9\.9\.10 .* has SHA-256 [0-9a-f]{64}, not the 0{64} the controller gave$/);
    offered = release('9.9.10', true);
    expect(outcome(await startUpdate(server))).toMatch(/^failed: a bundle of the release does not load: .*this bundle is broken/);
    expect(await readlink(path.join(releases, 'current'))).toBe(firstName);
    expect((await readdir(releases)).sort()).toEqual([firstName, 'current']);

    offered = release('9.9.11');
    expect(outcome(await startUpdate(server))).toBe('succeeded');
    const secondName = await readlink(path.join(releases, 'current'));
    expect([secondName, await readlink(path.join(releases, 'previous'))]).toEqual([expect.stringMatching(/^9\.9\.11-/), firstName]);
    offered = release('9.9.12');
    expect(outcome(await startUpdate(server))).toBe('succeeded');
    // Two releases are kept: the current one and the one before it.
    expect((await readdir(releases)).filter((entry) => !['current', 'previous'].includes(entry)).sort()).toEqual(
      [secondName, await readlink(path.join(releases, 'current'))].sort(),
    );
  });
});

describe('startUpdate on emulate', () => {
  it('takes and checks the release as serve does, and only says it would install it', async () => {
    const server = await start(['emulate', '--port', '0', '--no-auth', '--controller', controller().url]);
    offered = null;
    expect(outcome(await startUpdate(server))).toMatch(/^failed: the device is not provisioned/);
    await provision(server);
    offered = release('9.9.20');
    const taken = await startUpdate(server);
    expect(outcome(taken)).toBe('succeeded');
    expect(taken.messages.map((message) => message.text)).toContain(
      'the emulated device does not install the release: serve would unpack it, check that it loads and make it current',
    );
    offered = { ...release('9.9.21'), sha256: 'f'.repeat(64) };
    expect(outcome(await startUpdate(server))).toMatch(/^failed: release 9\.9\.21 .* has SHA-256 [0-9a-f]{64}, not the f{64} the controller gave$/);
  });
});
