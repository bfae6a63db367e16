import type { Reporter, TestCase, TestModule } from 'vitest/node';

/** The bench of a group that the others are measured against. */
const BASELINE = /^split into lines/;

/**
 * A vitest bench reporter (`--reporter=./test/bench/ratio-reporter.ts`) that prints, for each group
 * of test/bench/parsers.bench.ts, each bench's mean time as a multiple of the group's
 * `split into lines…` bench, beside the goal: under 3×.
 */
export default class RatioReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const lines: string[] = [];
    for (const testModule of testModules) {
      for (const suite of testModule.children.allSuites()) {
        const benches = [...suite.children.tests()].flatMap((test) => {
          const mean = benchMean(test);
          return mean === undefined ? [] : [{ name: test.name, mean }];
        });
        const baseline = benches.find((b) => BASELINE.test(b.name));
        if (baseline === undefined) continue;
        lines.push(suite.name);
        for (const { name, mean } of benches) {
          if (name === baseline.name) continue;
          const ratio = mean / baseline.mean;
          lines.push(
            `  ${name}: ${mean.toFixed(3)} ms, split ${baseline.mean.toFixed(3)} ms → ${ratio.toFixed(2)}× the split (goal under 3×: ${ratio < 3 ? 'met' : 'not met'})`,
          );
        }
      }
    }
    if (lines.length > 0) console.log(['', 'Parse time as a multiple of splitting the same text into lines', ...lines, ''].join('\n'));
  }
}

/**
 * A bench's mean time in ms. Vitest keeps bench results on the runner task behind a reported test,
 * which its public reporter API does not expose (its own bench reporter reads it the same way).
 */
function benchMean(test: TestCase): number | undefined {
  return (test as unknown as { task?: { result?: { benchmark?: { mean?: number } } } }).task?.result?.benchmark?.mean;
}
