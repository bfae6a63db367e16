import type { ChuteAction } from '../../functions/core/device/index.ts';
import type { ChangeEffect, ChangeEffects } from '../changes/runner.ts';
import { onEngine, type ChuteWork, type LifecycleOptions, type WorkDone } from './chute-work.ts';
import { deleteChute } from './delete.ts';
import { install } from './install.ts';
import { recordState } from './recorded-state.ts';
import { restartChute, startChute, stopChute } from './start-stop.ts';
import { updateConfig, updateFromSource } from './update.ts';

/**
 * What each change does to a chute on the container engine (see `ChangeRequest`). A chute's container
 * is `chute-<name>`, labelled `io.chutebox.chute=<name>`, made from the image the chute record names
 * (`image`) with:
 * - `Env`: the configuration's `environment`, then the record's (a later one wins);
 * - `HostConfig.PortBindings` from `host_config.port_bindings`, `HostConfig.Dns` from `host_config.dns`;
 * - `HostConfig.NetworkMode` from `networkMode`.
 *
 * `install` stores the new chute (`chute.json` with `state: 'installing'`, `service.json`, `cache.json`
 * `{}`, all at once), removes any container an earlier chute of that name left behind, then creates
 * and starts its container as `start` does. When a step fails (image missing, engine error) it
 * removes the container it made and the chute's folder, and the change fails with the reason.
 *
 * `start` starts the existing container, or (re)creates it when there is none or the change brings an
 * environment. `update-config` first resolves the configuration's `[redacted]` placeholders against
 * the one stored now (`resolvePlaceholders`: the change fails, with nothing changed, when one has no
 * secret behind it any more), then writes what undoes it (`rollback.json`, see `Rollback`), then
 * stores the new configuration, sets the old container aside (stopped, renamed
 * `chute-<name>-previous-<id>`), creates and starts the new one, removes the old one and, last,
 * `rollback.json`. On any failure it removes the new container, restores the previous configuration and
 * puts the old container back (running again when it ran before), and the change fails with the
 * engine's message; when a crash cuts it short, `recoverChutes` does the same at the next start. After
 * every change but a successful delete, the record's `state` is set to the chute's state as the engine
 * then reports it (the last known state, for when no engine is reachable).
 *
 * @example
 * const effects = chuteEffects({ chutes, writer, engine: () => chuteEngine(socket), networkMode: 'bridge' });
 * await effects.start({ action: 'start', chute: 'hello' }, async (text) => console.log(text), 7);
 */
export function chuteEffects(options: LifecycleOptions): ChuteEffects {
  const onChute = <A extends ChuteAction>(work: ChuteWork<A>) => onInstalledChute(options, work);
  return {
    install: (request, note, id) => install(options, request, note, id),
    start: onChute(startChute),
    stop: onChute(stopChute),
    restart: onChute(restartChute),
    delete: onChute(deleteChute),
    'update-config': onChute(updateConfig),
    update: onChute(updateFromSource),
  };
}

/** What each change to a chute does on the container engine. */
export type ChuteEffects = Pick<ChangeEffects, ChuteAction>;

/** The effect of an action on a chute that must be installed, with a reachable engine; it records the chute's state after. */
function onInstalledChute<A extends ChuteAction>(options: LifecycleOptions, work: ChuteWork<A>): ChangeEffect<A> {
  return async (request, note, id) => {
    const name = request.chute;
    const chute = await options.chutes.chute(name);
    if (chute === null) throw new Error(`chute ${name} is not installed`);
    const { engine, steps } = await onEngine(options, name, note);
    let done: WorkDone | undefined;
    try {
      done = await work({ options, chute, engine, steps }, request, note, id);
    } finally {
      if (done?.deleted !== true) await recordState(engine, options.chutes, options.writer, name, note, request.action === 'stop' ? 'stopped' : 'running');
    }
    return done?.after;
  };
}
