import type { Listening } from '../runtime/http/listen.ts';
import type { startDaemonLog } from '../runtime/log/daemon-log.ts';

/**
 * Stops `chutebox emulate` on SIGINT or SIGTERM: logs it, runs `before` (what follows the device),
 * ends the log's followers, closes the server, then exits once the log is written (1 when closing failed).
 */
export function stopOnSignals(server: Listening, log: ReturnType<typeof startDaemonLog>, before: () => void = () => {}): void {
  const stop = () => {
    log.write('info', 'stopping');
    before();
    log.ring.end();
    void server.close().then(
      () => log.close().then(() => process.exit(0)),
      () => process.exit(1),
    );
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}
