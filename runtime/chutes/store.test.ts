import { mkdir, readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTempDir } from '../../test/support/temp-dir.ts';
import { chuteStore, chuteWriter, JSON_FORMAT } from './store.ts';

const temp = useTempDir('chutebox-store-');

const DOCUMENTS = { chute: { name: 'hello', state: 'installing', image: 'hello:1' }, service: { web: { port: 80 } }, cache: {} };

describe('chuteWriter(dir).create', () => {
  it('adds a chute with its three documents (mode 0600), which the store then reads, and nothing else', async () => {
    const dir = path.join(await temp.folder('create'), 'chutes');
    await chuteWriter(dir).create('hello', DOCUMENTS);
    expect(await readdir(dir)).toEqual(['hello']);
    expect((await readdir(path.join(dir, 'hello'))).sort()).toEqual(['cache.json', 'chute.json', 'service.json']);
    expect((await stat(path.join(dir, 'hello', 'chute.json'))).mode & 0o777).toBe(0o600);
    expect(JSON.parse(await readFile(path.join(dir, 'hello', 'service.json'), 'utf8'))).toEqual({ web: { port: 80 } });
    expect(await chuteStore(dir, JSON_FORMAT).chute('hello')).toEqual({ name: 'hello', record: DOCUMENTS.chute, config: DOCUMENTS.service, cache: {} });
  });

  it('refuses a chute that is there already, leaving it as it was and no staging folder behind', async () => {
    const dir = await temp.folder('taken');
    const writer = chuteWriter(dir);
    await writer.create('hello', DOCUMENTS);
    await expect(writer.create('hello', { ...DOCUMENTS, service: { web: { port: 81 } } })).rejects.toThrow('a chute named hello is already installed');
    expect(await readdir(dir)).toEqual(['hello']);
    expect((await chuteStore(dir, JSON_FORMAT).chute('hello'))!.config).toEqual({ web: { port: 80 } });
  });

  it('takes the place of an empty folder by that name, and refuses a name that is not a chute name', async () => {
    const dir = await temp.folder('empty');
    await mkdir(path.join(dir, 'hello'));
    await chuteWriter(dir).create('hello', DOCUMENTS);
    expect((await chuteStore(dir, JSON_FORMAT).chute('hello'))!.record).toEqual(DOCUMENTS.chute);
    await expect(chuteWriter(dir).create('../x', DOCUMENTS)).rejects.toThrow('is not a chute name');
    expect(await readdir(dir)).toEqual(['hello']);
  });
});
