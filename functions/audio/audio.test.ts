import { describe, expect, it } from 'vitest';
import { callFunction } from '../../test/support/call-function.ts';
import { memoryDevice } from '../../test/support/memory-device.ts';
import { nullSinkPactl } from '../../test/support/pulseaudio.ts';
import * as infoGet from './info.get.ts';
import * as infoPut from './info.put.ts';
import * as modulesGet from './modules.get.ts';
import * as modulesPost from './modules.post.ts';
import * as sinkVolume from './sink-volume.put.ts';
import * as sinks from './sinks.get.ts';
import * as sourceVolume from './source-volume.put.ts';
import * as sources from './sources.get.ts';

/** A device whose audio server answers what the real pactl printed for a null sink (fixtures/raw/pactl/). */
const audioDevice = () => memoryDevice({ audio: nullSinkPactl() });

describe('/api/v1/audio', () => {
  it('answers the server, the null sink, its monitor and the modules in ParaDrop shapes', async () => {
    const device = audioDevice();
    expect((await callFunction(infoGet, device)).body).toMatchObject({ default_sink_name: 'null', server_name: 'pulseaudio' });
    expect((await callFunction(sinks, device)).body).toMatchObject([{ name: 'null', volume: [1, 1], channel_count: 2 }]);
    expect((await callFunction(sources, device)).body).toMatchObject([{ name: 'null.monitor' }]);
    expect((await callFunction(modulesGet, device)).body).toEqual([
      { index: 0, name: 'module-native-protocol-unix', n_used: 4294967295 },
      { index: 1, name: 'module-null-sink', n_used: 0 },
    ]);
  });

  it('sets a sink volume for every channel or per channel, and the sink list shows it', async () => {
    const device = audioDevice();
    expect((await callFunction(sinkVolume, device, { sink: 'null' }, [0.5])).body).toEqual([0.5]);
    expect((await callFunction(sinks, device)).body).toMatchObject([{ volume: [0.5, 0.5] }]);
    await callFunction(sourceVolume, device, { source: 'null.monitor' }, [0.25, 0.75]);
    expect((await callFunction(sources, device)).body).toMatchObject([{ volume: [0.25, 0.75] }]);
  });

  it('sets the default sink to one the server has, and loads a module with the next index', async () => {
    const device = audioDevice();
    expect((await callFunction(infoPut, device, {}, { default_source_name: 'null' }, { refusedByDevice: true })).status).toBe(422);
    expect((await callFunction(infoPut, device, {}, { default_sink_name: 'null' })).body).toEqual({ default_sink_name: 'null' });
    expect((await callFunction(modulesPost, device, {}, { name: 'module-null-sink' })).body).toEqual({ index: 2, name: 'module-null-sink' });
    expect((await callFunction(modulesGet, device)).body).toHaveLength(3);
  });

  const refused: [string, Parameters<typeof callFunction>[0], Record<string, string>, unknown, number, string, boolean?][] = [
    ['an unknown sink', sinkVolume, { sink: 'nosink' }, [0.5], 404, ''],
    ['a volume over 1.5', sinkVolume, { sink: 'null' }, [2], 422, 'body[0]'],
    ['a negative volume', sinkVolume, { sink: 'null' }, [-0.1], 422, 'body[0]'],
    ['three volumes for two channels', sinkVolume, { sink: 'null' }, [0.1, 0.2, 0.3], 422, 'body', true],
    ['a module name with arguments', modulesPost, {}, { name: 'module-null-sink sink_name=x' }, 422, 'body.name'],
    ['a module name that is an option', modulesPost, {}, { name: '--help' }, 422, 'body.name'],
    ['a sink name with a space', infoPut, {}, { default_sink_name: 'null x' }, 422, 'body.default_sink_name'],
  ];
  it.each(refused)('refuses %s and changes nothing', async (_what, module, params, body, status, path, refusedByDevice) => {
    const device = audioDevice();
    const before = await Promise.all([device.audio.pactl('sinks'), device.audio.pactl('info'), device.audio.pactl('modules')]);
    const answer = await callFunction(module, device, params, body, { refusedByDevice: refusedByDevice ?? false });
    expect(answer.status).toBe(status);
    if (path !== '') expect(JSON.stringify(answer.body)).toContain(`"${path}"`);
    expect(await Promise.all([device.audio.pactl('sinks'), device.audio.pactl('info'), device.audio.pactl('modules')])).toEqual(before);
  });

  it('answers 503 where the device has no audio server', async () => {
    expect((await callFunction(sinks, memoryDevice())).status).toBe(503);
  });
});
