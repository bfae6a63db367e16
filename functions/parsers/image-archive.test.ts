import { execFileSync } from 'node:child_process';
import { link, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { brokenTars } from '../../test/support/broken-tars.ts';
import { dockerSaveArchive, tarArchive } from '../../test/support/tar.ts';
import { imageArchiveTags, tarFiles } from './image-archive.ts';

describe('imageArchiveTags', () => {
  it('answers the RepoTags of every image in manifest.json', async () => {
    expect(await imageArchiveTags(dockerSaveArchive(['busybox:latest', 'busybox:1.36']))).toEqual(['busybox:latest', 'busybox:1.36']);
  });

  it('answers no tags for an untagged image', async () => {
    expect(await imageArchiveTags(tarArchive({ 'manifest.json': '[{"Config":"x.json","RepoTags":null,"Layers":[]}]' }))).toEqual([]);
  });

  it('throws for a tar without manifest.json, a manifest that is not JSON, and bytes that are not a tar', async () => {
    await expect(imageArchiveTags(tarArchive({ 'hello.txt': 'hi' }))).rejects.toThrow(/no manifest.json/);
    await expect(imageArchiveTags(tarArchive({ 'manifest.json': '{' }))).rejects.toThrow(/not JSON/);
    await expect(imageArchiveTags(new TextEncoder().encode('name: hello\n'.repeat(100)))).rejects.toThrow(/not a tar/);
    await expect(imageArchiveTags(new Uint8Array(0))).rejects.toThrow(/not a tar/);
  });
});

describe('tarFiles', () => {
  const file = async (archive: Uint8Array, name: string) => {
    const bytes = (await tarFiles(archive, [name])).get(name);
    return bytes === undefined ? null : new TextDecoder().decode(bytes);
  };

  it('finds a file in an archive written by tar(1), at ./ and past a long name', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'chutebox-tar-'));
    try {
      const long = 'x'.repeat(120);
      await writeFile(path.join(dir, long), 'first');
      await writeFile(path.join(dir, 'manifest.json'), '[]');
      const archive = execFileSync('tar', ['-C', dir, '-cf', '-', `./${long}`, './manifest.json']);
      expect(await file(new Uint8Array(archive), 'manifest.json')).toBe('[]');
      expect(await file(new Uint8Array(archive), long)).toBe('first');
      expect(await file(new Uint8Array(archive), 'other')).toBeNull();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("finds a file past PAX records, as Python's tarfile (pdtools) writes a long or non-ASCII name", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'chutebox-tar-'));
    try {
      const long = `${'é'.repeat(60)}.txt`;
      await writeFile(path.join(dir, long), 'second');
      await writeFile(path.join(dir, 'paradrop.yaml'), 'name: hello\n');
      const archive = execFileSync('tar', ['-C', dir, '--format=posix', '-cf', '-', long, 'paradrop.yaml']);
      expect(await file(new Uint8Array(archive), long)).toBe('second');
      expect(await file(new Uint8Array(archive), 'paradrop.yaml')).toBe('name: hello\n');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('answers the root files asked for, from a tar that is a view into a larger buffer', async () => {
    const archive = tarArchive({ 'paradrop.yaml': 'name: hello\n', Dockerfile: 'FROM busybox\n', 'app.sh': 'echo hi\n' });
    const padded = new Uint8Array(archive.length + 100);
    padded.set(archive, 100);
    const files = await tarFiles(padded.subarray(100), ['paradrop.yaml', 'Dockerfile', 'manifest.json']);
    expect([...files.keys()].sort()).toEqual(['Dockerfile', 'paradrop.yaml']);
    expect(new TextDecoder().decode(files.get('Dockerfile'))).toBe('FROM busybox\n');
  });

  it('does not take a link, a folder, ../name or /name for the file name', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'chutebox-tar-'));
    try {
      await writeFile(path.join(dir, 'target'), '[]');
      await symlink('target', path.join(dir, 'manifest.json'));
      await link(path.join(dir, 'target'), path.join(dir, 'Dockerfile'));
      const links = execFileSync('tar', ['-C', dir, '-cf', '-', 'target', 'manifest.json', 'Dockerfile']);
      expect([...(await tarFiles(new Uint8Array(links), ['manifest.json', 'Dockerfile', 'target'])).keys()]).toEqual(['target']);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
    const hostile = tarArchive({ '../manifest.json': '[]', '/manifest.json': '[]', 'manifest.json/': '', 'sub/manifest.json': '[]' });
    expect(await file(hostile, 'manifest.json')).toBeNull();
  });

  it('throws for an archive cut short', async () => {
    const archive = tarArchive({ 'manifest.json': 'x'.repeat(2000) });
    await expect(tarFiles(archive.subarray(0, 1024), ['manifest.json'])).rejects.toThrow(/cut short/);
  });

  it('throws saying the archive is cut short or damaged for every broken copy of a good one, wherever the damage is', async () => {
    const good = tarArchive({ 'paradrop.yaml': 'name: hello\n', Dockerfile: 'FROM busybox\n', 'app.sh': 'echo hi\n'.repeat(100) });
    expect(await file(good, 'paradrop.yaml')).toBe('name: hello\n');
    const accepted: string[] = [];
    for (const { what, bytes } of brokenTars(good)) {
      const error = await tarFiles(bytes, ['paradrop.yaml']).then(
        () => null,
        (thrown: Error) => thrown,
      );
      if (error === null || !/^the archive is (cut short|not a tar|damaged)/.test(error.message)) accepted.push(`${what}: ${error?.message ?? 'read'}`);
    }
    expect(accepted).toEqual([]);
  });
});
