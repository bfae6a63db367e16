import { defineRoute } from '../core/route.ts';
import type { Handler } from '../core/handler.ts';
import { validate } from '../core/validate.ts';
import { audioServer } from './pactl-listing.ts';
import { type LoadedModule, LoadedModuleSchema, ModuleLoadRequestSchema, ModuleLoadSchema } from './schemas.ts';

export const route = defineRoute('POST /api/v1/audio/modules', 'Load an audio module');
export const request = ModuleLoadRequestSchema;
export const response = LoadedModuleSchema;

/**
 * Loads a module by name (`pactl load-module <name>`, no arguments) and answers its index and name.
 *
 * @throws HttpProblem 422 for a name that is not a module name or that PulseAudio cannot load; 503 without an audio server.
 * @example
 * await handle({ …, body: { name: 'module-null-sink' } }, device) // { index: 2, name: 'module-null-sink' }
 */
export const handle: Handler<LoadedModule> = async (input, device) => {
  const { name } = validate(ModuleLoadSchema, input.body);
  await audioServer(device);
  return { index: await device.audio.loadModule(name), name };
};
