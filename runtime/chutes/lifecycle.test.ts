import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { installChute } from '../../test/support/chute-state.ts';
import { fakeEngine } from '../../test/support/fake-engine.ts';
import { useTempDir } from '../../test/support/temp-dir.ts';
import { changeRunner } from '../changes/runner.ts';
import { everyAction } from '../../test/support/change-effects.ts';
import { openChangeLog } from '../changes/log.ts';
import { storedChuteEffects } from '../../test/support/chute-lifecycle.ts';

const temp = useTempDir('chutebox-lifecycle-');

/** Chute `hello` as stored: an access point with a passphrase, an API token in its environment. */
const STORED = {
  environment: { GREETING: 'hi', API_TOKEN: 'first-token-T1' },
  net: { wlan: { type: 'wifi', intfName: 'wlan0', ssid: 'hello', key: 'first-key-K1' } },
};

/** The configuration with the given secrets; `[redacted]` for what a GET/edit/PUT round trip sends back. */
const withSecrets = (key: string, token: string, ssid = 'hello') => ({
  environment: { GREETING: 'hi', API_TOKEN: token },
  net: { wlan: { type: 'wifi', intfName: 'wlan0', ssid, key } },
});

/** A state dir with chute `hello` running on a fake engine, and its changes as the runtime runs them (records in `<state-dir>/changes`). */
async function setUp(name: string) {
  const stateDir = await temp.folder(name);
  const dir = path.join(stateDir, 'chutes');
  await installChute(stateDir, 'hello', 'hello:1', STORED, { state: 'running' });
  const engine = fakeEngine();
  engine.add('hello', { State: 'running' });
  const changes = path.join(stateDir, 'changes');
  const chuteWork = storedChuteEffects(dir, engine);
  const deviceWork = everyAction(async (request) => {
    throw new Error(`${request.action} is not a change of a chute`);
  });
  const runner = changeRunner({ openLog: () => openChangeLog(changes, Date.now), effects: { ...deviceWork, ...chuteWork } });
  const service = async () => JSON.parse(await readFile(path.join(dir, 'hello', 'service.json'), 'utf8')) as Record<string, unknown>;
  const files = () => readdir(path.join(dir, 'hello')).then((names) => names.sort());
  const records = async () => (await Promise.all((await readdir(changes)).map((file) => readFile(path.join(changes, file), 'utf8')))).join('\n');
  return { engine, runner, service, files, records, stateDir };
}

describe('chuteEffects update-config with [redacted] placeholders, queued behind another update', () => {
  it('stores and runs the secrets in effect when it runs, the ones the change before it set, and writes no secret into a change record', async () => {
    const { engine, runner, service, files, records, stateDir } = await setUp('kept');
    await runner.submitChange({ action: 'update-config', chute: 'hello', config: withSecrets('second-key-K2', 'second-token-T2') });
    const last = await runner.submitChange({ action: 'update-config', chute: 'hello', config: withSecrets('[redacted]', '[redacted]', 'renamed') });
    await runner.idle();
    expect((await runner.change(last.id))!.state).toBe('succeeded');
    expect(await service()).toEqual(withSecrets('second-key-K2', 'second-token-T2', 'renamed'));
    expect(engine.all).toEqual([expect.objectContaining({ name: 'chute-hello', State: 'running' })]);
    expect(engine.all[0]!.spec!.env).toMatchObject({ API_TOKEN: 'second-token-T2' });
    // No rollback.json is left; cache.json holds what the chute's network holds on the host.
    expect(await files()).toEqual(['cache.json', 'chute.json', 'service.json']);
    expect(JSON.parse(await readFile(path.join(stateDir, 'chutes', 'hello', 'cache.json'), 'utf8')).networks.wlan).toMatchObject({
      ipv4Network: '10.128.0.0/24',
    });
    expect(await records()).not.toMatch(/first-key-K1|second-key-K2|first-token-T1|second-token-T2/);
  });

  it('fails, naming the path, and leaves the configuration and the container as they were, when the change before it removed the secret behind a placeholder', async () => {
    const { engine, runner, service, files } = await setUp('vanished');
    await runner.submitChange({ action: 'update-config', chute: 'hello', config: { environment: STORED.environment } });
    await runner.idle();
    const [before, containers] = [await service(), structuredClone(engine.all)];
    // As a PUT accepted while the network was still there (it checked the placeholder then) runs once it is gone:
    const last = await runner.submitChange({ action: 'update-config', chute: 'hello', config: withSecrets('[redacted]', '[redacted]') });
    await runner.idle();
    const failed = (await runner.change(last.id))!;
    expect(failed.state).toBe('failed');
    expect(failed.messages.at(-1)!.text).toBe(
      'failed: net.wlan.key is [redacted], the placeholder of a secret, but the configuration of chute hello in effect now has no secret there to keep (a change since the PUT removed it): nothing was applied',
    );
    expect(await service()).toEqual(before);
    expect(engine.all).toEqual(containers);
    expect(await files()).toEqual(['chute.json', 'service.json']);
  });
});

