import { afterEach, describe, expect, it, vi } from 'vitest';
import { memoryDevice } from '../../test/support/memory-device.ts';
import { settledChange as settled } from '../../test/support/emulated-changes.ts';
import type { Device, DeviceEventBody } from '../../functions/core/device/index.ts';
import { chuteState } from '../../functions/chutes/state.ts';
import { emulatedClock, settled as timersSet } from '../emulated-clock.ts';
import { emulatedChanges, type EmulatedChangeOptions } from './changes.ts';

const LABEL = 'io.chutebox.chute';

/** A scenario with two chutes: `web`, whose recorded container runs, and `fresh`, without one. */
function scenario(
  containers: Record<string, unknown>[] | null = [
    { Id: 'aa01', Names: ['/web'], Labels: { [LABEL]: 'web' }, State: 'running', Status: 'Up 2 days', Created: 1 },
  ],
) {
  return emulatedChanges(
    memoryDevice({
      chutes: {
        web: { record: { name: 'web', version: '1', state: 'running' }, config: { web: { port: 80 } } },
        fresh: { record: { name: 'fresh', image: 'busybox:1' } },
      },
      containers,
      stats: { aa01: { read: 'recorded' } },
    }),
    options(0),
  );
}

/** Emulated changes after `delayMs` of `clock`'s time (a clock at the real time's pace by default), with host-level effects that only record what they were asked. */
function options(delayMs: number, record: string[] = [], clock = emulatedClock()) {
  return {
    delayMs,
    sleep: clock.sleep,
    async applyHostConfig(request: { config: Record<string, unknown> }, note: (text: string) => Promise<void>) {
      record.push(`apply ${JSON.stringify(request.config)}`);
      await note('stored the host configuration');
    },
    async resetDevice() {
      record.push('reset');
    },
    /** A controller that offers no release. */
    releases: { release: async () => null },
  };
}

async function state(device: Device, chute: string): Promise<string> {
  return chuteState(await device.containers(), chute, (await device.chute(chute))?.record.state);
}

