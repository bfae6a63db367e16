import { spawnSync } from 'node:child_process';
import { symlink } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CLEAN_ENV, startChutebox, type Started } from './support/spawn.ts';
import { useTempDir } from './support/temp-dir.ts';

/** The `chutebox` command as npm installs it (package.json `bin`): the launcher that bounds the heap. */
const LAUNCHER = fileURLToPath(new URL('../dist/chutebox', import.meta.url));
const temp = useTempDir('chutebox-launcher-test-');

/** `chutebox emulate` started through the launcher, as a user types it. */
function emulate(args: string[], env: NodeJS.ProcessEnv = CLEAN_ENV): Promise<Started> {
  return startChutebox(['emulate', '--port', '0', '--no-auth', ...args], env, { command: LAUNCHER });
}

async function heapLimit(server: Started): Promise<number> {
  try {
    const settings = (await (await fetch(`${server.url}/api/v1/config/settings`)).json()) as { heap_limit_mb: number };
    return settings.heap_limit_mb;
  } finally {
    await server.stop();
  }
}

/**
 * The most V8 may report for an old generation of `old` MiB: the launcher gives the young one a
 * 256th of it (1 to 16 MiB), which V8 rounds up to a power of two and counts three times.
 */
function mostFor(old: number): number {
  const young = Math.min(16, Math.max(1, Math.floor(old / 256)));
  return old + 3 * 2 ** Math.ceil(Math.log2(young));
}

/** MemTotal of this machine in MiB. */
function memTotalMib(): number {
  const kib = Number(/MemTotal:\s+(\d+)/.exec(readFileSync('/proc/meminfo', 'utf8'))![1]);
  return kib / 1024;
}

describe('chutebox (the launcher in dist/)', () => {
  it('bounds the heap to a quarter of MemTotal, between 16 and 256 MiB, by default', async () => {
    const old = Math.min(256, Math.max(16, Math.floor(memTotalMib() / 4)));
    const limit = await heapLimit(await emulate([]));
    expect(limit).toBeGreaterThanOrEqual(old);
    expect(limit).toBeLessThanOrEqual(mostFor(old));
  });

  it('takes --max-heap MB, out of the arguments the CLI sees, and CHUTEBOX_MAX_HEAP', async () => {
    const fromFlag = await heapLimit(await emulate(['--max-heap', '48']));
    expect(fromFlag).toBeGreaterThanOrEqual(48);
    expect(fromFlag).toBeLessThanOrEqual(mostFor(48));
    const fromEnv = await heapLimit(await emulate([], { ...CLEAN_ENV, CHUTEBOX_MAX_HEAP: '96' }));
    expect(fromEnv).toBeGreaterThanOrEqual(96);
    expect(fromEnv).toBeLessThanOrEqual(mostFor(96));
    const flagWins = await heapLimit(await emulate(['--max-heap=64'], { ...CLEAN_ENV, CHUTEBOX_MAX_HEAP: '96' }));
    expect(flagWins).toBeLessThanOrEqual(mostFor(64));
  });

  it('gives a fleet (emulate --fleet, --fleet-file, CHUTEBOX_FLEET) half of MemTotal by default, and --max-heap still wins', () => {
    /** The old generation's limit the launcher would start Node with: run with `echo` as its Node, it prints the command line. */
    const oldFor = (args: string[], env: NodeJS.ProcessEnv = CLEAN_ENV) => {
      const printed = spawnSync(LAUNCHER, args, { env: { ...env, CHUTEBOX_NODE: 'echo' }, encoding: 'utf8' });
      return Number(/--max-old-space-size=(\d+)/.exec(printed.stdout)?.[1]);
    };
    const half = Math.floor(memTotalMib() / 2);
    expect(oldFor(['emulate', '--fleet', '10000'])).toBe(half);
    expect(oldFor(['emulate', '--fleet-file=fleet.yaml'])).toBe(half);
    expect(oldFor(['emulate'], { ...CLEAN_ENV, CHUTEBOX_FLEET: '100' })).toBe(half);
    expect(oldFor(['emulate', '--fleet', '10', '--max-heap', '300'])).toBe(300);
    expect(oldFor(['emulate'])).toBe(Math.min(256, Math.max(16, Math.floor(memTotalMib() / 4))));
  });

  it("grows a fleet's old generation by half of what a full collection left, and one device's as V8 chooses", () => {
    const printed = (args: string[]) => spawnSync(LAUNCHER, args, { env: { ...CLEAN_ENV, CHUTEBOX_NODE: 'echo' }, encoding: 'utf8' }).stdout;
    expect(printed(['emulate', '--fleet', '10000'])).toContain('--heap-growing-percent=50 ');
    expect(printed(['emulate'])).not.toContain('--heap-growing-percent');
    expect(printed(['serve'])).not.toContain('--heap-growing-percent');
  });

  it('exits with code 2 naming --max-heap for a value that is not a number of MiB from 16 on, and starts nothing', () => {
    for (const value of ['abc', '8', '']) {
      const result = spawnSync(LAUNCHER, ['serve', '--max-heap', value], { env: CLEAN_ENV, encoding: 'utf8' });
      expect(result.status).toBe(2);
      expect(result.stderr).toContain('--max-heap');
      expect(result.stdout).toBe('');
    }
  });

  it('finds the CLI beside it when run through a link, as npm links it into node_modules/.bin', async () => {
    const link = path.join(await temp.folder('bin'), 'chutebox');
    await symlink(LAUNCHER, link);
    const result = spawnSync(link, ['--version'], { env: CLEAN_ENV, encoding: 'utf8' });
    expect(result.status).toBe(0);
    expect(result.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
  });
});
