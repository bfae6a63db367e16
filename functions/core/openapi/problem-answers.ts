/**
 * The problems of the OpenAPI document: the problem answer as a zod schema (`ProblemSchema`), what
 * each problem status says (`PROBLEM_ANSWERS`), the statuses every secured operation answers, and the
 * component responses they become, each `application/problem+json` (`Problem`).
 */
import * as z from 'zod/mini';
import { type InputError, type Problem, problem, PROBLEM_CONTENT_TYPE } from '../problem.ts';
import type { Json } from './types.ts';

/*
 * The schemas of the problem document (functions/core/problem.ts) live here, not beside `Problem`:
 * every bundle throws problems, and zod in problem.ts would go into each of them (the runtime's and
 * the info-* bundles' budgets in test/bundles.test.ts). The types below fail to compile when a
 * schema and its type part ways.
 */

/** One violation in a request (`InputError`): `path` names the field, e.g. `body.net.wlan.ssid`. */
export const InputErrorSchema = z.strictObject({ path: z.string(), message: z.string() });

/**
 * RFC 9457 problem details (`Problem`), the body of every error answer (`application/problem+json`):
 * `type` (always `about:blank`), `title` (the status's reason phrase), `status`, `detail`, and for
 * invalid input `errors`, one per violation. Other members are extensions (`accepted`, `line`, …).
 */
export const ProblemSchema = z.looseObject({
  type: z.string(),
  title: z.string(),
  status: z.int().check(z.gte(400), z.lte(599)),
  detail: z.string(),
  errors: z.optional(z.array(InputErrorSchema)),
});

/** A compile error when `ProblemSchema` or `InputErrorSchema` no longer describes its type. */
const sameTypes: [Same<z.infer<typeof InputErrorSchema>, InputError>, Same<z.infer<typeof ProblemSchema>, Problem>] = [true, true];
void sameTypes;

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : never) : never;

/**
 * What each problem status says in the document: the statuses an operation may be given (see
 * `DescribedOperation.problems`), each a component response named after its reason phrase
 * (`BadRequest`). Any other status is the `default` answer.
 */
export const PROBLEM_ANSWERS: Readonly<Record<number, { description: string; headers?: Json }>> = {
  400: {
    description:
      'The request cannot be read: a body that is not JSON or YAML, a path or query parameter not of its form such as a MAC address (`errors` names it: `body`, `params.mac`, `query.limit`)',
  },
  401: {
    description: 'No credentials, or bad ones',
    headers: { 'WWW-Authenticate': { description: 'The schemes to authenticate with', schema: { type: 'string' } } },
  },
  403: {
    description:
      'Refused: the device has no password yet and the client is not on it; a request without credentials that is not local; or Basic credentials from a web page of another origin (log in and send the token)',
  },
  404: { description: 'Nothing by that name: no such chute, network, station, change or user' },
  409: { description: 'A conflict: the network cannot serve the operation, the name is taken, a factory reset is running' },
  413: { description: 'The body is over the limit: 1 MiB, or 512 MiB for an upload' },
  415: { description: 'The body is of a media type the operation does not take (`accepted` lists those it takes)' },
  422: {
    description:
      'The request is read but breaks a rule: a field missing or of the wrong type, a value out of its range (`errors` names every violation: `body.ssid`, `body.config.net.wlan.key`); nothing was changed',
  },
  426: {
    description: 'Not a websocket upgrade request',
    headers: { Upgrade: { description: 'The protocol to upgrade to', schema: { type: 'string', enum: ['websocket'] } } },
  },
  429: {
    description: 'Too many failed logins from this address; or, for a request that queues a change, 100 changes queued or running already',
    headers: { 'Retry-After': { description: 'Seconds to wait before trying again', schema: { type: 'integer' } } },
  },
  500: { description: 'The server failed; its log says why, the answer never does' },
  503: {
    description:
      'Unavailable for now: a tool, a control socket or the container engine is missing, or the events stream serves as many clients as it may (with `Retry-After`)',
    headers: { 'Retry-After': { description: 'Seconds to wait before trying again', schema: { type: 'integer' } } },
  },
};

/** The `default` answer: any status an operation is not described with. */
const DEFAULT_PROBLEM =
  'Any other error: 409 (a conflict: the network cannot serve the operation, the name is taken, a factory reset is running), ' +
  '502 (a tool, hostapd or the controller refused), 503 or 504 (a tool, a control socket or the container engine is missing or did not answer in time), ' +
  "507 (the device's storage is full: nothing was written)";

/** The statuses of the credentials, answered by every operation that needs them. */
export const CREDENTIAL_PROBLEMS = [401, 403, 429];

/** The component response of every problem status, `Problem` for the `default` answer. */
export function problemResponses(): Record<string, Json> {
  const content = { [PROBLEM_CONTENT_TYPE]: { schema: { $ref: '#/components/schemas/Problem' } } };
  const responses: Record<string, Json> = {};
  for (const [status, { description, headers }] of Object.entries(PROBLEM_ANSWERS)) {
    responses[problemName(Number(status))] = { description, ...(headers === undefined ? {} : { headers }), content };
  }
  responses.Problem = { description: DEFAULT_PROBLEM, content };
  return responses;
}

/** `BadRequest` for 400: the reason phrase without spaces. */
export function problemName(status: number): string {
  return problem(status, '').title.replace(/[^A-Za-z]/g, '');
}
