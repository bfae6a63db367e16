import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import type { ChangeRecord } from '../../functions/core/device/index.ts';
import { startEmulator, type RunningEmulator } from '../../emulator/start.ts';
import type { HttpAnswer } from './http-client.ts';
import { DIST_FUNCTIONS } from './test-bundles.ts';

/*
 * What the tests of the device faults share (test/device-faults-*.test.ts): each runs the same check
 * on serve in a real situation and on the emulator under the fault, so that both must answer alike.
 */

/** A problem answer as both must give it: the parts of the detail only the real host has (a socket path, an address) named instead. */
export interface ProblemSeen {
  status: number;
  type: unknown;
  title: unknown;
  detail: string;
}

/**
 * The status, type, title and detail of a problem answer, each `masks` value in the detail replaced
 * by its key (`{ '<socket>': '/tmp/…/hostapd/vwlan0' }`), longest value first.
 *
 * @example
 * problemSeen(answer, { '<socket>': socket }) // { status: 503, type: 'about:blank', title: 'Service Unavailable', detail: 'hostapd control socket <socket> …' }
 */
export function problemSeen(answer: HttpAnswer, masks: Record<string, string> = {}): ProblemSeen {
  expect(answer.type, answer.text).toBe('application/problem+json');
  const body = answer.body as { type?: unknown; title?: unknown; detail?: unknown };
  return { status: answer.status, type: body.type, title: body.title, detail: masked(String(body.detail), masks) };
}

/**
 * `text` with each value of `masks` replaced by its key, longest value first.
 *
 * @example
 * masked('connect ECONNREFUSED 127.0.0.1:4100', { '<address>': '127.0.0.1:4100' }) // 'connect ECONNREFUSED <address>'
 */
export function masked(text: string, masks: Record<string, string>): string {
  let out = text;
  for (const [name, value] of Object.entries(masks).sort(([, a], [, b]) => b.length - a.length)) out = out.replaceAll(value, name);
  return out;
}

/** A problem as `problemSeen` answers it, of a status and its standard title. */
export function problem(status: 502 | 503 | 504 | 507, detail: string): ProblemSeen {
  const titles = { 502: 'Bad Gateway', 503: 'Service Unavailable', 504: 'Gateway Timeout', 507: 'Insufficient Storage' };
  return { status, type: 'about:blank', title: titles[status], detail };
}

/** A change as both must end it: its action, state and the texts of its messages. */
export function changeSeen(change: ChangeRecord): { action: string; state: string; messages: string[] } {
  return { action: change.action, state: change.state, messages: change.messages.map((message) => message.text) };
}

/**
 * Starts an emulator of the default scenario in this process before the tests of a file (or describe
 * block), without credentials, its changes at once, and stops it after them, its iw and hostapd_cli
 * waited for `toolTimeoutMs` as serve's `--tool-timeout`. A test sets a device fault as a controller's
 * suite would, with a fault rule (`faults.add`); each test starts without rules (a reset).
 *
 * @example
 * const emulator = useFaultedEmulator({ toolTimeoutMs: 1000 });
 * it('…', async () => { await emulator().faults.add({ device: 'iw-hang' }); });
 */
export function useFaultedEmulator(options: { toolTimeoutMs?: number } = {}): () => RunningEmulator {
  let running: RunningEmulator | undefined;
  beforeAll(async () => {
    running = await startEmulator({ scenario: 'default', auth: false, changeDelayMs: 0, functionsDir: DIST_FUNCTIONS, ...options });
  });
  afterAll(() => running?.stop());
  afterEach(async () => {
    await running?.reset();
  });
  return () => running!;
}
