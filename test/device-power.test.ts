import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ChangeAccepted } from '../functions/chutes/schemas.ts';
import type { ChangeRecord } from '../functions/core/device/index.ts';
import { call, changeOver, finalChange } from './support/http-client.ts';
import { useChutebox, type Started } from './support/spawn.ts';
import { useTempDir } from './support/temp-dir.ts';
import { writeScript } from './support/tool-scripts.ts';

/**
 * `pdtools node reboot` and `pdtools node shutdown` over HTTP: POST /api/v1/changes/ with ParaDrop's
 * ROUTER update, followed to its end, on `chutebox serve` (the configured command is a script that
 * writes a marker file: nothing here reboots anything) and on `chutebox emulate`.
 */

const temp = useTempDir('chutebox-device-power-');
const start = useChutebox();

const REBOOT = { name: '__PARADROP__', updateClass: 'ROUTER', updateType: 'reboot' };

/** `chutebox serve` on loopback, a free port, no engine, its state in `stateDir`. */
function serve(stateDir: string, ...extra: string[]): Promise<Started> {
  return start(['serve', '--host', '127.0.0.1', '--port', '0', '--state-dir', stateDir, '--docker-socket', path.join(temp.path(), 'none.sock'), ...extra]);
}

/** POST /api/v1/changes/ with `body`; answers the change id. */
async function postChange(server: Started, body: unknown): Promise<number> {
  const answer = await call<ChangeAccepted>(server.url, 'POST', '/api/v1/changes/', { json: body });
  expect(answer, answer.text).toMatchObject({ status: 200, body: { change_id: expect.any(Number) } });
  return answer.body.change_id;
}

describe('chutebox serve: POST /api/v1/changes/ with a reboot or shutdown', () => {
  it('runs --reboot-command with its arguments, and the change succeeds; a restart of serve leaves it succeeded', async () => {
    const dir = await temp.folder('reboot');
    const stateDir = path.join(dir, 'state');
    const marker = path.join(dir, 'rebooted');
    const script = await writeScript(dir, 'fake-reboot', `printf '%s\\n' "$@" > '${marker}'`);
    const first = await serve(stateDir, '--reboot-command', `${script} --now soon`);
    const settings = (await call(first.url, 'GET', '/api/v1/config/settings')).body;
    expect(settings).toMatchObject({ reboot_command: [script, '--now', 'soon'], shutdown_command: null });

    const id = await postChange(first, REBOOT);
    const change = await finalChange(first.url, id);
    expect(change).toMatchObject({ id, action: 'reboot', chute: null, state: 'succeeded' });
    expect(change.messages.map((m) => m.text)).toEqual(['queued', 'running', `rebooting: ${script} --now soon`, `${script} --now soon finished`, 'succeeded']);
    expect(await readFile(marker, 'utf8')).toBe('--now\nsoon\n');

    await first.stop();
    const second = await serve(stateDir);
    expect((await call(second.url, 'GET', `/api/v1/changes/${id}`)).body).toEqual(change);
  });

  it('fails the change naming --reboot-command when none is configured, and runs nothing', async () => {
    const dir = await temp.folder('none');
    const server = await serve(path.join(dir, 'state'));
    const change = await finalChange(server.url, await postChange(server, REBOOT));
    expect(change.state).toBe('failed');
    expect(change.messages.at(-1)!.text).toBe(
      'failed: no reboot command is configured, so nothing was run: set --reboot-command (CHUTEBOX_REBOOT_COMMAND, or reboot_command in the settings file)',
    );
    expect(change.messages.map((m) => m.text)).not.toContainEqual(expect.stringMatching(/^rebooting/));
  });

  it('fails a shutdown whose command exits non-zero, with its last line', async () => {
    const dir = await temp.folder('refused');
    const script = await writeScript(dir, 'fake-poweroff', 'echo "poweroff: Operation not permitted" >&2; exit 1');
    const server = await serve(path.join(dir, 'state'), '--shutdown-command', script);
    const change = await finalChange(server.url, await postChange(server, { ...REBOOT, updateType: 'shutdown' }));
    expect(change).toMatchObject({ action: 'shutdown', state: 'failed' });
    expect(change.messages.slice(-2).map((m) => m.text)).toEqual([
      `shutting down: ${script}`,
      `failed: ${script} exited with code 1: poweroff: Operation not permitted`,
    ]);
  });

  it('marks the change succeeded at the next start when the command stopped the runtime, as a real reboot does', async () => {
    const dir = await temp.folder('killed');
    const stateDir = path.join(dir, 'state');
    const marker = path.join(dir, 'rebooted');
    const go = path.join(dir, 'go');
    // The runtime is this script's parent: a reboot ends it before the command has finished. The
    // script waits (15 s at most) for the test to have its answer first.
    const script = await writeScript(
      dir,
      'fake-reboot',
      `echo "$@" > '${marker}'\ni=0; while [ ! -e '${go}' ] && [ $i -lt 300 ]; do sleep 0.05; i=$((i + 1)); done\nkill -KILL $PPID`,
    );
    const first = await serve(stateDir, '--reboot-command', script);
    const exited = new Promise((resolve) => first.child.once('exit', resolve));
    const answer = await call<ChangeAccepted>(first.url, 'POST', '/api/v1/changes/', {
      document: { type: 'application/yaml', text: 'updateClass: ROUTER\nupdateType: reboot\n' },
    });
    expect(answer.status).toBe(200);
    await writeFile(go, '');
    expect(await exited).toBeNull();
    expect(await readFile(marker, 'utf8')).toBe('\n');

    const second = await serve(stateDir);
    const change = (await call<ChangeRecord>(second.url, 'GET', `/api/v1/changes/${answer.body.change_id}`)).body;
    expect(change).toMatchObject({ action: 'reboot', state: 'succeeded' });
    expect(change.messages.slice(-2).map((m: { text: string }) => m.text)).toEqual([
      `rebooting: ${script}`,
      'succeeded: the runtime stopped while the reboot command ran, as the reboot stops it',
    ]);
  });
});

describe('chutebox emulate: POST /api/v1/changes/ with a reboot', () => {
  it('responds with a change_id; the change succeeds saying the emulated device does not really reboot', async () => {
    const server = await start(['emulate', '--port', '0', '--no-auth', '--change-delay', '5']);
    const change = await changeOver(server, 'POST', '/changes/', REBOOT);
    expect(change).toMatchObject({ action: 'reboot', chute: null, state: 'succeeded' });
    expect(change.messages.map((m) => m.text)).toContain(
      'the emulated device does not really reboot: nothing is restarted, its uptime goes on, and what changed since the emulator started stays',
    );
    const refused = await call(server.url, 'POST', '/api/v1/changes/', { json: { ...REBOOT, updateClass: 'CHUTE' } });
    expect(refused).toMatchObject({ status: 422, body: { errors: [{ path: 'body.updateClass' }] } });
  });
});
