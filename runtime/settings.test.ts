import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTempDir } from '../test/support/temp-dir.ts';
import { UsageError, type OptionSpec } from './options.ts';
import { parseCommand, readSettings, SETTINGS_OPTION, settingsRecord } from './settings.ts';

const temp = useTempDir('chutebox-settings-');

const SPECS = [
  SETTINGS_OPTION,
  { flag: 'port', env: 'CHUTEBOX_PORT', default: '8080', value: 'PORT', description: 'port', setting: 'portal_server_port', kind: 'number' },
  { flag: 'docker-socket', env: 'CHUTEBOX_DOCKER_SOCKET', default: '/var/run/docker.sock', value: 'PATH', description: 'socket' },
  { flag: 'pdconf-apply-network', env: 'CHUTEBOX_PDCONF_APPLY_NETWORK', value: 'COMMAND', description: 'apply', kind: 'command' },
] as const satisfies readonly OptionSpec[];

let files = 0;

async function settingsFile(text: string): Promise<string> {
  const file = path.join(await temp.folder(`file-${++files}`), 'settings');
  await writeFile(file, text);
  return file;
}

describe('settings: file, then environment, then flags', () => {
  it('takes a value from the settings file when neither flag nor environment gives one', async () => {
    const file = await settingsFile('# chutebox\nportal_server_port=9090\ndocker_socket="/run/my docker.sock"\n');
    const { values } = await readSettings(SPECS, ['--settings', file], {});
    expect(values).toMatchObject({ port: '9090', 'docker-socket': '/run/my docker.sock' });
  });

  it('lets the environment win over the file, and a flag over both', async () => {
    const file = await settingsFile('portal_server_port=9090\ndocker_socket=/file.sock\n');
    const { values } = await readSettings(SPECS, ['--settings', file, '--port', '7070'], { CHUTEBOX_PORT: '6060', CHUTEBOX_DOCKER_SOCKET: '/env.sock' });
    expect(values).toMatchObject({ port: '7070', 'docker-socket': '/env.sock' });
  });

  it('reads the settings file named by CHUTEBOX_SETTINGS', async () => {
    const file = await settingsFile('portal_server_port=9191\n');
    expect((await readSettings(SPECS, [], { CHUTEBOX_SETTINGS: file })).values.port).toBe('9191');
  });

  it('refuses a name that is not a setting, listing the known ones', async () => {
    const file = await settingsFile('portal_server_prot=9090\n');
    const reading = readSettings(SPECS, ['--settings', file], {});
    await expect(reading).rejects.toThrow(UsageError);
    await expect(reading).rejects.toThrow(/"portal_server_prot" is not a setting; known settings: docker_socket, pdconf_apply_network, portal_server_port/);
  });

  it('refuses a settings file that was named but is missing', async () => {
    const missing = path.join(await temp.folder('missing'), 'nope');
    await expect(readSettings(SPECS, ['--settings', missing], {})).rejects.toThrow(/cannot read the settings file/);
  });
});

describe('settingsRecord', () => {
  it('names every setting in lower case, with numbers as numbers, commands as argument lists and unset ones as null', () => {
    const values = { settings: 'settings', port: '8080', 'docker-socket': '/var/run/docker.sock', 'pdconf-apply-network': undefined };
    expect(settingsRecord(SPECS, values, { state_dir: '/var/lib/chutebox' })).toEqual({
      settings_file: path.resolve('settings'),
      portal_server_port: 8080,
      docker_socket: '/var/run/docker.sock',
      pdconf_apply_network: null,
      state_dir: '/var/lib/chutebox',
    });
    expect(settingsRecord(SPECS, { ...values, 'pdconf-apply-network': '/etc/init.d/network  reload' }).pdconf_apply_network).toEqual([
      '/etc/init.d/network',
      'reload',
    ]);
  });

  it('parses a command at blanks, never through a shell', () => {
    expect(parseCommand('  /bin/echo "a b" $HOME ')).toEqual(['/bin/echo', '"a', 'b"', '$HOME']);
    expect(parseCommand('')).toEqual([]);
  });
});
