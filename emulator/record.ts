import { record } from '../runtime/record/command.ts';
import { loadScenario } from './scenario/device.ts';

/**
 * `chutebox record --out DIR` (dist/record.mjs): the recorder of runtime/record/, which reads back
 * what it wrote through the emulator's scenario Device, its files as recorded. It lives in the top
 * layer because it needs both (docs/decisions/0021-layers-point-down.md).
 *
 * @throws UsageError (exit code 2) for bad flags; an Error (exit code 1) when DIR is in the way, the
 *   recording cannot be written or it does not read back as recorded.
 * @example
 * await main(['--out', './my-router']);
 */
export function main(argv: string[]): Promise<void> {
  return record(argv, async (dir) => (await loadScenario(dir, undefined, { asRecorded: true })).device);
}
