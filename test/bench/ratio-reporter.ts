import type { Reporter, TestCase, TestModule } from 'vitest/node';

/** The bench of a group that the others are measured against. */
const BASELINE = /^split into lines/;

/** A bench that is no parser but a floor for one: its ratio is printed marked as such. */
const REFERENCE = /^reference: /;

/** A bench's name as test/bench/parsers.bench.ts registers it once per round: `<name> (round <n>)`. */
const ROUND = /^(.*) \(round (\d+)\)$/;

/**
 * A vitest bench reporter (`--reporter=./test/bench/ratio-reporter.ts`) that prints, for each group
 * of test/bench/parsers.bench.ts, each bench's time as a multiple of the group's `split into lines…`
 * bench, as information: there is no goal for these ratios (the former "under 3× a line split" was
 * withdrawn), so no verdict is printed. Each round's ratio compares the two benches as timed moments
 * apart in that round (median times); the printed ratio is the median of the rounds' ratios, with
 * every round's beside it. A `reference: …` bench is printed as a floor. A group without such a
 * bench (the emulator's state) is printed as each bench's median time in ms.
 */
export default class RatioReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const lines: string[] = [];
    const times: string[] = [];
    for (const testModule of testModules) {
      for (const suite of testModule.children.allSuites()) {
        const timed = new Map<string, Map<string, number>>();
        for (const test of suite.children.tests()) {
          const median = benchMedian(test);
          const [, name = test.name, round = '1'] = ROUND.exec(test.name) ?? [];
          if (median === undefined) continue;
          if (!timed.has(name)) timed.set(name, new Map());
          timed.get(name)!.set(round, median);
        }
        const baselineName = [...timed.keys()].find((name) => BASELINE.test(name));
        if (baselineName === undefined) {
          times.push(...timesOf(suite.name, timed));
          continue;
        }
        const baseline = timed.get(baselineName)!;
        lines.push(suite.name);
        for (const [name, byRound] of timed) {
          if (name === baselineName) continue;
          const ratios = [...byRound].flatMap(([round, median]) => (baseline.has(round) ? [median / baseline.get(round)!] : []));
          if (ratios.length === 0) continue;
          const ratio = middle(ratios);
          const note = REFERENCE.test(name) ? ' (a floor, not a parser)' : '';
          const each = ratios.map((r) => `${r.toFixed(2)}×`).join(', ');
          lines.push(
            `  ${name}: ${middle([...byRound.values()]).toFixed(3)} ms, split ${middle([...baseline.values()]).toFixed(3)} ms → ${ratio.toFixed(2)}× the split, median of ${ratios.length} rounds (${each})${note}`,
          );
        }
      }
    }
    if (lines.length > 0) console.log(['', 'Parse time as a multiple of splitting the same text into lines (information: no goal)', ...lines, ''].join('\n'));
    if (times.length > 0) console.log(['', 'Times of the groups without a baseline (median; a goal is in the group name)', ...times, ''].join('\n'));
  }
}

/** A group without a baseline (test/bench/emulator-state.bench.ts): each bench's median time in ms, the median of its rounds. */
function timesOf(suite: string, timed: Map<string, Map<string, number>>): string[] {
  return [suite, ...[...timed].map(([name, byRound]) => `  ${name}: ${middle([...byRound.values()]).toFixed(3)} ms`)];
}

/** The median of some numbers. */
function middle(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const half = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[half]! : (sorted[half - 1]! + sorted[half]!) / 2;
}

/**
 * A bench's median time in ms: the mean of a parser that allocates is skewed by the odd garbage
 * collection pause, the median shows the typical run. Vitest keeps bench results on the runner task behind a reported test,
 * which its public reporter API does not expose (its own bench reporter reads it the same way).
 */
function benchMedian(test: TestCase): number | undefined {
  return (test as unknown as { task?: { result?: { benchmark?: { median?: number } } } }).task?.result?.benchmark?.median;
}
