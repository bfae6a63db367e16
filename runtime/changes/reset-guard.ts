import { HttpProblem } from '../../functions/core/problem.ts';

/**
 * What a device holds off while a factory reset runs: a second reset, changes, provisioning, a pdconf
 * reload. Each of them calls `refuse()`, which throws 409 during the reset; the reset runs in `run()`.
 *
 * @example
 * const guard = resetGuard();
 * const factoryReset = () => guard.run(() => resetEverything());
 * const provision = (credentials) => (guard.refuse(), provisioning.provision(credentials));
 */
export interface ResetGuard {
  /** Throws an HttpProblem 409 while a reset runs. */
  refuse(): void;
  /** Runs a reset, from the moment it is asked for until it is done; throws 409 when one runs already. */
  run<T>(reset: () => Promise<T>): Promise<T>;
}

export function resetGuard(): ResetGuard {
  let running = false;
  const refuse = () => {
    if (running) throw new HttpProblem(409, 'a factory reset is in progress: try again when it is done');
  };
  return {
    refuse,
    async run(reset) {
      refuse();
      running = true;
      try {
        return await reset();
      } finally {
        running = false;
      }
    },
  };
}
