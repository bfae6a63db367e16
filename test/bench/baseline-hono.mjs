// A baseline of test/bench/http.mjs: a one-route Hono app on @hono/node-server answering
// GET /api/v1/info/features with the status, content-type and body bytes chutebox answered (read
// from the same JSON file as test/bench/baseline-node.mjs).
// usage: node test/bench/baseline-hono.mjs ANSWERS.json [PORT]; prints `listening on http://127.0.0.1:PORT`.
import { readFileSync } from 'node:fs';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';

const ROUTE = '/api/v1/info/features';
const answer = JSON.parse(readFileSync(process.argv[2], 'utf8'))[ROUTE];
if (answer === undefined) throw new Error(`${process.argv[2]} holds no answer for ${ROUTE}`);
const body = Buffer.from(answer.body, 'base64');

const app = new Hono();
app.get(ROUTE, (c) => c.body(body, answer.status, { 'content-type': answer.contentType }));
serve({ fetch: app.fetch, hostname: '127.0.0.1', port: Number(process.argv[3] ?? 0) }, (info) => console.log(`listening on http://127.0.0.1:${info.port}`));
process.once('SIGTERM', () => process.exit(0));
