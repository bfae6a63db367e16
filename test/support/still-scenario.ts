import { cp } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { LIVING_FILE } from '../../emulator/living/spec.ts';
import { useTempDir } from './temp-dir.ts';

const SCENARIOS = fileURLToPath(new URL('../../fixtures/scenarios/', import.meta.url));

/**
 * A copy of a built-in scenario without its living network (`living.yaml`), made once for the tests
 * of a file in a temp folder of its own, in a folder of the scenario's name: what `chutebox emulate
 * --scenario <copy>` serves as recorded, for a test that checks answers against the recordings or
 * compares answers taken at different times.
 *
 * @example
 * const still = useStillScenario('default');
 * const server = await start(['emulate', '--port', '0', '--scenario', await still()]);
 */
export function useStillScenario(name: string): () => Promise<string> {
  const temp = useTempDir('chutebox-still-scenario-');
  let copy: Promise<string> | undefined;
  return () =>
    (copy ??= (async () => {
      const dir = path.join(temp.path(), name);
      await cp(path.join(SCENARIOS, name), dir, { recursive: true, verbatimSymlinks: true, filter: (source) => path.basename(source) !== LIVING_FILE });
      return dir;
    })());
}
