// A baseline of test/bench/http.mjs: bare node:http answering, for each path, exactly the status,
// content-type and body bytes that chutebox answered for it (read from a JSON file), 404 otherwise.
// usage: node test/bench/baseline-node.mjs ANSWERS.json [PORT]; prints `listening on http://127.0.0.1:PORT`.
import { readFileSync } from 'node:fs';
import http from 'node:http';

/** `{ "<path>": { status, contentType, body (base64) } }`, as test/bench/http-capture.mjs writes it. */
const answers = new Map(
  Object.entries(JSON.parse(readFileSync(process.argv[2], 'utf8'))).map(([path, a]) => [
    path,
    { status: a.status, contentType: a.contentType, body: Buffer.from(a.body, 'base64') },
  ]),
);
const notFound = Buffer.from('not found\n');

const server = http.createServer((req, res) => {
  const answer = answers.get(req.url);
  if (answer === undefined) {
    res.writeHead(404, { 'content-type': 'text/plain', 'content-length': notFound.length });
    return res.end(notFound);
  }
  res.writeHead(answer.status, { 'content-type': answer.contentType, 'content-length': answer.body.length });
  res.end(answer.body);
});
server.listen(Number(process.argv[3] ?? 0), '127.0.0.1', () => console.log(`listening on http://127.0.0.1:${server.address().port}`));
process.once('SIGTERM', () => process.exit(0));
