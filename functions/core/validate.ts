import type * as z from 'zod/mini';
import en from 'zod/v4/locales/en.js';
import { HttpProblem, inputPath, type InputError } from './problem.ts';
import { invalidInput } from './violations.ts';

export { inputPath } from './problem.ts';
export { invalidInput } from './violations.ts';

/** English messages for checks that carry none of their own (zod/mini ships no locale by default). */
const english = en().localeError;

/**
 * Checks a request value against a zod/mini schema and answers what the schema makes of it.
 * Every violation becomes one `{ path, message }` error, its path starting at `at`, where the value
 * is in the request (`body.ssid`, `body.net.wlan.dns[0]`; an unknown key of a strict object is named
 * itself: `body.extra`). A check of a part of a request (a chute configuration) passes `at` = `''`:
 * paths then start at the value itself (`net.wlan.ssid`, `dns[1]`; the value itself is `''`), and
 * the endpoint places them in the request (`nestedPath`). Whatever the rule broken, a missing field
 * or a wrong type among them, the answer is a 422 (docs/api/README.md#errors). Messages are the
 * schema's own where it gives them, else zod's English ones. The problem's detail names `subject`:
 * `at`, or "the input" when `at` is empty.
 *
 * Importing this pulls zod/mini into a bundle: use it in handlers that take a body.
 *
 * @throws HttpProblem 422 listing every violation.
 * @example
 * const { ssid } = validate(SsidUpdate, input.body); // throws 422 with errors [{ path: 'body.ssid', message: 'must not be empty' }]
 * validate(ChuteConfig, config, '', 'the chute configuration'); // errors [{ path: 'web.port', … }]
 */
export function validate<S extends z.ZodMiniType>(schema: S, value: unknown, at = 'body', subject = at || 'the input'): z.output<S> {
  return validated(schema.safeParse(value, { error: english }), at, subject);
}

/**
 * `validate` for a schema with a check that awaits (a refinement that asks Web Crypto): the same
 * value or the same 422, once the checks are done. `validate` on such a schema throws instead.
 *
 * @throws HttpProblem 422 listing every violation.
 * @example
 * const { key } = await validateAsync(SshKeyBodySchema, input.body); // throws 422 with errors [{ path: 'body.key', message: 'the point is not on curve nistp256' }]
 */
export async function validateAsync<S extends z.ZodMiniType>(schema: S, value: unknown, at = 'body', subject = at || 'the input'): Promise<z.output<S>> {
  return validated(await schema.safeParseAsync(value, { error: english }), at, subject);
}

/** The value of a successful parse, or the 422 listing each issue of a failed one. */
function validated<T>(result: z.util.SafeParseResult<T>, at: string, subject: string): T {
  if (result.success) return result.data;
  const errors = result.error.issues.flatMap((issue): InputError[] => {
    const path = inputPath(at, issue.path);
    if (issue.code === 'unrecognized_keys') return issue.keys.map((key) => ({ path: inputPath(path, [key]), message: 'is not a known field' }));
    return [{ path, message: issue.message }];
  });
  throw invalidInput(subject, errors);
}

/**
 * The query of a request as `schema` (a `z.object` of its parameters, each a string as the URL gives
 * it) reads it. A parameter not of the form its schema says (`?limit=ten`: zod's `invalid_format`) is
 * malformed, a 400 as for a path parameter; one of the right form that breaks a rule (`?limit=500`)
 * is a 422, as for a body. Each error names `query.<name>`.
 *
 * @throws HttpProblem 400 when a parameter is malformed, else 422, listing every bad parameter.
 * @example
 * validateQuery(ChangePageQuerySchema, { limit: '10' }) // { limit: 10 }
 * validateQuery(ChangePageQuerySchema, { limit: 'ten' }) // throws 400 with errors [{ path: 'query.limit', message: 'must be a whole number' }]
 */
export function validateQuery<S extends z.ZodMiniType>(schema: S, query: Record<string, string>): z.output<S> {
  const result = schema.safeParse(query, { error: english });
  if (result.success) return result.data;
  const errors = result.error.issues.map((issue): InputError => ({ path: inputPath('query', issue.path), message: issue.message }));
  if (!result.error.issues.some((issue) => issue.code === 'invalid_format')) throw invalidInput('the query', errors);
  throw new HttpProblem(400, `bad query parameter: ${errors.map((error) => `${error.path} ${error.message}`).join('; ')}`, { errors });
}
