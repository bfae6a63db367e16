import { HttpProblem, isHttpProblem, type InputError } from './problem.ts';

/**
 * Runs a check and answers its value; when the check throws 422, its violations join `violations`
 * (each path through `pathOf`) and the answer is undefined, so that one 422 can list the violations
 * of several checks. Any other error is thrown on.
 *
 * @example
 * const violations: InputError[] = [];
 * const fields = collectViolations(violations, () => validate(ChuteInstallBodySchema, document, 'body', subject));
 * collectViolations(violations, () => checkChuteConfig(document.config), (path) => nestedPath('body.config', path));
 * if (fields === undefined || violations.length > 0) throw invalidInput(subject, violations);
 */
export function collectViolations<T>(violations: InputError[], check: () => T, pathOf: (path: string) => string = (path) => path): T | undefined {
  try {
    return check();
  } catch (error) {
    violations.push(...placed(error, pathOf));
    return undefined;
  }
}

/**
 * Runs a check that awaits and answers its value; when it throws 422, the same 422 (about `subject`)
 * with each path through `pathOf`: a check of a part of a request, its violations named where that
 * part is in the request. Any other error is thrown on.
 *
 * @example
 * await placeViolations(() => reserveChuteNetworks(device, change), (path) => nestedPath('body.config', path), 'the chute configuration')
 * // throws 422 naming body.config.net.wifi.vlan_id where the check named net.wifi.vlan_id
 */
export async function placeViolations<T>(check: () => Promise<T>, pathOf: (path: string) => string, subject: string): Promise<T> {
  try {
    return await check();
  } catch (error) {
    throw invalidInput(subject, placed(error, pathOf));
  }
}

/** The violations of a 422, each path through `pathOf`; anything else is thrown on. */
function placed(error: unknown, pathOf: (path: string) => string): InputError[] {
  if (!isHttpProblem(error) || error.status !== 422) throw error;
  return (error.errors ?? []).map(({ path, message }) => ({ path: pathOf(path), message }));
}

/**
 * The 422 problem for a request value with these violations (at least one): its detail names
 * `subject` and the first violation, and how many more there are.
 *
 * @example
 * invalidInput('the chute configuration', [{ path: 'body.web.port', message: 'must be an integer from 1 to 65535' }])
 * // HttpProblem 422 'the chute configuration is not valid: body.web.port must be an integer from 1 to 65535'
 */
export function invalidInput(subject: string, errors: readonly InputError[]): HttpProblem {
  const first = errors[0]!;
  const more = errors.length > 1 ? ` (and ${errors.length - 1} more)` : '';
  const where = first.path === '' ? '' : `${first.path} `;
  return new HttpProblem(422, `${subject} is not valid: ${where}${first.message}${more}`, { errors: [...errors] });
}
