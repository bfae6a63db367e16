import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { UsageError } from '../../runtime/options.ts';
import { compileScenario } from './compiled.ts';
import { resolveScenario } from './names.ts';

const HELP = [
  'usage: chutebox scenario compile DIR [--out FILE]',
  '',
  'Compiles a scenario folder (what chutebox record writes) to one JSON document: its documents',
  'parsed and checked, and every raw file, folder and link. The document is what chuteboxHandlers',
  "serves in a browser (import { chuteboxHandlers } from 'chutebox/msw' with setupWorker).",
  '',
  'options:',
  '  --out FILE   where to write it; default <name of DIR>.json in the current folder',
  '  -h, --help   show this help',
  '',
].join('\n');

/**
 * `chutebox scenario compile DIR [--out FILE]` (dist/scenario-command.mjs): writes the scenario
 * folder DIR as a `CompiledScenario` (`compileScenario`), checked as `chutebox emulate` checks it.
 *
 * @throws UsageError (exit code 2) for a bad command line; ScenarioError (exit code 1) for a bad scenario.
 * @example
 * await main(['compile', './my-router', '--out', 'public/my-router.json']);
 */
export async function main(argv: string[]): Promise<void> {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.help) return void process.stdout.write(HELP);
  const [command, dir, ...extra] = positionals;
  if (command !== 'compile')
    throw new UsageError(command === undefined ? 'a command is required: compile' : `unknown command ${JSON.stringify(command)}: compile`);
  if (dir === undefined) throw new UsageError('compile needs the scenario folder: chutebox scenario compile DIR');
  if (extra.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(extra[0])}`);
  // A name without a slash is a folder here too: compiling is for recorded scenarios.
  const folder = await resolveScenario(dir.includes('/') ? dir : `./${dir}`);
  const compiled = await compileScenario(folder);
  const out = path.resolve(values.out ?? `${compiled.name}.json`);
  const text = `${JSON.stringify(compiled)}\n`;
  await writeFile(out, text);
  const files = Object.values(compiled.files).filter((entry) => 'file' in entry).length;
  process.stdout.write(
    `compiled ${folder} (${files} files, ${Object.keys(compiled.chutes).length} chutes) into ${out}, ${text.length} bytes\n` +
      `serve it in a browser with: setupWorker(...chuteboxHandlers({ baseUrl, scenario: <this document> }))\n`,
  );
}

function parse(argv: string[]) {
  return parseArgs({ args: argv, allowPositionals: true, strict: true, options: { out: { type: 'string' }, help: { type: 'boolean', short: 'h' } } });
}
