import { readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { chuteContainerName, type ChangeAction, type ChangeRecord, type StoredChute } from '../../functions/core/device/index.ts';
import { companionServices } from '../../functions/chutes/services.ts';
import { chuteState } from '../../functions/chutes/state.ts';
import type { ChuteEngine } from '../engine/docker.ts';
import { companionSpec } from './container-spec.ts';
import { shortId } from './container-steps.ts';
import type { Rollback } from './replace-chute.ts';
import { chuteStore, chuteWriter, JSON_FORMAT, leftover, type ChuteWriter } from './store.ts';
import { daemonLog } from '../log/log.ts';

export interface RecoverOptions {
  /** The runtime's chutes: `<state-dir>/chutes`. */
  dir: string;
  /** The engine, or null when none is reachable: then only what needs no engine is repaired. */
  engine: ChuteEngine | null;
  /** The changes an earlier runtime left `queued` or `running` (`ChangeRunner.open()`, now failed). */
  interrupted: readonly ChangeRecord[];
  /** Adds a message to a change's record (`ChangeRunner.annotate`). */
  annotate(id: number, text: string): Promise<void>;
  /**
   * Reads a change's record (`ChangeRunner.change`): an update whose change reads `succeeded` had done
   * all its work, and only its `rollback.json` was left to remove. Without it, every rollback is undone.
   */
  change?: (id: number) => Promise<ChangeRecord | null>;
  /** Where each repair and corrected state is reported; default stderr. */
  log?: (text: string) => void;
  /** A chute's API token (`PARADROP_API_TOKEN`), for the containers of its other services made again. */
  chuteToken(chute: string): Promise<string>;
}

/**
 * Repairs at start what a crash of the runtime cut short, then sets each chute's stored `state` to what
 * the engine reports (a chute whose container vanished while the runtime was down becomes `missing`,
 * or `failed` when it exited with an error). Each repair is logged and added to the record of the change
 * it finishes; a chute whose repair fails is logged and left for the next start.
 *
 * - An install cut short: its hidden staging folder is removed; a chute whose record still reads
 *   `installing` and whose install change was interrupted loses its containers and folder.
 * - A removal cut short: its hidden folder is removed.
 * - A write of a chute's file cut short: its temporary file is removed (`ChuteWriter.removeInterruptedWrites`).
 * - A configuration update or an update from source cut short (`rollback.json` is there, and its
 *   change does not read `succeeded`; one that does only lost the removal of `rollback.json`): the
 *   containers the update made are removed, the previous configuration (and record, for an update
 *   from source) is written back, the image it built is removed, the previous container gets its name back and,
 *   when it ran before, is started again (stopped first, so that a stop the crash left pending in the
 *   engine cannot end it later). Only when the update had removed the previous container already (it was
 *   done but for its last step) are the new configuration and container kept.
 * - The other services of a chute of several (decision 0061), whose containers an update removes
 *   before it sets the main one aside and makes again after: where one is missing, one is there of a
 *   service the record has not, or one does not share the main container's network namespace, they
 *   are removed and made again as the record says, in the main container's namespace (started when
 *   it runs), so that the chute's state, derived from its services', is what it was.
 *
 * Without an engine, the stored states, `rollback.json` and chutes still `installing` are left as they
 * are, for a later start.
 *
 * @example
 * await recoverChutes({ dir: '/var/lib/chutebox/chutes', engine, interrupted: await runner.open(), annotate: runner.annotate });
 */
export async function recoverChutes(options: RecoverOptions): Promise<void> {
  const { dir, engine } = options;
  const log = options.log ?? ((text: string) => daemonLog.info(text));
  const store = chuteStore(dir, JSON_FORMAT);
  const writer = chuteWriter(dir);
  /** Logs a repair of a chute and adds it to the change it finishes (when there is one). */
  const repaired = async (chute: string, change: number | undefined, text: string) => {
    log(`chute ${chute}: ${text}${change === undefined ? '' : ` (change ${change} was cut short)`}`);
    if (change !== undefined) await options.annotate(change, `repaired at the next start: ${text}`);
  };
  /** The last interrupted change of that action to the chute. */
  const interruptedChange = (chute: string, action: ChangeAction) => options.interrupted.findLast((c) => c.chute === chute && c.action === action)?.id;

  for (const entry of await readdir(dir).catch(() => [])) {
    const left = leftover(entry);
    if (left === null) continue;
    await rm(path.join(dir, entry), { recursive: true, force: true });
    const what = left.cutShort === 'install' ? 'removed the staging folder of its install' : 'removed the folder its removal left';
    await repaired(left.chute, interruptedChange(left.chute, left.cutShort), what);
  }

  const names = await store.chuteNames();
  for (const name of names) {
    await writer
      .removeInterruptedWrites(name)
      .catch((error: unknown) => log(`chute ${name}: cannot remove the temporary files of interrupted writes: ${(error as Error).message}`));
  }
  if (engine === null) {
    if (names.length > 0) log('no container engine is reachable: chute states are not checked, and unfinished changes are repaired on a later start');
    return;
  }
  for (const name of names) {
    try {
      const rollback = (await writer.read(name, 'rollback')) as Rollback | null;
      if (rollback !== null && (await options.change?.(rollback.change))?.state === 'succeeded') {
        await writer.discard(name, 'rollback');
        log(`chute ${name}: removed the rollback of change ${rollback.change}, which had succeeded`);
      } else if (rollback !== null) {
        await undoUpdate(engine, writer, name, rollback, (text) => repaired(name, rollback.change, text));
      }
      const chute = await store.chute(name);
      const install = interruptedChange(name, 'install');
      if (chute?.record.state === 'installing' && install !== undefined) {
        for (const container of [...(await engine.companions(name)), ...(await engine.containers(name))]) await engine.remove(name, container.Id);
        await writer.remove(name);
        await repaired(name, install, 'removed the chute whose install had not finished, and its containers');
      } else if (chute !== null) {
        const change = options.interrupted.findLast((c) => c.chute === name)?.id;
        await restoreCompanions(engine, chute, options.chuteToken, (text) => repaired(name, change, text));
      }
    } catch (error) {
      log(`chute ${name}: repairing what a crash cut short failed, to be tried again at the next start: ${(error as Error).message}`);
    }
  }

  const containers = await engine.listAll().catch((error: unknown) => {
    log(`chute states are not checked: the container engine failed to list the containers: ${(error as Error).message}`);
    return null;
  });
  if (containers === null) return;
  for (const name of await store.chuteNames()) {
    const chute = await store.chute(name).catch(() => null);
    if (chute === null) continue;
    const state = chuteState(containers, name, chute.record.state);
    if (state === chute.record.state) continue;
    await writer.write(name, 'chute', { ...chute.record, state });
    log(`chute ${name}: ${String(chute.record.state)} → ${state}, as the container engine reports it${state === 'missing' ? ' (its container is gone)' : ''}`);
  }
}

/** Undoes a configuration update that a crash cut short (see `recoverChutes`). */
async function undoUpdate(
  engine: ChuteEngine,
  writer: ChuteWriter,
  name: string,
  rollback: Rollback,
  repaired: (text: string) => Promise<void>,
): Promise<void> {
  const short = (id: string) => id.slice(0, 12);
  const containers = await engine.containers(name);
  const previous = containers.find((c) => c.Id === rollback.container);
  const made = containers.filter((c) => c !== previous);
  if (rollback.container !== null && previous === undefined && made.length > 0) {
    await writer.discard(name, 'rollback');
    return repaired(`the update had replaced the previous container already: kept the new configuration and container ${short(made[0]!.Id)}`);
  }
  for (const container of made) {
    await engine.remove(name, container.Id);
    await repaired(`removed container ${short(container.Id)}, made by the update`);
  }
  await writer.write(name, 'service', rollback.config);
  if (rollback.cache !== undefined) await writer.write(name, 'cache', rollback.cache);
  if (rollback.record !== undefined) await writer.write(name, 'chute', rollback.record);
  await repaired(rollback.record === undefined ? 'restored the previous configuration' : 'restored the previous record and configuration');
  if (previous !== undefined) {
    const info = await engine.inspect(name, previous.Id);
    if (info.Name !== `/${chuteContainerName(name)}`) {
      await engine.rename(name, previous.Id, null);
      await repaired(`gave container ${short(previous.Id)} its name back`);
    }
    if (rollback.running) {
      await engine.stop(name, previous.Id);
      await engine.start(name, previous.Id);
      await repaired(`started container ${short(previous.Id)} again`);
    }
  } else if (rollback.container !== null) {
    await repaired(`the previous container ${short(rollback.container)} is gone`);
  }
  if (rollback.image !== undefined && rollback.image !== rollback.record?.image) {
    await engine.removeImage(rollback.image);
    await repaired(`removed image ${rollback.image}, built by the update`);
  }
  await writer.discard(name, 'rollback');
}

/**
 * Makes the containers of a chute's other services whole again as its record says (see
 * `recoverChutes`): nothing when each service of the record has one container in the main
 * container's namespace and no other is left; nothing without a main container to join.
 */
async function restoreCompanions(
  engine: ChuteEngine,
  chute: StoredChute,
  chuteToken: (chute: string) => Promise<string>,
  repaired: (text: string) => Promise<void>,
): Promise<void> {
  const { name } = chute;
  const wanted = companionServices(chute.record);
  const [main] = await engine.containers(name);
  const companions = await engine.companions(name);
  if (main === undefined || (wanted.length === 0 && companions.length === 0)) return;
  const joining = async (id: string) => (await engine.inspect(name, id)).HostConfig as { NetworkMode?: string } | undefined;
  const joined = await Promise.all(companions.map(async (c) => (await joining(c.Id))?.NetworkMode === `container:${main.Id}`));
  const whole =
    companions.length === wanted.length && wanted.every(([service]) => companions.some((c) => c.service === service)) && joined.every((joins) => joins);
  if (whole) return;
  for (const container of companions) {
    await engine.remove(name, container.Id);
    await repaired(`removed container ${shortId(container.Id)} of service ${container.service}`);
  }
  const running = main.State === 'running';
  for (const [service, entry] of wanted) {
    const id = await engine.create(name, companionSpec(chute, service, entry, main.Id, await chuteToken(name)));
    if (running) await engine.start(name, id);
    await repaired(`made container ${shortId(id)} of service ${service} again${running ? ', and started it' : ''}`);
  }
}
