import { defineRoute } from '../core/route.ts';
import type { Handler } from '../core/handler.ts';
import { validate } from '../core/validate.ts';
import { setVolume } from './pactl-listing.ts';
import { SourceVolumeRequestSchema, type Volume, VolumeSchema } from './schemas.ts';

export const route = defineRoute('PUT /api/v1/audio/sources/:source/volume', 'Set the volume of an audio source');
export const request = SourceVolumeRequestSchema;
export const response = VolumeSchema;

/**
 * Sets the source's volume from a list: one value for every channel or one per channel, 0 to 1.5 (1 is
 * 100%), and answers the list as ParaDrop does.
 *
 * @throws HttpProblem 404 for an unknown source; 422 for a volume out of range or a wrong count; 503 without an audio server.
 * @example
 * await handle({ params: { source: 'null' }, body: [0.5] }, device) // [0.5]
 */
export const handle: Handler<Volume> = async (input, device) => setVolume(device, 'source', input.params.source ?? '', validate(VolumeSchema, input.body));
