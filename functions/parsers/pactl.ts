import * as z from 'zod/mini';

/** PulseAudio's volume for 100% (`PA_VOLUME_NORM`): ParaDrop's volumes are a channel's value over it. */
export const PA_VOLUME_NORM = 65536;

/** What `pactl` prints for a module whose usage it does not count; ParaDrop answers `PA_INVALID_INDEX`. */
const UNCOUNTED = 4294967295;

/** The audio server, as ParaDrop's `GET /api/v1/audio/info` answers it. */
export interface AudioServer {
  default_sink_name: string;
  default_source_name: string;
  host_name: string;
  server_name: string;
  server_version: string;
  user_name: string;
}

/** A sink or a source, as ParaDrop lists them: `volume` holds one value per channel, 1 for 100%. */
export interface AudioDevice {
  channel_count: number;
  channel_list: string[];
  description: string;
  index: number;
  name: string;
  volume: number[];
}

/** A loaded module, as ParaDrop lists them: `n_used` is `4294967295` where PulseAudio does not count. */
export interface AudioModule {
  index: number;
  name: string;
  n_used: number;
}

/** The fields of `pactl -f json info` that ParaDrop answers (pactl prints more). */
export const PactlServerSchema = z.object({
  default_sink_name: z.string(),
  default_source_name: z.string(),
  host_name: z.string(),
  server_name: z.string(),
  server_version: z.string(),
  user_name: z.string(),
});

const DevicesSchema = z.array(
  z.object({
    index: z.int(),
    name: z.string(),
    description: z.string(),
    channel_map: z.string(),
    volume: z.record(z.string(), z.object({ value: z.number() })),
  }),
);

const ModulesSchema = z.array(z.object({ name: z.string(), usage_counter: z.string() }));

/**
 * `pactl -f json info`: the server and its defaults; null when it is not that JSON.
 *
 * @example
 * parsePactlInfo('{"user_name":"root","host_name":"vm","server_name":"pulseaudio","server_version":"16.1",…}')
 * // { default_sink_name: 'null', default_source_name: 'null.monitor', host_name: 'vm', … }
 */
export function parsePactlInfo(text: string): AudioServer | null {
  const parsed = PactlServerSchema.safeParse(json(text));
  return parsed.success ? parsed.data : null;
}

/**
 * `pactl -f json list sinks` (or `sources`): each one with its channels in the channel map's order and
 * their volumes over `PA_VOLUME_NORM`; null when it is not that JSON.
 *
 * @example
 * parsePactlDevices('[{"index":0,"name":"null","description":"Null Output","channel_map":"front-left,front-right",
 *   "volume":{"front-left":{"value":32768},"front-right":{"value":65536}},…}]')
 * // [{ channel_count: 2, channel_list: ['front-left', 'front-right'], description: 'Null Output', index: 0, name: 'null', volume: [0.5, 1] }]
 */
export function parsePactlDevices(text: string): AudioDevice[] | null {
  const parsed = DevicesSchema.safeParse(json(text));
  if (!parsed.success) return null;
  return parsed.data.map((device) => {
    const channels = device.channel_map.split(',');
    return {
      channel_count: channels.length,
      channel_list: channels,
      description: device.description,
      index: device.index,
      name: device.name,
      volume: channels.map((channel) => (device.volume[channel]?.value ?? 0) / PA_VOLUME_NORM),
    };
  });
}

/**
 * The loaded modules from `pactl list short modules` (index, name, arguments, tab-separated) and
 * `pactl -f json list modules` (which has the usage count but, in 16.1, no index), joined line by
 * entry; null when either is not what pactl prints or they name different modules.
 *
 * @example
 * parsePactlModules('1\tmodule-null-sink\t\t\n', '[{"name":"module-null-sink","argument":"","usage_counter":"0"}]')
 * // [{ index: 1, name: 'module-null-sink', n_used: 0 }]
 */
export function parsePactlModules(short: string, jsonText: string): AudioModule[] | null {
  const counted = ModulesSchema.safeParse(json(jsonText));
  const lines = short.split('\n').filter((line) => line !== '');
  if (!counted.success || counted.data.length !== lines.length) return null;
  const modules: AudioModule[] = [];
  for (const [at, line] of lines.entries()) {
    const [index, name] = line.split('\t');
    const entry = counted.data[at];
    if (entry === undefined || !/^\d+$/.test(index ?? '') || entry.name !== name) return null;
    const used = /^\d+$/.test(entry.usage_counter) ? Number(entry.usage_counter) : UNCOUNTED;
    modules.push({ index: Number(index), name: entry.name, n_used: used });
  }
  return modules;
}

/** The value of a JSON text, or undefined when it is not JSON. */
function json(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
