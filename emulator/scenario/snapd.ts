import { DEFAULT_SNAPD_SOCKET, type Device, type SnapdAnswer } from '../../functions/core/device/index.ts';
import { parseSnapdFile, SNAPD_FILE, type SnapdRecording } from '../../runtime/scenario/format.ts';
import { snapdNotRunning } from '../../runtime/snapd/problems.ts';

/**
 * The snapd of a scenario: the answers of its `snapd.yaml` (`parseSnapdFile`), read through its raw
 * `files` once, each to its method and path whatever the query and body; a path recorded for other
 * methods answers snapd's 405, any other path snapd's 404. A scenario without the file runs no snapd:
 * every request gets serve's 503 for a socket nothing listens on (its default one).
 *
 * @throws ScenarioError (when first asked) for a file that is no recorded snapd: `chutebox emulate` checks it at start.
 * @example
 * const snapd = scenarioSnapd(files);
 * await snapd({ method: 'GET', target: '/v2/interfaces', contentType: null, body: null }) // { status: 200, contentType: 'application/json', body }
 */
export function scenarioSnapd(files: Pick<Device, 'readFile'>): Device['snapd'] {
  let recording: Promise<SnapdRecording | null> | undefined;
  const read = async () => {
    const text = await files.readFile(`/${SNAPD_FILE}`);
    return text === null ? null : parseSnapdFile(text, SNAPD_FILE);
  };
  return async (request) => {
    const recorded = await (recording ??= read());
    if (recorded === null) throw snapdNotRunning(DEFAULT_SNAPD_SOCKET);
    const path = request.target.replace(/[?#].*$/s, '');
    const onPath = recorded.answers.filter((answer) => answer.path === path);
    const found = onPath.find((answer) => answer.method === request.method);
    if (found !== undefined) return snapdJson(found.status, found.body);
    if (onPath.length > 0) return snapdError(405, 'Method Not Allowed', `method ${JSON.stringify(request.method)} not allowed`);
    return snapdError(404, 'Not Found', 'not found');
  };
}

/** snapd's error document, as it answers a path or method it has no route for. */
function snapdError(status: number, text: string, message: string): SnapdAnswer {
  return snapdJson(status, { type: 'error', 'status-code': status, status: text, result: { message } });
}

function snapdJson(status: number, body: unknown): SnapdAnswer {
  return { status, contentType: 'application/json', body: new TextEncoder().encode(JSON.stringify(body)) };
}
