import { describe, expect, it } from 'vitest';
import { rawFixture } from '../../test/support/info-devices.ts';
import { parsePactlDevices, parsePactlInfo, parsePactlModules } from './pactl.ts';

/** What pactl 16.1 printed for a PulseAudio with a null sink (fixtures/raw/pactl/, provenance in fixtures/raw/SOURCES.tsv). */
const pactl = (name: string) => rawFixture(`pactl/${name}`);

describe('pactl', () => {
  it('reads the server and its default sink and source from pactl -f json info', () => {
    expect(parsePactlInfo(pactl('info.json'))).toEqual({
      default_sink_name: 'null',
      default_source_name: 'null.monitor',
      host_name: 'vm',
      server_name: 'pulseaudio',
      server_version: '16.1',
      user_name: 'root',
    });
  });

  it('lists the null sink and its monitor source with one volume per channel, 1 for 100%', () => {
    const sink = { channel_count: 2, channel_list: ['front-left', 'front-right'], index: 0 };
    expect(parsePactlDevices(pactl('sinks.json'))).toEqual([{ ...sink, description: 'Null Output', name: 'null', volume: [1, 1] }]);
    expect(parsePactlDevices(pactl('sources.json'))).toEqual([{ ...sink, description: 'Monitor of Null Output', name: 'null.monitor', volume: [1, 1] }]);
  });

  it('gives each channel its own volume after pactl set-sink-volume null 50% 75%', () => {
    expect(parsePactlDevices(pactl('sinks-uneven.json'))?.[0]?.volume).toEqual([0.5, 0.75]);
  });

  it('lists the modules with their index from the short list and their usage from the JSON', () => {
    expect(parsePactlModules(pactl('modules-short.txt'), pactl('modules.json'))).toEqual([
      { index: 0, name: 'module-native-protocol-unix', n_used: 4294967295 },
      { index: 1, name: 'module-null-sink', n_used: 0 },
    ]);
  });

  it('answers null for what pactl does not print', () => {
    expect(parsePactlInfo('Server Name: pulseaudio\n')).toBeNull();
    expect(parsePactlDevices('[{"name":"null"}]')).toBeNull();
    expect(parsePactlModules('0\tmodule-a\t\n', '[{"name":"module-b","usage_counter":"0"}]')).toBeNull();
  });
});
