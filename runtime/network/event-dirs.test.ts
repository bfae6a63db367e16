import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { fileExists, useTempDir } from '../../test/support/temp-dir.ts';
import { eventDirPrefix, removeStaleEventDirs } from './event-dirs.ts';

const temp = useTempDir('chutebox-event-dirs-');

describe("the private folders of hostapd_cli (hostapd's events)", () => {
  it("are named for the runtime's pid, in the temp folder, and stay while it runs", async () => {
    const made = await mkdtemp(eventDirPrefix());
    try {
      expect(path.dirname(made)).toBe(os.tmpdir());
      expect(path.basename(made)).toMatch(new RegExp(`^chutebox-hostapd-events-${process.pid}-\\w{6}$`));
      expect(await removeStaleEventDirs()).not.toContain(made);
      expect(await fileExists(made)).toBe(true);
    } finally {
      await rm(made, { recursive: true, force: true });
    }
  });

  it('left by a runtime that no longer runs are removed; those of running ones and other folders stay', async () => {
    const dir = await temp.folder('tmp');
    const gone = spawnSync('true').pid!;
    const names = [`chutebox-hostapd-events-${gone}-aB3xYz`, `chutebox-hostapd-events-${process.pid}-Qw12er`, 'chutebox-hostapd-events-x1Yz2A', 'other-folder'];
    for (const name of names) await mkdir(path.join(dir, name));
    expect(await removeStaleEventDirs(dir)).toEqual([path.join(dir, names[0]!)]);
    expect((await readdir(dir)).sort()).toEqual(names.slice(1).sort());
  });
});
