import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ChangeAccepted } from '../functions/chutes/schemas.ts';
import type { ChangeRecord } from '../functions/core/device/index.ts';
import { call, changePages, finalChange, problemOf } from './support/http-client.ts';
import { serveArgs, useChutebox, type Started } from './support/spawn.ts';
import { useTempDir } from './support/temp-dir.ts';
import { writeScript } from './support/tool-scripts.ts';

/*
 * The change log's bound and pages over HTTP, on `chutebox serve` (its reboot command a script that
 * does nothing) and on `chutebox emulate`, both keeping 20 changes: after the same 30 reboots, both
 * keep the same changes and answer GET /api/v1/changes with the same pages, newest first, each with
 * a Link to the next; bad query values get the same problems.
 */

const temp = useTempDir('chutebox-change-pages-');
const start = useChutebox();

const KEPT = ['--change-log-records', '20'];
const REBOOT = { name: '__PARADROP__', updateClass: 'ROUTER', updateType: 'reboot' };

/** Reboots the device `count` times, each once the one before is final. */
async function reboot(server: Started, count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    const answer = await call<ChangeAccepted>(server.url, 'POST', '/api/v1/changes/', { json: REBOOT });
    expect(answer.status, answer.text).toBe(200);
    expect((await finalChange(server.url, answer.body.change_id)).state).toBe('succeeded');
  }
}

/** A change as both must show it: all but its times and messages, which say what was emulated. */
const seen = ({ id, action, chute, state }: ChangeRecord) => ({ id, action, chute, state });

describe('GET /api/v1/changes on serve and emulate, over 30 changes and a bound of 20', () => {
  let serve: Started;
  let emulate: Started;
  let stateDir: string;

  beforeAll(async () => {
    const dir = await temp.folder('serve');
    stateDir = path.join(dir, 'state');
    const script = await writeScript(dir, 'fake-reboot', 'exit 0');
    [serve, emulate] = await Promise.all([
      start(serveArgs(stateDir, path.join(dir, 'none.sock'), ['--reboot-command', script, ...KEPT])),
      start(['emulate', '--port', '0', '--no-auth', '--change-delay', '0', ...KEPT]),
    ]);
    await Promise.all([reboot(serve, 30), reboot(emulate, 30)]);
  }, 60_000);

  it('keeps the same newest changes, at most 20, and on serve no more record files than that', async () => {
    const [onServe, inEmulator] = await Promise.all([changePages(serve), changePages(emulate)]);
    expect(onServe).toHaveLength(1);
    const kept = onServe[0]!.changes.map(seen);
    expect(inEmulator[0]!.changes.map(seen)).toEqual(kept);
    expect(kept.length).toBeGreaterThanOrEqual(18);
    expect(kept.length).toBeLessThanOrEqual(20);
    expect(kept.map((change) => change.id)).toEqual(Array.from({ length: kept.length }, (_, i) => 30 - i));
    const files = (await readdir(path.join(stateDir, 'changes'))).filter((name) => name.endsWith('.json'));
    expect(files).toHaveLength(kept.length);
  });

  it('answers the same pages of 7, newest first, each leading to the next by its Link header, the last without one', async () => {
    const [onServe, inEmulator] = await Promise.all([changePages(serve, 7), changePages(emulate, 7)]);
    const view = (pages: Awaited<ReturnType<typeof changePages>>) => pages.map((page) => ({ ids: page.changes.map((change) => change.id), link: page.link }));
    expect(view(inEmulator)).toEqual(view(onServe));
    expect(view(onServe)[0]).toEqual({ ids: [30, 29, 28, 27, 26, 25, 24], link: '</api/v1/changes?limit=7&before=24>; rel="next"' });
    expect(onServe.at(-1)!.link).toBeNull();
    expect(onServe.flatMap((page) => page.changes).map(seen)).toEqual((await changePages(serve))[0]!.changes.map(seen));
  });

  it("answers ParaDrop's GET /api/v1/changes/ with a JSON array of the newest changes", async () => {
    for (const server of [serve, emulate]) {
      const answer = await call<ChangeRecord[]>(server.url, 'GET', '/api/v1/changes/');
      expect(answer).toMatchObject({ status: 200, type: 'application/json' });
      expect(answer.body.map((change: ChangeRecord) => change.id).slice(0, 3)).toEqual([30, 29, 28]);
    }
  });

  it('answers 400 naming query.limit or query.before when it is not a whole number, and 422 for a limit out of 1 to 200', async () => {
    for (const server of [serve, emulate]) {
      for (const [query, status, field] of [
        ['limit=ten', 400, 'query.limit'],
        ['before=-3', 400, 'query.before'],
        ['limit=0', 422, 'query.limit'],
        ['limit=201', 422, 'query.limit'],
      ] as const) {
        const problem = await problemOf(server, 'GET', `/changes?${query}`, status);
        expect(problem.errors, query).toEqual([{ path: field, message: expect.any(String) }]);
      }
    }
  });
});
