import path from 'node:path';
import type { ChuteAction, DeviceAction } from '../../functions/core/device/index.ts';
import type { ChangeLogBound } from '../changes/bound.ts';
import { CHANGES_DIR } from '../changes/log.ts';
import { chuteEffectsBy, type ChangeEffect, type ChangeRunner } from '../changes/runner.ts';
import type { HostParts } from './host-parts.ts';

/**
 * The host's change pipeline (runtime/changes/runner.ts), its log in `<stateDir>/changes`, kept within
 * `bound`: changes to chutes run on the engine (`HostChutes.effects`), changes of the device itself in
 * the device configuration; each step is published as an event. The runner and the log's files are a
 * bundle of their own (dist/change-log.mjs), loaded on first use: at start, when `recover` opens the log.
 */
export function hostChanges(host: HostParts, bound: ChangeLogBound | undefined): ChangeRunner {
  /** The effect of a chute action, from the chute-lifecycle bundle (loaded on the first change); the host configuration renders the chute's networks after it. */
  const onChute =
    <A extends ChuteAction>(action: A): ChangeEffect<A> =>
    async (request, note, id) => {
      const chutes = await host.chutesOnEngine();
      if (chutes === null) throw new Error('the container engine client cannot be loaded');
      const after = await (chutes.effects[action] as ChangeEffect<A>)(request, note, id);
      // The chutes' networks are part of the system configuration.
      if (action !== 'start' && action !== 'stop' && action !== 'restart') await (await host.config.started()).hostConfig.refresh();
      return after;
    };
  /** The effect of a change of the device itself, from the configuration bundle. */
  const onDevice =
    <A extends DeviceAction>(action: A): ChangeEffect<A> =>
    async (request, note, id) =>
      ((await host.config.started()).effects[action] as ChangeEffect<A>)(request, note, id);
  const changesDir = path.join(host.stateDir, CHANGES_DIR);
  let loading: Promise<ChangeRunner> | undefined;
  const runner = () =>
    (loading ??= import('../changes/change-log.entry.ts').then(({ changeRunner, openChangeLog }) =>
      changeRunner({
        openLog: () => openChangeLog(changesDir, Date.now),
        bound,
        publish: host.publish,
        effects: {
          ...chuteEffectsBy(onChute),
          'update-hostconfig': onDevice('update-hostconfig'),
          'update-runtime': onDevice('update-runtime'),
          reboot: onDevice('reboot'),
          shutdown: onDevice('shutdown'),
        },
      }),
    ));
  return {
    submitChange: (request) => runner().then((changes) => changes.submitChange(request)),
    change: (id) => runner().then((changes) => changes.change(id)),
    changes: () => runner().then((changes) => changes.changes()),
    open: () => runner().then((changes) => changes.open()),
    annotate: (id, text) => runner().then((changes) => changes.annotate(id, text)),
    exclusive: (work, reopen) => runner().then((changes) => changes.exclusive(work, reopen)),
    // Nothing to wait for while no change was ever asked for.
    idle: async () => (await loading)?.idle(),
  };
}
