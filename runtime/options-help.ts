import type { OptionSpec, SwitchSpec } from './options.ts';

/**
 * The help text of a command: usage line, summary, then one line per option, then per switch. A
 * bundle of its own (dist/options-help.mjs) for `serve`, which builds it only on `--help`.
 */
export function optionsHelp(usage: string, summary: string, specs: readonly OptionSpec[], switches: readonly SwitchSpec[] = []): string {
  const row = (left: string, description: string, extras: (string | false | undefined)[]) => {
    const shown = extras.filter(Boolean).join('; ');
    return `${left.padEnd(28)} ${description}${shown ? ` (${shown})` : ''}`;
  };
  const rows = [
    ...specs.map((spec) => {
      const shownDefault = spec.defaultHelp ?? spec.default;
      return row(`  --${spec.flag} ${spec.value}`, spec.description, [spec.env && `env ${spec.env}`, shownDefault !== undefined && `default ${shownDefault}`]);
    }),
    ...switches.map((spec) => row(`  --${spec.flag} `, spec.description, [spec.env && `env ${spec.env}=1`])),
  ];
  return [`usage: ${usage}`, '', summary, '', 'options:', ...rows, `${'  -h, --help'.padEnd(28)} show this help`, ''].join('\n');
}
