import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ChangeRecord } from '../../functions/core/device/index.ts';
import { fakeEngine, type FakeContainer } from '../../test/support/fake-engine.ts';
import { installChute } from '../../test/support/chute-state.ts';
import { useTempDir } from '../../test/support/temp-dir.ts';
import type { Rollback } from './replace-chute.ts';
import { recoverChutes } from './recover.ts';
import { chuteWriter } from './store.ts';
import { storedChuteEffects } from '../../test/support/chute-lifecycle.ts';
import { chuteStateOfServices, serviceStates } from '../../functions/chutes/services.ts';

const temp = useTempDir('chutebox-recover-');

const OLD = { environment: { VERSION: 'one' } };
const NEW = { environment: { VERSION: 'two' } };

/** A change that the change log found `running` at start and marked failed. */
function interrupted(id: number, action: ChangeRecord['action'], chute: string): ChangeRecord {
  const time = '2026-01-02T03:04:05.000Z';
  return {
    id,
    action,
    chute,
    state: 'failed',
    created: time,
    updated: time,
    messages: [{ time, text: 'failed: the runtime stopped while the change was running' }],
  };
}

/** A state dir holding chute `hello` (image `hello:1`, configuration OLD, state running), and what recovery reports. */
async function setUp(name: string) {
  const stateDir = await temp.folder(name);
  const dir = path.join(stateDir, 'chutes');
  await installChute(stateDir, 'hello', 'hello:1', OLD, { state: 'running' });
  const engine = fakeEngine();
  const notes: { id: number; text: string }[] = [];
  const logged: string[] = [];
  const recover = (changes: ChangeRecord[], withEngine = true, finished: ChangeRecord[] = []) =>
    recoverChutes({
      dir,
      engine: withEngine ? engine : null,
      interrupted: changes,
      annotate: async (id, text) => void notes.push({ id, text }),
      change: async (id) => [...changes, ...finished].find((change) => change.id === id) ?? null,
      log: (text) => logged.push(text),
      chuteToken: async (chute) => `token of ${chute}`,
    });
  const file = async (chute: string, base: string) => JSON.parse(await readFile(path.join(dir, chute, `${base}.json`), 'utf8')) as Record<string, unknown>;
  const files = (chute: string) => readdir(path.join(dir, chute)).then((names) => names.sort());
  const writeRollback = (rollback: Rollback) => writeFile(path.join(dir, 'hello', 'rollback.json'), JSON.stringify(rollback));
  return { stateDir, dir, engine, notes, logged, recover, file, files, writeRollback };
}

const summary = (containers: FakeContainer[]) => containers.map(({ name, State }) => ({ name, State }));

