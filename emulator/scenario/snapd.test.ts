import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import type { SnapdAnswer, SnapdRequest } from '../../functions/core/device/index.ts';
import { HttpProblem } from '../../functions/core/problem.ts';
import { ScenarioError, SNAPD_FILE } from '../../runtime/scenario/format.ts';
import { scenarioSnapd } from './snapd.ts';

/** The scenario snapd over a file tree holding `snapd` as `/snapd.yaml`, or none. */
const snapdOf = (snapd: string | null) => scenarioSnapd({ readFile: async (file) => (file === `/${SNAPD_FILE}` ? snapd : null) });
const request = (method: string, target: string): SnapdRequest => ({ method, target, contentType: null, body: null });
const json = (answer: SnapdAnswer) => JSON.parse(new TextDecoder().decode(answer.body)) as Record<string, unknown>;

const RECORDED = `answers:
  - { method: GET, path: /v2/interfaces, status: 200, body: { type: sync, status-code: 200, result: { plugs: [], slots: [] } } }
  - { method: POST, path: /v2/interfaces, status: 202, body: { type: async, status-code: 202, change: "3" } }
`;

describe("a scenario's snapd", () => {
  it('answers the recorded answer of the method and path, whatever the query and body', async () => {
    const snapd = snapdOf(RECORDED);
    const listed = await snapd(request('GET', '/v2/interfaces?select=all'));
    expect(listed).toMatchObject({ status: 200, contentType: 'application/json' });
    expect(json(listed)).toEqual({ type: 'sync', 'status-code': 200, result: { plugs: [], slots: [] } });
    const body = new TextEncoder().encode('{"action":"connect"}');
    const connected = await snapd({ method: 'POST', target: '/v2/interfaces', contentType: 'application/json', body });
    expect([connected.status, json(connected).change]).toEqual([202, '3']);
  });

  it("answers snapd's 405 for another method of a recorded path, and its 404 for any other path", async () => {
    const snapd = snapdOf(RECORDED);
    const refused = await snapd(request('PUT', '/v2/interfaces'));
    expect([refused.status, json(refused)]).toEqual([
      405,
      { type: 'error', 'status-code': 405, status: 'Method Not Allowed', result: { message: 'method "PUT" not allowed' } },
    ]);
    const missing = await snapd(request('GET', '/v2/snaps'));
    expect([missing.status, json(missing)]).toEqual([404, { type: 'error', 'status-code': 404, status: 'Not Found', result: { message: 'not found' } }]);
  });

  it('is the 503 serve answers with nothing on its default socket, without a recorded snapd', async () => {
    const error = await snapdOf(null)(request('GET', '/v2/interfaces')).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(HttpProblem);
    expect(error).toMatchObject({ status: 503, message: 'snapd is not running on this device: nothing listens on /run/snapd.socket' });
  });

  it('refuses a recorded snapd with a bad field, naming it', async () => {
    const bad = 'answers:\n  - { method: get, path: /v2/interfaces, status: 200, body: {} }\n';
    await expect(snapdOf(bad)(request('GET', '/v2/interfaces'))).rejects.toThrow(ScenarioError);
    await expect(snapdOf(bad)(request('GET', '/v2/interfaces'))).rejects.toThrow(/answers\[0\]\.method/);
  });

  it("answers each route pdtools uses from the default scenario's recorded snapd", async () => {
    const recorded = await readFile(new URL('../../fixtures/scenarios/default/snapd.yaml', import.meta.url), 'utf8');
    const snapd = snapdOf(recorded);
    const interfaces = json(await snapd(request('GET', '/v2/interfaces')));
    const plugs = (interfaces.result as { plugs: { plug: string; connections?: unknown[] }[] }).plugs;
    // connect-snap-interfaces connects the plugs that have no connection.
    expect(plugs.filter((plug) => (plug.connections ?? []).length === 0).map((plug) => plug.plug)).toEqual(['firewall-control', 'hardware-observe']);
    expect(json(await snapd(request('POST', '/v2/interfaces')))).toMatchObject({ type: 'async', change: '17' });
    expect(json(await snapd(request('GET', '/v2/changes/17')))).toMatchObject({ result: { status: 'Done', ready: true } });
    expect(json(await snapd(request('POST', '/v2/create-user')))).toMatchObject({ result: { username: 'paradrop' } });
  });
});
