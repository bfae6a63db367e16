#!/usr/bin/env node
// The `chutebox` command. Each command lives in its own bundle, imported only when it runs. It sits in
// the top layer, beside the emulator, because it dispatches to both the runtime and the emulator
// (docs/decisions/0021-layers-point-down.md).
import { PACKAGE_VERSION } from '../functions/core/version.ts';
import { releaseHeapFlags } from '../runtime/heap-flags.ts';

releaseHeapFlags();

/** What a command runs: its bundle's entry, given the arguments after the command name. */
type Command = (argv: string[]) => Promise<void>;

const COMMANDS: Record<string, { summary: string; run: Command }> = {
  serve: { summary: 'serve the device API of this machine', run: async (argv) => (await import('../runtime/main.ts')).serve(argv) },
  emulate: { summary: 'serve the device API from a recorded scenario', run: async (argv) => (await import('./main.ts')).main(argv) },
  record: { summary: "record this machine's raw sources as a scenario", run: async (argv) => (await import('./record.ts')).main(argv) },
  scenario: {
    summary: 'compile a scenario folder to one JSON document (scenario compile DIR)',
    run: async (argv) => (await import('./scenario/command.ts')).main(argv),
  },
  passwd: { summary: 'set the password of the API (read from stdin)', run: async (argv) => (await import('../runtime/passwd.ts')).main(argv) },
};

const HELP = [
  'usage: chutebox <command> [options]',
  '',
  'commands:',
  ...Object.entries(COMMANDS).map(([name, command]) => `  ${name.padEnd(10)} ${command.summary}`),
  '',
  'chutebox <command> --help shows the options of a command; chutebox --version prints the version.',
  '',
].join('\n');

async function run(argv: string[]): Promise<void> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') return void process.stdout.write(HELP);
  if (name === '--version' || name === '-v') return void process.stdout.write(`${PACKAGE_VERSION}\n`);
  const command = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (command === undefined) throw Object.assign(new Error(`unknown command ${JSON.stringify(name)}; see chutebox --help`), { exitCode: 2 });
  try {
    await command.run(rest);
  } catch (error) {
    if ((error as { exitCode?: unknown }).exitCode === 2 && error instanceof Error) error.message += `; see chutebox ${name} --help`;
    throw error;
  }
}

run(process.argv.slice(2)).catch((error: unknown) => {
  const exitCode = (error as { exitCode?: unknown }).exitCode;
  console.error(`chutebox: ${error instanceof Error ? error.message : String(error)}`);
  if (typeof exitCode !== 'number' && process.env.CHUTEBOX_DEBUG) console.error(error);
  process.exit(typeof exitCode === 'number' ? exitCode : 1);
});