describe('emulatedChanges', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('answers a queued record at once, and the change goes queued → running → succeeded with a message at each step', async () => {
    const device = scenario();
    const queued = await device.submitChange({ action: 'stop', chute: 'web' });
    expect(queued).toMatchObject({ id: 1, action: 'stop', chute: 'web', state: 'queued', messages: [{ text: 'queued' }] });
    const done = await settled(device, 1);
    expect(done.state).toBe('succeeded');
    expect(done.messages.map((m) => m.text)).toEqual(['queued', 'running', 'stopped container aa01', 'succeeded']);
    expect(Date.parse(done.updated)).toBeGreaterThanOrEqual(Date.parse(done.created));
    expect(await device.changes()).toEqual([done]);
  });

  it('stops and starts the container, which the chute state follows; a stopped container has no stats', async () => {
    const device = scenario();
    await settled(device, (await device.submitChange({ action: 'stop', chute: 'web' })).id);
    expect(await state(device, 'web')).toBe('stopped');
    expect(await device.containerStats('aa01')).toBeNull();
    await settled(device, (await device.submitChange({ action: 'start', chute: 'web', environment: { MODE: 'x' } })).id);
    expect(await state(device, 'web')).toBe('running');
    expect(await device.containerStats('aa01')).toEqual({ read: 'recorded' });
  });

  it('gives a chute without a container one on start, labelled as the chute', async () => {
    const device = scenario();
    expect(await state(device, 'fresh')).toBe('missing');
    const done = await settled(device, (await device.submitChange({ action: 'start', chute: 'fresh' })).id);
    expect(done.messages.map((m) => m.text)).toContainEqual(expect.stringMatching(/^created container [0-9a-f]{12} from image busybox:1$/));
    expect(await state(device, 'fresh')).toBe('running');
    expect((await device.containers())!.find((c) => (c.Labels as Record<string, string>)[LABEL] === 'fresh')).toMatchObject({
      Image: 'busybox:1',
      Names: ['/chute-fresh'],
    });
  });

  it('runs the changes to one chute in order: a start queued after a delete fails, the chute is gone', async () => {
    const device = scenario();
    const deleted = await device.submitChange({ action: 'delete', chute: 'web' });
    const started = await device.submitChange({ action: 'start', chute: 'web' });
    expect((await settled(device, deleted.id)).state).toBe('succeeded');
    const failed = await settled(device, started.id);
    expect(failed.state).toBe('failed');
    expect(failed.messages.at(-1)!.text).toBe('failed: chute web is not installed');
    expect(await device.chute('web')).toBeNull();
    expect(await device.chuteNames()).toEqual(['fresh']);
    expect(await device.containers()).toEqual([]);
  });

  it('replaces the configuration on update-config, and the container runs', async () => {
    const device = scenario();
    await settled(device, (await device.submitChange({ action: 'stop', chute: 'web' })).id);
    await settled(device, (await device.submitChange({ action: 'update-config', chute: 'web', config: { web: { port: 8080 } } })).id);
    expect((await device.chute('web'))!.config).toEqual({ web: { port: 8080 } });
    expect(await state(device, 'web')).toBe('running');
  });

  it('without a container engine, records the last known state in the chute record', async () => {
    const device = scenario(null);
    await settled(device, (await device.submitChange({ action: 'stop', chute: 'web' })).id);
    expect(await state(device, 'web')).toBe('stopped');
    expect(await device.containers()).toBeNull();
  });

  it('installs a chute: installing while queued, then its container runs the image; the name is then taken', async () => {
    // The clock stands still until the install has been seen queued.
    const clock = emulatedClock({ speed: 0 });
    const device = emulatedChanges(memoryDevice({ chutes: { web: { record: { name: 'web' } } }, containers: [] }), options(5, [], clock));
    const install = {
      action: 'install',
      chute: 'new',
      image: 'busybox:1',
      version: '1',
      config: { web: { port: 80 } },
      environment: { MODE: 'x' },
      allocation: { cpu_shares: 512 },
    } as const;
    const queued = await device.submitChange(install);
    expect(queued).toMatchObject({ action: 'install', chute: 'new', state: 'queued', messages: [{ text: 'queued' }] });
    expect(await device.chuteNames()).toEqual(['new', 'web']);
    expect(await state(device, 'new')).toBe('installing');
    const taken = await device.submitChange({ ...install, image: 'busybox:2' });
    await clock.set({ advanceMs: 20 });
    expect((await settled(device, queued.id)).state).toBe('succeeded');
    expect(await state(device, 'new')).toBe('running');
    expect(await device.chute('new')).toEqual({
      name: 'new',
      record: { name: 'new', version: '1', state: 'running', image: 'busybox:1', environment: { MODE: 'x' }, allocation: { cpu_shares: 512 }, resources: null },
      config: { web: { port: 80 } },
      cache: {},
    });
    expect((await device.containers())!).toEqual([
      expect.objectContaining({ Image: 'busybox:1', Names: ['/chute-new'], Labels: { [LABEL]: 'new' }, State: 'running' }),
    ]);
    const failed = await settled(device, taken.id);
    expect(failed.messages.at(-1)!.text).toBe('failed: a chute named new is already installed');
    expect((await device.chute('new'))!.record.image).toBe('busybox:1');
  });

  it('numbers changes from 1 up, and answers null for an unknown id', async () => {
    const device = scenario();
    const ids = [];
    for (const chute of ['web', 'fresh', 'web']) ids.push((await device.submitChange({ action: 'restart', chute })).id);
    expect(ids).toEqual([1, 2, 3]);
    expect(await device.change(4)).toBeNull();
    for (const id of ids) expect((await settled(device, id)).state).toBe('succeeded');
  });

  it('applies a host configuration as a change to the device, recorded without a chute', async () => {
    const done: string[] = [];
    const device = emulatedChanges(memoryDevice(), options(0, done));
    const change = await device.submitChange({ action: 'update-hostconfig', config: { system: { hostname: 'lab' } } });
    expect(change.chute).toBeNull();
    const final = await settled(device, change.id);
    expect(final.state).toBe('succeeded');
    expect(final.messages.map((m) => m.text)).toContain('stored the host configuration');
    expect(done).toEqual(['apply {"system":{"hostname":"lab"}}']);
  });

  it('reboots and shuts down the device only in words: the change succeeds without a chute, saying the emulated device does not really do it', async () => {
    const done: string[] = [];
    const device = emulatedChanges(memoryDevice(), options(0, done));
    const reboot = await device.submitChange({ action: 'reboot' });
    expect(reboot).toMatchObject({ action: 'reboot', chute: null, state: 'queued', messages: [{ text: 'queued' }] });
    expect((await settled(device, reboot.id)).messages.map((m) => m.text)).toEqual([
      'queued',
      'running',
      'the emulated device does not really reboot: nothing is restarted, its uptime goes on, and what changed since the emulator started stays',
      'succeeded',
    ]);
    const shutdown = await settled(device, (await device.submitChange({ action: 'shutdown' })).id);
    expect(shutdown).toMatchObject({ state: 'succeeded', chute: null });
    expect(shutdown.messages.map((m) => m.text)).toContain('the emulated device does not really shut down: it goes on answering as before');
    expect(done).toEqual([]);
  });

  it('refuses a reboot with 409 while a factory reset runs', async () => {
    const device = emulatedChanges(memoryDevice({ chutes: { web: { record: { name: 'web' } } }, containers: [] }), options(0));
    await device.submitChange({ action: 'stop', chute: 'web' });
    const reset = device.factoryReset();
    await expect(device.submitChange({ action: 'reboot' })).rejects.toMatchObject({ status: 409 });
    await expect(reset).resolves.toMatchObject({ success: true });
    expect(await device.changes()).toEqual([]);
  });

  it('a factory reset waits for queued changes, then removes every chute and its containers, forgets the changes and resets the device', async () => {
    const done: string[] = [];
    const device = emulatedChanges(
      memoryDevice({
        chutes: { web: { record: { name: 'web' } } },
        containers: [{ Id: 'aa01', Names: ['/web'], Labels: { [LABEL]: 'web' }, State: 'running' }],
      }),
      options(0, done),
    );
    const stop = await device.submitChange({ action: 'stop', chute: 'web' });
    const reset = device.factoryReset();
    await expect(device.submitChange({ action: 'start', chute: 'web' })).rejects.toMatchObject({ status: 409 });
    await expect(reset).resolves.toMatchObject({ success: true });

    expect(done).toEqual(['reset']);
    expect(await device.chuteNames()).toEqual([]);
    expect(await device.chute('web')).toBeNull();
    expect(await device.containers()).toEqual([]);
    expect(await device.changes()).toEqual([]);
    expect(await device.change(stop.id)).toBeNull();
  });
});

