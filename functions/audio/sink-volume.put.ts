import { defineRoute } from '../core/route.ts';
import type { Handler } from '../core/handler.ts';
import { validate } from '../core/validate.ts';
import { setVolume } from './pactl-listing.ts';
import { SinkVolumeRequestSchema, type Volume, VolumeSchema } from './schemas.ts';

export const route = defineRoute('PUT /api/v1/audio/sinks/:sink/volume', 'Set the volume of an audio sink');
export const request = SinkVolumeRequestSchema;
export const response = VolumeSchema;

/**
 * Sets the sink's volume from a list: one value for every channel or one per channel, 0 to 1.5 (1 is
 * 100%), and answers the list as ParaDrop does.
 *
 * @throws HttpProblem 404 for an unknown sink; 422 for a volume out of range or a wrong count; 503 without an audio server.
 * @example
 * await handle({ params: { sink: 'null' }, body: [0.5] }, device) // [0.5]
 */
export const handle: Handler<Volume> = async (input, device) => setVolume(device, 'sink', input.params.sink ?? '', validate(VolumeSchema, input.body));
