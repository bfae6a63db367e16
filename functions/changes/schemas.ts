import * as z from 'zod/mini';
import type { ChangeAction, ChangeRecord as DeviceChangeRecord, ChangeState } from '../core/device/index.ts';
import { CHANGE_ID } from '../chutes/params.ts';
import { CHUTE_NAME } from '../core/device/index.ts';
import { DeviceChangeBodySchema } from './device-change-body.ts';

export { DeviceChangeBodySchema, type DeviceChangeBody } from './device-change-body.ts';

/*
 * The requests and responses of the /api/v1/changes endpoints: what happened to each change queued
 * by a chute call (install, update, start, stop, restart, delete, PUT config), by PUT hostconfig or by
 * POST /api/v1/changes/ (a reboot or shutdown of the device). Records
 * are strict.
 */

/** What a change does (see `ChangeRequest` in functions/core/device/changes.ts): every action, as the type below checks. */
export const CHANGE_ACTIONS = [
  'install',
  'update',
  'start',
  'stop',
  'restart',
  'delete',
  'update-config',
  'update-hostconfig',
  'update-runtime',
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

/** GET /api/v1/changes/: a page of the changes, newest first. */
export const ChangeListSchema = z.array(ChangeRecordSchema);
export type ChangeList = ChangeRecord[];

/** How many changes a page of GET /api/v1/changes/ holds without `?limit=`, and at most. */
export const CHANGE_PAGE = { default: 50, most: 200 } as const;

/** What `?limit=` must be, as an input error's message. */
const PAGE_LIMIT_RULE = { error: `must be from 1 to ${CHANGE_PAGE.most}` };

/** A whole number in a URL, as a change id is written (`CHANGE_ID`), read as a number. */
const WholeNumberSchema = z.pipe(z.string().check(z.regex(CHANGE_ID, { error: 'must be a whole number' })), z.transform(Number));

/**
 * The query of GET /api/v1/changes/: `limit`, how many changes the page holds at most (1 to
 * `CHANGE_PAGE.most`, default `CHANGE_PAGE.default`); `before`, a change id: only changes with a
 * smaller id, the page after the one that ended with it.
 */
export const ChangePageQuerySchema = z.object({
  limit: z._default(
    z.pipe(WholeNumberSchema, z.number().check(z.minimum(1, PAGE_LIMIT_RULE), z.maximum(CHANGE_PAGE.most, PAGE_LIMIT_RULE))),
    CHANGE_PAGE.default,
  ),
  before: z.optional(WholeNumberSchema),
});

/** GET /api/v1/changes/: no path parameter, a page in the query (`ChangePageQuerySchema`), no body. */
export const ChangeListRequestSchema = z.object({ params: z.object({}), query: ChangePageQuerySchema, body: z.undefined() });

/** GET /api/v1/changes/<id>: a whole number in the path, no body. */
export const ChangeRequestSchema = z.object({ params: z.object({ id: z.string().check(z.regex(CHANGE_ID)) }), body: z.undefined() });

/** POST /api/v1/changes/: a reboot or shutdown of the device, as ParaDrop's clients send it. */
export const DeviceChangeRequestSchema = z.object({ params: z.object({}), body: DeviceChangeBodySchema });
