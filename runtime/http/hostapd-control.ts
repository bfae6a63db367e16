import { CONTROL_CHARACTER } from '../../functions/chutes/control-characters.ts';
import type { HostapdEvents, NetworkHost } from '../../functions/core/device/index.ts';
import { isHttpProblem, toProblem } from '../../functions/core/problem.ts';

/** What a control session talks through: a websocket, or a fake in a test. */
export interface ControlChannel {
  /** Sends one text message. */
  send(text: string): void;
  /** Closes the channel with a websocket close code and a reason. */
  close(code: number, reason: string): void;
}

/** What a control session is told about its channel. */
export interface ControlSession {
  /** One message from the client: its text, or null for a binary message. */
  receive(text: string | null): void;
  /** The channel has closed: whatever runs for the session stops. Resolves once it has. */
  closed(): Promise<void>;
}

/**
 * hostapd's level of the events it sends to attached clients as the websocket sends them: MSG_INFO
 * (`<3>`), the level of its AP and station events. `hostapd_cli -a` does not pass the real level on.
 */
export const EVENT_LEVEL = '<3>';

/** Websocket close codes (RFC 6455 section 7.4.1). */
export const CLOSE = { unsupportedData: 1003, policy: 1008, internalError: 1011 } as const;

/** Commands waiting for their reply, at most; a client that sends more is cut off (close 1008). */
export const MAX_WAITING_COMMANDS = 64;

/**
 * The hostapd control channel of one network (ParaDrop's `…/hostapd_control/ws`): each text message
 * is a command, split at single spaces into words and run with `host.hostapd(words)`; its reply is
 * sent back verbatim as one message. Commands run one at a time, in order, so replies come in the
 * order of the commands.
 *
 * - `ATTACH` subscribes to hostapd's events (`host.hostapdEvents`) and answers `OK\n`; each event
 *   is then sent as one message `<3>TEXT` (see `EVENT_LEVEL`). `DETACH` stops them and answers `OK\n`,
 *   or `FAIL\n` when not attached, as hostapd does.
 * - A message with a line break or NUL, or a `SET` with a control character, is answered
 *   `FAIL <detail>\n` without asking hostapd (`refusal`), and so is a command that fails (an
 *   `HttpProblem`: 503 no control socket, 504 no answer in time): the channel stays open for the next one.
 * - A binary message closes the channel with 1003; events that stop by themselves (hostapd went
 *   away) close it with 1011 and the reason.
 *
 * @example
 * const session = hostapdControlSession(device.network(target), { send: (text) => ws.send(text), close: (code, reason) => ws.close(code, reason) });
 * ws.on('message', (data, binary) => session.receive(binary ? null : data.toString()));
 * ws.on('close', () => void session.closed());
 */
export function hostapdControlSession(host: NetworkHost, channel: ControlChannel): ControlSession {
  /** The subscription to hostapd's events while attached (or attaching). */
  let events: Promise<HostapdEvents> | null = null;
  let open = true;
  let waiting = 0;
  let queue = Promise.resolve();

  const send = (text: string) => {
    if (open) channel.send(text);
  };
  const close = (code: number, reason: string) => {
    if (!open) return;
    channel.close(code, closeReason(reason));
    void closed();
  };

  /** Stops the events; false when there were none. */
  async function detach(): Promise<boolean> {
    const stopping = events;
    events = null;
    const subscription = await stopping?.catch(() => null);
    if (subscription === null || subscription === undefined) return false;
    await subscription.stop();
    return true;
  }

  async function closed(): Promise<void> {
    open = false;
    await detach();
  }

  async function attach(): Promise<string> {
    // Commands run one at a time: an earlier ATTACH has settled, and left `events` set only when it worked.
    if (events === null) {
      // Set before it settles, so that a close meanwhile stops it (`closed`).
      events = host.hostapdEvents(
        (text) => send(`${EVENT_LEVEL}${text}`),
        (reason) => close(CLOSE.internalError, `hostapd's events stopped: ${reason}`),
      );
      try {
        await events;
      } catch (error) {
        events = null;
        throw error;
      }
    }
    return 'OK\n';
  }

  async function run(text: string): Promise<string> {
    const refused = refusal(text);
    if (refused !== null) return `FAIL ${refused}\n`;
    if (text === 'ATTACH') return attach();
    if (text === 'DETACH') return (await detach()) ? 'OK\n' : 'FAIL\n';
    if (text === '') return 'FAIL an empty command\n';
    if (/^(ATTACH|DETACH) /.test(text)) return 'FAIL ATTACH and DETACH take no parameters here\n';
    return host.hostapd(text.split(' '));
  }

  return {
    receive(text) {
      if (!open) return;
      if (text === null) return close(CLOSE.unsupportedData, 'binary messages are not accepted: send each hostapd command as a text message');
      if (++waiting > MAX_WAITING_COMMANDS) return close(CLOSE.policy, `more than ${MAX_WAITING_COMMANDS} commands are waiting for their reply`);
      queue = queue.then(async () => {
        try {
          send(await run(text));
        } catch (error) {
          send(`FAIL ${failure(error)}\n`);
        } finally {
          waiting--;
        }
      });
    },
    closed,
  };
}

/**
 * Why a message is no command hostapd is sent, or null: a line break or NUL (the control protocol
 * takes one command a datagram, and hostapd would read the lines as one unknown command), or a control
 * character in a `SET`, which PUT …/ssid refuses too. The same on the device and in the emulator.
 */
function refusal(text: string): string | null {
  if (/[\r\n\0]/.test(text)) return 'a message is one hostapd command: it must not hold a line break or NUL';
  if (text.startsWith('SET ') && CONTROL_CHARACTER.test(text)) return 'a SET must not hold control characters';
  return null;
}

/** The detail of what a command threw; anything but an HttpProblem is logged and not shown. */
function failure(error: unknown): string {
  if (!isHttpProblem(error)) console.error(error);
  return toProblem(error).problem.detail;
}

/** A close reason fits in 123 bytes of UTF-8 (a control frame holds 125, the code takes 2). */
export function closeReason(reason: string): string {
  const bytes = new TextEncoder().encode(reason);
  if (bytes.length <= 123) return reason;
  // Cut at 120 bytes, then drop a character cut in half (it decodes as U+FFFD).
  return `${new TextDecoder().decode(bytes.slice(0, 120)).replace(/\uFFFD$/, '')}…`;
}
