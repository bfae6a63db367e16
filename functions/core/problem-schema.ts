import * as z from 'zod/mini';
import type { InputError, Problem } from './problem.ts';

/*
 * The problem document (functions/core/problem.ts) as a zod schema, for what describes the API:
 * the OpenAPI document (functions/core/openapi/) and the tests. No handler imports it; the types
 * below fail to compile when it and `Problem` part ways.
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
