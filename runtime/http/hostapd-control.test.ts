import { afterEach, describe, expect, it, vi } from 'vitest';
import type { NetworkHost } from '../../functions/core/device/index.ts';
import { HttpProblem } from '../../functions/core/problem.ts';
import { CLOSE, closeReason, hostapdControlSession, MAX_WAITING_COMMANDS, type ControlChannel } from './hostapd-control.ts';

/** A channel that keeps what the session sends, and lets a test await the n-th message. */
function recordingChannel() {
  const sent: string[] = [];
  const closes: { code: number; reason: string }[] = [];
  const waiters: { count: number; resolve: () => void }[] = [];
  const channel: ControlChannel = {
    send(text) {
      sent.push(text);
      for (const waiter of waiters.filter((w) => sent.length >= w.count)) waiter.resolve();
    },
    close(code, reason) {
      closes.push({ code, reason });
    },
  };
  /** Resolves with the messages once there are `count` of them. */
  const messages = (count: number) =>
    new Promise<string[]>((resolve) => {
      if (sent.length >= count) return resolve([...sent]);
      waiters.push({ count, resolve: () => resolve([...sent]) });
    });
  return { channel, sent, closes, messages };
}

/** A subscription of `fakeHost`: a test fires its events and awaits its stop. */
interface FakeSubscription {
  onEvent: (text: string) => void;
  onEnd: (reason: string) => void;
  stopped: boolean;
  /** Resolves when the session stops it. */
  stop: Promise<void>;
}

/**
 * A NetworkHost whose hostapd answers `replies` (`UNKNOWN COMMAND\n` otherwise; a function is
 * called when the command runs) and whose events a test fires.
 */