describe('the events of emulated changes', () => {
  it('publishes each state a change puts a chute in, with the one before, once the chute reads so: stop, start, restart, install, delete', async () => {
    const published: DeviceEventBody[] = [];
    const read: Promise<{ chute: string; state: string; now: string }>[] = [];
    const device: Device = emulatedChanges(
      memoryDevice({
        chutes: { web: { record: { name: 'web', version: '1', state: 'running' } } },
        containers: [{ Id: 'aa01', Names: ['/web'], Labels: { [LABEL]: 'web' }, State: 'running', Status: 'Up 2 days', Created: 1 }],
      }),
      {
        ...options(0),
        publish(body) {
          published.push(body);
          // What the device answers at the moment the event is published.
          if (body.kind === 'chute.state') read.push(state(device, body.chute).then((now) => ({ chute: body.chute, state: body.state, now })));
        },
      },
    );
    const install = { action: 'install', chute: 'new', image: 'busybox:1', version: '1', config: {}, environment: {}, allocation: {} } as const;
    for (const request of [
      { action: 'stop', chute: 'web' },
      { action: 'start', chute: 'web' },
      { action: 'restart', chute: 'web' },
      install,
      { action: 'delete', chute: 'web' },
    ] as const) {
      await settled(device, (await device.submitChange(request)).id);
    }
    const states = published.filter((body) => body.kind === 'chute.state');
    expect(states).toEqual([
      { kind: 'chute.state', chute: 'web', state: 'stopped', previous: 'running' },
      { kind: 'chute.state', chute: 'web', state: 'running', previous: 'stopped' },
      { kind: 'chute.state', chute: 'web', state: 'stopped', previous: 'running' },
      { kind: 'chute.state', chute: 'web', state: 'running', previous: 'stopped' },
      { kind: 'chute.state', chute: 'new', state: 'installing', previous: null },
      { kind: 'chute.state', chute: 'new', state: 'running', previous: 'installing' },
      { kind: 'chute.state', chute: 'web', state: 'stopped', previous: 'running' },
    ]);
    // Each was published once the chute was so (a deleted chute reads `missing`); a restart's first state is gone by the end of its change.
    expect((await Promise.all(read)).filter((seen) => seen.state !== seen.now)).toEqual([
      { chute: 'web', state: 'stopped', now: 'running' },
      { chute: 'web', state: 'stopped', now: 'missing' },
    ]);
  });
});

