import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { isUpload, readBody } from './body/decode.ts';
import type { Device } from './device/index.ts';
import { problemOutput, type FunctionInput, type FunctionOutput } from './handler.ts';
import { matchRoute, methodNotAllowed, noResource, type Route } from './route.ts';

/** Environment variable naming the module that provides the device; see `loadDevice`. */
export const DEVICE_MODULE_ENV = 'CHUTEBOX_DEVICE_MODULE';

/**
 * Wraps a function as an AWS Lambda handler for API Gateway HTTP API (payload format 2.0) events.
 *
 * The device comes from a module loaded at run time, so the scenario loader is never bundled into the
 * function: `CHUTEBOX_DEVICE_MODULE` names it (default: `scenario-device.mjs` beside the `functions/`
 * folder of the bundle), and it exports `createDevice(): Promise<Device>`. The stock module serves
 * the scenario named by `CHUTEBOX_SCENARIO`. Authentication is left to API Gateway (an authorizer). A
 * GET's function answers HEAD too, with the GET's status and headers and no body.
 *
 * @example
 * // dist/functions/info-hardware-get.mjs
 * export const handler = lambdaHandler(route, invoke, import.meta.url);
 */
export function lambdaHandler(
  route: Route,
  run: (input: FunctionInput, device: Device) => Promise<FunctionOutput>,
  bundleUrl: string,
): (event: APIGatewayProxyEventV2, context?: Context) => Promise<APIGatewayProxyStructuredResultV2> {
  let device: Promise<Device> | undefined;
  return async (event) => {
    try {
      const method = event.requestContext.http.method.toUpperCase();
      const params = matchRoute(route, stripStage(event));
      if (params === null) throw noResource(event.rawPath);
      // HEAD is a GET answered without its body.
      const head = method === 'HEAD' && route.method === 'GET';
      if (method !== route.method && !head) throw methodNotAllowed(method, route.method);
      const headers = lowerCaseKeys(event.headers ?? {});
      const query = definedValues(event.queryStringParameters ?? {});
      const input: FunctionInput = isUpload(route, headers['content-type'])
        ? // An upload (e.g. an image tar) as bytes; API Gateway caps a payload far below the upload limit.
          { params, query, headers, body: undefined, text: '', bytes: new Uint8Array(Buffer.from(event.body ?? '', event.isBase64Encoded ? 'base64' : 'utf8')) }
        : textInput(route, params, query, headers, event);
      // Loaded once per instance; only a load that failed is tried again on the next event.
      device ??= loadDevice(bundleUrl).catch((error: unknown) => {
        device = undefined;
        throw error;
      });
      const out = await run(input, await device);
      return toResult(head ? { status: out.status, headers: out.headers, body: '' } : out);
    } catch (error) {
      return toResult(problemOutput(error));
    }
  };
}

function textInput(
  route: Route,
  params: Record<string, string>,
  query: Record<string, string>,
  headers: Record<string, string>,
  event: APIGatewayProxyEventV2,
): FunctionInput {
  const text = event.body === undefined ? '' : event.isBase64Encoded ? Buffer.from(event.body, 'base64').toString('utf8') : event.body;
  return { params, query, headers, body: readBody(route, headers['content-type'], text), text };
}

async function loadDevice(bundleUrl: string): Promise<Device> {
  const specifier = process.env[DEVICE_MODULE_ENV] || new URL('../scenario-device.mjs', bundleUrl).href;
  const module = (await import(/* @vite-ignore */ specifier)) as { createDevice(): Promise<Device> };
  return module.createDevice();
}

/** Named stages put their name in front of the path (`/prod/api/v1/...`); `$default` does not. */
function stripStage(event: APIGatewayProxyEventV2): string {
  const stage = event.requestContext.stage;
  const prefix = `/${stage}/`;
  if (stage && stage !== '$default' && event.rawPath.startsWith(prefix)) return event.rawPath.slice(prefix.length - 1);
  return event.rawPath;
}

function toResult(out: FunctionOutput): APIGatewayProxyStructuredResultV2 {
  return { statusCode: out.status, headers: out.headers, body: out.body, isBase64Encoded: false };
}

function lowerCaseKeys(headers: Record<string, string | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) if (value !== undefined) out[name.toLowerCase()] = value;
  return out;
}

function definedValues(values: Record<string, string | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(values)) if (value !== undefined) out[name] = value;
  return out;
}
