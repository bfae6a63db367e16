import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as infoGet from '../../functions/audio/info.get.ts';
import * as infoPut from '../../functions/audio/info.put.ts';
import * as modulesGet from '../../functions/audio/modules.get.ts';
import * as modulesPost from '../../functions/audio/modules.post.ts';
import * as sinkVolume from '../../functions/audio/sink-volume.put.ts';
import * as sinks from '../../functions/audio/sinks.get.ts';
import { callFunction } from '../../test/support/call-function.ts';
import { memoryDevice } from '../../test/support/memory-device.ts';
import { type RunningPulseaudio, skipWithoutPulseaudio, startPulseaudio } from '../../test/support/pulseaudio.ts';
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
