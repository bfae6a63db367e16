import * as z from 'zod/mini';

/*
 * The bodies the audio endpoints validate at run time (`validate`), kept apart from schemas.ts so a
 * handler's bundle carries the body it checks and nothing more.
 */

/** The loudest volume taken, 150% (ParaDrop's own example lists a sink at 1.5). */
export const MAX_VOLUME = 1.5;

/** PUT …/volume: one volume for every channel, or one per channel, each from 0 to `MAX_VOLUME` (1 is 100%). */
export const VolumeSchema = z
  .array(z.number().check(z.gte(0, { error: 'must be at least 0' }), z.lte(MAX_VOLUME, { error: `must be at most ${MAX_VOLUME}` })), {
    error: 'must be a list of volumes',
  })
  .check(z.minLength(1, { error: 'must name at least one volume' }));
export type Volume = z.infer<typeof VolumeSchema>;

/** A name PulseAudio gives a sink or a source: no spaces or control characters. */
const DEVICE_NAME = /^[A-Za-z0-9_.:-]{1,128}$/;

/** PUT /api/v1/audio/info: the default sink, the default source, or both. */
export const AudioDefaultsSchema = z.strictObject({
  default_sink_name: z.optional(z.string().check(z.regex(DEVICE_NAME, { error: 'must be a sink name' }))),
  default_source_name: z.optional(z.string().check(z.regex(DEVICE_NAME, { error: 'must be a source name' }))),
});
export type AudioDefaults = z.infer<typeof AudioDefaultsSchema>;

/** POST /api/v1/audio/modules: a module's name, `module-` then lower-case words; no arguments. */
export const ModuleLoadSchema = z.strictObject({
  name: z.string({ error: 'is required' }).check(z.regex(/^module-[a-z0-9]+(?:-[a-z0-9]+)*$/, { error: 'must be a module name such as module-loopback' })),
});
export type ModuleLoad = z.infer<typeof ModuleLoadSchema>;
