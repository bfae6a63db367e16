import * as z from 'zod/mini';
import { parseJson } from '../../functions/core/body/json.ts';
import { parseYaml } from '../../functions/core/body/yaml.ts';
import { HttpProblem } from '../../functions/core/problem.ts';
import { validate } from '../../functions/core/validate.ts';
import { readAtMost } from '../read-at-most.ts';
import type { FleetShare } from './members.ts';

/** The most devices a fleet may have: ids are `router-<index>` with at most 9 digits. */
export const FLEET_MOST = 1_000_000;

/** The largest fleet file read: a fleet file lists scenarios, not devices. */
const FLEET_FILE_BYTES = 64 * 1024;

const SCENARIO_RULE = 'a built-in scenario name, or a scenario folder (any path with a slash)';

/** What a fleet file says: how many devices (unless `--fleet` says), and the scenarios they run, by share. */
export const FleetFileSchema = z.object({
  size: z.optional(z.number().check(z.int(), z.minimum(1), z.maximum(FLEET_MOST))),
  scenarios: z
    .array(
      z.object({
        scenario: z.string().check(z.minLength(1, { error: SCENARIO_RULE })),
        share: z.number().check(z.positive({ error: 'must be a share above 0 (any weight: the shares need not add up to 1)' })),
      }),
    )
    .check(z.minLength(1, { error: 'must name at least one scenario' })),
});

/** A fleet file as read: its size when it gives one, and its scenarios. */
export interface FleetFile {
  size: number | undefined;
  scenarios: FleetShare[];
}

/**
 * The fleet of `chutebox emulate --fleet-file FILE`: a JSON (`.json`) or YAML document such as
 * `{size: 1000, scenarios: [{scenario: default, share: 0.7}, {scenario: gl-ar150, share: 0.3}]}`.
 *
 * @throws Error naming the file and each field that does not check.
 * @example
 * await readFleetFile('fleet.yaml') // { size: 1000, scenarios: [{ scenario: 'default', share: 0.7 }, …] }
 */
export async function readFleetFile(file: string): Promise<FleetFile> {
  let text: string | null;
  try {
    text = await readAtMost(file, FLEET_FILE_BYTES);
  } catch (error) {
    throw new Error(`--fleet-file ${file}: cannot read it: ${(error as Error).message}`);
  }
  if (text === null) throw new Error(`--fleet-file ${file} is larger than ${FLEET_FILE_BYTES} bytes`);
  try {
    const read = validate(FleetFileSchema, file.endsWith('.json') ? parseJson(text) : parseYaml(text), '', 'the fleet file');
    return { size: read.size, scenarios: read.scenarios };
  } catch (error) {
    if (!(error instanceof HttpProblem)) throw error;
    const lines = error.errors?.map((entry) => `${entry.path || 'the file'} ${entry.message}`) ?? [error.message];
    throw new Error(`--fleet-file ${file}:\n  ${lines.join('\n  ')}`);
  }
}
