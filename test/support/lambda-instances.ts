import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';

/** A Lambda instance in a process of its own, invoking the handlers of the built function bundles. */
export interface LambdaInstance {
  /** Invokes `dist/functions/<bundle>.mjs`'s handler with `event` in the instance's process. */
  invoke(bundle: string, event: APIGatewayProxyEventV2): Promise<APIGatewayProxyStructuredResultV2>;
  /** Stops the process, by its pid, and waits for it to exit. */
  stop(): Promise<void>;
}

/**
 * Starts test/support/lambda-instance.mjs with `env` added to this process's environment: a new
 * Node process, as a new Lambda instance is, sharing nothing with this one but what `env` names.
 *
 * @example
 * const instance = startLambdaInstance({ CHUTEBOX_FLEET_TABLE: 'fleet', … });
 * await instance.invoke('info-hardware-get', httpApiEvent('GET', '/devices/router-0/api/v1/info/hardware'));
 */
export function startLambdaInstance(env: Record<string, string>): LambdaInstance {
  const child: ChildProcessWithoutNullStreams = spawn(process.execPath, [new URL('./lambda-instance.mjs', import.meta.url).pathname], {
    env: { ...process.env, ...env },
    stdio: 'pipe',
  });
  const waiting = new Map<number, { resolve: (result: APIGatewayProxyStructuredResultV2) => void; reject: (error: Error) => void }>();
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => void (stderr = (stderr + chunk.toString()).slice(-4000)));
  const exited = new Promise<void>((resolve) =>
    child.once('exit', (code, signal) => {
      for (const { reject } of waiting.values()) reject(new Error(`the instance exited (${code ?? signal}): ${stderr}`));
      waiting.clear();
      resolve();
    }),
  );
  createInterface({ input: child.stdout }).on('line', (line) => {
    const { id, result, error } = JSON.parse(line) as { id: number; result?: APIGatewayProxyStructuredResultV2; error?: string };
    const pending = waiting.get(id);
    waiting.delete(id);
    if (error === undefined) pending?.resolve(result!);
    else pending?.reject(new Error(error));
  });
  let sent = 0;
  return {
    invoke(bundle, event) {
      sent += 1;
      const id = sent;
      return new Promise((resolve, reject) => {
        waiting.set(id, { resolve, reject });
        child.stdin.write(`${JSON.stringify({ id, bundle, event })}\n`);
      });
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) process.kill(child.pid!, 'SIGTERM');
      await exited;
    },
  };
}
