import { chmod, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { expect } from 'vitest';
import { isHttpProblem } from '../../functions/core/problem.ts';

/**
 * Writes an executable `/bin/sh` script, to stand in for a tool such as iw or hostapd_cli.
 *
 * @example
 * const iw = await writeScript(dir, 'iw', 'echo "nl80211 not found."; exit 1');
 */
export async function writeScript(dir: string, name: string, body: string): Promise<string> {
  const file = path.join(dir, name);
  await writeFile(file, `#!/bin/sh\n${body}\n`);
  await chmod(file, 0o755);
  return file;
}

/** The status and detail of the HttpProblem a promise rejects with (anything else fails the test). */
export async function problemOf(promise: Promise<unknown>): Promise<{ status: number; message: string }> {
  const error = await promise.then(
    () => expect.unreachable('expected an HttpProblem'),
    (e: unknown) => e,
  );
  if (!isHttpProblem(error)) throw error;
  return { status: error.status, message: error.message };
}
