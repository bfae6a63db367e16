import { defineRoute } from '../core/route.ts';
import type { Handler } from '../core/handler.ts';
import { audioDevices } from './pactl-listing.ts';
import { AudioDeviceListSchema, NoAudioInputSchema } from './schemas.ts';
import type { AudioDevice } from '../parsers/pactl.ts';

export const route = defineRoute('GET /api/v1/audio/sources', 'The audio sources and their volumes');
export const request = NoAudioInputSchema;
export const response = AudioDeviceListSchema;

/**
 * Each source with its channels and one volume per channel (1 for 100%).
 *
 * @throws HttpProblem 503 when the device has no audio server.
 * @example
 * await handle(input, device) // [{ channel_count: 2, channel_list: ['front-left', 'front-right'], index: 0, volume: [1, 1], … }]
 */
export const handle: Handler<AudioDevice[]> = async (_input, device) => audioDevices(device, 'source');
