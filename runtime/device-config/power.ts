import type { DevicePowerAction } from '../../functions/core/device/index.ts';
import { POWER_NOTES } from '../changes/log.ts';
import type { Note } from '../changes/runner.ts';
import { runTool } from '../tools/run.ts';
import { commandFailure } from './command-exit.ts';
import { daemonLog } from '../log/log.ts';

/** The command of each power change, an argument list (settings `reboot_command`, `shutdown_command`); none by default. */
export type PowerCommands = Partial<Record<DevicePowerAction, string[]>>;

/** How long a reboot or shutdown command may run before it is stopped and the change fails. */
export const POWER_COMMAND_TIMEOUT_MS = 60_000;

/** Does a `reboot` or `shutdown` change; throws to fail it. */
export type PowerChange = (request: { action: DevicePowerAction }, note: Note) => Promise<void>;

/**
 * Reboots or shuts down the device by running the configured command through `runTool`: no shell,
 * the arguments as configured, stopped after `timeoutMs` (default 60 s), output capped. Just before it
 * runs, the change notes `rebooting: <command>` (`shutting down: …`, `POWER_NOTES`): a command that
 * stops the runtime with the device leaves the change `running` with that note, and the next start
 * marks it `succeeded` (runtime/changes/log.ts). A command that exits with 0 while the runtime still
 * runs (one that only asks init to reboot) succeeds at once; one that cannot run, exits otherwise or
 * runs too long fails the change, with the reason logged too. Without a command nothing is run and
 * the change fails naming the setting.
 *
 * @example
 * const power = powerChanges({ commands: { reboot: ['/sbin/reboot'] } });
 * await power({ action: 'reboot' }, note); // notes 'rebooting: /sbin/reboot', then runs it
 */
export function powerChanges(options: { commands: PowerCommands; timeoutMs?: number }): PowerChange {
  return async ({ action }, note) => {
    const command = options.commands[action] ?? [];
    if (command.length === 0) {
      throw new Error(
        `no ${action} command is configured, so nothing was run: set --${action}-command (CHUTEBOX_${action.toUpperCase()}_COMMAND, or ${action}_command in the settings file)`,
      );
    }
    const [program, ...args] = command;
    const shown = command.join(' ');
    await note(`${POWER_NOTES[action]}${shown}`);
    try {
      const result = await runTool({ name: `the ${action} command`, path: program!, setting: `--${action}-command` }, args, {
        timeoutMs: options.timeoutMs ?? POWER_COMMAND_TIMEOUT_MS,
        maxOutputBytes: 64 * 1024,
      });
      const failure = commandFailure(result);
      if (failure !== null) throw new Error(`${shown} ${failure}`);
    } catch (error) {
      daemonLog.error(`the ${action} of the device failed: ${(error as Error).message}`);
      throw error;
    }
    await note(`${shown} finished`);
  };
}
