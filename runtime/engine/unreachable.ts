import { HttpProblem } from '../../functions/core/problem.ts';

/*
 * What the runtime says when no container engine answers on its socket, kept apart from the engine
 * client (dockerode) so that the emulator's unreachable engine answers with the same words, in a
 * browser too.
 */

/** Why a change to a chute fails without an engine (its record then reads `failed: no container engine is reachable`). */
export const ENGINE_UNREACHABLE = 'no container engine is reachable';

/**
 * What the engine client says when no engine listens on the socket at all.
 *
 * @example
 * noEngineAt('/var/run/docker.sock') // 'no container engine at /var/run/docker.sock'
 */
export function noEngineAt(socketPath: string): string {
  return `no container engine at ${socketPath}`;
}

/**
 * The 503 of a request that needs the engine at `socketPath` (a chute's log) when none answers there.
 *
 * @example
 * engineUnreachableAt('/var/run/docker.sock').message // 'no container engine is reachable at /var/run/docker.sock'
 */
export function engineUnreachableAt(socketPath: string): HttpProblem {
  return new HttpProblem(503, `${ENGINE_UNREACHABLE} at ${socketPath}`);
}

/**
 * The 503 of a request that cannot be done without the engine, and why.
 *
 * @example
 * engineUnreachable(noEngineAt('/var/run/docker.sock')).message // 'no container engine is reachable: no container engine at /var/run/docker.sock'
 */
export function engineUnreachable(reason: string): HttpProblem {
  return new HttpProblem(503, `${ENGINE_UNREACHABLE}: ${reason}`);
}

/** The 503 of a factory reset that cannot remove the chutes' containers. */
export const RESET_WITHOUT_ENGINE = 'the chutes cannot be removed, so nothing was reset';
