import * as z from 'zod/mini';
import { ChangeRequestSchema } from '../../functions/changes/schemas.ts';
import { ChuteLogsRequestSchema, ChuteRequestSchema, NetworkRequestSchema } from '../../functions/chutes/schemas.ts';
import * as eventSchemas from '../../functions/events/schemas.ts';
import { DEVICE_EVENT_KINDS, EVENT_ID, EVENTS_MISSED, EventsRequestSchema, StreamEventSchema } from '../../functions/events/schemas.ts';
import type { Device } from '../../functions/core/device/index.ts';
import type { Handler } from '../../functions/core/handler.ts';
import { openApiDocument, type DescribedOperation, type OpenApiDocument } from '../../functions/core/openapi/index.ts';
import { openApiExamples, type ExampleParameter } from '../../functions/core/openapi-examples.ts';
import { defineRoute } from '../../functions/core/route.ts';
import { PACKAGE_VERSION } from '../../functions/core/version.ts';
import { ChuteLogLineSchema, LOG_MEDIA_TYPE, LogLineSchema, LogQuerySchema } from '../../functions/core/logs.ts';
import {
  CHANGE_STREAM_PATH,
  CHUTE_LOG_SOCKET_PATHS,
  CHUTE_LOGS_PATH,
  DAEMON_LOGS_PATH,
  EVENTS_PATH,
  HOSTAPD_CONTROL_PATH,
  METRICS_PATH,
  PARADROP_LOGS_PATH,
  PASSWORD_CHANGE_PATH,
  PASSWORD_CLEAR_PATH,
} from './app.ts';
import { PasswordAnswerSchema, PasswordChangeBodySchema } from './password-change.ts';
import { CLOUD_LOGIN_PATH, LOGIN_PATH } from './auth.ts';
import { CloudLoginAnswerSchema, CloudLoginBodySchema } from './login.ts';

/*
 * The API as one OpenAPI 3.1 document (functions/core/openapi/): every endpoint module as it
 * describes itself, and here what the HTTP layer answers itself, described once: the login, the events
 * stream, the websockets, a chute's streamed log, Prometheus' scrape and how a client authenticates. The build writes it to dist/openapi.json and into the
 * bundle of GET /api/v1/openapi.json (esbuild.config.mjs); docs/decisions/0029-openapi-from-the-schemas.md.
 */

/** An endpoint module with its bundle's name, as the build hands it over. */
export type DescribedEndpoint = DescribedOperation & { response: NonNullable<DescribedOperation['response']>; handle: Handler };

/** The body of a login (`credentials` in runtime/http/auth.ts reads it). */
export const LoginBodySchema = z.object({ username: z.string(), password: z.string() });

/** A login that succeeded: the token for `Authorization: Bearer <token>`. */
export const LoginAnswerSchema = z.strictObject({ username: z.string(), success: z.literal(true), token: z.string() });

/** A login refused: wrong credentials (401, with `WWW-Authenticate`). */
export const LoginRefusalSchema = z.strictObject({ username: z.string(), success: z.literal(false) });

/**
 * What runtime/http/app.ts answers itself, beside the functions, by operation name (the operationId).
 * Each keeps its schemas' own types: the package's `Endpoints` (chutebox/types) names them.
 */
