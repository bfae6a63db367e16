import type { Device } from '../../functions/core/device/index.ts';
import { chuteState } from '../../functions/chutes/state.ts';
import type { Note } from '../changes/runner.ts';
import type { ChuteEngine } from '../engine/docker.ts';
import type { ChuteWriter } from './store.ts';

/**
 * Sets the record's `state` to the chute's state as the engine reports it now, given what the change
 * meant it to be: after a stop, a container that exited with 137 or 143 (killed by the stop) is
 * `stopped`; after anything else, an exited container is `failed` unless it exited with 0.
 */
export async function recordState(
  engine: ChuteEngine,
  chutes: Pick<Device, 'chute'>,
  writer: ChuteWriter,
  name: string,
  note: Note,
  intended: 'running' | 'stopped',
): Promise<void> {
  try {
    const chute = await chutes.chute(name);
    if (chute === null) return;
    const state = chuteState(await engine.listAll(), name, intended);
    if (chute.record.state !== state) await writer.write(name, 'chute', { ...chute.record, state });
  } catch (error) {
    await note(`could not record the chute's state: ${(error as Error).message}`);
  }
}
