import { describe, expect, it } from 'vitest';
import { optionsHelp } from './options-help.ts';

describe('optionsHelp', () => {
  it('lists every flag with its environment variable and default', () => {
    const help = optionsHelp('chutebox serve [options]', 'Serves.', [
      { flag: 'port', env: 'CHUTEBOX_PORT', default: '8080', value: 'PORT', description: 'TCP port' },
      { flag: 'functions', env: 'CHUTEBOX_FUNCTIONS', defaultHelp: 'beside the bundle', value: 'DIR', description: 'bundles' },
    ]);
    expect(help).toMatch(/--port PORT +TCP port \(env CHUTEBOX_PORT; default 8080\)/);
    expect(help).toMatch(/--functions DIR +bundles \(env CHUTEBOX_FUNCTIONS; default beside the bundle\)/);
    expect(help).toContain('--help');
  });

  it('lists the switches in the help after the options', () => {
    const help = optionsHelp(
      'test [options]',
      'A test.',
      [{ flag: 'port', env: 'TEST_PORT', default: '8080', value: 'PORT', description: 'port' }],
      [{ flag: 'no-auth', env: 'TEST_NO_AUTH', description: 'no auth' }],
    );
    expect(help).toMatch(/--port PORT[\s\S]*--no-auth\s+no auth \(env TEST_NO_AUTH=1\)[\s\S]*-h, --help/);
  });
});
