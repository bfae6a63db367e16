import type { Reporter, TestCase, TestModule } from 'vitest/node';

/** The bench of a group that the others are measured against. */
const BASELINE = /^split into lines/;

/** A bench that is no parser but a floor for one: its ratio is printed without the goal. */
const REFERENCE = /^reference: /;

/**
 * A vitest bench reporter (`--reporter=./test/bench/ratio-reporter.ts`) that prints, for each group
 * of test/bench/parsers.bench.ts, each bench's median time as a multiple of the group's
 * `split into lines…` bench, beside the goal: under 3×. A `reference: …` bench is printed as a floor.
 */
export default class RatioReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const lines: string[] = [];
    for (const testModule of testModules) {
      for (const suite of testModule.children.allSuites()) {
        const benches = [...suite.children.tests()].flatMap((test) => {
          const median = benchMedian(test);
          return median === undefined ? [] : [{ name: test.name, median }];
        });
        const baseline = benches.find((b) => BASELINE.test(b.name));
        if (baseline === undefined) continue;
        lines.push(suite.name);
        for (const { name, median } of benches) {
          if (name === baseline.name) continue;
          const ratio = median / baseline.median;
          const verdict = REFERENCE.test(name) ? 'a floor, not a parser' : `goal under 3×: ${ratio < 3 ? 'met' : 'not met'}`;
          lines.push(`  ${name}: ${median.toFixed(3)} ms, split ${baseline.median.toFixed(3)} ms (medians) → ${ratio.toFixed(2)}× the split (${verdict})`);
        }
      }
    }
    if (lines.length > 0) console.log(['', 'Parse time as a multiple of splitting the same text into lines', ...lines, ''].join('\n'));
  }
}

/**
 * A bench's median time in ms: the mean of a parser that allocates is skewed by the odd garbage
 * collection pause, the median shows the typical run. Vitest keeps bench results on the runner task behind a reported test,
 * which its public reporter API does not expose (its own bench reporter reads it the same way).
 */
function benchMedian(test: TestCase): number | undefined {
  return (test as unknown as { task?: { result?: { benchmark?: { median?: number } } } }).task?.result?.benchmark?.median;
}
