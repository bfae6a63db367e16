import { chmod, mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import * as infoGet from '../../functions/audio/info.get.ts';
import * as infoPut from '../../functions/audio/info.put.ts';
import * as modulesGet from '../../functions/audio/modules.get.ts';
import * as modulesPost from '../../functions/audio/modules.post.ts';
import * as sinkVolume from '../../functions/audio/sink-volume.put.ts';
import * as sinks from '../../functions/audio/sinks.get.ts';
import { callFunction } from '../../test/support/call-function.ts';
import { memoryDevice } from '../../test/support/memory-device.ts';
import { findOnPath } from '../../test/support/dockerd.ts';
import { type RunningPulseaudio, skipWithoutPulseaudio, startPulseaudio } from '../../test/support/pulseaudio.ts';
import { useTempDir } from '../../test/support/temp-dir.ts';
import { hostAudio } from './host-audio.ts';

describe.skipIf(skipWithoutPulseaudio('host-audio.test.ts'))('the audio routes on a real PulseAudio through pactl', () => {
  let pulse: RunningPulseaudio;
  const device = () => ({ ...memoryDevice(), ...hostAudio() });
  beforeAll(async () => {
    pulse = await startPulseaudio();
    process.env.PULSE_SERVER = pulse.server;
  });
  afterAll(async () => {
    delete process.env.PULSE_SERVER;
    await pulse?.stop();
  });

  it('lists the null sink, sets its volume per channel, and the next listing shows it', async () => {
    expect((await callFunction(infoGet, device())).body).toMatchObject({ default_sink_name: 'null', server_name: 'pulseaudio' });
    expect((await callFunction(sinkVolume, device(), { sink: 'null' }, [0.5, 0.75])).status).toBe(200);
    expect((await callFunction(sinks, device())).body).toMatchObject([{ name: 'null', volume: [0.5, 0.75] }]);
  });

  it('loads a module under the index pactl gives it, and sets the default source', async () => {
    const loaded = await callFunction<{ index: number }>(modulesPost, device(), {}, { name: 'module-null-sink' });
    expect(loaded.status).toBe(200);
    expect((await callFunction<{ index: number; name: string }[]>(modulesGet, device())).body.at(-1)).toMatchObject({
      index: loaded.body.index,
      name: 'module-null-sink',
    });
    expect((await callFunction(infoPut, device(), {}, { default_source_name: 'null.monitor' })).status).toBe(200);
  });

  it('answers 422 naming the module for one PulseAudio cannot load, and loads nothing', async () => {
    const before = (await callFunction<unknown[]>(modulesGet, device())).body;
    const answer = await callFunction(modulesPost, device(), {}, { name: 'module-nosuch' }, { refusedByDevice: true });
    expect(answer).toMatchObject({ status: 422, body: { errors: [{ path: 'body.name' }] } });
    expect((await callFunction(modulesGet, device())).body).toEqual(before);
  });

  it('answers 503 when no audio server answers', async () => {
    process.env.PULSE_SERVER = 'unix:/nonexistent/pulse.sock';
    try {
      expect((await callFunction(sinks, device())).status).toBe(503);
    } finally {
      process.env.PULSE_SERVER = pulse.server;
    }
  });
});

describe.skipIf(skipWithoutPulseaudio('host-audio.test.ts'))('how often serve runs pactl', () => {
  const temp = useTempDir('chutebox-host-audio-');
  const saved = { PATH: process.env.PATH, XDG_RUNTIME_DIR: process.env.XDG_RUNTIME_DIR, PULSE_SERVER: process.env.PULSE_SERVER };
  let pulse: RunningPulseaudio | undefined;
  afterEach(() => {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  });
  afterAll(async () => pulse?.stop());

  /** Puts a pactl first on PATH that writes each run's arguments to a file, then runs the real one; answers the runs so far. */
  async function countedPactl(): Promise<() => Promise<string[]>> {
    const dir = await temp.folder(`bin-${Math.random().toString(16).slice(2)}`);
    const runs = path.join(dir, 'runs');
    await writeFile(runs, '');
    await writeFile(path.join(dir, 'pactl'), `#!/bin/sh\necho "$*" >> '${runs}'\nexec '${findOnPath('pactl')}' "$@"\n`);
    await chmod(path.join(dir, 'pactl'), 0o755);
    process.env.PATH = `${dir}:${saved.PATH}`;
    return async () => (await readFile(runs, 'utf8')).split('\n').filter(Boolean);
  }

  it('runs no pactl on a device where no audio server can listen, and lists no audio', async () => {
    const runs = await countedPactl();
    delete process.env.PULSE_SERVER;
    process.env.XDG_RUNTIME_DIR = await temp.folder('empty-runtime');
    expect(await hostAudio().audio.pactl('info')).toBeNull();
    expect(await runs()).toEqual([]);
  });

  it("finds a server by the socket in the user's runtime folder, as pactl does", async () => {
    pulse ??= await startPulseaudio();
    const runtime = await temp.folder('runtime');
    await mkdir(path.join(runtime, 'pulse'));
    await symlink(pulse.server.replace(/^unix:/, ''), path.join(runtime, 'pulse', 'native'));
    delete process.env.PULSE_SERVER;
    process.env.XDG_RUNTIME_DIR = runtime;
    expect(JSON.parse((await hostAudio().audio.pactl('info')) ?? 'null')).toMatchObject({ server_name: 'pulseaudio' });
  });

  it('shares one pactl run among concurrent listings, and lists anew after a change', async () => {
    pulse ??= await startPulseaudio();
    process.env.PULSE_SERVER = pulse.server;
    const runs = await countedPactl();
    const audio = hostAudio().audio;
    const listings = await Promise.all([1, 2, 3, 4].map(() => audio.pactl('sinks')));
    expect(new Set(listings).size).toBe(1);
    expect(await runs()).toEqual(['-f json list sinks']);
    await audio.setVolume('sink', 'null', [32768]);
    expect(await audio.pactl('sinks')).toContain('"value":32768');
    expect(await runs()).toEqual(['-f json list sinks', 'set-sink-volume null 32768', '-f json list sinks']);
  });
});
