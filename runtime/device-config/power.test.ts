import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { useTempDir } from '../../test/support/temp-dir.ts';
import { writeScript } from '../../test/support/tool-scripts.ts';
import { powerChanges } from './power.ts';

const temp = useTempDir('chutebox-power-');

/** Runs a power change, answering the notes it made and how it ended (the error's message, or null). */
async function perform(power: ReturnType<typeof powerChanges>, action: 'reboot' | 'shutdown') {
  const notes: string[] = [];
  const log = vi.spyOn(console, 'error').mockImplementation(() => {});
  try {
    await power({ action }, async (text) => void notes.push(text));
    return { notes, error: null, logged: log.mock.calls.map((call) => call.join(' ')) };
  } catch (error) {
    return { notes, error: (error as Error).message, logged: log.mock.calls.map((call) => call.join(' ')) };
  } finally {
    log.mockRestore();
  }
}

describe('powerChanges (the runtime side of a reboot or shutdown change)', () => {
  it('notes the command, then runs it with the configured arguments and no shell', async () => {
    const dir = await temp.folder('runs');
    const marker = path.join(dir, 'marker');
    const script = await writeScript(dir, 'reboot', `printf '%s|' "$@" > '${marker}'`);
    const result = await perform(powerChanges({ commands: { reboot: [script, 'now', '$HOME', '*'] } }), 'reboot');
    expect(result).toMatchObject({ error: null, notes: [`rebooting: ${script} now $HOME *`, `${script} now $HOME * finished`] });
    expect(await readFile(marker, 'utf8')).toBe('now|$HOME|*|');
  });

  it('fails without running anything when no command is configured, naming the setting', async () => {
    const result = await perform(powerChanges({ commands: { reboot: ['/bin/true'] } }), 'shutdown');
    expect(result.notes).toEqual([]);
    expect(result.error).toBe(
      'no shutdown command is configured, so nothing was run: set --shutdown-command (CHUTEBOX_SHUTDOWN_COMMAND, or shutdown_command in the settings file)',
    );
  });

  it('fails with how the command ended and its last line when it exits non-zero, and logs it', async () => {
    const dir = await temp.folder('fails');
    const script = await writeScript(dir, 'poweroff', 'echo "poweroff: must be superuser." >&2; exit 1');
    const result = await perform(powerChanges({ commands: { shutdown: [script] } }), 'shutdown');
    expect(result.notes).toEqual([`shutting down: ${script}`]);
    expect(result.error).toBe(`${script} exited with code 1: poweroff: must be superuser.`);
    expect(result.logged).toEqual([`the shutdown of the device failed: ${script} exited with code 1: poweroff: must be superuser.`]);
  });

  it('fails naming the setting when the command is missing, and when it runs past the timeout', async () => {
    const dir = await temp.folder('missing');
    const missing = await perform(powerChanges({ commands: { reboot: [path.join(dir, 'no-such-reboot')] } }), 'reboot');
    expect(missing.error).toBe(`the reboot command is not installed at ${path.join(dir, 'no-such-reboot')}; set its path with --reboot-command`);
    const slow = await writeScript(dir, 'slow', 'sleep 5');
    const timedOut = await perform(powerChanges({ commands: { reboot: [slow] }, timeoutMs: 100 }), 'reboot');
    expect(timedOut.error).toBe('the reboot command did not finish within 0.1 s and was stopped');
  });
});
