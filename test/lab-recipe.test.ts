import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dockerUnavailableReason, findOnPath, signal, unmountUnder } from './support/dockerd.ts';
import { networkUnavailableReason, processesWith, run, waitUntil } from './support/netns.ts';
import { fencedBlocks } from './support/markdown.ts';
import { CLEAN_ENV } from './support/spawn.ts';
import { useTempDir } from './support/temp-dir.ts';

/*
 * The lab of docs/lab.md, run as written: its shell blocks, in bash, from the checkout's root, with
 * namespaces and a folder of this test run in place of `router`, `phone` and a new temp folder (the
 * recipe reads R, P and D). Then what a reader would check by hand: the station's lease, the chute's
 * page; and after the recipe's clean-up, that none of the lab is left. Needs what the recipe needs
 * (root, dockerd and busybox-static, hostapd, dnsmasq, wpa_supplicant, nft, nsenter, docker, curl);
 * `.ci/run` installs them and sets CHUTEBOX_REQUIRE_NETWORK and CHUTEBOX_REQUIRE_DOCKER, which turn a
 * skip into a failure.
 */
const RECIPE = 'docs/lab.md';
const SETUP = ['Start the router', 'Install a chute with an access point', 'Connect a station'];
const CLEAN_UP = ['Clean up'];
/** Where an engine without the recipe's flags would keep its files on the host. */
const HOST_DOCKER_PATHS = ['/var/lib/docker', '/var/run/docker/containerd', '/var/run/docker.pid', '/var/run/docker.sock', '/etc/docker/key.json'];

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const unavailable =
  networkUnavailableReason() ??
  dockerUnavailableReason() ??
  (['nft', 'nsenter', 'docker', 'curl'].some((program) => findOnPath(program) === null)
    ? 'nft, nsenter, docker or curl is not on PATH (apt-get install -y nftables util-linux docker.io curl)'
    : null);
const skipped = unavailable !== null && !process.env.CHUTEBOX_REQUIRE_NETWORK && !process.env.CHUTEBOX_REQUIRE_DOCKER;
if (skipped) console.warn(`test/lab-recipe.test.ts skipped: ${unavailable}; set CHUTEBOX_REQUIRE_NETWORK=1 to make this a failure`);

const temp = useTempDir('chutebox-lab-recipe-');

/**
 * The ```sh blocks of the sections of `markdown` named in `headings`, in that order, as one script.
 * Throws when a section is missing or has no such block, so that a renamed heading fails here.
 */
function shellBlocks(markdown: string, headings: string[]): string {
  return headings
    .map((heading) => {
      const blocks = fencedBlocks(markdown, heading, 'sh');
      if (blocks.length === 0) throw new Error(`${RECIPE} has no \`\`\`sh block under "## ${heading}"`);
      return blocks.join('');
    })
    .join('');
}

/** Runs `script` with bash as the recipe's reader would, failing on the first failing command; answers its exit code and output. */
function runRecipe(script: string, env: NodeJS.ProcessEnv, timeoutMs: number): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['-euo', 'pipefail', '-c', script], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'], timeout: timeoutMs });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.once('close', (code, killedBy) => resolve({ code, output: killedBy === null ? output : `${output}\n(killed by ${killedBy})` }));
  });
}

const alive = (pid: number) => existsSync(`/proc/${pid}`);
/** The program a process runs (its `comm`), or null once it is gone. */
const program = (pid: number) => {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    return null;
  }
};
/** Which of `names` are network namespaces here. */
const existing = (names: string[]) => (existsSync('/run/netns') ? readdirSync('/run/netns') : []).filter((ns) => names.includes(ns));

/**
 * What a failed run of the lab left, removed: every process naming its folder or running in its
 * namespaces (and the chute's, which does neither), by pid, the engine first so that it can stop its
 * containers; then its mounts and namespaces. The temp folder goes with useTempDir's.
 */
async function removeLeftovers(dir: string, names: string[], chutePid: number | undefined): Promise<void> {
  const pids = async () => [
    ...new Set([...(await processesWith(dir)), ...existing(names).flatMap((ns) => run('ip', ['netns', 'pids', ns]).split('\n').filter(Boolean).map(Number))]),
  ];
  const engine = (await pids()).filter((pid) => program(pid) === 'dockerd');
  for (const pid of engine) signal(pid, 'SIGTERM');
  await waitUntil('the lab engine stopped', () => !engine.some(alive), 30_000).catch(() => undefined);
  for (const pid of [...(await pids()), chutePid]) signal(pid, 'SIGKILL');
  unmountUnder(dir);
  for (const ns of existing(names)) spawnSync('ip', ['netns', 'del', ns]);
}

