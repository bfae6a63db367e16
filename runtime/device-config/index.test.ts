import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { memoryDevice } from '../../test/support/memory-device.ts';
import { useTempDir } from '../../test/support/temp-dir.ts';
import { writeScript } from '../../test/support/tool-scripts.ts';
import { configFacets } from './index.ts';

const temp = useTempDir('chutebox-config-facets-');

describe('configFacets once the runtime is stopping (close)', () => {
  it('fails a reboot change that begins then, without running the reboot command', async () => {
    const dir = await temp.folder('reboot');
    const marker = path.join(dir, 'rebooted');
    const reboot = await writeScript(dir, 'reboot', `touch '${marker}'`);
    const device = memoryDevice();
    const facets = configFacets({ stateDir: path.join(dir, 'state'), device: () => device, applyCommands: {}, powerCommands: { reboot: [reboot] } });
    await facets.close(Promise.resolve());

    const notes: string[] = [];
    await expect(facets.effects.reboot({ action: 'reboot' }, async (text) => void notes.push(text), 1)).rejects.toThrow(
      'the runtime is stopping: the change did nothing',
    );
    expect(notes).toEqual([]);
    await expect(readFile(marker)).rejects.toThrow(/ENOENT/);
  });
});
