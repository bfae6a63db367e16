import { defineRoute } from '../core/route.ts';
import type { Handler } from '../core/handler.ts';
import { audioModules } from './pactl-listing.ts';
import { AudioModuleListSchema, NoAudioInputSchema } from './schemas.ts';
import type { AudioModule } from '../parsers/pactl.ts';

export const route = defineRoute('GET /api/v1/audio/modules', 'The loaded audio modules');
export const request = NoAudioInputSchema;
export const response = AudioModuleListSchema;

/**
 * The modules PulseAudio has loaded, in index order.
 *
 * @throws HttpProblem 503 when the device has no audio server.
 * @example
 * await handle(input, device) // [{ index: 1, name: 'module-null-sink', n_used: 0 }, …]
 */
export const handle: Handler<AudioModule[]> = async (_input, device) => audioModules(device);
