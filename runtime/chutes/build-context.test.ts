import { unpackTar } from 'modern-tar';
import { describe, expect, it } from 'vitest';
import { tarArchive } from '../../test/support/tar.ts';
import { serviceContext } from './build-context.ts';

/** The files of a tar, by name, as text. */
async function filesOf(archive: Uint8Array): Promise<Record<string, string>> {
  const entries = await unpackTar(archive);
  return Object.fromEntries(entries.map(({ header, data }) => [header.name, new TextDecoder().decode(data)]));
}

const SOURCE = tarArchive({
  'paradrop.yaml': 'name: pair\n',
  Dockerfile: 'FROM root\n',
  'web/Dockerfile': 'FROM web\n',
  'web/app.js': 'app\n',
  'webby/x': 'x\n',
});

describe("serviceContext: the build context of a chute's service", () => {
  it('is the source itself for a service built from its root with its own Dockerfile', async () => {
    expect(await serviceContext(SOURCE, '')).toBe(SOURCE);
  });

  it("holds only the files of the service's folder, moved to its root", async () => {
    expect(await filesOf(await serviceContext(SOURCE, 'web'))).toEqual({ Dockerfile: 'FROM web\n', 'app.js': 'app\n' });
  });

  it("has the Dockerfile chutebox wrote for a light service in place of the source's own", async () => {
    const files = await filesOf(await serviceContext(SOURCE, '', 'FROM node:20-slim\n'));
    expect(files.Dockerfile).toBe('FROM node:20-slim\n');
    expect(Object.keys(files).sort()).toEqual(['Dockerfile', 'paradrop.yaml', 'web/Dockerfile', 'web/app.js', 'webby/x']);
  });
});
