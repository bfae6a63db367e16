// npm run bench, the HTTP half: chutebox's throughput, memory, start time and tool runs, each as a
// ratio to baselines measured in the same run (bare node:http answering the same bytes, a one-route
// Hono app), with wrk as the load generator, on 127.0.0.1 only. Every server runs as its own process,
// stopped by pid at the end; temp dirs are removed (also on an error or Ctrl-C).
//
// usage: node test/bench/http.mjs [--rounds N] [--seconds S] [--quick]
//   --rounds N   interleaved rounds of each load, and runs of the start time (default 5)
//   --seconds S  length of each wrk run in a round (default 3)
//   --warmup S   load on each server before its first round of a throughput group (default 5)
//   --quick      2 rounds of 1 s after 1 s of warm-up, and smaller memory rounds: for trying the script out
// Figures are written to test/bench/results/<ISO timestamp>.json; the previous file's medians are
// printed beside this run's.
import { execFileSync } from 'node:child_process';
import { stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { cleanUp, cleanUpOnSignals, interrupted, onPath, root } from './http-procs.mjs';
import { mixGroup, throughputGroup } from './http-load-groups.mjs';
import { memoryGroup, startupGroup, toolRunsGroup } from './http-process-groups.mjs';
import { previousResults, writeResults } from './http-report.mjs';
import { benchMachine } from './http-servers.mjs';

/** The options of the command line. */
function options() {
  const { values } = parseArgs({
    options: { rounds: { type: 'string' }, seconds: { type: 'string' }, warmup: { type: 'string' }, quick: { type: 'boolean', default: false } },
  });
  const number = (name, fallback) => {
    if (values[name] === undefined) return fallback;
    const n = Number(values[name]);
    if (!Number.isInteger(n) || n < 1) throw new Error(`--${name} takes a whole number ≥ 1, not ${values[name]}`);
    return n;
  };
  // A warm-up long enough for V8 to have optimized what a served request runs: the read mix cost
  // 2.5× its steady CPU a request in its first 2 s on emulate, and about 1.3× in the next 2 s.
  return {
    quick: values.quick,
    rounds: number('rounds', values.quick ? 2 : 5),
    seconds: number('seconds', values.quick ? 1 : 3),
    warmup: number('warmup', values.quick ? 1 : 5),
  };
}

/** This machine, as the results file records it. */
function machine() {
  let wrk = '';
  try {
    wrk = execFileSync('wrk', ['--version'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (error) {
    wrk = `${error.stdout ?? ''}`; // wrk --version prints its usage and exits 1
  }
  return {
    node: process.version,
    nproc: os.availableParallelism(),
    cpu: os.cpus()[0]?.model ?? null,
    memory: os.totalmem(),
    loadavg: os.loadavg(),
    platform: `${os.platform()} ${os.release()}`,
    wrk: wrk.split('\n')[0].trim(),
  };
}

/** When dist/ was last built (the mtime of dist/manifest.json), to notice a rebuild during the run. */
async function builtAt() {
  return (await stat(path.join(root, 'dist/manifest.json'))).mtimeMs;
}

async function main() {
  const opts = options();
  if ((await onPath('wrk')) === null) {
    console.log('HTTP figures skipped: wrk is not on PATH (install it: apt-get install -y wrk)');
    return;
  }
  cleanUpOnSignals();
  const started = new Date();
  const results = { startedAt: started.toISOString(), options: opts, machine: machine(), groups: {} };
  const prev = await previousResults();
  const m = results.machine;
  console.log(`HTTP bench: node ${m.node}, ${m.nproc} CPUs (${m.cpu}), load average ${m.loadavg.map((l) => l.toFixed(2)).join(' ')}, ${m.wrk}`);
  console.log(
    `${opts.rounds} rounds of ${opts.seconds} s after ${opts.warmup} s of warm-up${opts.quick ? ' (--quick)' : ''}; previous: ${prev ? `${prev.file} (${prev.options?.rounds} rounds of ${prev.options?.seconds} s)` : 'none'}`,
  );
  const build = await builtAt();
  const bench = await benchMachine();
  const ctx = (key) => ({ m: bench, opts, previous: prev?.groups?.[key] });
  results.groups.throughput = await throughputGroup(ctx('throughput'));
  const { figures, mix } = await mixGroup(ctx('mix'));
  results.groups.mix = figures;
  results.groups.memory = await memoryGroup({ ...ctx('memory'), mix });
  results.groups.startup = await startupGroup({ ...ctx('startup'), featuresAnswers: path.join(bench.dir, 'features-emulate.json') });
  results.groups.toolRuns = await toolRunsGroup({ ...ctx('toolRuns'), mix });
  results.seconds = (Date.now() - started.getTime()) / 1000;
  results.machine.loadavgAtEnd = os.loadavg();
  if ((await builtAt()) !== build) {
    results.distRebuilt = true;
    console.log(
      '\nWARNING: dist/ was rebuilt while the bench ran: some figures may be of the old build, some of the new (and a server may have failed while its files were rewritten)',
    );
  }
  const verdicts = Object.values(results.groups).flatMap((g) => Object.values(g.ratios).map((r) => r.verdict));
  const met = verdicts.filter((v) => v === 'met').length;
  const goals = verdicts.filter((v) => v !== 'info').length;
  console.log(`\n${met} of ${goals} goals met; figures written to ${await writeResults(results)} (${results.seconds.toFixed(0)} s)`);
}

try {
  await main();
} catch (error) {
  if (!interrupted) console.error(error);
  process.exitCode = 1;
} finally {
  await cleanUp();
}
