import { mkdir } from 'node:fs/promises';
import { createServer } from 'node:http';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTempDir } from '../test/support/temp-dir.ts';
import { createHostDevice } from './host-device.ts';

const temp = useTempDir('chutebox-host-device-');

/** A host device over a temp state dir and passwd file, with no engine, started as `chutebox serve` starts it. */
async function hostDevice(name: string) {
  const dir = await temp.folder(name);
  const stateDir = path.join(dir, 'state');
  await mkdir(stateDir, { mode: 0o700 });
  const device = createHostDevice({ stateDir, dockerSocket: path.join(dir, 'none.sock'), config: { applyCommands: {}, passwdFile: path.join(dir, 'passwd') } });
  await device.recover();
  return device;
}

const CREDENTIALS = { routerId: 'r1', apitoken: 't0k3n', pdserver: 'http://127.0.0.1:9', wampRouter: 'ws://127.0.0.1:9/ws' };

describe('the host device during a factory reset', () => {
  it('answers 409 to a second reset asked for while the first runs, and runs the first to the end', async () => {
    const device = await hostDevice('twice');
    const first = device.factoryReset();
    await expect(device.factoryReset()).rejects.toMatchObject({ status: 409 });
    await expect(first).resolves.toMatchObject({ success: true });
    await expect(device.factoryReset()).resolves.toMatchObject({ success: true });
    await device.close();
  });

  it('answers 409 to provisioning and to a pdconf reload while it runs, so nothing outlives the reset', async () => {
    const device = await hostDevice('provision');
    const reset = device.factoryReset();
    await expect(device.provisioning.provision(CREDENTIALS)).rejects.toMatchObject({ status: 409 });
    await expect(device.hostConfig.reloadPdconf()).rejects.toMatchObject({ status: 409 });
    await reset;
    expect((await device.provisioning.status()).provisioned).toBe(false);
    await device.close();
  });
});

describe('the host device and its container engine', () => {
  it('answers no containers while no engine listens, and asks the engine that starts listening on the socket', async () => {
    const device = await hostDevice('engine');
    const socket = path.join(temp.path(), 'engine', 'none.sock');
    expect(await device.containers()).toBeNull();

    // An engine that lists one chute container, as `GET /containers/json` answers.
    const listed = [{ Id: 'c0ffee', Names: ['/chute-hello'], State: 'running', Labels: { 'paradrop.chute': 'hello' } }];
    const engine = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(listed)));
    await new Promise<void>((resolve) => engine.listen(socket, resolve));
    try {
      await expect.poll(() => device.containers(), { interval: 10 }).toMatchObject([{ Id: 'c0ffee' }]);
    } finally {
      await new Promise((resolve) => engine.close(resolve));
      await device.close();
    }
    await expect.poll(() => device.containers(), { interval: 10 }).toBeNull();
  });
});
