/**
 * RFC 9457 problem details: the body of every error answer.
 * `errors` lists what was wrong with the input, one `{path, message}` per violation.
 */
export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  errors?: InputError[];
  [extension: string]: unknown;
}

/**
 * One violation in a request: `path` names the field from the part of the request it is in:
 * `body.config.net.wlan.ssid`, `body.dns[0]`, `params.chute`, `query.limit`, `headers.content-type`
 * (docs/api/README.md#errors).
 */
export interface InputError {
  path: string;
  message: string;
}

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

const TITLES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  408: 'Request Timeout',
  409: 'Conflict',
  413: 'Content Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Content',
  426: 'Upgrade Required',
  429: 'Too Many Requests',
  431: 'Request Header Fields Too Large',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
  507: 'Insufficient Storage',
};

/**
 * The one error type of chutebox: it knows the HTTP answer it stands for.
 * Throw it from a handler, a parser or the runtime; the transport turns it into a problem response.
 *
 * @example
 * throw new HttpProblem(404, `no chute named ${name}`);
 * throw new HttpProblem(422, 'invalid configuration', { errors: [{ path: 'body.web.port', message: 'must be at most 65535' }] });
 */
export class HttpProblem extends Error {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly errors: InputError[] | undefined;
  readonly extensions: Record<string, unknown>;

  constructor(status: number, detail: string, options: { errors?: InputError[]; headers?: Record<string, string>; extensions?: Record<string, unknown> } = {}) {
    super(detail);
    this.name = 'HttpProblem';
    this.status = status;
    this.headers = options.headers ?? {};
    this.errors = options.errors;
    this.extensions = options.extensions ?? {};
  }

  /** The problem document sent as the response body. */
  toJSON(): Problem {
    return problem(this.status, this.message, this.errors, this.extensions);
  }
}

/** Builds a problem document; the title is the standard reason phrase of the status. */
export function problem(status: number, detail: string, errors?: InputError[], extensions: Record<string, unknown> = {}): Problem {
  return {
    ...extensions,
    type: 'about:blank',
    title: TITLES[status] ?? 'Error',
    status,
    detail,
    ...(errors && errors.length > 0 ? { errors } : {}),
  };
}

/**
 * Whether a value is an HttpProblem, also one made by another bundle's copy of this class: a Device
 * implemented by the runtime throws the runtime's HttpProblem into a handler bundle, whose own class
 * differs, so `instanceof` alone would turn it into a 500.
 */
export function isHttpProblem(error: unknown): error is HttpProblem {
  if (error instanceof HttpProblem) return true;
  if (!(error instanceof Error) || error.name !== 'HttpProblem') return false;
  const candidate = error as Partial<HttpProblem>;
  return typeof candidate.status === 'number' && typeof candidate.toJSON === 'function' && typeof candidate.headers === 'object';
}

/**
 * Maps anything thrown to a problem. An HttpProblem keeps its status; a write that found the device's
 * storage full (`ENOSPC`, `EDQUOT`) is a 507; anything else is a 500. Neither detail shows the message
 * or the stack of the original error.
 */
export function toProblem(error: unknown): { problem: Problem; headers: Record<string, string> } {
  if (isHttpProblem(error)) return { problem: error.toJSON(), headers: error.headers };
  if (isStorageFull(error)) return { problem: problem(507, STORAGE_FULL), headers: {} };
  return { problem: problem(500, 'the server failed to answer this request; see its log'), headers: {} };
}

/** The detail of a 507: a write of the request found no space left. */
export const STORAGE_FULL = "the device's storage is full (no space left on device): the request was not carried out";

/** Whether an error is a file system's refusal to write for want of space: `ENOSPC`, or `EDQUOT` (a quota). */
function isStorageFull(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return error instanceof Error && (code === 'ENOSPC' || code === 'EDQUOT');
}

/**
 * A path in a request, written as in JavaScript: keys after dots, list positions in brackets.
 *
 * @example
 * inputPath('body', ['net', 'wlan', 'dns', 0]) // 'body.net.wlan.dns[0]'
 * inputPath('', ['net', 'wlan', 'ssid'])       // 'net.wlan.ssid'
 */
export function inputPath(at: string, path: readonly PropertyKey[]): string {
  let out = at;
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else out += out === '' ? String(key) : `.${String(key)}`;
  }
  return out;
}

/**
 * A path from a value (`net.wlan.ssid`, `[0].ssid`, `''` for the value itself) placed under where
 * that value is: how a check of a part of a request names its fields in the request.
 *
 * @example
 * nestedPath('body.config', 'net.wlan.ssid') // 'body.config.net.wlan.ssid'
 * nestedPath('body', '[0]')                  // 'body[0]'
 * nestedPath('body', '')                     // 'body'
 */
export function nestedPath(at: string, path: string): string {
  if (path === '') return at;
  if (at === '' || path.startsWith('[')) return at + path;
  return `${at}.${path}`;
}
