import { describe, expect, it } from 'vitest';
import { CHANGE_LOG_OPTIONS, changeLogBound, checkSubnetPool, parseCount, parsePort, parseSeconds, readOptions, UsageError } from './options.ts';

const SPECS = [
  { flag: 'port', env: 'CHUTEBOX_PORT', default: '8080', value: 'PORT', description: 'TCP port' },
  { flag: 'functions', env: 'CHUTEBOX_FUNCTIONS', defaultHelp: 'beside the bundle', value: 'DIR', description: 'bundles' },
] as const;

const OPTIONS = [{ flag: 'port', env: 'TEST_PORT', default: '8080', value: 'PORT', description: 'port' }] as const;
const SWITCHES = [{ flag: 'no-auth', env: 'TEST_NO_AUTH', description: 'no auth' }] as const;

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

  it('takes a flag over its environment variable over its default, with switches too', () => {
    expect(readOptions(OPTIONS, [], {}, SWITCHES).values.port).toBe('8080');
    expect(readOptions(OPTIONS, [], { TEST_PORT: '81' }, SWITCHES).values.port).toBe('81');
    expect(readOptions(OPTIONS, ['--port', '82'], { TEST_PORT: '81' }, SWITCHES).values.port).toBe('82');
  });

  it('turns a switch on by its flag or by 1/true/yes in its environment variable', () => {
    expect(readOptions(OPTIONS, [], {}, SWITCHES).switches['no-auth']).toBe(false);
    expect(readOptions(OPTIONS, ['--no-auth'], {}, SWITCHES).switches['no-auth']).toBe(true);
    for (const on of ['1', 'true', 'YES']) expect(readOptions(OPTIONS, [], { TEST_NO_AUTH: on }, SWITCHES).switches['no-auth']).toBe(true);
    for (const off of ['', '0', 'false', 'no']) expect(readOptions(OPTIONS, [], { TEST_NO_AUTH: off }, SWITCHES).switches['no-auth']).toBe(false);
  });

  it('refuses unknown flags, positional arguments and unclear switch values as usage errors', () => {
    expect(() => readOptions(OPTIONS, ['--prot', '1'], {}, SWITCHES)).toThrow(UsageError);
    expect(() => readOptions(OPTIONS, ['extra'], {}, SWITCHES)).toThrow(UsageError);
    expect(() => readOptions(OPTIONS, [], { TEST_NO_AUTH: 'maybe' }, SWITCHES)).toThrow(/TEST_NO_AUTH must be 1, true, yes, 0, false or no/);
  });
});

describe('parsePort', () => {
  it('accepts 0 to 65535 and refuses anything else', () => {
    expect(parsePort('0')).toBe(0);
    expect(parsePort('65535')).toBe(65535);
    for (const bad of ['65536', '-1', '80a', '']) expect(() => parsePort(bad)).toThrow(UsageError);
  });
});

describe('parseSeconds', () => {
  it('accepts a positive number of seconds up to an hour, fractions too, and refuses anything else naming the flag', () => {
    expect(parseSeconds('5', 'tool-timeout')).toBe(5);
    expect(parseSeconds('0.5', 'tool-timeout')).toBe(0.5);
    expect(parseSeconds('3600', 'tool-timeout')).toBe(3600);
    for (const bad of ['0', '0.0', '-1', '3601', '1e3', '5s', '', '.5']) expect(() => parseSeconds(bad, 'tool-timeout')).toThrow(/--tool-timeout/);
  });
});

describe('parseCount', () => {
  it('accepts a whole number from 1 to 1000000, and refuses anything else naming the flag', () => {
    expect(parseCount('1', 'telemetry-queue-size')).toBe(1);
    expect(parseCount('1000000', 'telemetry-queue-size')).toBe(1_000_000);
    for (const bad of ['0', '1000001', '-1', '1.5', '1e3', '', 'ten']) expect(() => parseCount(bad, 'telemetry-queue-size')).toThrow(/--telemetry-queue-size/);
  });
});

describe('checkSubnetPool', () => {
  it('accepts auto and a network of /24 or larger, and refuses anything else naming the flag', () => {
    for (const good of ['auto', '172.30.0.0/16', '10.0.0.0/8', '192.168.200.0/24']) expect(checkSubnetPool(good)).toBe(good);
    for (const bad of ['', 'AUTO', '10.0.0.0', '10.0.0.0/25', '10.0.0.0/33', '300.0.0.0/8']) expect(() => checkSubnetPool(bad)).toThrow(/--chute-subnet-pool/);
  });
});

describe('changeLogBound', () => {
  it('keeps 200 records for 30 days by default, and takes other whole numbers', () => {
    expect(changeLogBound(readOptions(CHANGE_LOG_OPTIONS, [], {}).values)).toEqual({ records: 200, days: 30 });
    expect(changeLogBound(readOptions(CHANGE_LOG_OPTIONS, ['--change-log-days', '7'], { CHUTEBOX_CHANGE_LOG_RECORDS: '50' }).values)).toEqual({
      records: 50,
      days: 7,
    });
  });

  it('refuses a bound that is not a whole number from 1, naming the flag', () => {
    expect(() => changeLogBound(readOptions(CHANGE_LOG_OPTIONS, ['--change-log-records', '0'], {}).values)).toThrow(
      /--change-log-records must be a whole number/,
    );
    expect(() => changeLogBound(readOptions(CHANGE_LOG_OPTIONS, ['--change-log-days', 'month'], {}).values)).toThrow(
      /--change-log-days must be a whole number/,
    );
  });
});
