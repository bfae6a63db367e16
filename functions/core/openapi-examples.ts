import { mediaType } from './body/decode.ts';
import type { Device } from './device/index.ts';
import { runHandler, type Handler } from './handler.ts';
import { pathParameters } from './openapi/index.ts';
import type { Route } from './route.ts';

/*
 * The examples of the OpenAPI document (functions/core/openapi/): what each GET endpoint answers on
 * a device, asked as a client would ask it, with path parameters taken from what the device lists.
 */

/** An endpoint module with its bundle's name: what `openApiExamples` calls. */
export interface ExampleEndpoint {
  name: string;
  route: Route;
  handle: Handler;
}

/**
 * Where the examples' value of a path parameter comes from: a field of each item that a GET route
 * answers (`{ list: '/api/v1/chutes', field: 'name' }`, its own parameters filled in first), or
 * values to try.
 */
export type ExampleParameter = { list: string; field: string } | { values: readonly string[] };

/** How many calls an endpoint with path parameters gets to answer 200 before it goes without an example. */
const ATTEMPTS = 12;

/**
 * The 200 JSON answer of each GET endpoint of `endpoints` on `device`, by endpoint name. An endpoint
 * with path parameters is called with the values `parameters` gives, in order, until it answers
 * 200; one that never does (a parameter without a source, nothing listed, every call refused) has
 * none. Calls run one at a time and each answer is asked for once.
 *
 * @example
 * const { device } = await loadScenario('default');
 * await openApiExamples(endpoints, device, { chute: { list: '/api/v1/chutes', field: 'name' } }) // Map { 'chutes-chutes-get' => [{ name: 'hello-world', … }], 'chutes-chute-get' => { name: 'hello-world', … }, … }
 */
export async function openApiExamples(
  endpoints: readonly ExampleEndpoint[],
  device: Device,
  parameters: Readonly<Record<string, ExampleParameter>>,
): Promise<Map<string, unknown>> {
  const gets = endpoints.filter((endpoint) => endpoint.route.method === 'GET');
  const answers = new Map<string, unknown>();

  /** What a GET of `path` (parameters filled in) answers as JSON with 200, or undefined. */
  async function answer(endpoint: ExampleEndpoint, params: Record<string, string>): Promise<unknown> {
    const key = `${endpoint.name} ${JSON.stringify(params)}`;
    if (answers.has(key)) return answers.get(key);
    const out = await runHandler(endpoint.handle, { params, query: {}, headers: {}, body: undefined, text: '' }, device);
    const value = out.status === 200 && mediaType(out.headers['content-type']) === 'application/json' ? JSON.parse(out.body) : undefined;
    answers.set(key, value);
    return value;
  }

  /** The values to try for the parameter `name`, given those before it. */
  async function values(name: string, params: Record<string, string>): Promise<string[]> {
    const source = parameters[name];
    if (source === undefined) return [];
    if ('values' in source) return [...source.values];
    const list = gets.find((endpoint) => endpoint.route.path === source.list);
    const listed = list === undefined ? undefined : await answer(list, Object.fromEntries(pathParameters(source.list).map((p) => [p, params[p] ?? ''])));
    if (!Array.isArray(listed)) return [];
    return listed
      .map((item) => (item as Record<string, unknown> | null)?.[source.field])
      .flatMap((v) => (typeof v === 'string' || typeof v === 'number' ? [String(v)] : []));
  }

  const examples = new Map<string, unknown>();
  for (const endpoint of gets) {
    const names = pathParameters(endpoint.route.path);
    let calls = 0;
    const search = async (params: Record<string, string>): Promise<unknown> => {
      if (Object.keys(params).length === names.length) return calls++ < ATTEMPTS ? answer(endpoint, params) : undefined;
      const name = names[Object.keys(params).length]!;
      for (const value of await values(name, params)) {
        const found = await search({ ...params, [name]: value });
        if (found !== undefined || calls >= ATTEMPTS) return found;
      }
      return undefined;
    };
    const example = await search({});
    if (example !== undefined) examples.set(endpoint.name, example);
  }
  return examples;
}
