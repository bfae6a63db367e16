import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Software, Telemetry } from '../functions/info/schemas.ts';
import { useFaultedEmulator } from './support/device-faults.ts';
import { findOnPath } from './support/dockerd.ts';
import { getJson } from './support/http-client.ts';
import { childrenNamed } from './support/processes.ts';
import { CLI, serveArgs, useChutebox } from './support/spawn.ts';
import { useTempDir } from './support/temp-dir.ts';
import { writeScript } from './support/tool-scripts.ts';

/*
 * A reboot answers what a client sees of serve on a device that reboots: nothing while it is down
 * (serve, stopped, refuses the connection; the emulator closes it unanswered: fetch fails either way),
 * then answers again with a device just booted. Serve's reboot is a stop and a start in a new time
 * namespace whose boot time is now, so that /proc/uptime and /proc/stat count from the start as
 * after a real boot.
 */

const temp = useTempDir('chutebox-device-faults-reboot-');
const start = useChutebox();
const emulator = useFaultedEmulator();

/** A device that is down: a request gets no answer at all (fetch rejects), whatever it asks. */
async function checkDown(router: { url: string }): Promise<void> {
  for (const endpoint of ['/api/v1/info/software', '/api/v1/chutes']) await expect(fetch(`${router.url}${endpoint}`)).rejects.toThrow(TypeError);
}

/** A device that booted moments ago: its uptime and its boot time say so. */
async function checkJustBooted(router: { url: string }): Promise<void> {
  const { uptime } = await getJson<Software>(router, '/info/software');
  expect(uptime).toBeGreaterThanOrEqual(0);
  expect(uptime).toBeLessThan(30);
  const { system } = await getJson<Telemetry>(router, '/info/telemetry');
  expect(Math.abs(system.boot_time! - Date.now() / 1000)).toBeLessThan(30);
}

const unshare = findOnPath('unshare');
const reason = process.getuid?.() !== 0 ? 'not root (a time namespace needs root)' : unshare === null ? 'unshare is not on PATH (util-linux)' : null;
const skipped = reason !== null && !process.env.CHUTEBOX_REQUIRE_NETWORK;
if (skipped)
  console.warn(`test/device-faults-reboot.test.ts: the reboot of serve is skipped: ${reason}; set CHUTEBOX_REQUIRE_NETWORK=1 to make this a failure`);

describe('reboot: nothing is answered while the device is down, then it answers with its uptime reset', () => {
  it.skipIf(skipped)('serve, stopped and started again as after a boot', async () => {
    if (reason !== null) throw new Error(reason);
    const stateDir = await temp.folder('state');
    const socket = path.join(stateDir, 'no-engine.sock');
    const before = await start(serveArgs(stateDir, socket));
    expect((await getJson<Software>(before, '/info/software')).uptime).toBeGreaterThan(30);
    await before.stop();
    await checkDown(before);
    // The same serve on the same port, in a time namespace whose boot is now.
    const hostUptime = Math.floor(Number((await readFile('/proc/uptime', 'utf8')).split(' ')[0]));
    const booted = await writeScript(
      await temp.folder('boot'),
      'serve-after-boot',
      `exec '${unshare}' --time --boottime -${hostUptime} --kill-child=SIGTERM '${process.execPath}' '${CLI}' "$@"`,
    );
    const after = await start(serveArgs(stateDir, socket, ['--port', new URL(before.url).port]), undefined, { command: booted });
    expect(after.url).toBe(before.url);
    await checkJustBooted(after);
    // unshare ignores SIGTERM while its child runs: serve itself is stopped, by its pid, and unshare ends with it.
    const [serve] = await childrenNamed(after.child.pid!, 'node');
    process.kill(serve!, 'SIGTERM');
    await after.stop();
  });

  it('the emulator, under a reboot of 2 s, its own API answering meanwhile', async () => {
    const router = emulator();
    await router.faults.add({ device: 'reboot', seconds: 2 });
    await checkDown(router);
    expect((await fetch(`${router.url}/_chutebox/state`)).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 2100));
    await checkJustBooted(router);
  });
});
