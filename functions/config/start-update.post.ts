import { ChangeAcceptedSchema, type ChangeAccepted } from '../chutes/schemas.ts';
import { submit } from '../chutes/submit.ts';
import type { Handler } from '../core/handler.ts';
import { defineRoute } from '../core/route.ts';
import { checkEmptyBody } from './empty-body.ts';
import { StartUpdateRequestSchema } from './schemas.ts';

export const route = defineRoute(
  'POST /api/v1/config/startUpdate',
  'Take the release of chutebox the controller offers and make it the one the device runs next (a change)',
);
export const request = StartUpdateRequestSchema;
export const response = ChangeAcceptedSchema;

/**
 * ParaDrop's "look for updates at the controller now", as a change of the device (`update-runtime`,
 * docs/decisions/0062-updates-and-snapd.md): it asks the controller the device is provisioned with for
 * a release of chutebox, takes its archive and checks its SHA-256; serve then unpacks it beside the
 * release it runs, checks that it loads and makes it current for its next start, keeping the one before
 * to roll back to. Answers at once with `{ change_id }`; `GET /api/v1/changes/<change_id>` follows it.
 * The change fails, changing nothing, on a device that is not provisioned, a controller that fails, an
 * archive of another digest or one that does not load; it succeeds with nothing to do when the
 * controller offers no release.
 *
 * @throws HttpProblem 422 for a body other than none or `{}`.
 * @example
 * await handle({ …, body: undefined }, device) // { change_id: 9 }
 */
export const handle: Handler<ChangeAccepted> = async (input, device) => {
  checkEmptyBody(input.body, 'startUpdate');
  return submit(device, { action: 'update-runtime' });
};