export const HTTP_OPERATIONS = {
  'auth-local-post': {
    route: defineRoute(`POST ${LOGIN_PATH}`, 'Log in: a token for every other request', { public: true }),
    request: z.object({ body: LoginBodySchema }),
    response: LoginAnswerSchema,
    description:
      'The token is an HS256 JWT, valid for one hour. Not mounted when authentication is off (`chutebox emulate --no-auth`); ' +
      "the emulator's user is `paradrop` with an empty password.",
    answers: {
      401: {
        description: 'Wrong username or password',
        schema: LoginRefusalSchema,
        headers: { 'WWW-Authenticate': { description: 'The schemes to authenticate with', schema: { type: 'string' } } },
      },
    },
    problems: [400, 403, 413, 415, 422, 429],
  },
  'auth-cloud-post': {
    route: defineRoute(`POST ${CLOUD_LOGIN_PATH}`, 'Log in with a token the controller issued', { public: true }),
    request: z.object({ body: CloudLoginBodySchema }),
    response: CloudLoginAnswerSchema,
    description:
      "ParaDrop's cloud login: the device asks the controller it is provisioned with who the token is for (`GET /api/users/me`) and what rights they have on the router " +
      '(`GET /api/routers/<routerId>`, its `access_rights`), both with that token, and answers a token of its own for that user (their email), valid for one hour. ' +
      '409 when the device is not provisioned, 401 when the controller refuses the token, 403 when the user has no rights on the router (or, while no password is set, ' +
      'the client is not on the device). The emulator asks its built-in fake controller (docs/emulator.md). Not mounted when authentication is off. ' +
      'Served by `chutebox serve` and `chutebox emulate`, not on Lambda.',
    problems: [400, 401, 403, 409, 413, 415, 422],
  },
  'password-change-post': {
    route: defineRoute(`POST ${PASSWORD_CHANGE_PATH}`, 'Set the password of an account'),
    request: z.object({ body: PasswordChangeBodySchema }),
    response: PasswordAnswerSchema,
    description:
      "ParaDrop's password change (`pdtools node set-password`): sets the password of `username` (`paradrop` when not given); only its scrypt hash is stored. " +
      'On a device without a password (served only to clients on the device itself) it makes the first account; then it changes an account the device has (422 naming ' +
      '`body.username` otherwise). An empty password is refused (422): chutebox has no default password. Not mounted when authentication is off (`chutebox emulate --no-auth`). ' +
      'Served by `chutebox serve` and `chutebox emulate`, not on Lambda.',
    problems: [400, 401, 403, 413, 415, 422, 429],
  },
  'password-clear-post': {
    route: defineRoute(`POST ${PASSWORD_CLEAR_PATH}`, 'Remove every password'),
    request: z.object({}),
    response: PasswordAnswerSchema,
    description:
      "ParaDrop's password clear. chutebox has no default password: `chutebox serve` then serves only clients on the device itself, without credentials, until a password is set again, " +
      'and every token stops working; `chutebox emulate` goes back to its own account (`paradrop`, empty password). Not mounted when authentication is off. ' +
      'Served by `chutebox serve` and `chutebox emulate`, not on Lambda.',
    problems: [401, 403, 429],
  },
  'events-events-get': {
    route: defineRoute(`GET ${EVENTS_PATH}`, "The device's events as they happen (Server-Sent Events)"),
    request: EventsRequestSchema,
    events: StreamEventSchema,
    headers: {
      'Last-Event-ID': {
        description: "The id of the last event received: the stream first sends the events kept after it (a browser's EventSource sends it when it reconnects)",
        schema: { type: 'string', pattern: EVENT_ID.source },
      },
    },
    description:
      'Each event is sent as `id: <id>`, `event: <kind>` and `data: <the event as JSON>`, after `retry:`; a comment every 15 s keeps the connection alive. ' +
      `Kinds: ${DEVICE_EVENT_KINDS.map((kind) => `\`${kind}\``).join(', ')}. ` +
      'The query filters them: `kind` (comma-separated or repeated; an unknown kind is a 422), `chute`, `network`. ' +
      `A client that resumes (\`Last-Event-ID\`, or \`lastEventId\` in the query for one that cannot send headers; the header wins) gets the events kept after that id, ` +
      `first \`${EVENTS_MISSED}\` when some have left the buffer (always sent, whatever the filters). ` +
      'At most `--events-clients` clients at once (503 with `Retry-After` beyond); a client that falls too far behind is dropped. ' +
      'Served by `chutebox serve` and `chutebox emulate`, not on Lambda. See docs/api/events.md.',
    problems: [400, 422, 503],
  },
  'networks-hostapd-control-ws': {
    route: defineRoute(`GET ${HOSTAPD_CONTROL_PATH}`, "A websocket to the access point's hostapd control interface"),
    request: NetworkRequestSchema,
    description:
      "Each text message is one hostapd command (`STATUS`, `ALL_STA`, `DEAUTHENTICATE <mac>`), answered with hostapd's reply verbatim; after `ATTACH`, each of " +
      "hostapd's events comes as a message `<3>TEXT`. Before the upgrade the chute and network are checked as `…/hostapd_status` checks them. " +
      'Served by `chutebox serve` and `chutebox emulate`, not on Lambda.',
    websocket: true,
    problems: [400, 404, 409, 426],
  },
  'changes-change-stream-ws': {
    route: defineRoute(`GET ${CHANGE_STREAM_PATH}`, "A websocket of a change's messages, as pdtools follows a change"),
    request: ChangeRequestSchema,
    description:
      'Sends every message of the change so far, then each new one, as JSON `{"time": <seconds since the epoch>, "message": <text>}`, and closes with 1000 once ' +
      'the change has succeeded or failed. Messages from the client are ignored (a binary one closes with 1003). ' +
      'Served by `chutebox serve` and `chutebox emulate`, not on Lambda.',
    websocket: true,
    problems: [400, 404, 426],
  },
  'metrics-prometheus-get': {
    route: defineRoute(`GET ${METRICS_PATH}`, "The device's metrics, for Prometheus"),
    request: z.object({}),
    textAnswer: ['text/plain', 'application/openmetrics-text'],
    description:
      "Prometheus' text exposition format (`text/plain; version=0.0.4`), or OpenMetrics 1.0 when `Accept` prefers `application/openmetrics-text`: " +
      "the Wi-Fi stations and DHCP leases of the chutes under the names of OpenWrt's prometheus-node-exporter-lua, the chutes' containers under " +
      "cAdvisor's, the system under node exporter's, and chutebox's own (`chutebox_*`: requests, changes, telemetry). Each scrape reads the device " +
      'anew. Prometheus scrapes it with a bearer token or basic auth. Served by `chutebox serve` and `chutebox emulate`, not on Lambda. ' +
      'The metrics are listed in docs/api/metrics.md.',
    problems: [],
  },
  'chutes-logs-get': {
    route: defineRoute(`GET ${CHUTE_LOGS_PATH}`, 'What a chute printed, streamed as newline-delimited JSON'),
    request: ChuteLogsRequestSchema,
    response: ChuteLogLineSchema,
    streamed: LOG_MEDIA_TYPE,
    description:
      'One JSON `{"time", "service", "stream", "message"}` per line, oldest first: the lines of the containers of the chute\'s services on `chutebox serve`, interleaved by time, ' +
      'the recorded ones replayed on the clock in `chutebox emulate`; `service` names the service that printed the line (`main` for a chute installed without services). ' +
      "`tail` takes the last lines of each service's log, then `since` and `until` keep those in their range (both included, as the engine counts); " +
      'with `follow=true` the answer goes on with each new line until the chute stops, `until` passes or the client goes away. `timestamps=false` leaves `time` out. ' +
      'Served by `chutebox serve` and `chutebox emulate`, not on Lambda.',
    problems: [400, 404, 422],
  },
  'chutes-chute-logs-ws': chuteLogSocket(CHUTE_LOG_SOCKET_PATHS[0]),
  'chutes-sockjs-logs-ws': chuteLogSocket(CHUTE_LOG_SOCKET_PATHS[1]),
  'logs-daemon-logs-get': {
    route: defineRoute(`GET ${DAEMON_LOGS_PATH}`, "The daemon's own log lines, as newline-delimited JSON"),
    request: z.object({ query: LogQuerySchema }),
    response: LogLineSchema,
    streamed: LOG_MEDIA_TYPE,
    description:
      'The recent lines of the log `chutebox serve` or `chutebox emulate` writes to standard output (a request line for each request at level `info`, the notable events), ' +
      'oldest first, one JSON object `{"time", "stream", "message"}` a line, `message` the line as written. ' +
      "The query is a chute log's: `tail` takes the last lines kept, then `since` and `until` (RFC 3339, seconds since the epoch or a time ago such as `10m`) keep those in their range, both included; `timestamps=false` leaves `time` out; " +
      '`follow=true` keeps the answer open and sends each new line, until `until`, and is refused with 503 while 32 clients follow. ' +
      'Served by `chutebox serve` and `chutebox emulate`, not on Lambda.',
    problems: [400, 422, 503],
  },
  'logs-paradrop-logs-ws': {
    route: defineRoute(`GET ${PARADROP_LOGS_PATH}`, "A websocket of the daemon's new log lines, as pdtools watch-logs reads them"),
    request: z.object({}),
    description:
      "Sends each new line of the daemon's log as one text message, the JSON line as written to standard output (ParaDrop sends each log message's text; " +
      '`pdtools node watch-logs` prints them). Messages from the client are ignored (a binary one closes with 1003); a client that reads too slowly is closed with 1008. ' +
      'Served by `chutebox serve` and `chutebox emulate`, not on Lambda.',
    websocket: true,
    problems: [426, 503],
  },
} satisfies Readonly<Record<string, HttpOperation>>;

