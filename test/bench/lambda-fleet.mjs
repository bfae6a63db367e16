// A fleet on Lambda against dynalite (issue 33; docs/bundles.md#a-fleet-on-lambda), as information:
// - cold start: a new Node process (test/support/lambda-instance.mjs, one Lambda instance) from its
//   spawn to the answer of its first invocation, which loads the bundle, the fleet's scenarios and
//   the fleet's start from the table;
// - warm invocations on that instance, one at a time: a GET of a device never written (one read),
//   a GET of a written one (a read and a restore), and a PUT of an SSID (a read, a restore, a write);
// - the outbound handler (dist/fleet-outbound.mjs) on one shard of N devices (--outbound N, default
//   1,000; 0 leaves it out), on an instance of its own with the built-in fake controller: a run that
//   provisions every device, one right after with nothing due, and one when every report is due (it
//   waits for their interval, about 50 s).
// dynalite runs in this process, in memory; each instance is stopped by its pid.
//
// usage: node esbuild.config.mjs --quiet && node test/bench/lambda-fleet.mjs [--colds N] [--warm N] [--outbound N]
import { CreateTableCommand, DynamoDBClient, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { setTimeout as sleep } from 'node:timers/promises';
import { gzipSync } from 'node:zlib';
import dynalite from 'dynalite';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { cleanUp, cleanUpOnSignals, root, spawnTracked, stopChild } from './http-procs.mjs';
import { median, ms, printTable } from './http-report.mjs';

const AWS_ENV = {
  AWS_REGION: 'eu-central-1',
  AWS_ACCESS_KEY_ID: 'dynalite',
  AWS_SECRET_ACCESS_KEY: 'dynalite',
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
};

function options() {
  const { values } = parseArgs({ options: { colds: { type: 'string' }, warm: { type: 'string' }, outbound: { type: 'string' } } });
  return { colds: Number(values.colds ?? 5), warm: Number(values.warm ?? 200), outbound: Number(values.outbound ?? 1000) };
}

/** dynalite on a loopback port with a fleet's table (key `device`) of each name. */
async function startTable(...names) {
  const server = dynalite({ createTableMs: 0 });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const endpoint = `http://127.0.0.1:${server.address().port}`;
  const client = new DynamoDBClient({ endpoint });
  for (const TableName of names) {
    await client.send(
      new CreateTableCommand({
        TableName,
        KeySchema: [{ AttributeName: 'device', KeyType: 'HASH' }],
        AttributeDefinitions: [{ AttributeName: 'device', AttributeType: 'S' }],
        BillingMode: 'PAY_PER_REQUEST',
      }),
    );
  }
  client.destroy();
  return {
    endpoint,
    close: () => {
      server.closeAllConnections?.();
      return new Promise((resolve) => server.close(resolve));
    },
  };
}

/** An instance's process, and `invoke(bundle, event)` answering the handler's result. */
function startInstance(env) {
  const child = spawnTracked([process.execPath, path.join(root, 'test/support/lambda-instance.mjs')], { env, stdin: 'pipe' });
  const waiting = new Map();
  createInterface({ input: child.stdout }).on('line', (line) => {
    const { id, result, error } = JSON.parse(line);
    waiting.get(id)?.(error === undefined ? result : { statusCode: 0, body: error });
    waiting.delete(id);
  });
  let sent = 0;
  const invoke = (bundle, event) =>
    new Promise((resolve) => {
      sent += 1;
      waiting.set(sent, resolve);
      child.stdin.write(`${JSON.stringify({ id: sent, bundle, event })}\n`);
    });
  return { invoke, stop: () => stopChild(child) };
}

/** An API Gateway HTTP API (payload 2.0) event, with a JSON body when given. */
function event(method, rawPath, body) {
  made += 1;
  const text = body === undefined ? undefined : JSON.stringify(body);
  return {
    version: '2.0',
    routeKey: '$default',
    rawPath,
    rawQueryString: '',
    headers: { host: 'bench.execute-api.eu-central-1.amazonaws.com', ...(text === undefined ? {} : { 'content-type': 'application/json' }) },
    requestContext: {
      http: { method, path: rawPath, protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'bench' },
      requestId: `bench-${made}`,
      stage: '$default',
    },
    isBase64Encoded: false,
    ...(text === undefined ? {} : { body: text }),
  };
}
let made = 0;

/** Times `run` once, in ms; fails on an answer other than 200. */
async function timed(run) {
  const start = performance.now();
  const answer = await run();
  if (answer.statusCode !== 200) throw new Error(`answered ${answer.statusCode}: ${answer.body}`);
  return performance.now() - start;
}

/**
 * Stores the fleet's start ten minutes ago in `table`, as its first function would have stored it then
 * (emulator/fleet/lambda/fleet-origin.ts: the item `#fleet`, its document gzipped JSON): every device's
 * provisioning time has come.
 */
async function startedLongAgo(endpoint, table) {
  const client = new DynamoDBClient({ endpoint });
  const document = gzipSync(JSON.stringify({ started: Date.now() - 600_000 }));
  await client.send(new PutItemCommand({ TableName: table, Item: { device: { S: '#fleet' }, version: { N: '1' }, document: { B: document } } }));
  client.destroy();
}

/** Times one run of the outbound handler on shard 0 of 2; fails on an error or a failed device. */
async function timedShard(instance) {
  const start = performance.now();
  const summary = await instance.invoke('fleet-outbound', { shard: 0, shards: 2 });
  if (summary.statusCode === 0) throw new Error(summary.body);
  if (summary.failed > 0) throw new Error(`the outbound run failed on ${summary.failed} devices: ${summary.errors.join('; ')}`);
  return { ms: performance.now() - start, summary };
}

/** The outbound handler on a shard of `devices` (a fleet twice that, in two shards): provisioning all, nothing due, every report due. */
async function outboundRows(env, devices) {
  const instance = startInstance({ ...env, CHUTEBOX_FLEET_TABLE: 'outbound', CHUTEBOX_FLEET_SIZE: String(2 * devices) });
  try {
    const started = Date.now();
    const provisioning = await timedShard(instance);
    const idle = await timedShard(instance);
    // Each report falls due 60 s after its device provisioned, up to 10 s early.
    await sleep(Math.max(0, started + 51_000 - Date.now()));
    const reporting = await timedShard(instance);
    const done = ({ summary }) => `${summary.provisioned} provisioned, ${summary.delivered} reports, ${summary.left} left`;
    return [
      [`outbound, a shard of ${devices}: each provisions (first run of the instance)`, ms(provisioning.ms), done(provisioning)],
      [`outbound, a shard of ${devices}: nothing due`, ms(idle.ms), done(idle)],
      [`outbound, a shard of ${devices}: each report due`, ms(reporting.ms), done(reporting)],
    ];
  } finally {
    await instance.stop();
  }
}

const p95 = (values) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * 0.95))];

