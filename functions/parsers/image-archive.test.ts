import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { dockerSaveArchive, tarArchive } from '../../test/support/tar.ts';
import { imageArchiveTags, tarEntry } from './image-archive.ts';

describe('imageArchiveTags', () => {
  it('answers the RepoTags of every image in manifest.json', () => {
    expect(imageArchiveTags(dockerSaveArchive(['busybox:latest', 'busybox:1.36']))).toEqual(['busybox:latest', 'busybox:1.36']);
  });

  it('answers no tags for an untagged image', () => {
    expect(imageArchiveTags(tarArchive({ 'manifest.json': '[{"Config":"x.json","RepoTags":null,"Layers":[]}]' }))).toEqual([]);
  });

  it('throws for a tar without manifest.json, a manifest that is not JSON, and bytes that are not a tar', () => {
    expect(() => imageArchiveTags(tarArchive({ 'hello.txt': 'hi' }))).toThrow(/no manifest.json/);
    expect(() => imageArchiveTags(tarArchive({ 'manifest.json': '{' }))).toThrow(/not JSON/);
    expect(() => imageArchiveTags(new TextEncoder().encode('name: hello\n'.repeat(100)))).toThrow(/not a tar/);
    expect(() => imageArchiveTags(new Uint8Array(0))).toThrow(/not a tar/);
  });
});

describe('tarEntry', () => {
  it('finds a file in an archive written by tar(1), at ./ and past a long name', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'chutebox-tar-'));
    try {
      const long = 'x'.repeat(120);
      await writeFile(path.join(dir, long), 'first');
      await writeFile(path.join(dir, 'manifest.json'), '[]');
      const archive = execFileSync('tar', ['-C', dir, '-cf', '-', `./${long}`, './manifest.json']);
      expect(new TextDecoder().decode(tarEntry(new Uint8Array(archive), 'manifest.json')!)).toBe('[]');
      expect(new TextDecoder().decode(tarEntry(new Uint8Array(archive), long)!)).toBe('first');
      expect(tarEntry(new Uint8Array(archive), 'other')).toBeNull();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('throws for an archive cut short', () => {
    const archive = tarArchive({ 'manifest.json': 'x'.repeat(2000) });
    expect(() => tarEntry(archive.subarray(0, 1024), 'manifest.json')).toThrow(/cut short/);
  });
});