describe('recoverChutes: a configuration update that a crash cut short', () => {
  it('after the old container was set aside and a new one made: removes the new one, writes the previous configuration back, gives the old one its name and runs it', async () => {
    const { engine, notes, logged, recover, file, files, writeRollback, dir } = await setUp('set-aside');
    const old = engine.add('hello', { name: 'chute-hello-previous-cccccccccccc', State: 'exited' });
    engine.add('hello', { State: 'created' });
    await writeRollback({ change: 7, config: OLD, container: old.Id, running: true });
    await writeFile(path.join(dir, 'hello', 'service.json'), JSON.stringify(NEW));

    await recover([interrupted(7, 'update-config', 'hello')]);

    expect(engine.all).toEqual([expect.objectContaining({ Id: old.Id, name: 'chute-hello', State: 'running' })]);
    expect(await file('hello', 'service')).toEqual(OLD);
    expect(await files('hello')).toEqual(['chute.json', 'service.json']);
    expect(notes.map((n) => n.id)).toEqual([7, 7, 7, 7]);
    expect(notes.map((n) => n.text)).toEqual([
      expect.stringMatching(/^repaired at the next start: removed container \w{12}, made by the update$/),
      'repaired at the next start: restored the previous configuration',
      `repaired at the next start: gave container ${old.Id.slice(0, 12)} its name back`,
      `repaired at the next start: started container ${old.Id.slice(0, 12)} again`,
    ]);
    expect(logged).toContain('chute hello: restored the previous configuration (change 7 was cut short)');
    expect((await file('hello', 'chute')).state).toBe('running');
  });

  it('of an update from source: also writes the previous record back and removes the image the update built', async () => {
    const { engine, notes, recover, file, files, writeRollback, dir } = await setUp('source-update');
    const old = engine.add('hello', { name: 'chute-hello-previous-cccccccccccc', State: 'exited' });
    engine.add('hello', { State: 'created' });
    engine.images.add('chute-hello:2');
    const previousRecord = await file('hello', 'chute');
    await writeRollback({ change: 8, config: OLD, record: previousRecord, image: 'chute-hello:2', container: old.Id, running: true });
    await writeFile(path.join(dir, 'hello', 'service.json'), JSON.stringify(NEW));
    await writeFile(path.join(dir, 'hello', 'chute.json'), JSON.stringify({ ...previousRecord, image: 'chute-hello:2', version: '2' }));

    await recover([interrupted(8, 'update', 'hello')]);

    expect(engine.all).toEqual([expect.objectContaining({ Id: old.Id, name: 'chute-hello', State: 'running' })]);
    expect(await file('hello', 'service')).toEqual(OLD);
    expect(await file('hello', 'chute')).toMatchObject({ image: 'hello:1', version: previousRecord.version ?? null });
    expect(engine.images.has('chute-hello:2')).toBe(false);
    expect(notes.map((n) => n.text)).toEqual(
      expect.arrayContaining([
        'repaired at the next start: restored the previous record and configuration',
        'repaired at the next start: removed image chute-hello:2, built by the update',
      ]),
    );
    expect(await files('hello')).toEqual(['chute.json', 'service.json']);
  });

  it('before the old container was set aside: writes the previous configuration back and leaves a stopped container stopped', async () => {
    const { engine, recover, file, files, writeRollback } = await setUp('stopped');
    const old = engine.add('hello', { State: 'exited' });
    await writeRollback({ change: 3, config: OLD, container: old.Id, running: false });

    await recover([interrupted(3, 'update-config', 'hello')]);

    expect(summary(engine.all)).toEqual([{ name: 'chute-hello', State: 'exited' }]);
    expect(await file('hello', 'service')).toEqual(OLD);
    expect(await files('hello')).toEqual(['chute.json', 'service.json']);
    expect((await file('hello', 'chute')).state).toBe('stopped');
  });

  it('after the old container was removed already: keeps the new configuration and container, and says so', async () => {
    const { engine, notes, recover, file, files, writeRollback, dir } = await setUp('replaced');
    const made = engine.add('hello', { State: 'running' });
    await writeRollback({ change: 4, config: OLD, container: 'd'.repeat(64), running: true });
    await writeFile(path.join(dir, 'hello', 'service.json'), JSON.stringify(NEW));

    await recover([interrupted(4, 'update-config', 'hello')]);

    expect(engine.all).toEqual([expect.objectContaining({ Id: made.Id, State: 'running' })]);
    expect(await file('hello', 'service')).toEqual(NEW);
    expect(await files('hello')).toEqual(['chute.json', 'service.json']);
    expect(notes).toEqual([{ id: 4, text: expect.stringContaining('kept the new configuration') }]);
  });

  it('of a chute that had no container: removes the one the update made and writes the previous configuration back; the chute is missing', async () => {
    const { engine, recover, file, files, writeRollback } = await setUp('none-before');
    engine.add('hello', { State: 'running' });
    await writeRollback({ change: 5, config: OLD, container: null, running: false });

    await recover([interrupted(5, 'update-config', 'hello')]);

    expect(engine.all).toEqual([]);
    expect(await file('hello', 'service')).toEqual(OLD);
    expect(await files('hello')).toEqual(['chute.json', 'service.json']);
    expect((await file('hello', 'chute')).state).toBe('missing');
  });

  it('whose change had saved succeeded (only the removal of rollback.json was left): keeps the new configuration and container, and removes rollback.json', async () => {
    const { engine, notes, logged, recover, file, files, writeRollback, dir } = await setUp('succeeded');
    const made = engine.add('hello', { State: 'running' });
    await writeRollback({ change: 8, config: OLD, container: 'c'.repeat(64), running: true });
    await writeFile(path.join(dir, 'hello', 'service.json'), JSON.stringify(NEW));

    await recover([], true, [{ ...interrupted(8, 'update-config', 'hello'), state: 'succeeded', messages: [] }]);

    expect(engine.all).toEqual([expect.objectContaining({ Id: made.Id, name: 'chute-hello', State: 'running' })]);
    expect(await file('hello', 'service')).toEqual(NEW);
    expect(await files('hello')).toEqual(['chute.json', 'service.json']);
    expect(notes).toEqual([]);
    expect(logged).toContain('chute hello: removed the rollback of change 8, which had succeeded');
  });

  it('without a reachable engine: leaves the chute, its rollback and its containers for a later start', async () => {
    const { engine, notes, logged, recover, files, writeRollback } = await setUp('no-engine');
    const old = engine.add('hello', { name: 'chute-hello-previous-cccccccccccc', State: 'exited' });
    await writeRollback({ change: 6, config: OLD, container: old.Id, running: true });

    await recover([interrupted(6, 'update-config', 'hello')], false);

    expect(await files('hello')).toEqual(['chute.json', 'rollback.json', 'service.json']);
    expect(summary(engine.all)).toEqual([{ name: 'chute-hello-previous-cccccccccccc', State: 'exited' }]);
    expect(notes).toEqual([]);
    expect(logged).toEqual([expect.stringMatching(/^no container engine is reachable/)]);
  });

  /**
   * The whole path: the real update (chuteEffects) on the fake engine, "killed" by an engine call that
   * never returns, then recovery over what it left on disk and in the engine.
   */
  it.each(['stop', 'rename', 'create', 'start', 'remove'])(
    'cut short at the engine call %s: the chute runs its previous configuration in one container named chute-hello',
    async (call) => {
      const { dir, engine, notes, recover, file, files } = await setUp(`killed-at-${call}`);
      const old = engine.add('hello', { State: 'running' });
      const lifecycle = storedChuteEffects(dir, engine);
      let killed = false;
      engine.before = (name) => {
        if (name !== call) return;
        killed = true;
        return new Promise<void>(() => {}); // the runtime is gone: this call never returns
      };
      void lifecycle['update-config']({ action: 'update-config', chute: 'hello', config: NEW }, async () => {}, 9);
      while (!killed) await new Promise((resolve) => setTimeout(resolve, 1));
      engine.before = undefined;
      expect(await files('hello')).toContain('rollback.json');

      await recover([interrupted(9, 'update-config', 'hello')]);

      expect(engine.all).toEqual([expect.objectContaining({ Id: old.Id, name: 'chute-hello', State: 'running' })]);
      expect(await file('hello', 'service')).toEqual(OLD);
      expect(await files('hello')).toEqual(['chute.json', 'service.json']);
      expect(notes.length).toBeGreaterThan(0);
      expect(notes.every((n) => n.id === 9)).toBe(true);
    },
  );
});

