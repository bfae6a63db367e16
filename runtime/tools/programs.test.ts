import { chmod, mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { useTempDir } from '../../test/support/temp-dir.ts';
import { createHostDevice } from '../host-device.ts';
import { programsOnPath } from './programs.ts';

const temp = useTempDir('chutebox-programs-');

/** A folder holding an executable script for each name. */
async function bin(name: string, programs: readonly string[]): Promise<string> {
  const dir = await temp.folder(name);
  for (const program of programs) {
    await writeFile(path.join(dir, program), '#!/bin/sh\nexit 0\n');
    await chmod(path.join(dir, program), 0o755);
  }
  return dir;
}

afterEach(() => {
  vi.unstubAllEnvs();
});

describe('programsOnPath', () => {
  it('finds the known programs that are executable files in the folders of the PATH, in the known order', async () => {
    const sbin = await bin('sbin', ['nft', 'hostapd', 'bash']);
    const usrBin = await bin('usr-bin', ['ip']);
    expect(await programsOnPath(`${sbin}:${usrBin}`)).toEqual(['ip', 'hostapd', 'nft']);
  });

  it('skips a file that is not executable, a folder of the name, and relative or empty PATH entries', async () => {
    const dir = await bin('odd', []);
    await writeFile(path.join(dir, 'dnsmasq'), '#!/bin/sh\n');
    await mkdir(path.join(dir, 'ip'));
    await chmod(path.join(dir, 'ip'), 0o755);
    const relative = path.relative(process.cwd(), await bin('relative', ['nsenter']));
    expect(await programsOnPath(`${dir}::${relative}:${path.join(dir, 'missing')}`)).toEqual([]);
  });

  it('answers a frozen list', async () => {
    expect(Object.isFrozen(await programsOnPath(await bin('frozen', ['iw'])))).toBe(true);
  });
});

describe('the host device', () => {
  it("finds the programs on the runtime's PATH on the first call, not when made, and answers that same list until a restart", async () => {
    const dir = await bin('host', ['ip', 'hostapd', 'dnsmasq']);
    vi.stubEnv('PATH', await bin('empty', []));
    const device = createHostDevice({ stateDir: path.join(dir, 'state'), dockerSocket: path.join(dir, 'none.sock') });
    vi.stubEnv('PATH', dir);
    const first = device.programs();
    expect(await first).toEqual(['ip', 'hostapd', 'dnsmasq']);
    await writeFile(path.join(dir, 'nsenter'), '#!/bin/sh\n', { mode: 0o755 });
    expect(device.programs()).toBe(first);
    expect(await device.programs()).toEqual(['ip', 'hostapd', 'dnsmasq']);
  });
});
