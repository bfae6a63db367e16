import type { Device } from '../../functions/core/device/index.ts';
import { NO_FIELDS } from '../../functions/core/handler.ts';
import type { ApiFunction } from '../../runtime/http/api.ts';
import type { Operations } from './match.ts';

/** The path of the API's OpenAPI document (functions/meta/openapi.get.ts), whose operationIds a rule may name. */
const OPENAPI_PATH = '/api/v1/openapi.json';

/** The methods of an OpenAPI Path Item that are operations. */
const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'] as const;

/**
 * The operations of the API by operationId, read from the OpenAPI document that the app's own
 * `GET /api/v1/openapi.json` function answers (the build put the document in it: from source there is
 * none), on the first call; later calls share it.
 *
 * @throws Error (from the promise) when the app has no document to give.
 * @example
 * const operations = documentOperations(functions, device);
 * (await operations()).get('networks-stations-get') // { method: 'GET', path: '/api/v1/chutes/{chute}/networks/{network}/stations' }
 */
export function documentOperations(functions: readonly ApiFunction[], device: Device): () => Promise<Operations> {
  let read: Promise<Operations> | undefined;
  return () => (read ??= operationsOf(functions, device));
}

async function operationsOf(functions: readonly ApiFunction[], device: Device): Promise<Operations> {
  const fn = functions.find((one) => one.route.method === 'GET' && one.route.path === OPENAPI_PATH);
  if (fn === undefined) throw new Error(`the API has no ${OPENAPI_PATH}`);
  const out = await (await fn.load()).invoke({ params: NO_FIELDS, query: NO_FIELDS, headers: NO_FIELDS, body: undefined, text: '' }, device);
  if (out.status !== 200) throw new Error(`the API's OpenAPI document is not at hand: ${OPENAPI_PATH} answers ${out.status}`);
  const document = JSON.parse(out.body) as { paths: Record<string, Record<string, { operationId?: string }>> };
  const operations = new Map<string, { method: string; path: string }>();
  for (const [path, item] of Object.entries(document.paths)) {
    for (const method of METHODS) {
      const id = item[method]?.operationId;
      if (id !== undefined) operations.set(id, { method: method.toUpperCase(), path });
    }
  }
  return operations;
}
