/** A Docker tag: a letter, digit or `_` first, then those, `.` and `-`, 128 characters at most. */
const DOCKER_TAG = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$/;

/**
 * The tag of the image a change builds from a chute's source: `chute-<name>:<version>`, or
 * `chute-<name>:<change id>` when the version is not a Docker tag (or there is none) or when it is
 * `avoid`, the image the chute runs now (an update that keeps the version must not retag the image
 * its previous container and rollback rely on). The repository is the chute name in lower case with
 * every run of other characters than letters and digits made one `-`, as Docker's repository names
 * allow.
 *
 * @example
 * chuteImageTag('hello', '1.2', 7)                       // 'chute-hello:1.2'
 * chuteImageTag('Hello_World', null, 7)                  // 'chute-hello-world:7'
 * chuteImageTag('hello', '1.2', 8, 'chute-hello:1.2')    // 'chute-hello:8'
 */
export function chuteImageTag(chute: string, version: string | null, change: number, avoid?: string): string {
  const repository = `chute-${chute.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/-+$/, '')}`;
  const byVersion = version !== null && DOCKER_TAG.test(version) ? `${repository}:${version}` : null;
  return byVersion !== null && byVersion !== avoid ? byVersion : `${repository}:${change}`;
}