describe('recoverChutes: a chute of two services', () => {
  /** Chute `hello` stored with services web (main, its image hello:1) and db, and recovery on it. */
  async function twoServices(name: string, state = 'running') {
    const setup = await setUp(name);
    const record = {
      ...(await setup.file('hello', 'chute')),
      state,
      main_service: 'web',
      services: { web: { type: 'image', image: 'hello:1' }, db: { type: 'image', image: 'db:1', command: 'serve', environment: { ROLE: 'db' } } },
    };
    await writeFile(path.join(setup.dir, 'hello', 'chute.json'), JSON.stringify(record));
    /** The chute's state as GET /api/v1/chutes/hello derives it from its services' containers. */
    const chuteStateNow = async () => chuteStateOfServices(serviceStates(await setup.engine.listAll(), 'hello', await setup.file('hello', 'chute')));
    return { ...setup, record, chuteStateNow };
  }

  it("of an update cut short after it removed the other service's container: runs the previous main container and makes the other one again in its namespace", async () => {
    const { engine, notes, recover, record, chuteStateNow, writeRollback, dir } = await twoServices('two-update');
    const old = engine.add('hello', { name: 'chute-hello-previous-cccccccccccc', State: 'exited' });
    engine.add('hello', { State: 'created' });
    await writeRollback({ change: 9, config: OLD, record, container: old.Id, running: true });
    await writeFile(path.join(dir, 'hello', 'chute.json'), JSON.stringify({ ...record, version: '2' }));

    await recover([interrupted(9, 'update', 'hello')]);

    const [main, db, ...others] = engine.all;
    expect(others).toEqual([]);
    expect(main).toMatchObject({ Id: old.Id, name: 'chute-hello', State: 'running' });
    expect(db).toMatchObject({ name: 'chute-hello-db', service: 'db', State: 'running' });
    expect(db!.spec).toMatchObject({
      image: 'db:1',
      networkMode: `container:${old.Id}`,
      command: 'serve',
      env: { ROLE: 'db', PARADROP_API_TOKEN: 'token of hello' },
    });
    expect(notes.at(-1)).toEqual({ id: 9, text: `repaired at the next start: made container ${db!.Id.slice(0, 12)} of service db again, and started it` });
    expect(await chuteStateNow()).toBe('running');
  });

  it("replaces another service's container left in the namespace of a main container gone, and removes one of a service the record has not", async () => {
    const { engine, recover, chuteStateNow } = await twoServices('two-stale');
    const main = engine.add('hello', { State: 'running' });
    engine.add('hello', { name: 'chute-hello-db', service: 'db', State: 'exited', spec: { networkMode: `container:${'e'.repeat(64)}` } as never });
    engine.add('hello', { name: 'chute-hello-cache', service: 'cache', State: 'running' });

    await recover([]);

    expect(summary(engine.all)).toEqual([
      { name: 'chute-hello', State: 'running' },
      { name: 'chute-hello-db', State: 'running' },
    ]);
    expect(engine.all[1]!.spec?.networkMode).toBe(`container:${main.Id}`);
    expect(await chuteStateNow()).toBe('running');
  });

  it('leaves whole services as they are, a failed one failed, and makes the missing one of a stopped chute without starting it', async () => {
    const whole = await twoServices('two-whole');
    const main = whole.engine.add('hello', { State: 'running' });
    const db = whole.engine.add('hello', { name: 'chute-hello-db', service: 'db', State: 'exited', spec: { networkMode: `container:${main.Id}` } as never });
    await whole.recover([]);
    expect(whole.engine.all.map((c) => c.Id)).toEqual([main.Id, db.Id]);
    expect(whole.notes).toEqual([]);

    const stopped = await twoServices('two-stopped', 'stopped');
    stopped.engine.add('hello', { State: 'exited' });
    await stopped.recover([]);
    expect(summary(stopped.engine.all)).toEqual([
      { name: 'chute-hello', State: 'exited' },
      { name: 'chute-hello-db', State: 'created' },
    ]);
    expect(await stopped.chuteStateNow()).toBe('stopped');
  });

  it('of an install cut short: removes the containers of every service with the chute', async () => {
    const { engine, recover, dir, record } = await twoServices('two-install');
    await writeFile(path.join(dir, 'hello', 'chute.json'), JSON.stringify({ ...record, state: 'installing' }));
    engine.add('hello', { State: 'running' });
    engine.add('hello', { name: 'chute-hello-db', service: 'db', State: 'running' });
    await recover([interrupted(2, 'install', 'hello')]);
    expect(engine.all).toEqual([]);
  });
});