async function main() {
  const { colds, warm, outbound } = options();
  cleanUpOnSignals();
  // The SDK client of this process (which makes the table) reads them as the instances do.
  Object.assign(process.env, AWS_ENV);
  const table = await startTable('fleet', 'outbound');
  const env = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    ...AWS_ENV,
    CHUTEBOX_FLEET_TABLE: 'fleet',
    CHUTEBOX_FLEET_SIZE: '10000',
    CHUTEBOX_SEED: '1',
    CHUTEBOX_DYNAMODB_ENDPOINT: table.endpoint,
  };
  const ssid = (id) => `/devices/${id}/api/v1/chutes/hotspot/networks/guest/ssid`;
  try {
    const cold = [];
    for (let n = 0; n < colds; n++) {
      const start = performance.now();
      const instance = startInstance(env);
      await timed(() => instance.invoke('info-hardware-get', event('GET', `/devices/router-${n}/api/v1/info/hardware`)));
      cold.push(performance.now() - start);
      await instance.stop();
    }
    const instance = startInstance(env);
    // Each bundle loaded, and router-0 written once, before the timed rounds.
    await timed(() => instance.invoke('networks-ssid-get', event('GET', ssid('router-1'))));
    await timed(() => instance.invoke('networks-ssid-put', event('PUT', ssid('router-0'), { ssid: 'bench' })));
    const rows = { untouched: [], written: [], put: [] };
    for (let n = 0; n < warm; n++) {
      rows.untouched.push(await timed(() => instance.invoke('networks-ssid-get', event('GET', ssid(`router-${2 + n}`)))));
      rows.written.push(await timed(() => instance.invoke('networks-ssid-get', event('GET', ssid('router-0')))));
      rows.put.push(await timed(() => instance.invoke('networks-ssid-put', event('PUT', ssid('router-0'), { ssid: `bench-${n}` }))));
    }
    await instance.stop();
    if (outbound > 0) await startedLongAgo(table.endpoint, 'outbound');
    const outboundTable = outbound > 0 ? await outboundRows(env, outbound) : [];
    console.log(`\na fleet on Lambda against dynalite: ${colds} cold starts, ${warm} warm invocations of each kind\n`);
    printTable(
      ['invocation', 'median', 'p95'],
      [
        ['cold start (process spawn to first answer)', ms(median(cold)), ms(p95(cold))],
        ['warm GET, device never written', ms(median(rows.untouched)), ms(p95(rows.untouched))],
        ['warm GET, device written', ms(median(rows.written)), ms(p95(rows.written))],
        ['warm PUT of an SSID', ms(median(rows.put)), ms(p95(rows.put))],
      ],
    );
    if (outboundTable.length > 0) {
      console.log('\nthe outbound handler, one run each (built-in fake controller)\n');
      printTable(['run', 'time', 'what it did'], outboundTable);
    }
  } finally {
    await cleanUp();
    await table.close();
  }
}

await main();