describe('emulated changes carried on from a snapshot', () => {
  /** A device with the chute `web` running, on `clock`, its changes taking 100 ms a step; restored from `state` when given. */
  function onClock(clock: ReturnType<typeof emulatedClock>, restored: Pick<EmulatedChangeOptions, 'state' | 'resume'> = {}) {
    const base = memoryDevice({
      chutes: { web: { record: { name: 'web', version: '1', state: 'running' }, config: { web: { port: 80 } } } },
      containers: [{ Id: 'aa01', Names: ['/web'], Labels: { [LABEL]: 'web' }, State: 'running', Status: 'Up 2 days', Created: 1 }],
    });
    return emulatedChanges({ ...base, now: clock.now }, { ...options(100, [], clock), ...restored });
  }
  const install = { action: 'install', chute: 'new', image: 'busybox:1', version: '1', config: {}, environment: {}, allocation: {} } as const;

  it('ends each change a restored device carries on at the time, and with the messages, it would have had on the device the snapshot was taken of', async () => {
    const clock = emulatedClock({ now: Date.UTC(2026, 10, 28, 9, 0, 0), speed: 0 });
    const device = onClock(clock);
    await device.submitChange({ action: 'stop', chute: 'web' });
    await device.submitChange({ action: 'start', chute: 'web' });
    await device.submitChange(install);
    await device.submitChange({ ...install, image: 'busybox:2' });
    await clock.set({ advanceMs: 50 });
    await device.submitChange({ action: 'reboot' });
    await clock.set({ advanceMs: 80 });
    // 130 ms in: the stop and the first install run, the start and the second install wait behind them, the reboot waits its turn.
    expect((await device.changes()).map((change) => change.state)).toEqual(['running', 'queued', 'running', 'queued', 'queued']);
    const state = await device.snapshot();
    const underWay = device.underWay();
    expect(underWay.map(({ id, turnAt, conflicting }) => ({ id, turnAt, conflicting }))).toEqual([
      { id: 1, turnAt: null, conflicting: undefined },
      { id: 2, turnAt: null, conflicting: undefined },
      { id: 3, turnAt: null, conflicting: undefined },
      { id: 4, turnAt: null, conflicting: true },
      { id: 5, turnAt: clock.now() - 80, conflicting: undefined },
    ]);

    const later = emulatedClock({ now: clock.now(), speed: 0 });
    const restored = onClock(later, { state, resume: JSON.parse(JSON.stringify(underWay)) });
    // As a restore does: the changes carried on set their first timers, then the clock moves.
    await timersSet();
    await Promise.all([clock.set({ advanceMs: 1000 }), later.set({ advanceMs: 1000 })]);
    const ended = await device.changes();
    expect(ended.map((change) => change.state)).toEqual(['succeeded', 'succeeded', 'succeeded', 'failed', 'succeeded']);
    expect(await restored.changes()).toEqual(ended);
    expect(await restored.snapshot()).toEqual(await device.snapshot());
    expect(restored.underWay()).toEqual([]);
  });

  it('marks failed the changes of a snapshot it is not told to carry on', async () => {
    const clock = emulatedClock({ speed: 0 });
    const device = onClock(clock);
    await device.submitChange({ action: 'stop', chute: 'web' });
    const restored = onClock(emulatedClock({ now: clock.now(), speed: 0 }), { state: await device.snapshot() });
    expect((await restored.changes()).map((change) => change.state)).toEqual(['failed']);
    expect(restored.underWay()).toEqual([]);
  });
});
