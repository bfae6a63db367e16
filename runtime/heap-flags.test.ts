import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';
import { describe, expect, it } from 'vitest';

/** heap-flags.ts as a `data:` URL of one ES module a child Node can import (it has no TypeScript loader). */
async function heapFlagsModule(): Promise<string> {
  const built = await esbuild.build({
    entryPoints: [fileURLToPath(new URL('./heap-flags.ts', import.meta.url))],
    bundle: true,
    format: 'esm',
    platform: 'node',
    write: false,
  });
  return `data:text/javascript;base64,${Buffer.from(built.outputFiles[0]!.text).toString('base64')}`;
}

/** Runs `script` after `releaseHeapFlags()` in a Node whose heap the launcher's flags bound to `oldMib`. */
async function runBounded(oldMib: number, script: string) {
  const code = `import { releaseHeapFlags } from ${JSON.stringify(await heapFlagsModule())};\nreleaseHeapFlags();\n${script}`;
  return spawnSync(process.execPath, [`--max-old-space-size=${oldMib}`, '--max-semi-space-size=1', '--input-type=module', '-e', code], {
    encoding: 'utf8',
    timeout: 60_000,
    maxBuffer: 1 << 20,
  });
}

describe('releaseHeapFlags (called first thing by chutebox.mjs)', () => {
  it('keeps the heap limit the launcher gave', async () => {
    const run = await runBounded(48, "import { getHeapStatistics } from 'node:v8'; console.log(getHeapStatistics().heap_size_limit / 2 ** 20);");
    expect(run.status, run.stderr).toBe(0);
    const limit = Number(run.stdout.trim());
    expect(limit).toBeGreaterThanOrEqual(48);
    expect(limit).toBeLessThan(48 + 8);
  });

  it('still ends a process that keeps more than the bound with a heap out-of-memory error, near the bound', async () => {
    const run = await runBounded(
      32,
      'const kept = []; for (let i = 0; ; i++) { kept.push(new Array(100_000).fill(i)); if (i % 10 === 0) console.log(Math.round(process.memoryUsage().heapUsed / 2 ** 20)); }',
    );
    expect(run.status).not.toBe(0);
    expect(run.stderr).toContain('heap out of memory');
    const used = run.stdout.trim().split('\n').map(Number);
    expect(Math.max(...used)).toBeLessThanOrEqual(40);
  });
});