/** An operation of the HTTP layer, named by its key in `HTTP_OPERATIONS`. */
type HttpOperation = Omit<DescribedOperation, 'name'>;

/** One of ParaDrop's two websockets of a chute's log (runtime/http/websocket.ts, `chuteLogSocket`). */
function chuteLogSocket(path: string) {
  return {
    route: defineRoute(`GET /${path.slice(1)}`, "A websocket of a chute's log, as ParaDrop's daemon sends it"),
    request: ChuteRequestSchema,
    description:
      'Sends the last 200 lines each service of the chute printed, interleaved by time, then each new one, one message each: ' +
      'JSON `{"service": <the service that printed it>, "timestamp": <RFC 3339>, "message": <text>}`, ' +
      'as ParaDrop sends them and `pdtools node watch-chute-logs` prints them; closes with 1000 when the chute stops. Any path below it is the same websocket, ' +
      "as on ParaDrop's daemon. Messages from the client are ignored (a binary one closes with 1003). Served by `chutebox serve` and `chutebox emulate`, not on Lambda.",
    websocket: true,
    problems: [400, 404, 426],
  } satisfies HttpOperation;
}

/** How a client authenticates (runtime/auth/policy.ts): a token from the login, or the credentials themselves. */
export const SECURITY_SCHEMES = {
  bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: `A token from \`POST ${LOGIN_PATH}\`, valid for one hour` },
  basic: {
    type: 'http',
    scheme: 'basic',
    description: "The device's credentials (set with `chutebox passwd`; the emulator's: `paradrop` and an empty password)",
  },
} as const;

