import { parseJson } from '../../functions/core/body/json.ts';
import { parseYaml } from '../../functions/core/body/yaml.ts';
import { HttpProblem } from '../../functions/core/problem.ts';
import { readAtMost } from '../read-at-most.ts';
import { FAULTS_BODY_BYTES } from './api.ts';

/**
 * The rules of `chutebox emulate --faults FILE`: a JSON (`.json`) or YAML document `{rules: [...]}`,
 * each rule as `POST /_chutebox/faults` takes one, at most as large as a request to it. The rules
 * themselves are checked as the emulator starts (`faultFileError` says what is wrong with them).
 *
 * @throws Error naming the file: it cannot be read, is too large, is not JSON or YAML, or holds no list `rules`.
 * @example
 * await readFaultsFile('faults.yaml') // [{ match: { path: '/api/v1/chutes' }, effect: { status: 503 } }]
 */
export async function readFaultsFile(file: string): Promise<unknown[]> {
  let text: string | null;
  try {
    text = await readAtMost(file, FAULTS_BODY_BYTES);
  } catch (error) {
    throw new Error(`--faults ${file}: cannot read it: ${(error as Error).message}`);
  }
  if (text === null) throw new Error(`--faults ${file} is larger than ${FAULTS_BODY_BYTES} bytes, the most a list of rules may be`);
  let document: unknown;
  try {
    document = file.endsWith('.json') ? parseJson(text) : parseYaml(text);
  } catch (error) {
    throw new Error(`--faults ${file} ${error instanceof HttpProblem ? error.errors?.[0]?.message : (error as Error).message}`);
  }
  const rules = (document as { rules?: unknown } | null)?.rules;
  if (!Array.isArray(rules)) throw new Error(`--faults ${file}: rules must be a list of fault rules (docs/emulator.md#faults)`);
  return rules;
}

/**
 * What a start whose `--faults FILE` rules do not check throws (`emulatorApp`'s 422 naming
 * `faults[0]…`, a 409 for an id given twice): an Error naming the file and each field as the file
 * names it (`rules[0].effect.status`), a line each. Any other error is answered as it is.
 */
export function faultFileError(file: string, error: unknown): unknown {
  if (!(error instanceof HttpProblem)) return error;
  const lines = error.errors?.map((entry) => `${entry.path.replace(/^faults/, 'rules')} ${entry.message}`) ?? [error.message];
  return new Error(`--faults ${file} holds rules that do not check:\n  ${lines.join('\n  ')}`);
}
