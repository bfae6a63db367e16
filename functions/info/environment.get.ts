import { reusingLast } from '../core/reusing-last.ts';
import type { Handler } from '../core/handler.ts';
import { defineRoute } from '../core/route.ts';
import { parseEnviron, redactSecrets } from '../parsers/environ.ts';
import { EnvironmentSchema, type Environment, NoInputSchema } from './schemas.ts';

export const route = defineRoute('GET /api/v1/info/environment', 'Environment variables of the daemon, secrets redacted');
export const request = NoInputSchema;
export const response = EnvironmentSchema;

/**
 * The daemon's environment from /proc/self/environ, with the values of secret-looking names
 * redacted; `{}` when the file cannot be read.
 *
 * @example
 * await handle(input, device) // { PATH: '/usr/bin:/bin', ADMIN_PASSWORD: '[redacted]' }
 */
export const handle: Handler<Environment> = async (_input, device) => {
  const text = await device.readFile('/proc/self/environ');
  return environmentOf(device, text ?? '');
};

/** The environment with secrets redacted, worked out again only when the file changed. */
const environmentOf = reusingLast((text: string) => Object.fromEntries(redactSecrets(parseEnviron(text))));