/**
 * Where the API is: the host the document was fetched from (a device, an emulator), at its root, as
 * every path begins with `/api/v1` or is one of ParaDrop's own (`/ws/…`, `/sockjs/…`, `/metrics`).
 */
export const SERVERS = [{ url: '/', description: 'The device or emulator this document was fetched from' }] as const;

/** Where the examples find a value for each path parameter: what the device lists. */
export const EXAMPLE_PARAMETERS: Readonly<Record<string, ExampleParameter>> = {
  chute: { list: '/api/v1/chutes', field: 'name' },
  network: { list: '/api/v1/chutes/:chute/networks', field: 'name' },
  mac: { list: '/api/v1/chutes/:chute/networks/:network/stations', field: 'mac_addr' },
  id: { list: '/api/v1/changes', field: 'id' },
  user: { values: ['paradrop', 'root'] },
};

const DESCRIPTION = [
  "chutebox answers ParaDrop's device API on `chutebox serve` (a device), `chutebox emulate` (a recorded device) and AWS Lambda.",
  `Log in with \`POST ${LOGIN_PATH}\` and send the token as \`Authorization: Bearer <token>\`, or send the credentials with HTTP Basic. ` +
    'A device without a password serves only clients on the device itself, without credentials; `chutebox emulate --no-auth` serves every client without them. ' +
    'A request served without credentials must name the server `localhost` or a loopback address in `Host` and come from no web page of another origin: else it gets 403.',
  'Every error is `application/problem+json` (RFC 9457). An unknown path answers 404, a known path with another method 405 (with `Allow`). ' +
    'A trailing slash is accepted on every path.',
  'The examples are the answers of the built-in `default` scenario.',
].join('\n\n');

/**
 * The document of `endpoints` (every endpoint module, named as its bundle) and the operations of the
 * HTTP layer. `schemaModules` name the schemas (the areas' `schemas.ts`); with a `device`, each GET
 * answers its example on it.
 *
 * @example
 * const document = await apiDocument([{ name: 'info-features-get', ...features }], [infoSchemas], (await loadScenario('default')).device);
 */
export async function apiDocument(
  endpoints: readonly DescribedEndpoint[],
  schemaModules: readonly Readonly<Record<string, unknown>>[],
  device?: Device,
): Promise<OpenApiDocument> {
  const examples = device === undefined ? undefined : await openApiExamples(endpoints, device, EXAMPLE_PARAMETERS);
  return openApiDocument({
    info: {
      title: 'chutebox',
      version: PACKAGE_VERSION,
      description: DESCRIPTION,
      license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
    },
    servers: SERVERS,
    operations: [...endpoints, ...Object.entries(HTTP_OPERATIONS).map(([name, op]): DescribedOperation => ({ name, ...op }))],
    schemaModules: [...schemaModules, eventSchemas, { LoginBodySchema, LoginAnswerSchema, LoginRefusalSchema, LogLineSchema, ChuteLogLineSchema }],
    securitySchemes: SECURITY_SCHEMES,
    ...(examples === undefined ? {} : { examples }),
  });
}