describe('chuteLifecycle install and update from a source', () => {
  const SOURCE = new TextEncoder().encode('a build context');
  const NEW_CONFIG = { environment: { GREETING: 'bonjour' } };

  it('install: builds the image, notes the build output, and runs a container from it', async () => {
    const { engine, runner } = await setUp('source-install');
    const { id } = await runner.submitChange({
      action: 'install',
      chute: 'web',
      image: null,
      source: SOURCE,
      version: '1',
      config: {},
      environment: {},
      allocation: {},
    });
    await runner.idle();
    const change = (await runner.change(id))!;
    expect(change.state).toBe('succeeded');
    expect(change.messages.map((m) => m.text)).toEqual(
      expect.arrayContaining(['building image chute-web:1 from the source of chute web', 'Successfully tagged chute-web:1', 'built image chute-web:1']),
    );
    expect(engine.all.find((c) => c.chute === 'web')).toMatchObject({ name: 'chute-web', State: 'running', spec: { image: 'chute-web:1' } });
  });

  it('delete: removes the image built for the chute with it, and never an image the chute was installed from by name', async () => {
    const { engine, runner } = await setUp('source-delete');
    await runner.submitChange({ action: 'install', chute: 'web', image: null, source: SOURCE, version: '1', config: {}, environment: {}, allocation: {} });
    const { id } = await runner.submitChange({ action: 'delete', chute: 'web' });
    await runner.submitChange({ action: 'delete', chute: 'hello' });
    await runner.idle();
    expect((await runner.change(id))!.messages.map((m) => m.text)).toContain('removed image chute-web:1');
    expect(engine.images.has('chute-web:1')).toBe(false);
    expect((await runner.changes()).map((change) => change.state)).toEqual(['succeeded', 'succeeded', 'succeeded']);
    expect(
      (await runner.changes())
        .at(-1)!
        .messages.map((m) => m.text)
        .join('\n'),
    ).not.toContain('removed image');
  });

  it('install: a failed build fails the change with its reason, and stores nothing', async () => {
    const { engine, runner } = await setUp('source-install-fails');
    engine.before = (call) => {
      if (call === 'build') throw new Error("The command '/bin/sh -c false' returned a non-zero code: 1");
    };
    const { id } = await runner.submitChange({
      action: 'install',
      chute: 'web',
      image: null,
      source: SOURCE,
      version: null,
      config: {},
      environment: {},
      allocation: {},
    });
    await runner.idle();
    const change = (await runner.change(id))!;
    expect(change.state).toBe('failed');
    expect(change.messages.at(-1)!.text).toBe(
      `failed: building image chute-web:${id} failed: The command '/bin/sh -c false' returned a non-zero code: 1; chute web is not installed`,
    );
    expect(engine.all.filter((c) => c.chute === 'web')).toEqual([]);
    expect(await runner.changes()).toHaveLength(1);
  });

  it('update: a new container that fails to start brings back the previous record, configuration and container, and removes the new image', async () => {
    const { engine, runner, service, files } = await setUp('source-update-fails');
    const before = structuredClone(engine.all);
    engine.before = (call) => {
      if (call === 'start' && engine.all.some((c) => c.State === 'created')) throw new Error('exec: "/no/such/command": not found');
    };
    const { id } = await runner.submitChange({
      action: 'update',
      chute: 'hello',
      version: '2',
      config: NEW_CONFIG,
      environment: { STAGE: 'two' },
      source: SOURCE,
    });
    await runner.idle();
    const change = (await runner.change(id))!;
    expect(change.state).toBe('failed');
    expect(change.messages.map((m) => m.text)).toContain('removed image chute-hello:2');
    expect(await service()).toEqual(STORED);
    expect(engine.all.map(({ Id, name, State }) => ({ Id, name, State }))).toEqual(before.map(({ Id, name, State }) => ({ Id, name, State })));
    expect(engine.images.has('chute-hello:2')).toBe(false);
    expect(await files()).toEqual(['chute.json', 'service.json']);
  });
});