describe('chuteEffects update-config and its rollback.json', () => {
  it("holds the previous configuration and container before the first engine call, and is gone once the update's succeeded is saved or it was undone", async () => {
    const { dir, engine, files } = await setUp('rollback-file');
    const old = engine.add('hello', { State: 'running' });
    const writer = chuteWriter(dir);
    const lifecycle = storedChuteEffects(dir, engine, writer);
    const seen: unknown[] = [];
    engine.before = async (call) => {
      if (call === 'stop') seen.push(await writer.read('hello', 'rollback'));
    };
    const afterSucceeded = await lifecycle['update-config']({ action: 'update-config', chute: 'hello', config: NEW }, async () => {}, 11);
    expect(seen).toEqual([{ change: 11, config: OLD, container: old.Id, running: true }]);
    // Until the runner has saved `succeeded`, a crash must still be able to undo the update.
    expect(await files('hello')).toEqual(['chute.json', 'rollback.json', 'service.json']);
    await afterSucceeded?.();
    expect(await files('hello')).toEqual(['chute.json', 'service.json']);

    engine.before = (call) => {
      if (call === 'create') throw new Error('No such image: hello:1');
    };
    await expect(lifecycle['update-config']({ action: 'update-config', chute: 'hello', config: OLD }, async () => {}, 12)).rejects.toThrow(
      'the previous configuration is restored',
    );
    expect(await files('hello')).toEqual(['chute.json', 'service.json']);
  });
});

