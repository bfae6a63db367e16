import { describe, expect, it } from 'vitest';
import { UsageError } from '../runtime/options.ts';
import { commandHelp, parsePort, readCommandLine } from './command-line.ts';

const OPTIONS = [{ flag: 'port', env: 'TEST_PORT', default: '8080', value: 'PORT', description: 'port' }] as const;
const SWITCHES = [{ flag: 'no-auth', env: 'TEST_NO_AUTH', description: 'no auth' }] as const;

describe('readCommandLine', () => {
  it('takes a flag over its environment variable over its default', () => {
    expect(readCommandLine(OPTIONS, SWITCHES, [], {}).values.port).toBe('8080');
    expect(readCommandLine(OPTIONS, SWITCHES, [], { TEST_PORT: '81' }).values.port).toBe('81');
    expect(readCommandLine(OPTIONS, SWITCHES, ['--port', '82'], { TEST_PORT: '81' }).values.port).toBe('82');
  });

  it('turns a switch on by its flag or by 1/true/yes in its environment variable', () => {
    expect(readCommandLine(OPTIONS, SWITCHES, [], {}).switches['no-auth']).toBe(false);
    expect(readCommandLine(OPTIONS, SWITCHES, ['--no-auth'], {}).switches['no-auth']).toBe(true);
    for (const on of ['1', 'true', 'YES']) expect(readCommandLine(OPTIONS, SWITCHES, [], { TEST_NO_AUTH: on }).switches['no-auth']).toBe(true);
    for (const off of ['', '0', 'false', 'no']) expect(readCommandLine(OPTIONS, SWITCHES, [], { TEST_NO_AUTH: off }).switches['no-auth']).toBe(false);
  });

  it('refuses unknown flags, positional arguments and unclear switch values as usage errors', () => {
    expect(() => readCommandLine(OPTIONS, SWITCHES, ['--prot', '1'], {})).toThrow(UsageError);
    expect(() => readCommandLine(OPTIONS, SWITCHES, ['extra'], {})).toThrow(UsageError);
    expect(() => readCommandLine(OPTIONS, SWITCHES, [], { TEST_NO_AUTH: 'maybe' })).toThrow(/TEST_NO_AUTH must be 1, true, yes, 0, false or no/);
  });

  it('lists the switches in the help after the options', () => {
    const help = commandHelp('test [options]', 'A test.', OPTIONS, SWITCHES);
    expect(help).toMatch(/--port PORT[\s\S]*--no-auth\s+no auth \(env TEST_NO_AUTH=1\)[\s\S]*-h, --help/);
  });
});

describe('parsePort', () => {
  it('accepts 0 to 65535 and refuses anything else', () => {
    expect(parsePort('0')).toBe(0);
    expect(parsePort('65535')).toBe(65535);
    for (const bad of ['65536', '-1', '80a', '']) expect(() => parsePort(bad)).toThrow(UsageError);
  });
});
