import { readFileSync } from 'node:fs';
import { defineConfig } from 'vitest/config';

const pkg = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8')) as { version: string };

export default defineConfig({
  define: { CHUTEBOX_VERSION: JSON.stringify(pkg.version) },
  test: {
    include: ['functions/**/*.test.ts', 'runtime/**/*.test.ts', 'emulator/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
