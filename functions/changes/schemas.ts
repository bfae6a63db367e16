import * as z from 'zod/mini';
import type { ChangeAction, ChangeRecord as DeviceChangeRecord, ChangeState } from '../core/device.ts';
import { CHANGE_ID } from '../chutes/params.ts';
import { CHUTE_NAME } from '../core/device.ts';
import { DeviceChangeBodySchema } from './bodies.ts';

export { DeviceChangeBodySchema, type DeviceChangeBody } from './bodies.ts';

/*
 * The requests and responses of the /api/v1/changes endpoints: what happened to each change queued
 * by a chute call (install, update, start, stop, restart, delete, PUT config), by PUT hostconfig or by
 * POST /api/v1/changes/ (a reboot or shutdown of the device). Records
 * are strict.
 */

/** What a change does (see `ChangeRequest` in functions/core/device.ts): every action, as the type below checks. */
export const CHANGE_ACTIONS = [
  'install',
  'update',
  'start',
  'stop',
  'restart',
  'delete',
  'update-config',
  'update-hostconfig',
  'reboot',
  'shutdown',
] as const satisfies readonly ChangeAction[];
/** A compile error when `ChangeRequest` gains an action that CHANGE_ACTIONS leaves out. */
const everyAction: [Exclude<ChangeAction, (typeof CHANGE_ACTIONS)[number]>] extends [never] ? true : never = true;
void everyAction;

/** queued → running → succeeded or failed. */
export const CHANGE_STATES = ['queued', 'running', 'succeeded', 'failed'] as const satisfies readonly ChangeState[];

/** An ISO 8601 time, as the device writes it: `2026-11-21T12:00:00.000Z`. */
const TimeSchema = z.iso.datetime();

/** A change and what happened to it, messages oldest first; `chute` is null for a change of the device (`update-hostconfig`, `reboot`, `shutdown`). */
export const ChangeRecordSchema = z.strictObject({
  id: z.int().check(z.nonnegative()),
  action: z.enum(CHANGE_ACTIONS),
  chute: z.nullable(z.string().check(z.regex(CHUTE_NAME))),
  state: z.enum(CHANGE_STATES),
  created: TimeSchema,
  updated: TimeSchema,
  messages: z.array(z.strictObject({ time: TimeSchema, text: z.string() })),
});
export type ChangeRecord = DeviceChangeRecord;

/** GET /api/v1/changes/: every change, oldest first. */
export const ChangeListSchema = z.array(ChangeRecordSchema);
export type ChangeList = ChangeRecord[];

/** GET /api/v1/changes/: no path parameter, no body. */
export const ChangeListRequestSchema = z.object({ params: z.object({}), body: z.undefined() });

/** GET /api/v1/changes/<id>: a whole number in the path, no body. */
export const ChangeRequestSchema = z.object({ params: z.object({ id: z.string().check(z.regex(CHANGE_ID)) }), body: z.undefined() });

/** POST /api/v1/changes/: a reboot or shutdown of the device, as ParaDrop's clients send it. */
export const DeviceChangeRequestSchema = z.object({ params: z.object({}), body: DeviceChangeBodySchema });
