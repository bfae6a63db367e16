import { defineRoute } from '../core/route.ts';
import type { Handler } from '../core/handler.ts';
import { audioServer } from './pactl-listing.ts';
import { AudioServerSchema, NoAudioInputSchema } from './schemas.ts';
import type { AudioServer } from '../parsers/pactl.ts';

export const route = defineRoute('GET /api/v1/audio/info', 'The audio server and its default sink and source');
export const request = NoAudioInputSchema;
export const response = AudioServerSchema;

/**
 * What `pactl -f json info` says of the server, in ParaDrop's fields.
 *
 * @throws HttpProblem 503 when the device has no audio server.
 * @example
 * await handle(input, device) // { default_sink_name: 'null', default_source_name: 'null.monitor', host_name: 'vm', … }
 */
export const handle: Handler<AudioServer> = async (_input, device) => audioServer(device);
