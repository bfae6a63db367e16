import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { isUpload, readBody } from './body/decode.ts';
import type { Device } from './device/index.ts';
import { problemOutput, type FunctionInput, type FunctionOutput } from './handler.ts';
import { matchRoute, methodNotAllowed, noResource, type Route } from './route.ts';

/** Environment variable naming the module that provides the device; see `loadDevice`. */
export const DEVICE_MODULE_ENV = 'CHUTEBOX_DEVICE_MODULE';

/** Environment variable naming a fleet's DynamoDB table: set, the functions serve a fleet of devices (`fleet-device.mjs`). */
export const FLEET_TABLE_ENV = 'CHUTEBOX_FLEET_TABLE';

/**
 * What a device module exports: `createDevice()`, the one device every request is served by, or
 * `openDevice(request)`, the device of a fleet the request names (emulator/fleet/lambda/fleet-device.ts).
 */
export interface DeviceModule {
  createDevice?(): Promise<Device>;
  /**
   * The device a request names, by its path (`/devices/<id>/…`) or its `Host`.
   *
   * @throws HttpProblem 404 for a request that names no device of the fleet.
   */
  openDevice?(request: DeviceRequest): Promise<DeviceSession>;
}

/** What names a request's device: its path (the stage taken off), its `Host`, and its id (API Gateway's). */
export interface DeviceRequest {
  path: string;
  host: string | undefined;
  requestId: string;
}

/** A request's device, as a fleet's module opens it. */
export interface DeviceSession {
  /** The request's path on the device (`/api/v1/…`), which the route must match. */
  path: string;
  /**
   * Runs `use` on the device as it is now and keeps what it changed; `use` may run again, on the device
   * as another request left it, when that one changed it meanwhile. Answers what the run that was kept answered.
   */
  serve(use: (device: Device) => Promise<FunctionOutput>): Promise<FunctionOutput>;
}

/**
 * Wraps a function as an AWS Lambda handler for API Gateway HTTP API (payload format 2.0) events.
 *
 * The device comes from a module loaded at run time, so the scenario loader is never bundled into the
 * function: `CHUTEBOX_DEVICE_MODULE` names it (default: `scenario-device.mjs` beside the `functions/`
 * folder of the bundle, or `fleet-device.mjs` when `CHUTEBOX_FLEET_TABLE` names a fleet's table), and
 * it exports `createDevice(): Promise<Device>` or `openDevice(request)` (`DeviceModule`). The stock
 * modules serve the scenario named by `CHUTEBOX_SCENARIO`, or each device of a fleet at
 * `/devices/<id>/api/v1/…`. Authentication is left to API Gateway (an authorizer). A GET's function
 * answers HEAD too, with the GET's status and headers and no body.
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
  let module: Promise<DeviceModule> | undefined;
  let device: Promise<Device> | undefined;
  return async (event) => {
    try {
      // Loaded once per instance; only a load that failed is tried again on the next event.
      module ??= loadDeviceModule(bundleUrl).catch((error: unknown) => {
        module = undefined;
        throw error;
      });
      const loaded = await module;
      const headers = lowerCaseKeys(event.headers ?? {});
      const path = stripStage(event);
      const session = loaded.openDevice
        ? await loaded.openDevice({ path, host: headers.host, requestId: event.requestContext.requestId })
        : { path, serve: async (use: (device: Device) => Promise<FunctionOutput>) => use(await oneDevice()) };
      const method = event.requestContext.http.method.toUpperCase();
      const params = matchRoute(route, session.path);
      if (params === null) throw noResource(event.rawPath);
      // HEAD is a GET answered without its body.
      const head = method === 'HEAD' && route.method === 'GET';
      if (method !== route.method && !head) throw methodNotAllowed(method, route.method);
      const query = definedValues(event.queryStringParameters ?? {});
      const input: FunctionInput = isUpload(route, headers['content-type'])
        ? // An upload (e.g. an image tar) as bytes; API Gateway caps a payload far below the upload limit.
          { params, query, headers, body: undefined, text: '', bytes: new Uint8Array(Buffer.from(event.body ?? '', event.isBase64Encoded ? 'base64' : 'utf8')) }
        : textInput(route, params, query, headers, event);
      const out = await session.serve((device) => run(input, device));
      return toResult(head ? { status: out.status, headers: out.headers, body: '' } : out);
    } catch (error) {
      return toResult(problemOutput(error));
    }
  };

  /** The one device of `createDevice()`, made on the first request; only a load that failed is tried again. */
  async function oneDevice(): Promise<Device> {
    const loaded = await module!;
    device ??= loaded.createDevice!().catch((error: unknown) => {
      device = undefined;
      throw error;
    });
    return device;
  }
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

async function loadDeviceModule(bundleUrl: string): Promise<DeviceModule> {
  const stock = process.env[FLEET_TABLE_ENV] ? '../fleet-device.mjs' : '../scenario-device.mjs';
  const specifier = process.env[DEVICE_MODULE_ENV] || new URL(stock, bundleUrl).href;
  const module = (await import(/* @vite-ignore */ specifier)) as DeviceModule;
  if (typeof module.openDevice !== 'function' && typeof module.createDevice !== 'function') {
    throw new Error(`the device module ${specifier} exports neither createDevice() nor openDevice()`);
  }
  return module;
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
