import { defineRoute } from '../core/route.ts';
import { decodeDocumentBody } from '../core/body-formats.ts';
import type { Handler } from '../core/invoke.ts';
import { HttpProblem, isHttpProblem, type InputError } from '../core/problem.ts';
import { invalidInput, validate } from '../core/validate.ts';
import { ChuteInstallBody } from './bodies.ts';
import { checkChuteConfig } from './config.ts';
import { ChangeAccepted, ChuteInstallRequest } from './schemas.ts';
import { submit } from './submit.ts';

export const route = defineRoute({
  name: 'chutes-install',
  method: 'POST',
  path: '/api/v1/chutes',
  summary: 'Install a chute from an image already in the container engine (a change)',
  body: 'document',
});
export const request = ChuteInstallRequest;
export const response = ChangeAccepted;

const SUBJECT = 'the install request';

/**
 * Queues an `install` change: a new chute named `name` whose container runs `image`, an image already
 * in the engine, with the chute configuration `config`, the record's `environment`, `version` and
 * `allocation`. The body is JSON or YAML (`application/yaml`, `application/x-yaml`, `text/yaml`).
 * Everything is checked before the change is queued: on any 4xx nothing is submitted.
 *
 * @throws HttpProblem 400 for a malformed body, 413, 415, 422 listing every violation with its path
 *   (`name`, `image`, `environment.PORT`, `allocation.cpu_shares`, `config.net.wlan.ssid`), and 409
 *   when a chute by that name is installed.
 * @example
 * await handle({ …, headers: { 'content-type': 'application/yaml' }, text: 'name: hello\nimage: hello-world:1\nconfig:\n  web: { port: 80 }\n' }, device) // { change_id: 4 }
 */
export const handle: Handler<ChangeAccepted> = async (input, device) => {
  const document = decodeDocumentBody(input.headers['content-type'], input.text);
  const violations: InputError[] = [];
  const fields = collect(violations, () => validate(ChuteInstallBody, document, '', SUBJECT));
  collect(violations, () => checkChuteConfig(document.config ?? {}), 'config');
  if (fields === undefined || violations.length > 0) throw invalidInput(SUBJECT, violations);
  if ((await device.chute(fields.name)) !== null) throw new HttpProblem(409, `a chute named ${fields.name} is already installed`);
  return submit(device, {
    action: 'install',
    chute: fields.name,
    image: fields.image,
    version: fields.version === undefined ? null : String(fields.version),
    config: (document.config ?? {}) as Record<string, unknown>,
    environment: fields.environment ?? {},
    allocation: fields.allocation ?? {},
  });
};

/**
 * Runs a check and answers its value; a 422 adds its violations (paths under `at`) to `violations`
 * and answers undefined.
 */
function collect<T>(violations: InputError[], check: () => T, at = ''): T | undefined {
  try {
    return check();
  } catch (error) {
    if (!isHttpProblem(error) || error.status !== 422) throw error;
    violations.push(...(error.errors ?? []).map(({ path, message }) => ({ path: under(at, path), message })));
    return undefined;
  }
}

/** `net.wlan.ssid` under `config` is `config.net.wlan.ssid`; the root itself is `config`. */
function under(at: string, path: string): string {
  if (at === '' || path === '') return at || path;
  return path.startsWith('[') ? `${at}${path}` : `${at}.${path}`;
}
