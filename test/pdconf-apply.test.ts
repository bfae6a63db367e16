import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import type { ChangeAccepted } from '../functions/chutes/schemas.ts';
import type { HostConfig } from '../functions/config/host-config.ts';
import type { ChangeRecord } from '../functions/core/device/index.ts';
import { call, finalChange, getJson, type HttpAnswer } from './support/http-client.ts';
import { groupMembers } from './support/processes.ts';
import { serveArgs, type Started, useChutebox } from './support/spawn.ts';
import { useTempDir } from './support/temp-dir.ts';
import { writeScript } from './support/tool-scripts.ts';

/**
 * pdconf's apply commands on `chutebox serve` while one runs: what GET hostconfig answers meanwhile,
 * and what a SIGTERM to serve does to the command and to the change it belongs to.
 */

const temp = useTempDir('chutebox-pdconf-apply-');

/** Where each apply command of the tests logs the pid of every run it holds (each leads its own process group). */
const heldLogs: string[] = [];
// Registered before useChutebox, so that it runs once every serve has stopped: kills the groups of held runs, should one be left.
afterAll(async () => {
  for (const log of heldLogs) {
    for (const pid of (await readFile(log, 'utf8').catch(() => '')).split('\n').filter(Boolean)) {
      try {
        process.kill(-Number(pid), 'SIGKILL');
      } catch {
        // gone, as it should be
      }
    }
  }
});
const start = useChutebox();

/** `chutebox serve` on a state dir of `dir`, with `apply` as the network file's apply command; no engine. */
function serveWithApply(dir: string, apply: string): string[] {
  return serveArgs(path.join(dir, 'state'), path.join(dir, 'none.sock'), [
    '--passwd-file',
    path.join(dir, 'passwd'),
    '--pdconf-apply-network',
    `${apply} {file}`,
  ]);
}

/**
 * An apply command in `dir` that succeeds at once, but while `hold` exists records its pid and runs
 * `held` (shell code) first. `pid()` waits for the pid of the run held now.
 */
async function holdingApply(dir: string, held: string) {
  const hold = path.join(dir, 'hold');
  const pidFile = path.join(dir, 'apply.pid');
  const log = path.join(dir, 'held.log');
  heldLogs.push(log);
  const apply = await writeScript(dir, 'apply', `if [ -e '${hold}' ]; then echo $$ >> '${log}'; echo $$ > '${pidFile}'; ${held}; fi`);
  return {
    apply,
    hold,
    async pid(): Promise<number> {
      await expect.poll(() => readFile(pidFile, 'utf8').catch(() => ''), { timeout: 15_000 }).toMatch(/^\d+\n$/);
      const pid = Number(await readFile(pidFile, 'utf8'));
      await rm(pidFile);
      return pid;
    },
  };
}

/** Holds the apply command until `release` exists. */
const untilReleased = (release: string) => `while [ ! -e '${release}' ]; do sleep 0.05; done`;

/** GET hostconfig while an apply command is held: its answer, which must come within 10 s (the apply is held far longer). */
async function hostConfigWhileHeld(server: Started): Promise<HttpAnswer<HostConfig>> {
  const answer = await Promise.race([call<HostConfig>(server.url, 'GET', '/api/v1/config/hostconfig'), sleep(10_000, null)]);
  expect(answer, 'GET hostconfig did not answer while the apply was held').not.toBeNull();
  expect(answer!.status, answer!.text).toBe(200);
  return answer!;
}

/** The sections of the network file in GET pdconf, which answers once the apply under way is over. */
async function networkSections(server: Started): Promise<{ comment: string; success: boolean }[]> {
  const sections: { comment: string; success: boolean }[] = await getJson(server, '/config/pdconf');
  return sections.filter((section) => section.comment.startsWith('network: '));
}

/**
 * Starts serve on `dir` with a `holdingApply` running `held`, lets its start apply the generated
 * configuration, then holds the apply and PUTs that configuration with the LAN on 10.42.0.1: answers
 * once the apply of that change is held, with its pid.
 */
