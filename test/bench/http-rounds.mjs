// Interleaved rounds of test/bench/http.mjs: each contender in turn within a round, so that load that
// comes and goes on the machine falls on all of them alike; ratios are taken round by round.
import { median, printTable, rate, times, verdict } from './http-report.mjs';
import { runWrk } from './http-wrk.mjs';

/**
 * Runs wrk on each contender (`{ key, label, url, load }`) in turn, `rounds` times, after a warm-up
 * of `warmup` seconds of each. Answers `{ <key>: [wrk summary of round 1, …] }`.
 */
export async function interleaved(contenders, { rounds, seconds, warmup }) {
  for (const c of contenders) await runWrk(c.url, c.load, warmup);
  const runs = Object.fromEntries(contenders.map((c) => [c.key, []]));
  for (let round = 0; round < rounds; round++) {
    for (const c of contenders) runs[c.key].push(await runWrk(c.url, c.load, seconds));
  }
  return runs;
}

/**
 * A ratio of figures taken in the same round (`of[i] ÷ to[i]`): `{ label, rounds, median, goal,
 * verdict }`, `goal` as its text.
 */
export function ratio(label, of, to, g) {
  const rounds = of.map((value, i) => value / to[i]);
  const m = median(rounds);
  return { label, rounds, median: m, goal: g?.text ?? null, verdict: verdict(m, g) };
}

/** Prints ratios: each round's, the median, the goal, the verdict, and the previous run's median. */
export function printRatios(ratios, previous, columns = 'round') {
  const n = Math.max(...Object.values(ratios).map((r) => r.rounds.length));
  const each = n === 1 ? [] : Array.from({ length: n }, (_, i) => `${columns} ${i + 1}`);
  printTable(
    ['ratio', ...each, n === 1 ? 'value' : 'median', 'goal', 'verdict', 'previous'],
    Object.entries(ratios).map(([key, r]) => [
      r.label,
      ...(n === 1 ? [] : r.rounds.map(times)),
      times(r.median),
      r.goal ?? '(info)',
      r.verdict,
      previous?.[key] === undefined ? '–' : times(previous[key].median),
    ]),
  );
}

/** Prints each contender's req/s by round, its median, and its error count (failed answers or sockets). */
export function printRates(contenders, runs) {
  const n = Math.max(...Object.values(runs).map((r) => r.length));
  const header = ['req/s', ...Array.from({ length: n }, (_, i) => `round ${i + 1}`), 'median', 'errors'];
  printTable(
    header,
    contenders.map((c) => {
      const r = runs[c.key];
      const errors = r.reduce((sum, x) => sum + x.errors + x.httpErrors, 0);
      return [c.label, ...r.map((x) => rate(x.rps)), rate(median(r.map((x) => x.rps))), errors === 0 ? '0' : `${errors} !`];
    }),
  );
}

/** The figures of a contender's runs as stored in the results file. */
export const stored = (runs) =>
  runs.map(({ rps, requests, errors, httpErrors, p50ms, p99ms }) => ({ rps: Math.round(rps), requests, errors, httpErrors, p50ms, p99ms }));
