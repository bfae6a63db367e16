// wrk runs of test/bench/http.mjs: a Lua script per load (one path or a cycling mix of paths, with
// headers), and wrk's summary read back as JSON from the script's done().
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pinned, spawnTracked } from './http-procs.mjs';

/** Connections of every load, on one wrk thread. */
export const CONNECTIONS = 32;

/** A Lua string literal of `text`. */
const lua = (text) => JSON.stringify(text).replace(/\\u00([0-9a-f]{2})/g, '\\x$1');

/**
 * Writes a wrk Lua script: `paths` requested in turn (one path: wrk's prebuilt request), `headers`
 * on every request, and a done() that prints the summary as one JSON line.
 */
export async function writeLoad(dir, name, paths, headers = {}, etags = undefined) {
  const lines = Object.entries(headers).map(([key, value]) => `wrk.headers[${lua(key)}] = ${lua(value)}`);
  if (etags !== undefined) {
    // Each path with the ETag it answered, as a dashboard that polls sends it back: the answers are 304s.
    lines.push(
      `local paths = { ${paths.map(lua).join(', ')} }`,
      `local heads = { ${etags.map((tag) => `{ ["If-None-Match"] = ${lua(tag)} }`).join(', ')} }`,
      'local i = 0',
      'request = function()',
      '  i = i % #paths + 1',
      '  return wrk.format(nil, paths[i], heads[i])',
      'end',
    );
  } else if (paths.length === 1) {
    lines.push(`wrk.path = ${lua(paths[0])}`);
  } else {
    // With a limit (the script argument), the thread stops once `limit` requests have been answered
    // (each connection has one request in flight) and prints LIMIT for runWrk to end wrk.
    lines.push(
      `local paths = { ${paths.map(lua).join(', ')} }`,
      'local i, sent, limit = 0, 0, 0',
      'init = function(args) limit = tonumber(args[1] or "0") or 0 end',
      'request = function()',
      '  i = i % #paths + 1',
      '  sent = sent + 1',
      `  if limit > 0 and sent == limit + ${CONNECTIONS} + 1 then io.write("\\nLIMIT\\n"); io.flush(); wrk.thread:stop() end`,
      '  return wrk.format(nil, paths[i])',
      'end',
    );
  }
  lines.push(
    'done = function(summary, latency, requests)',
    '  local e = summary.errors',
    '  io.write(string.format(\'\\nBENCH {"requests":%d,"duration_us":%d,"bytes":%d,"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d,"p50_us":%d,"p99_us":%d}\\n\',',
    '    summary.requests, summary.duration, summary.bytes, e.connect, e.read, e.write, e.status, e.timeout, latency:percentile(50), latency:percentile(99)))',
    'end',
  );
  const file = path.join(dir, `${name}.lua`);
  await writeFile(file, `${lines.join('\n')}\n`);
  return { file, paths };
}

/**
 * Runs `wrk -t1 -c32 -d<seconds>s -s <load> <url>` on the load's CPU and answers its summary: requests, rps (req/s),
 * errors (connect + read + write + timeout), httpErrors (answers with a status of 400 or more), p50/p99 in ms.
 * With `limit` (a mix load only), wrk ends once at least `limit` requests were answered, or after
 * `seconds`, whichever comes first (wrk ends early on SIGINT and still prints its summary).
 */
export function runWrk(url, load, seconds, { limit } = {}) {
  const args = ['-t1', `-c${CONNECTIONS}`, `-d${seconds}s`, '--timeout', '10s', '-s', load.file, url, ...(limit ? [String(limit)] : [])];
  const child = spawnTracked(pinned('load', ['wrk', ...args]), { env: process.env });
  let out = '';
  child.stdout.on('data', (chunk) => {
    out += chunk;
    if (limit && /^LIMIT$/m.test(out) && child.exitCode === null) child.kill('SIGINT');
  });
  child.stderr.on('data', (chunk) => (out += chunk));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      const match = /^BENCH (\{.*\})$/m.exec(out);
      if (code !== 0 || !match) return reject(new Error(`wrk ${args.join(' ')} failed (${code ?? signal}):\n${out}`));
      const s = JSON.parse(match[1]);
      resolve({
        requests: s.requests,
        rps: s.requests / (s.duration_us / 1e6),
        errors: s.connect + s.read + s.write + s.timeout,
        httpErrors: s.status,
        p50ms: s.p50_us / 1000,
        p99ms: s.p99_us / 1000,
      });
    });
  });
}
