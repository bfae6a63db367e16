import * as z from 'zod/mini';

export { AudioDefaultsSchema, type AudioDefaults, ModuleLoadSchema, type ModuleLoad, VolumeSchema, type Volume } from './audio-body.ts';
import { AudioDefaultsSchema, ModuleLoadSchema, VolumeSchema } from './audio-body.ts';
import { PactlServerSchema } from '../parsers/pactl.ts';

/*
 * The requests and responses of /api/v1/audio, in ParaDrop's shapes (its daemon's audio_api.py).
 */

/** The request of an endpoint that takes no path parameters, no query and no body. */
export const NoAudioInputSchema = z.object({ params: z.object({}), body: z.undefined() });

/** GET /api/v1/audio/info: the audio server. */
export const AudioServerSchema = z.strictObject(PactlServerSchema.shape);

/** A sink or a source: one volume per channel, 1 for 100%. */
export const AudioDeviceSchema = z.strictObject({
  channel_count: z.int(),
  channel_list: z.array(z.string()),
  description: z.string(),
  index: z.int(),
  name: z.string(),
  volume: z.array(z.number()),
});
export const AudioDeviceListSchema = z.array(AudioDeviceSchema);

/** A loaded module; `n_used` is 4294967295 where PulseAudio does not count its users. */
export const AudioModuleListSchema = z.array(z.strictObject({ index: z.int(), name: z.string(), n_used: z.int() }));

/** POST /api/v1/audio/modules: the loaded module's index and name. */
export const LoadedModuleSchema = z.strictObject({ index: z.int(), name: z.string() });
export type LoadedModule = z.infer<typeof LoadedModuleSchema>;

export const AudioDefaultsRequestSchema = z.object({ params: z.object({}), body: AudioDefaultsSchema });
export const ModuleLoadRequestSchema = z.object({ params: z.object({}), body: ModuleLoadSchema });
export const SinkVolumeRequestSchema = z.object({ params: z.object({ sink: z.string() }), body: VolumeSchema });
export const SourceVolumeRequestSchema = z.object({ params: z.object({ source: z.string() }), body: VolumeSchema });
