import type { StoredChute } from '../../functions/core/device/index.ts';
import type { ChangeRequestOf, Note } from '../changes/runner.ts';
import type { ChuteAtWork, ChuteNetworkHooks } from './chute-work.ts';
import type { ContainerSteps } from './container-steps.ts';
import type { ChuteWriter } from './store.ts';

/** `start` (and the second half of `restart`): the chute's container runs, then its networks are up, then its other services run beside it. */
export async function startChute({ options, chute, steps }: ChuteAtWork, request: ChangeRequestOf<'start' | 'restart'>, note: Note): Promise<undefined> {
  const started = await startWith(steps, options.writer, chute, request.environment, note);
  if (options.networks) await options.networks.up(started, note, await steps.pid());
  await steps.startCompanions(started);
}

/** `stop`: the chute's other services stop, its interfaces leave its container, the container stops, its networks go down (their leases kept). */
export async function stopChute({ options, chute, steps }: ChuteAtWork, _request: ChangeRequestOf<'stop'>, note: Note): Promise<undefined> {
  await steps.stopCompanions();
  await leaveContainer(options.networks, chute, steps, note);
  await steps.stop();
  await options.networks?.down(chute, note, 'keep');
}

/** `restart`: the container stops (the networks stay up) and starts again. */
export async function restartChute(at: ChuteAtWork, request: ChangeRequestOf<'restart'>, note: Note): Promise<undefined> {
  await at.steps.stopCompanions();
  await leaveContainer(at.options.networks, at.chute, at.steps, note);
  await at.steps.stop();
  await startChute(at, request, note);
}

/**
 * Starts the chute as it is, or, with an `environment`, as ParaDrop does, replaces the record's
 * environment with it for good: the container is made again with it and, once it runs, the record is
 * stored with it (a later start or restart without one keeps it). Answers the chute as started.
 */
async function startWith(
  steps: ContainerSteps,
  writer: ChuteWriter,
  chute: StoredChute,
  environment: Record<string, string> | undefined,
  note: Note,
): Promise<StoredChute> {
  if (environment === undefined) {
    await steps.start(chute);
    return chute;
  }
  const updated: StoredChute = { ...chute, record: { ...chute.record, environment } };
  await steps.start(updated, true);
  await writer.write(chute.name, 'chute', updated.record);
  await note(`stored the new environment (${Object.keys(environment).join(', ') || 'none'})`);
  return updated;
}

/** Takes the chute's own interfaces out of its container when one runs, before it is stopped (`ChuteNetworkHooks.leave`). */
export async function leaveContainer(
  networks: ChuteNetworkHooks | undefined,
  chute: StoredChute,
  steps: Pick<ContainerSteps, 'pid'>,
  note: Note,
): Promise<void> {
  const pid = networks === undefined ? null : await steps.pid();
  if (pid !== null) await networks!.leave(chute, note, pid);
}
