import { createHash } from 'node:crypto';
import { mkdir, readdir, readlink } from 'node:fs/promises';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { fileExists, useTempDir } from '../../test/support/temp-dir.ts';
import { tarArchive } from '../../test/support/tar.ts';
import { installRelease } from './runtime-release.ts';

const temp = useTempDir('chutebox-runtime-release-');

/** A built `dist/` in little, and `extra` files beside it. */
function dist(version: string, extra: Record<string, string> = {}): Uint8Array {
  return tarArchive({
    'manifest.json': JSON.stringify({ version, functions: [{ file: 'functions/info-x-get.mjs' }] }),
    'chutebox.mjs': `console.log(${JSON.stringify(version)});\n`,
    'functions/info-x-get.mjs': 'export const invoke = async () => ({});\n',
    ...extra,
  });
}

const releaseOf = (version: string, archive: Uint8Array) => ({ version, sha256: createHash('sha256').update(archive).digest('hex'), url: '/r.tar' });

describe('installing a release', () => {
  it('unpacks a gzipped archive too, and removes what an interrupted install left', async () => {
    const releases = await temp.folder('gzipped');
    await mkdir(path.join(releases, '1.0.0-aaaaaaaaaaaa.partial'));
    await mkdir(path.join(releases, 'stale-release'));
    const archive = gzipSync(dist('2.0.0'));
    const name = await installRelease(releases, releaseOf('2.0.0', archive), archive, process.execPath);
    expect(await readlink(path.join(releases, 'current'))).toBe(name);
    expect((await readdir(releases)).sort()).toEqual([name, 'current']);
  });

  it('refuses an archive with a path out of its folder, writing nothing there, the links as they were', async () => {
    const releases = await temp.folder('escape');
    const good = dist('3.0.0');
    const first = await installRelease(releases, releaseOf('3.0.0', good), good, process.execPath);
    const evil = dist('3.0.1', { '../../escaped.txt': 'out' });
    await expect(installRelease(releases, releaseOf('3.0.1', evil), evil, process.execPath)).rejects.toThrow(/cannot be unpacked/);
    expect(await fileExists(path.join(releases, '..', 'escaped.txt'))).toBe(false);
    expect(await readlink(path.join(releases, 'current'))).toBe(first);
    expect(await readdir(releases)).toEqual(expect.not.arrayContaining([expect.stringMatching(/^3\.0\.1/)]));
  });

  it('refuses a version that cannot name a folder, and a manifest of another version', async () => {
    const releases = await temp.folder('versions');
    const archive = dist('4.0.0');
    await expect(installRelease(releases, releaseOf('../4.0.0', archive), archive, process.execPath)).rejects.toThrow(
      'release version "../4.0.0" cannot name a folder',
    );
    await expect(installRelease(releases, releaseOf('4.0.1', archive), archive, process.execPath)).rejects.toThrow(
      `the release's manifest.json says version "4.0.0", not 4.0.1`,
    );
    expect(await readdir(releases)).toEqual([]);
  });
});
