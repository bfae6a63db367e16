import { defineRoute } from '../core/route.ts';
import type { Handler } from '../core/handler.ts';
import { HttpProblem } from '../core/problem.ts';
import { validate } from '../core/validate.ts';
import { audioDevices } from './pactl-listing.ts';
import { type AudioDefaults, AudioDefaultsRequestSchema, AudioDefaultsSchema } from './schemas.ts';

export const route = defineRoute('PUT /api/v1/audio/info', 'Set the default sink or source');
export const request = AudioDefaultsRequestSchema;
export const response = AudioDefaultsSchema;

/**
 * Sets `default_sink_name` and `default_source_name` (either or both) and answers what it set, as
 * ParaDrop does. Each must name a sink or source the server has: both are checked before either is set.
 *
 * @throws HttpProblem 422 naming the field for a name the server does not have; 503 without an audio server.
 * @example
 * await handle({ …, body: { default_sink_name: 'null' } }, device) // { default_sink_name: 'null' }
 */
export const handle: Handler<AudioDefaults> = async (input, device) => {
  const body = validate(AudioDefaultsSchema, input.body);
  const wanted = [
    ['sink', body.default_sink_name],
    ['source', body.default_source_name],
  ] as const;
  for (const [kind, name] of wanted) {
    if (name !== undefined && !(await audioDevices(device, kind)).some((one) => one.name === name)) {
      throw new HttpProblem(422, `the audio server has no ${kind} named ${name}`, {
        errors: [{ path: `body.default_${kind}_name`, message: `must name a ${kind} of GET /api/v1/audio/${kind}s` }],
      });
    }
  }
  for (const [kind, name] of wanted) if (name !== undefined) await device.audio.setDefault(kind, name);
  return body;
};
