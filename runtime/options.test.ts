import { describe, expect, it } from 'vitest';
import { optionsHelp, readOptions, UsageError } from './options.ts';

const SPECS = [
  { flag: 'port', env: 'CHUTEBOX_PORT', default: '8080', value: 'PORT', description: 'TCP port' },
  { flag: 'functions', env: 'CHUTEBOX_FUNCTIONS', defaultHelp: 'beside the bundle', value: 'DIR', description: 'bundles' },
] as const;

describe('readOptions', () => {
  it('takes a flag over its environment variable, and the environment over the default', () => {
    expect(readOptions(SPECS, ['--port', '1'], { CHUTEBOX_PORT: '2' }).values.port).toBe('1');
    expect(readOptions(SPECS, [], { CHUTEBOX_PORT: '2' }).values.port).toBe('2');
    expect(readOptions(SPECS, [], {}).values.port).toBe('8080');
    expect(readOptions(SPECS, [], { CHUTEBOX_PORT: '' }).values.port).toBe('8080');
  });

  it('leaves an option without default undefined', () => {
    expect(readOptions(SPECS, [], {}).values.functions).toBeUndefined();
  });

  it('refuses an unknown flag, a flag without value and a positional argument with a UsageError (exit code 2)', () => {
    for (const argv of [['--bogus'], ['--port'], ['serve']]) {
      expect(() => readOptions(SPECS, argv, {})).toThrow(UsageError);
    }
    expect(new UsageError('x').exitCode).toBe(2);
  });

  it('reports --help', () => {
    expect(readOptions(SPECS, ['--help'], {}).help).toBe(true);
    expect(readOptions(SPECS, ['-h'], {}).help).toBe(true);
  });
});

describe('optionsHelp', () => {
  it('lists every flag with its environment variable and default', () => {
    const help = optionsHelp('chutebox serve [options]', 'Serves.', SPECS);
    expect(help).toMatch(/--port PORT +TCP port \(env CHUTEBOX_PORT; default 8080\)/);
    expect(help).toMatch(/--functions DIR +bundles \(env CHUTEBOX_FUNCTIONS; default beside the bundle\)/);
    expect(help).toContain('--help');
  });
});
