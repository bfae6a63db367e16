import type { ToolResult } from '../tools/run.ts';

/**
 * Why a command that ran to its end (`runTool`) failed, for a message: how it ended and the last line
 * it printed (stderr first, at most 300 characters); null when it exited with 0.
 *
 * @example
 * commandFailure({ code: 3, signal: null, stdout: '', stderr: 'radio phy0 is busy\n' }) // 'exited with code 3: radio phy0 is busy'
 * commandFailure({ code: null, signal: 'SIGSEGV', stdout: '', stderr: '' })             // 'was ended by SIGSEGV'
 */
export function commandFailure(result: ToolResult): string | null {
  if (result.code === 0) return null;
  const how = result.code === null ? `was ended by ${result.signal}` : `exited with code ${result.code}`;
  const said = lastLine(result.stderr) ?? lastLine(result.stdout);
  return said === null ? how : `${how}: ${said}`;
}

function lastLine(text: string): string | null {
  const line = text.trim().split('\n').at(-1)?.trim();
  return line ? line.slice(0, 300) : null;
}
