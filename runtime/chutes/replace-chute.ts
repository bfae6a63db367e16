import type { StoredChute } from '../../functions/core/device/index.ts';
import { recordedReservations, reservationNotes } from '../../functions/chutes/network-reservations.ts';
import type { AfterSucceeded, Note } from '../changes/runner.ts';
import type { ChuteContainer } from '../engine/docker.ts';
import type { ChuteAtWork } from './chute-work.ts';
import { shortId } from './container-steps.ts';
import { droppedNetworks, withNetworksOnly } from './reserved-networks.ts';
import { leaveContainer } from './start-stop.ts';

/**
 * What undoes a configuration update (`<chute>/rollback.json`): written atomically before the update
 * touches anything, removed once it is over (done or undone). Found at start, it means a crash cut the
 * update short (see `recoverChutes`).
 */
export interface Rollback {
  /** The id of the `update-config` or `update` change. */
  change: number;
  /** The configuration before the update. */
  config: Record<string, unknown>;
  /** The chute record before the update, when the update replaces it too (`update`: image, version, environment). */
  record?: Record<string, unknown>;
  /** The chute cache before the update, when the update changes it (its networks' reservations). */
  cache?: Record<string, unknown>;
  /** The image the update built, which undoing it removes. */
  image?: string;
  /** The id of the chute's container before the update (the one it sets aside), or null when it had none. */
  container: string | null;
  /** Whether that container was running. */
  running: boolean;
}

/** An update under way: the chute before it (`chute`) and after it (`next`), its container before it, and what the update replaces. */
interface Replacement extends ChuteAtWork {
  next: StoredChute;
  previous: ChuteContainer | undefined;
  wasRunning: boolean;
  replacesRecord: boolean;
  /** The cache changes with the networks' reservations; a chute without networks keeps its files as they are. */
  replacesCache: boolean;
}

/** What the update made so far, which restoring the previous chute undoes. */
interface Made {
  created?: string;
  setAside: boolean;
}

/**
 * `update-config` and `update`: the chute as `next` (its configuration and, for an update, its record)
 * and a new container, or the previous ones back. `image` is the image an update built.
 */
export async function replaceChute(at: ChuteAtWork, next: StoredChute, note: Note, change: number, image?: string): Promise<AfterSucceeded> {
  const previous = await at.steps.current();
  const replacement: Replacement = {
    ...at,
    next,
    previous,
    wasRunning: previous?.State === 'running',
    replacesRecord: next.record !== at.chute.record,
    replacesCache: JSON.stringify(next.cache) !== JSON.stringify(at.chute.cache),
  };
  await storeNext(replacement, change, image, note);
  const made: Made = { setAside: false };
  try {
    await swapContainers(replacement, made, note);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    await note(`the new configuration failed: ${reason}; restoring the previous one`);
    try {
      await restorePrevious(replacement, made, note);
    } catch (restoreError) {
      // rollback.json stays: the next start tries again (recoverChutes).
      throw new Error(`${reason}; restoring the previous configuration failed too: ${(restoreError as Error).message}`);
    }
    throw new Error(`${reason}; the previous configuration is restored`);
  }
  // rollback.json goes only once the change's `succeeded` is saved: a crash before that undoes the update (recoverChutes).
  return () => at.options.writer.discard(at.chute.name, 'rollback');
}

/** Writes what undoes the update (`rollback.json`), then the chute's new documents, and notes them. */
async function storeNext(replacement: Replacement, change: number, image: string | undefined, note: Note): Promise<void> {
  const { chute, next, previous, replacesRecord, replacesCache } = replacement;
  const { writer } = replacement.options;
  const rollback: Rollback = {
    change,
    config: chute.config,
    ...(replacesRecord ? { record: chute.record } : {}),
    ...(replacesCache ? { cache: chute.cache } : {}),
    ...(image === undefined ? {} : { image }),
    container: previous?.Id ?? null,
    running: replacement.wasRunning,
  };
  await writer.write(chute.name, 'rollback', { ...rollback });
  await writer.write(chute.name, 'service', next.config);
  if (replacesCache) await writer.write(chute.name, 'cache', next.cache);
  if (replacesRecord) await writer.write(chute.name, 'chute', next.record);
  await note(
    replacesRecord
      ? `stored the new record (image ${String(next.record.image)}, version ${String(next.record.version)}) and configuration`
      : 'stored the new configuration',
  );
  for (const text of reservationNotes(recordedReservations(next.cache))) await note(text);
}

/**
 * Removes the containers of the chute's other services, sets the previous container aside (stopped,
 * renamed), starts the new one and the new services' containers beside it, then removes the previous one.
 */
async function swapContainers({ chute, next, previous, steps, options }: Replacement, made: Made, note: Note): Promise<void> {
  const { networks } = options;
  // A network the update removes or reserves anew goes first; one it keeps stays up through the update.
  if (networks) await networks.down(withNetworksOnly(chute, droppedNetworks(chute, next)), note, 'remove', await steps.pid());
  await steps.removeCompanions();
  if (previous !== undefined) {
    await leaveContainer(networks, chute, steps, note);
    await steps.stopContainer(previous.Id);
    await steps.rename(previous.Id, `previous-${shortId(previous.Id)}`);
    made.setAside = true;
  }
  made.created = await steps.create(next);
  await steps.startContainer(made.created);
  if (networks) await networks.up(next, note, await steps.pid());
  await steps.startCompanions(next);
  if (previous !== undefined) await steps.remove(previous.Id);
}

/** Undoes what the update `made`: the previous documents, container (running again when it ran, its services' containers with it) and networks back, `rollback.json` gone. */
async function restorePrevious(replacement: Replacement, made: Made, note: Note): Promise<void> {
  const { chute, next, previous, steps, wasRunning, replacesRecord, replacesCache } = replacement;
  const { writer, networks } = replacement.options;
  await networks?.down(withNetworksOnly(next, droppedNetworks(next, chute)), note, 'remove');
  await steps.removeCompanions();
  if (made.created !== undefined) await steps.remove(made.created);
  await writer.write(chute.name, 'service', chute.config);
  if (replacesCache) await writer.write(chute.name, 'cache', chute.cache);
  if (replacesRecord) await writer.write(chute.name, 'chute', chute.record);
  await note(replacesRecord ? 'restored the previous record and configuration' : 'restored the previous configuration');
  if (previous === undefined) await steps.startContainer(await steps.create(chute));
  else {
    if (made.setAside) await steps.rename(previous.Id, null);
    if (wasRunning) await steps.startContainer(previous.Id);
  }
  if (networks && (wasRunning || previous === undefined)) await networks.up(chute, note, await steps.pid());
  if (wasRunning || previous === undefined) await steps.startCompanions(chute);
  await writer.discard(chute.name, 'rollback');
}
