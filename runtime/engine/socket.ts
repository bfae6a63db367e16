import { stat } from 'node:fs/promises';

/**
 * Whether a path is a UNIX socket now: where an engine would listen. A check that needs no engine
 * client, so the runtime can answer "no engine" without loading one.
 *
 * @example
 * await isUnixSocket('/var/run/docker.sock') // false on a machine without Docker
 */
export function isUnixSocket(file: string): Promise<boolean> {
  return stat(file).then(
    (s) => s.isSocket(),
    () => false,
  );
}
