// One Lambda instance of a fleet's functions in a process of its own (test/support/lambda-instances.ts
// starts it): each line on stdin, `{"id", "bundle", "event"}`, is handed to the `handler` of
// dist/functions/<bundle>.mjs (or, for `fleet-outbound`, of dist/fleet-outbound.mjs, with a context
// giving it the outbound function's 55 s), loaded once as an instance loads it; each answer is a line
// on stdout, `{"id", "result"}` or `{"id", "error"}`. Its environment is the functions' (CHUTEBOX_FLEET_TABLE, …).
import { createInterface } from 'node:readline';

const handlers = new Map();

/** The outbound handler, which a schedule invokes rather than API Gateway. */
const OUTBOUND = 'fleet-outbound';

/** How long the outbound function may run (the CDK stack's 55 s), as Lambda's context tells it. */
const OUTBOUND_MS = 55_000;

/** The handler of a bundle, imported on its first event. */
function handlerOf(bundle) {
  if (!/^[a-z0-9-]+$/.test(bundle)) throw new Error(`no bundle ${bundle}`);
  if (!handlers.has(bundle))
    handlers.set(
      bundle,
      import(new URL(bundle === OUTBOUND ? `../../dist/${OUTBOUND}.mjs` : `../../dist/functions/${bundle}.mjs`, import.meta.url).href).then(
        (module) => module.handler,
      ),
    );
  return handlers.get(bundle);
}

const answer = (line) => process.stdout.write(`${JSON.stringify(line)}\n`);

for await (const line of createInterface({ input: process.stdin })) {
  const { id, bundle, event } = JSON.parse(line);
  const deadline = Date.now() + OUTBOUND_MS;
  handlerOf(bundle)
    .then((handler) => handler(event, { getRemainingTimeInMillis: () => deadline - Date.now() }))
    .then(
      (result) => answer({ id, result }),
      (error) => answer({ id, error: String(error?.stack ?? error) }),
    );
}
