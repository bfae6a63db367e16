import { isHttpProblem, type InputError } from './problem.ts';

/**
 * Runs a check and answers its value; when the check throws 422, its violations join `violations`
 * (each path through `pathOf`) and the answer is undefined, so that one 422 can list the violations
 * of several checks. Any other error is thrown on.
 *
 * @example
 * const violations: InputError[] = [];
 * const fields = collectViolations(violations, () => validate(ChuteInstallBodySchema, document, '', subject));
 * collectViolations(violations, () => checkChuteConfig(document.config), (path) => `config.${path}`);
 * if (fields === undefined || violations.length > 0) throw invalidInput(subject, violations);
 */
export function collectViolations<T>(violations: InputError[], check: () => T, pathOf: (path: string) => string = (path) => path): T | undefined {
  try {
    return check();
  } catch (error) {
    if (!isHttpProblem(error) || error.status !== 422) throw error;
    violations.push(...(error.errors ?? []).map(({ path, message }) => ({ path: pathOf(path), message })));
    return undefined;
  }
}