describe('recoverChutes: an install that a crash cut short', () => {
  it('removes the hidden staging folder of the install and notes it on the install change', async () => {
    const { dir, notes, logged, recover } = await setUp('staging');
    await mkdir(path.join(dir, '.fresh.installing-0123456789ab', 'x'), { recursive: true });

    await recover([interrupted(2, 'install', 'fresh')]);

    expect(await readdir(dir)).toEqual(['hello']);
    expect(notes).toEqual([{ id: 2, text: 'repaired at the next start: removed the staging folder of its install' }]);
    expect(logged).toContain('chute fresh: removed the staging folder of its install (change 2 was cut short)');
  });

  it('removes a chute whose record still reads installing and whose install change was interrupted, and its container', async () => {
    const { stateDir, dir, engine, notes, recover } = await setUp('installing');
    await installChute(stateDir, 'fresh', 'fresh:1', {}, { state: 'installing' });
    engine.add('fresh', { State: 'created' });
    engine.add('hello', { State: 'running' });

    await recover([interrupted(8, 'install', 'fresh')]);

    expect(await readdir(dir)).toEqual(['hello']);
    expect(summary(engine.all)).toEqual([{ name: 'chute-hello', State: 'running' }]);
    expect(notes).toEqual([{ id: 8, text: 'repaired at the next start: removed the chute whose install had not finished, and its containers' }]);
  });

  it('keeps a chute that reads installing when no install of it was interrupted', async () => {
    const { stateDir, dir, recover, notes } = await setUp('installing-kept');
    await installChute(stateDir, 'fresh', 'fresh:1', {}, { state: 'installing' });
    await recover([interrupted(8, 'install', 'other')]);
    expect((await readdir(dir)).sort()).toEqual(['fresh', 'hello']);
    expect(notes).toEqual([]);
  });

  it('removes the hidden folder a removal left', async () => {
    const { dir, notes, recover } = await setUp('removal');
    await mkdir(path.join(dir, '.gone.removed-0123456789ab'));
    await recover([interrupted(3, 'delete', 'gone')]);
    expect(await readdir(dir)).toEqual(['hello']);
    expect(notes).toEqual([{ id: 3, text: 'repaired at the next start: removed the folder its removal left' }]);
  });
});

describe('recoverChutes: the stored state of each chute', () => {
  it('becomes missing for a chute whose container vanished, logged on stderr', async () => {
    const { stateDir, engine, logged, recover, file } = await setUp('vanished');
    await installChute(stateDir, 'other', 'other:1', {}, { state: 'running' });
    engine.add('other', { State: 'running' });
    await recover([]);
    expect((await file('hello', 'chute')).state).toBe('missing');
    expect((await file('other', 'chute')).state).toBe('running');
    expect(logged).toEqual(['chute hello: running → missing, as the container engine reports it (its container is gone)']);
  });

  it('stays as stored without a reachable engine', async () => {
    const { recover, file } = await setUp('vanished-no-engine');
    await recover([], false);
    expect((await file('hello', 'chute')).state).toBe('running');
  });
});
