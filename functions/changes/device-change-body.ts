import * as z from 'zod/mini';

/*
 * The body of POST /api/v1/changes/, which its handler validates at run time (`validate`): kept apart
 * from schemas.ts (which re-exports it), so the handler's bundle holds only this.
 */

/** Where every other change is asked for, told to a client that sends one here. */
const OTHER_CHANGES =
  "this endpoint takes a reboot or shutdown of the device; a chute's changes have their own endpoints " +
  '(POST /api/v1/chutes/ to install, POST /api/v1/chutes/<chute>/start, stop or restart, DELETE /api/v1/chutes/<chute>, ' +
  'PUT /api/v1/chutes/<chute> to update, PUT /api/v1/chutes/<chute>/config) and the host configuration is PUT /api/v1/config/hostconfig';

/** A message that tells a missing field from a wrong one, and where other changes go. */
function required(what: string) {
  return (issue: { input?: unknown }) => `${issue.input === undefined ? 'is required' : `must be ${what}`}: ${OTHER_CHANGES}`;
}

/**
 * What `pdtools node reboot` and `pdtools node shutdown` send, ParaDrop's update of the device
 * itself: `{"name": "__PARADROP__", "updateClass": "ROUTER", "updateType": "reboot"}` (or
 * `"shutdown"`). `name` may be left out; other fields are ignored.
 */
export const DeviceChangeBodySchema = z.looseObject({
  name: z.optional(z.literal('__PARADROP__', { error: `must be __PARADROP__ (the device itself) when given: ${OTHER_CHANGES}` })),
  updateClass: z.literal('ROUTER', { error: required('ROUTER') }),
  updateType: z.enum(['reboot', 'shutdown'], { error: required('reboot or shutdown') }),
});
export type DeviceChangeBody = z.infer<typeof DeviceChangeBodySchema>;
