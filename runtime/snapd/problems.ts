import { HttpProblem } from '../../functions/core/problem.ts';

/*
 * What the runtime says when snapd cannot answer, kept apart from the socket client so that the
 * emulator's device without a recorded snapd answers with the same words, in a browser too.
 */

/**
 * The 503 of a request for snapd on a device where nothing listens on its socket.
 *
 * @example
 * snapdNotRunning('/run/snapd.socket').message // 'snapd is not running on this device: nothing listens on /run/snapd.socket'
 */
export function snapdNotRunning(socketPath: string): HttpProblem {
  return new HttpProblem(503, `snapd is not running on this device: nothing listens on ${socketPath}`);
}
