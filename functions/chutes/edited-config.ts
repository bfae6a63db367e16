import { nestedPath, type InputError } from '../core/problem.ts';
import { collectViolations, invalidInput } from '../core/violations.ts';
import { restoreRedacted } from '../config/secret-placeholders.ts';

/**
 * Checks an edited configuration (a chute's, the host's) as it will apply: its `[redacted]`
 * placeholders restored from `stored` (`restoreRedacted`), then `check` on the result. The edited
 * document itself is left as it is: the change that applies it resolves its placeholders when it runs
 * (`resolvePlaceholders`).
 *
 * @param subject what the configuration is, for the 422 detail: `the host configuration`.
 * @param at where the configuration is in the request: `body`, or `body.config` in ParaDrop's wrapper.
 * @throws HttpProblem 422 listing every violation, the check's first, then each placeholder with no
 *   stored secret behind it, each path from `at`; any other error of `check` as it is.
 * @example
 * checkEditedConfig({ net: { wlan: { key: '[redacted]', ssid: 'lab' } } }, stored.config, checkChuteConfig, 'the chute configuration', 'body') // passes: the stored key fills the placeholder
 * checkEditedConfig({ net: { mesh: { key: '[redacted]' } } }, {}, checkChuteConfig, 'the chute configuration', 'body') // throws 422 naming body.net.mesh.key
 */
export function checkEditedConfig(
  edited: Record<string, unknown>,
  stored: Record<string, unknown>,
  check: (restored: Record<string, unknown>) => unknown,
  subject: string,
  at: string,
): void {
  const { document, errors } = restoreRedacted(edited, stored);
  const violations: InputError[] = [];
  collectViolations(violations, () => check(document));
  violations.push(...errors);
  if (violations.length > 0)
    throw invalidInput(
      subject,
      violations.map(({ path, message }) => ({ path: nestedPath(at, path), message })),
    );
}