describe.skipIf(skipped)(`the lab of ${RECIPE}, as written${skipped ? ` (skipped: ${unavailable})` : ''}`, () => {
  const R = `cblab-${process.pid}-r`;
  const P = `cblab-${process.pid}-p`;
  let D: string;
  let env: NodeJS.ProcessEnv;
  let recipe: string;
  let setup: { code: number | null; output: string };
  const absentBefore = HOST_DOCKER_PATHS.filter((file) => !existsSync(file));
  /** The chute's container process: it runs in a namespace of its own, and names nothing of D. */
  let chutePid: number | undefined;
  const inRouter = (args: string[]) => run('ip', ['netns', 'exec', R, ...args]);
  const api = (endpoint: string) => JSON.parse(inRouter(['curl', '-sS', `http://127.0.0.1:8080/api/v1/${endpoint}`]));

  beforeAll(async () => {
    if (unavailable !== null) throw new Error(`the lab cannot run here: ${unavailable}`);
    recipe = readFileSync(path.join(ROOT, RECIPE), 'utf8');
    D = await temp.folder('lab');
    env = { ...CLEAN_ENV, R, P, D };
    setup = await runRecipe(shellBlocks(recipe, SETUP), env, 60_000);
    const engine = new Docker({ socketPath: path.join(D, 'docker.sock') });
    const [container] = await engine.listContainers().catch(() => []);
    if (container !== undefined) chutePid = (await engine.getContainer(container.Id).inspect()).State.Pid;
  }, 90_000);

  afterAll(async () => {
    if (D !== undefined) await removeLeftovers(D, [R, P], chutePid);
  }, 60_000);

  it("a station on the chute's access point authenticates and gets a lease from the chute's network", () => {
    expect(setup.code, setup.output).toBe(0);
    const station = run('ip', ['-n', P, '-o', 'link', 'show', 'dev', 'sta0']).match(/link\/ether (\S+)/)![1];
    const address = run('ip', ['-n', P, '-o', '-4', 'address', 'show', 'dev', 'sta0']).match(/inet (10\.128\.0\.\d+)\/24/)?.[1];
    expect(address, 'the address of sta0').toBeDefined();
    expect(api('chutes/lab/networks/wifi/leases')).toEqual([expect.objectContaining({ mac_addr: station, ip_addr: address, hostname: 'phone' })]);
  });

  it('the chute answers the station at its address, and through serve at /chutes/lab/', () => {
    expect(setup.code, setup.output).toBe(0);
    const { chuteAddress } = api('chutes/lab/cache').networks.wifi;
    expect(chuteAddress).toBe('10.128.0.2');
    expect(run('ip', ['netns', 'exec', P, 'busybox', 'wget', '-qO-', `http://${chuteAddress}/`])).toBe('hello from the chute\n');
    expect(inRouter(['curl', '-sS', 'http://127.0.0.1:8080/chutes/lab/'])).toBe('hello from the chute\n');
  });

  it('the clean-up stops every process of the lab, removes its namespaces and folder, and the engine kept nothing on the host', async () => {
    const before = await processesWith(D);
    expect(before.map(program)).toEqual(expect.arrayContaining(['dockerd', 'containerd', 'hostapd', 'dnsmasq', 'wpa_supplicant']));
    expect(chutePid !== undefined && alive(chutePid), "the chute's container process runs").toBe(true);

    const cleanUp = await runRecipe(shellBlocks(recipe, CLEAN_UP), env, 60_000);
    expect(cleanUp.code, cleanUp.output).toBe(0);
    expect(await processesWith(D)).toEqual([]);
    expect(before.filter(alive)).toEqual([]);
    expect(alive(chutePid!), "the chute's container process").toBe(false);
    expect(existing([R, P])).toEqual([]);
    expect(existsSync(D), 'the lab folder (and so any mount in it)').toBe(false);
    expect(absentBefore.filter(existsSync)).toEqual([]);
  }, 90_000);
});
