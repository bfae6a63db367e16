// Figures and printing of test/bench/http.mjs: medians, ratios, verdicts, tables, and the results
// files under test/bench/results/ (each run's figures, and the previous run's medians to compare).
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { root } from './http-procs.mjs';

const resultsDir = path.join(root, 'test/bench/results');

/** The median of some numbers. */
export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const half = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[half] : (sorted[half - 1] + sorted[half]) / 2;
}

/** `1.23×` */
export const times = (ratio) => (Number.isFinite(ratio) ? `${ratio.toFixed(2)}×` : '–');
/** `12.3k` req/s. */
export const rate = (rps) => (rps >= 10_000 ? `${(rps / 1000).toFixed(1)}k` : `${Math.round(rps)}`);
/** `48.2 MB` */
export const mb = (bytes) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
/** `123 ms` */
export const ms = (value) => `${value.toFixed(value < 100 ? 1 : 0)} ms`;

/** A goal `{ op: '≥' | '≤', value }` as text and as a test of a ratio. */
export const goal = (op, value) => ({ op, value, text: `${op} ${value}×`, met: (r) => (op === '≥' ? r >= value : r <= value) });

/** "met" / "NOT met" of a ratio against a goal, or "info" without one. */
export const verdict = (ratio, g) => (g === undefined ? 'info' : g.met(ratio) ? 'met' : 'NOT met');

/** Prints rows as a table: the first column left-aligned, the others right-aligned. */
export function printTable(header, rows) {
  const all = [header, ...rows].map((row) => row.map(String));
  const widths = header.map((_, i) => Math.max(...all.map((row) => (row[i] ?? '').length)));
  const line = (row) =>
    row
      .map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i])))
      .join('  ')
      .trimEnd();
  console.log(line(all[0]));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const row of all.slice(1)) console.log(line(row));
}

/** The newest results file written before this run in `dir` (default test/bench/results), parsed, or undefined. */
export async function previousResults(dir = resultsDir) {
  let files;
  try {
    files = (await readdir(dir)).filter((name) => name.endsWith('.json')).sort();
  } catch {
    return undefined;
  }
  for (const name of files.reverse()) {
    try {
      return { file: name, ...JSON.parse(await readFile(path.join(dir, name), 'utf8')) };
    } catch {}
  }
  return undefined;
}

/** Writes this run's figures to `dir` (default test/bench/results)/<ISO timestamp>.json; answers the path. */
export async function writeResults(results, dir = resultsDir) {
  await mkdir(dir, { recursive: true });
  const file = path.join(dir, `${results.startedAt}.json`);
  await writeFile(file, `${JSON.stringify(results, null, 2)}\n`);
  return path.relative(root, file);
}