function fakeHost(replies: Record<string, string | Promise<string> | Error | (() => string)> = {}) {
  const commands: string[][] = [];
  const subscriptions: FakeSubscription[] = [];
  let attachFailure: Error | null = null;
  const host: NetworkHost = {
    stationDump: async () => '',
    stationGet: async () => null,
    stationDel: async () => false,
    hostapdStations: async () => '',
    leases: async () => null,
    async hostapd(command) {
      commands.push(command);
      const reply = replies[command.join(' ')] ?? 'UNKNOWN COMMAND\n';
      if (reply instanceof Error) throw reply;
      return typeof reply === 'function' ? reply() : reply;
    },
    async hostapdEvents(onEvent, onEnd) {
      if (attachFailure !== null) throw attachFailure;
      let stopped!: () => void;
      const subscription: FakeSubscription = { onEvent, onEnd, stopped: false, stop: new Promise((resolve) => (stopped = resolve)) };
      subscriptions.push(subscription);
      return {
        async stop() {
          subscription.stopped = true;
          stopped();
        },
      };
    },
  };
  return {
    host,
    commands,
    subscriptions,
    failAttach(error: Error | null) {
      attachFailure = error;
    },
  };
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('the hostapd control channel: commands', () => {
  it("answers each text message with hostapd's reply, verbatim, in the order of the messages", async () => {
    let answerStatus!: (reply: string) => void;
    const fake = fakeHost({ STATUS: new Promise((resolve) => (answerStatus = resolve)), PING: 'PONG\n' });
    const { channel, messages } = recordingChannel();
    const session = hostapdControlSession(fake.host, channel);
    session.receive('STATUS');
    session.receive('PING');
    answerStatus('state=ENABLED\nbss[0]=wlan0\n');
    expect(await messages(2)).toEqual(['state=ENABLED\nbss[0]=wlan0\n', 'PONG\n']);
  });

  it('runs a message split at single spaces, keeping empty words, so hostapd_cli raw joins it back as sent', async () => {
    const fake = fakeHost({ 'SET ssid my  lab ': 'OK\n' });
    const { channel, messages } = recordingChannel();
    hostapdControlSession(fake.host, channel).receive('SET ssid my  lab ');
    expect(await messages(1)).toEqual(['OK\n']);
    expect(fake.commands).toEqual([['SET', 'ssid', 'my', '', 'lab', '']]);
  });

  it('answers FAIL <detail> for a command that fails as an HttpProblem, and runs the next one', async () => {
    const fake = fakeHost({ STATUS: new HttpProblem(504, 'hostapd did not answer on its control socket /run/hostapd/wlan0 within 5 s'), PING: 'PONG\n' });
    const { channel, messages, closes } = recordingChannel();
    const session = hostapdControlSession(fake.host, channel);
    session.receive('STATUS');
    session.receive('PING');
    expect(await messages(2)).toEqual(['FAIL hostapd did not answer on its control socket /run/hostapd/wlan0 within 5 s\n', 'PONG\n']);
    expect(closes).toEqual([]);
  });

  it('answers FAIL without the message of an unexpected error, and logs it', async () => {
    const logged = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const fake = fakeHost({ STATUS: new Error('EACCES /etc/secret') });
    const { channel, messages } = recordingChannel();
    hostapdControlSession(fake.host, channel).receive('STATUS');
    const [reply] = await messages(1);
    expect(reply).toMatch(/^FAIL /);
    expect(reply).not.toContain('secret');
    expect(logged).toHaveBeenCalled();
  });

  it('answers FAIL to an empty message without asking hostapd', async () => {
    const fake = fakeHost();
    const { channel, messages } = recordingChannel();
    hostapdControlSession(fake.host, channel).receive('');
    expect(await messages(1)).toEqual(['FAIL an empty command\n']);
    expect(fake.commands).toEqual([]);
  });

  it('answers FAIL <detail> to a message with a line break or NUL, and to a SET with a control character, without asking hostapd', async () => {
    const fake = fakeHost({ PING: 'PONG\n' });
    const { channel, messages } = recordingChannel();
    const session = hostapdControlSession(fake.host, channel);
    const messagesSent = [
      'STATUS\nRELOAD',
      'SET ssid a\nDISABLE',
      'PING\r',
      'PING\0',
      'ATTACH\n',
      'SET ssid a\u001bb',
      'SET ssid a\tb',
      'SET ssid a\u0085b',
      'PING',
    ];
    for (const text of messagesSent) session.receive(text);
    const oneLine = 'FAIL a message is one hostapd command: it must not hold a line break or NUL\n';
    const control = 'FAIL a SET must not hold control characters\n';
    expect(await messages(messagesSent.length)).toEqual([oneLine, oneLine, oneLine, oneLine, oneLine, control, control, control, 'PONG\n']);
    expect(fake.commands).toEqual([['PING']]);
    expect(fake.subscriptions).toEqual([]);
  });

  it('closes with 1003 on a binary message, and then ignores what comes', async () => {
    const fake = fakeHost({ PING: 'PONG\n' });
    const { channel, sent, closes } = recordingChannel();
    const session = hostapdControlSession(fake.host, channel);
    session.receive(null);
    session.receive('PING');
    await session.closed();
    expect(closes).toEqual([{ code: CLOSE.unsupportedData, reason: expect.stringContaining('binary') }]);
    expect(sent).toEqual([]);
    expect(fake.commands).toEqual([]);
  });

  it(`closes with 1008 when more than ${MAX_WAITING_COMMANDS} commands wait for their reply`, async () => {
    const fake = fakeHost({ STATUS: new Promise<string>(() => undefined) });
    const { channel, closes } = recordingChannel();
    const session = hostapdControlSession(fake.host, channel);
    for (let i = 0; i <= MAX_WAITING_COMMANDS; i++) session.receive('STATUS');
    expect(closes).toEqual([{ code: CLOSE.policy, reason: expect.stringContaining(String(MAX_WAITING_COMMANDS)) }]);
  });

  it('sends no reply that comes after the channel closed', async () => {
    let answer!: (reply: string) => void;
    let pinged!: () => void;
    const ranPing = new Promise<void>((resolve) => (pinged = resolve));
    const fake = fakeHost({
      STATUS: new Promise((resolve) => (answer = resolve)),
      PING: () => {
        pinged();
        return 'PONG\n';
      },
    });
    const { channel, sent } = recordingChannel();
    const session = hostapdControlSession(fake.host, channel);
    session.receive('STATUS');
    session.receive('PING');
    await session.closed();
    answer('state=ENABLED\n');
    // PING runs only once the reply to STATUS has been handed on (or not).
    await ranPing;
    expect(sent).toEqual([]);
  });
});

describe('the hostapd control channel: ATTACH and DETACH', () => {
  it('ATTACH answers OK and then sends each event as <3>TEXT; DETACH stops them and answers OK', async () => {
    const fake = fakeHost();
    const { channel, messages } = recordingChannel();
    const session = hostapdControlSession(fake.host, channel);
    session.receive('ATTACH');
    expect(await messages(1)).toEqual(['OK\n']);
    fake.subscriptions[0]!.onEvent('AP-STA-CONNECTED 02:00:00:00:00:01');
    expect(await messages(2)).toEqual(['OK\n', '<3>AP-STA-CONNECTED 02:00:00:00:00:01']);
    session.receive('DETACH');
    expect(await messages(3)).toEqual(['OK\n', '<3>AP-STA-CONNECTED 02:00:00:00:00:01', 'OK\n']);
    expect(fake.subscriptions[0]!.stopped).toBe(true);
    expect(fake.commands).toEqual([]);
  });

  it('a second ATTACH answers OK with the one subscription; DETACH when not attached answers FAIL, as hostapd does', async () => {
    const fake = fakeHost();
    const { channel, messages } = recordingChannel();
    const session = hostapdControlSession(fake.host, channel);
    session.receive('DETACH');
    session.receive('ATTACH');
    session.receive('ATTACH');
    expect(await messages(3)).toEqual(['FAIL\n', 'OK\n', 'OK\n']);
    expect(fake.subscriptions).toHaveLength(1);
  });

  it('answers FAIL <detail> when the events cannot be had, and a later ATTACH tries again', async () => {
    const fake = fakeHost();
    fake.failAttach(new HttpProblem(503, 'hostapd control socket /run/hostapd/wlan0 does not exist (is hostapd running for this network?)'));
    const { channel, messages } = recordingChannel();
    const session = hostapdControlSession(fake.host, channel);
    session.receive('ATTACH');
    expect(await messages(1)).toEqual(['FAIL hostapd control socket /run/hostapd/wlan0 does not exist (is hostapd running for this network?)\n']);
    fake.failAttach(null);
    session.receive('ATTACH');
    expect((await messages(2))[1]).toBe('OK\n');
    expect(fake.subscriptions).toHaveLength(1);
  });

  it('refuses ATTACH and DETACH with parameters', async () => {
    const fake = fakeHost();
    const { channel, messages } = recordingChannel();
    hostapdControlSession(fake.host, channel).receive('ATTACH level=1');
    expect(await messages(1)).toEqual(['FAIL ATTACH and DETACH take no parameters here\n']);
    expect(fake.subscriptions).toEqual([]);
  });

  it('closing the channel stops the events', async () => {
    const fake = fakeHost();
    const { channel, messages } = recordingChannel();
    const session = hostapdControlSession(fake.host, channel);
    session.receive('ATTACH');
    await messages(1);
    await session.closed();
    expect(fake.subscriptions[0]!.stopped).toBe(true);
  });

  it('closes with 1011 and the reason when the events stop by themselves', async () => {
    const fake = fakeHost();
    const { channel, messages, closes } = recordingChannel();
    const session = hostapdControlSession(fake.host, channel);
    session.receive('ATTACH');
    await messages(1);
    fake.subscriptions[0]!.onEnd('hostapd_cli stopped: hostapd did not reply to PING command - exiting');
    expect(closes).toEqual([
      { code: CLOSE.internalError, reason: "hostapd's events stopped: hostapd_cli stopped: hostapd did not reply to PING command - exiting" },
    ]);
    await fake.subscriptions[0]!.stop;
  });
});

describe('closeReason', () => {
  it('keeps a reason of up to 123 bytes and cuts a longer one on a character boundary', () => {
    expect(closeReason('short')).toBe('short');
    const long = closeReason(`${'é'.repeat(100)}`);
    expect(new TextEncoder().encode(long).length).toBeLessThanOrEqual(123);
    expect(long).toMatch(/^é+…$/);
  });
});