describe("chuteEffects and the chute's networks", () => {
  const NET = { wifi: { type: 'wifi', intfName: 'wlan1', ssid: 'guests', dhcp: { start: 100, limit: 50 } } };
  const install = (chute: string, net: Record<string, unknown>) =>
    ({ action: 'install', chute, image: 'busybox:latest', version: '1', config: { net }, environment: {}, allocation: {} }) as const;
  const cacheOf = async (stateDir: string, chute: string) => JSON.parse(await readFile(path.join(stateDir, 'chutes', chute, 'cache.json'), 'utf8'));

  it("install: records each network's subnet, host interface, control socket and lease file in the chute cache, and notes them", async () => {
    const { runner, stateDir } = await setUp('networks-install');
    const { id } = await runner.submitChange(install('guest', NET));
    await runner.idle();
    const change = (await runner.change(id))!;
    expect(change.state).toBe('succeeded');
    const { wifi } = (await cacheOf(stateDir, 'guest')).networks;
    expect(wifi).toMatchObject({
      ipv4Network: '10.128.0.0/24',
      gateway: '10.128.0.1',
      chuteAddress: '10.128.0.2',
      leaseFile: expect.stringMatching(/guest-wifi\.leases$/),
    });
    expect(change.messages.map((m) => m.text)).toContain(`networks: wifi 10.128.0.0/24 on ${wifi.hostInterface}`);
  });

  it('install: a network that another chute took since the request was accepted fails the change with the reason, and stores nothing', async () => {
    const { runner, stateDir } = await setUp('networks-clash');
    const asked = { wifi: { ...NET.wifi, ipv4_network: '10.0.9.0/24' } };
    await runner.submitChange(install('first', asked));
    const { id } = await runner.submitChange(install('second', { wifi: { ...asked.wifi, intfName: 'wlan2' } }));
    await runner.idle();
    const failed = (await runner.change(id))!;
    expect(failed.state).toBe('failed');
    expect(failed.messages.at(-1)!.text).toBe(
      'failed: the chute configuration is not valid: net.wifi.ipv4_network 10.0.9.0/24 overlaps 10.0.9.0/24, network wifi of chute first',
    );
    expect(await readdir(path.join(stateDir, 'chutes'))).toEqual(['first', 'hello']);
  });

  it('delete: frees what the networks held, for the next chute to take', async () => {
    const { runner, stateDir } = await setUp('networks-delete');
    await runner.submitChange(install('first', NET));
    await runner.submitChange({ action: 'delete', chute: 'first' });
    await runner.idle();
    const { id } = await runner.submitChange(install('second', NET));
    await runner.idle();
    expect((await runner.change(id))!.state).toBe('succeeded');
    expect((await cacheOf(stateDir, 'second')).networks.wifi.ipv4Network).toBe('10.128.0.0/24');
  });

  it('update-config: an unchanged network keeps what it holds, a changed one is reserved anew, a failed update brings the previous cache back', async () => {
    const { runner, stateDir, engine } = await setUp('networks-update');
    await runner.submitChange(install('guest', { ...NET, lab: { type: 'vlan', intfName: 'vlan0', vlan_id: 7 } }));
    await runner.idle();
    const before = await cacheOf(stateDir, 'guest');
    const renamed = { wifi: { ...NET.wifi, ssid: 'renamed' }, lab: { type: 'vlan', intfName: 'vlan0', vlan_id: 8 } };
    await runner.submitChange({ action: 'update-config', chute: 'guest', config: { net: renamed } });
    await runner.idle();
    const after = await cacheOf(stateDir, 'guest');
    expect(after.networks.wifi).toEqual(before.networks.wifi);
    expect(after.networks.lab).toMatchObject({ hostInterface: 'br-lan.8', vlanId: 8, ipv4Network: before.networks.lab.ipv4Network });
    engine.before = (call) => {
      if (call === 'start') throw new Error('no such device');
    };
    const { id } = await runner.submitChange({
      action: 'update-config',
      chute: 'guest',
      config: { net: { wifi: { ...NET.wifi, ipv4_network: '10.0.3.0/24' } } },
    });
    await runner.idle();
    expect((await runner.change(id))!.state).toBe('failed');
    expect(await cacheOf(stateDir, 'guest')).toEqual(after);
  });
});
