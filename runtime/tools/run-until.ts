import { HttpProblem } from '../../functions/core/problem.ts';
import { type RunLimits, runTool, type Tool, type ToolResult } from './run.ts';
import { signalGroup } from './supervisor.ts';

/** How long a program stopped with the runtime has to end on SIGTERM before its group gets SIGKILL. */
export const STOP_GRACE_MS = 3000;

/**
 * `runTool`, stopped with the runtime: when `stop` is aborted, the program's group gets SIGTERM, then
 * SIGKILL after `STOP_GRACE_MS`, and what is left of the group once the program ended is killed too,
 * so that nothing of it outlives the runtime. Once `stop` is aborted, no program is started. A module
 * of its own, so that the runtime bundle, whose tool reads never stop this way, does not carry it.
 *
 * @throws HttpProblem 503 when `stop` was aborted before the program ended (or started); else as `runTool`.
 * @example
 * const result = await runToolUntil(stopping.signal, { name: 'the network apply command', path: '/usr/libexec/apply', setting: '…' }, ['network', file], { timeoutMs: 60_000 });
 */
export async function runToolUntil(stop: AbortSignal, tool: Tool, args: readonly string[], limits: Omit<RunLimits, 'onSpawn'> = {}): Promise<ToolResult> {
  if (stop.aborted) throw new HttpProblem(503, `${tool.name} was not run: the runtime is stopping`);
  let pid: number | undefined;
  let kill: NodeJS.Timeout | undefined;
  const terminate = () => {
    const group = pid;
    if (group === undefined) return;
    signalGroup(group, 'SIGTERM');
    kill = setTimeout(() => signalGroup(group, 'SIGKILL'), STOP_GRACE_MS);
  };
  stop.addEventListener('abort', terminate, { once: true });
  const outcome = await runTool(tool, args, { ...limits, onSpawn: (spawned) => (pid = spawned) }).then(
    (result) => ({ result }),
    (error: unknown) => ({ error }),
  );
  stop.removeEventListener('abort', terminate);
  clearTimeout(kill);
  if (stop.aborted) {
    // Children of a script may still run in its group: they go with the runtime.
    if (pid !== undefined) signalGroup(pid, 'SIGKILL');
    throw new HttpProblem(503, `${tool.name} was stopped: the runtime is stopping`);
  }
  if ('error' in outcome) throw outcome.error;
  return outcome.result;
}
