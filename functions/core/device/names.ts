/** Naming rules shared by every device: chute names, container names and references, the chute label, where state is kept. */

/** The label that marks a container as a chute; its value is the chute name. */
export const CHUTE_LABEL = 'io.chutebox.chute';

/** The label of the container of a chute's service other than its main one; its value is the service's name. */
export const SERVICE_LABEL = 'io.chutebox.service';

/** The label of a chute's own container that names its main service, on a chute installed with services. */
export const MAIN_SERVICE_LABEL = 'io.chutebox.main-service';

/** The container name of a chute: `chute-<chute>`. */
export function chuteContainerName(chute: string): string {
  return `chute-${chute}`;
}

/**
 * A container reference that is safe in an engine URL path or a file name: a Docker id (64 lower-case
 * hex digits, or a prefix of them) or a container name (`[a-zA-Z0-9][a-zA-Z0-9_.-]*`). It can never
 * hold a slash or be `..`.
 *
 * @example
 * CONTAINER_REF.test('chute-hello-world') // true
 * CONTAINER_REF.test('../../info')        // false
 */
export const CONTAINER_REF = /^[a-zA-Z0-9][a-zA-Z0-9_.-]*$/;

/**
 * A chute name, safe as a file name and a container name: a letter or digit first, then letters,
 * digits, `_`, `.` or `-`, 64 characters at most.
 */
export const CHUTE_NAME = /^[a-zA-Z0-9][a-zA-Z0-9_.-]{0,63}$/;

/** Where a device keeps its state when `--state-dir` is not given (the `state_dir` setting). */
export const DEFAULT_STATE_DIR = '/var/lib/chutebox';

/** Where a device's container engine listens when `--docker-socket` is not given. */
export const DEFAULT_DOCKER_SOCKET = '/var/run/docker.sock';

/**
 * The folder of the chute networks' control sockets and lease files in a state dir.
 *
 * @example
 * networkRunDir('/var/lib/chutebox') // '/var/lib/chutebox/networks'
 */
export function networkRunDir(stateDir: string): string {
  return `${stateDir}/networks`;
}