async function heldUpdate(dir: string, held: string) {
  const apply = await holdingApply(dir, held);
  const args = serveWithApply(dir, apply.apply);
  const server = await start(args);
  const generated = await getJson<HostConfig>(server, '/config/hostconfig');
  await networkSections(server);
  await writeFile(apply.hold, '');
  const put = await call<ChangeAccepted>(server.url, 'PUT', '/api/v1/config/hostconfig', {
    json: { ...generated, lan: { ...generated.lan, ipaddr: '10.42.0.1' } },
  });
  expect(put.status, put.text).toBe(200);
  return { ...apply, args, server, generated, change: put.body.change_id, held: await apply.pid() };
}

describe('GET /api/v1/config/hostconfig while an apply command runs', () => {
  it('answers the generated configuration while the first start is still applying it', async () => {
    const dir = await temp.folder('first-start');
    const release = path.join(dir, 'release');
    const { apply, hold, pid } = await holdingApply(dir, untilReleased(release));
    await writeFile(hold, '');
    const server = await start(serveWithApply(dir, apply));
    const held = await pid();

    expect((await hostConfigWhileHeld(server)).body.lan).toMatchObject({ proto: 'static', ipaddr: '192.168.1.1' });
    expect(await groupMembers(held)).toContain(held);

    await writeFile(release, '');
    for (const section of await networkSections(server)) expect(section).toMatchObject({ success: true });
  });

  it('after a crash during an update, answers the configuration from before it while the next start applies that again', async () => {
    const dir = await temp.folder('crash');
    const release = path.join(dir, 'release');
    const { server, args, generated, change, held: cutShort, pid } = await heldUpdate(dir, untilReleased(release));
    server.child.kill('SIGKILL');
    await server.stop();
    process.kill(-cutShort, 'SIGKILL');

    const restarted = await start(args);
    const held = await pid();
    expect((await hostConfigWhileHeld(restarted)).body).toEqual(generated);
    expect(await groupMembers(held)).toContain(held);

    await writeFile(release, '');
    for (const section of await networkSections(restarted)) expect(section).toMatchObject({ success: true });
    expect(await finalChange(restarted.url, change)).toMatchObject({ state: 'failed' });
    expect(await getJson(restarted, '/config/hostconfig')).toEqual(generated);
  });
});

describe('SIGTERM to chutebox serve while an apply command runs', () => {
  it('stops the command and its children, records the change failed, and exits 0; the next start applies the configuration from before', async () => {
    const dir = await temp.folder('sigterm');
    // Held, it sleeps long in a child: the whole group must go.
    const { server, args, generated, change, held, hold } = await heldUpdate(dir, 'sleep 300');
    expect(await groupMembers(held)).toHaveLength(2);

    await server.stop();
    expect(server.child.exitCode).toBe(0);
    await expect.poll(() => groupMembers(held), { timeout: 5000 }).toEqual([]);
    const record = JSON.parse(await readFile(path.join(dir, 'state', 'changes', `${change}.json`), 'utf8')) as ChangeRecord;
    expect(record.state, JSON.stringify(record.messages)).toBe('failed');
    expect(
      record.messages.map((message) => message.text),
      JSON.stringify(record.messages),
    ).toContain('network: apply failed: the network apply command was stopped: the runtime is stopping');

    await rm(hold);
    const restarted = await start(args);
    expect(await getJson(restarted, '/config/hostconfig')).toEqual(generated);
    expect(await finalChange(restarted.url, change)).toMatchObject({ state: 'failed' });
    for (const section of await networkSections(restarted))
      expect(section).toMatchObject({ success: true, comment: expect.stringMatching(/^network: applied with /) });
    expect(await readFile(path.join(dir, 'state', 'pdconf', 'network'), 'utf8')).toContain("option ipaddr '192.168.1.1'");
  });
});
