import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ChangeAccepted } from '../functions/chutes/schemas.ts';
import type { HostConfig } from '../functions/config/host-config.ts';
import type { ChangeRecord } from '../functions/core/device/index.ts';
import type { InputProblem } from './support/call-function.ts';
import { openEvents, stalledEventsClient, type EventStreamClient, type StreamedEvent } from './support/event-stream-client.ts';
import { call, callApi, finalChange, getJson } from './support/http-client.ts';
import { useChutebox, type Started } from './support/spawn.ts';
import { useTempDir } from './support/temp-dir.ts';
import { writeScript } from './support/tool-scripts.ts';

/*
 * GET /api/v1/events (Server-Sent Events) over HTTP: on `chutebox emulate` with the default scenario,
 * the events its own state changes make, resuming, filters, the bounds and the auth; on `chutebox
 * serve`, the change pipeline's. docs/api/events.md, docs/decisions/0045-the-events-stream.md.
 */

const temp = useTempDir('chutebox-events-');
const start = useChutebox();
const BASIC = { authorization: `Basic ${Buffer.from('paradrop:').toString('base64')}` };

/** An open stream, or the test fails with what the server answered instead. */
async function stream(server: Started, query = '', headers: Record<string, string> = BASIC): Promise<EventStreamClient> {
  const opened = await openEvents(server.url, query, headers);
  if (!('events' in opened)) throw new Error(`GET /api/v1/events${query} answered ${opened.status}: ${opened.text}`);
  return opened;
}

/** Queues a change with a call below /api/v1 and answers its id. */
async function submit(server: Started, method: string, endpoint: string, body?: unknown, headers: Record<string, string> = BASIC): Promise<number> {
  const answer = await callApi<ChangeAccepted>(server, method, endpoint, body, undefined, headers);
  expect(answer.status, answer.text).toBe(200);
  return answer.body.change_id;
}

/** The change record a change event carries. */
const changeOf = (event: StreamedEvent) => event.data.change as ChangeRecord;
const ids = (events: readonly StreamedEvent[]) => events.map((event) => Number(event.id));
/** Whether an event ends change `id`. */
const ends = (id: number) => (event: StreamedEvent) => event.event === 'change.ended' && changeOf(event).id === id;

/** The first station a chute network lists now. */
async function aStation(server: Started, chute: string, network: string, headers = BASIC): Promise<string> {
  const stations = await getJson<{ mac_addr: string }[]>(server, `/chutes/${chute}/networks/${network}/stations`, headers);
  expect(stations.length, `${chute}/${network} has a station left`).toBeGreaterThan(0);
  return stations[0]!.mac_addr;
}

describe('GET /api/v1/events on chutebox emulate', () => {
  let server: Started;

  beforeAll(async () => {
    server = await start(['emulate', '--port', '0', '--change-delay', '10', '--events-buffer', '30']);
  });

  it('refuses a client without credentials with 401 (problem+json, WWW-Authenticate), as every route', async () => {
    const refused = await openEvents(server.url, '', {});
    expect(refused).toMatchObject({ status: 401 });
    expect('events' in refused).toBe(false);
    expect(refused.headers.get('content-type')).toBe('application/problem+json');
    expect(refused.headers.get('www-authenticate')).toMatch(/^Bearer /);
    const login = await callApi<{ token: string }>(server, 'POST', '/auth/local', { username: 'paradrop', password: '' });
    const withToken = await stream(server, '', { authorization: `Bearer ${login.body.token}` });
    expect(withToken.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    withToken.close();
  });

  it('sends each step of a chute stop as GET /api/v1/changes/<id> answers it, then the chute state it set and the change end', async () => {
    const events = await stream(server);
    const id = await submit(server, 'POST', '/chutes/hotspot/stop');
    await events.next(ends(id));
    const change = await finalChange(server.url, id, BASIC);
    const mine = events.events.filter((event) => event.data.chute === 'hotspot');
    expect(mine.map((event) => event.event)).toEqual(['change.queued', 'change.progressed', 'change.progressed', 'chute.state', 'change.ended']);
    expect(changeOf(mine.at(-1)!)).toEqual(change);
    expect(mine.filter((event) => event.event.startsWith('change.')).map((event) => changeOf(event).messages.at(-1)!.text)).toEqual(
      change.messages.map((message) => message.text),
    );
    expect(mine[3]!.data).toEqual({
      kind: 'chute.state',
      chute: 'hotspot',
      state: 'stopped',
      previous: 'running',
      id: Number(mine[3]!.id),
      time: expect.any(String),
    });
    // Every event has its id and its kind as the SSE event's name; ids go up by one.
    for (const event of events.events) expect(event).toMatchObject({ id: String(event.data.id), event: event.data.kind });
    expect(ids(events.events)).toEqual(ids(events.events).map((_, i) => ids(events.events)[0]! + i));
    expect(events.retry).toBeGreaterThan(0);
    events.close();
    await finalChange(server.url, await submit(server, 'POST', '/chutes/hotspot/start'), BASIC);
  });

  it('sends station.disconnected once DELETE …/stations/:mac disconnected a station', async () => {
    const events = await stream(server);
    const mac = await aStation(server, 'hotspot', 'guest');
    expect((await callApi(server, 'DELETE', `/chutes/hotspot/networks/guest/stations/${mac}`, undefined, undefined, BASIC)).status).toBe(200);
    const event = await events.next((candidate) => candidate.event === 'station.disconnected');
    expect(event.data).toEqual({ kind: 'station.disconnected', chute: 'hotspot', network: 'guest', mac, id: Number(event.id), time: expect.any(String) });
    events.close();
  });

  it('sends hostconfig.applied, between the steps of its change, after PUT /api/v1/config/hostconfig', async () => {
    const events = await stream(server);
    const config = await getJson<HostConfig>(server, '/config/hostconfig', BASIC);
    const id = await submit(server, 'PUT', '/config/hostconfig', { ...config, lan: { ...config.lan, ipaddr: '10.42.0.1' } });
    await events.next(ends(id));
    const kinds = events.events.map((event) => event.event);
    expect(kinds).toContain('hostconfig.applied');
    expect(events.events.find((event) => event.event === 'hostconfig.applied')!.data).toMatchObject({ success: true });
    expect(kinds.indexOf('hostconfig.applied')).toBeLessThan(kinds.indexOf('change.ended'));
    expect(events.events.filter((event) => event.event.startsWith('change.')).every((event) => event.data.chute === null)).toBe(true);
    events.close();
  });

  it('resumes after Last-Event-ID without loss while the buffer still holds what came meanwhile', async () => {
    const watching = await stream(server);
    const first = await stream(server);
    const stopped = await submit(server, 'POST', '/chutes/hello-world/stop');
    const seen = (await first.next(ends(stopped))).id!;
    first.close();
    const started = await submit(server, 'POST', '/chutes/hello-world/start');
    await watching.next(ends(started));
    const resumed = await stream(server, '', { ...BASIC, 'last-event-id': seen });
    const missedMeanwhile = watching.events.filter((event) => Number(event.id) > Number(seen));
    expect(missedMeanwhile.length).toBeGreaterThanOrEqual(5);
    expect(await resumed.atLeast(missedMeanwhile.length)).toEqual(missedMeanwhile);
    watching.close();
    resumed.close();
  });

  it('sends events.missed first when what came meanwhile left the buffer, then every event it still keeps', async () => {
    const watching = await stream(server);
    const first = await stream(server);
    const last = await submit(server, 'POST', '/chutes/hello-world/restart');
    const seen = Number((await first.next(ends(last))).id);
    first.close();
    // 8 restarts make more than the 30 events the buffer keeps.
    for (let i = 0; i < 8; i++) await finalChange(server.url, await submit(server, 'POST', '/chutes/hello-world/restart'), BASIC);
    const lastId = Number(watching.events.at(-1)!.id);
    const resumed = await stream(server, '', { ...BASIC, 'last-event-id': String(seen) });
    const [missed, ...kept] = await resumed.atLeast(31);
    expect(missed).toEqual({
      id: String(lastId - 30),
      event: 'events.missed',
      data: { kind: 'events.missed', after: seen, id: lastId - 30, time: expect.any(String) },
    });
    expect(kept.slice(0, 30)).toEqual(watching.events.filter((event) => Number(event.id) > lastId - 30).slice(0, 30));
    watching.close();
    resumed.close();
  });

  it('takes lastEventId in the query from a client that cannot send headers; Last-Event-ID wins over it', async () => {
    const watching = await stream(server);
    const id = await submit(server, 'POST', '/chutes/hotspot/restart');
    await watching.next(ends(id));
    const [a, b] = watching.events.slice(-2).map((event) => Number(event.id));
    const fromQuery = await stream(server, `?lastEventId=${a}`);
    expect((await fromQuery.atLeast(1))[0]).toEqual(watching.events.at(-1));
    const both = await stream(server, `?lastEventId=${a! - 3}`, { ...BASIC, 'last-event-id': String(a) });
    expect(ids(await both.atLeast(1))[0]).toBe(b);
    for (const open of [watching, fromQuery, both]) open.close();
  });

  it('sends only the kinds asked for (repeated or comma-separated), and only about the chute or network asked for', async () => {
    const kinds = await stream(server, '?kind=chute.state&kind=station.disconnected,change.ended');
    const hotspot = await stream(server, '?chute=hotspot');
    const guest = await stream(server, '?network=guest&kind=station.disconnected');
    const all = await stream(server);
    const stopped = await submit(server, 'POST', '/chutes/hello-world/stop');
    await all.next(ends(stopped));
    const mac = await aStation(server, 'hello-world', 'wifi');
    await callApi(server, 'DELETE', `/chutes/hello-world/networks/wifi/stations/${mac}`, undefined, undefined, BASIC);
    const guestMac = await aStation(server, 'hotspot', 'guest');
    await callApi(server, 'DELETE', `/chutes/hotspot/networks/guest/stations/${guestMac}`, undefined, undefined, BASIC);
    const restarted = await submit(server, 'POST', '/chutes/hotspot/restart');
    await all.next(ends(restarted));
    await kinds.next(ends(restarted));
    await hotspot.next(ends(restarted));
    expect(all.events.length).toBeGreaterThan(kinds.events.length);
    expect(kinds.events).toEqual(all.events.filter((event) => ['chute.state', 'station.disconnected', 'change.ended'].includes(event.event)));
    expect(hotspot.events).toEqual(all.events.filter((event) => event.data.chute === 'hotspot'));
    expect(guest.events).toEqual(all.events.filter((event) => event.event === 'station.disconnected' && event.data.network === 'guest'));
    expect(guest.events.map((event) => event.data.mac)).toEqual([guestMac]);
    for (const open of [kinds, hotspot, guest, all]) open.close();
    await finalChange(server.url, await submit(server, 'POST', '/chutes/hello-world/start'), BASIC);
  });

  it('answers 422 naming query.kind for a kind that does not exist, 400 naming a malformed filter or id, and opens nothing', async () => {
    const problem = async (query: string, headers: Record<string, string> = BASIC) => {
      const answer = await call<InputProblem>(server.url, 'GET', `/api/v1/events${query}`, { headers });
      expect(answer.type).toBe('application/problem+json');
      return { status: answer.status, errors: answer.body.errors };
    };
    expect(await problem('?kind=chute.state,chute.exploded')).toEqual({
      status: 422,
      errors: [{ path: 'query.kind', message: expect.stringMatching(/^must be one of station\.connected, .*, not chute\.exploded$/) }],
    });
    expect(await problem('?kind=everything')).toMatchObject({ status: 400, errors: [{ path: 'query.kind' }] });
    expect(await problem('?chute=../etc')).toMatchObject({ status: 400, errors: [{ path: 'query.chute' }] });
    expect(await problem('?lastEventId=-1')).toMatchObject({ status: 400, errors: [{ path: 'query.lastEventId' }] });
    expect(await problem('', { ...BASIC, 'last-event-id': 'yesterday' })).toMatchObject({ status: 400, errors: [{ path: 'headers.last-event-id' }] });
  });
});

describe('GET /api/v1/events on chutebox emulate: its bounds', () => {
  let server: Started;

  beforeAll(async () => {
    server = await start(['emulate', '--port', '0', '--no-auth', '--change-delay', '0', '--events-clients', '2']);
  });

  /** What a HEAD answers now: 503 while `--events-clients` streams are open. */
  const probe = async () => (await call(server.url, 'HEAD', '/api/v1/events')).status;
  /** Waits (5 s at most) until a HEAD answers `status`: the server has seen a client come or go. */
  const probed = async (status: number) => {
    const deadline = Date.now() + 5000;
    while ((await probe()) !== status && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await probe()).toBe(status);
  };

  it('refuses a client beyond --events-clients with 503 and Retry-After, and takes one again once another left', async () => {
    const [a, b] = [await stream(server, '', {}), await stream(server, '', {})];
    const refused = await call<InputProblem>(server.url, 'GET', '/api/v1/events');
    expect(refused).toMatchObject({ status: 503, type: 'application/problem+json', body: { status: 503 } });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    a.close();
    // The server sees the client go with its connection.
    await probed(200);
    const again = await stream(server, '', {});
    b.close();
    again.close();
  });

  it('drops a client that reads nothing once it falls too far behind, while another keeps receiving every event', async () => {
    const reading = await stream(server, '', {});
    const stalled = await stalledEventsClient(server.url);
    try {
      await probed(503);
      // Restarts until the stalled client is dropped: past what the kernel's socket buffers take (a few
      // MB), then past the stream's bound. Each with an environment of 300 names, which its messages list:
      // about 20 KB of events a restart.
      const environment = Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`A_RATHER_LONG_VARIABLE_NAME_${i}`, 'x']));
      let last = 0;
      for (let round = 0; (await probe()) === 503; round++) {
        expect(round, 'the stalled client is never dropped').toBeLessThan(100);
        const from = reading.events.length;
        const batch = await Promise.all(
          ['hotspot', 'hello-world'].flatMap((chute) =>
            Array.from({ length: 8 }, () => submit(server, 'POST', `/chutes/${chute}/restart`, { environment }, {})),
          ),
        );
        last = Math.max(...batch);
        await reading.next(ends(last), from);
      }
      expect(ids(reading.events)).toEqual(ids(reading.events).map((_, i) => ids(reading.events)[0]! + i));
      const received = await stalled.read();
      const stalledIds = [...received.matchAll(/^id: (\d+)$/gm)].map((match) => Number(match[1]));
      expect(stalledIds.length).toBeGreaterThan(0);
      expect(Math.max(...stalledIds)).toBeLessThan(Number(reading.events.at(-1)!.id));
    } finally {
      stalled.socket.destroy();
      reading.close();
    }
  }, 60_000);

  it('ends every stream at once when it stops, and exits', async () => {
    const [a, b] = [await stream(server, '', {}), await stream(server, '?kind=chute.state', {})];
    const stopping = Date.now();
    const stopped = server.stop();
    expect(await Promise.all([a.ended, b.ended])).toEqual(['end', 'end']);
    // Not after the 5 s that the server gives open requests to finish.
    expect(Date.now() - stopping).toBeLessThan(2000);
    await stopped;
    expect(server.child.exitCode).toBe(0);
  });
});

describe('GET /api/v1/events on chutebox serve', () => {
  it('sends the steps of a host configuration change as GET /api/v1/changes/<id> answers them, and hostconfig.applied', async () => {
    const dir = await temp.folder('serve');
    const apply = await writeScript(dir, 'apply', 'exit 0');
    const commands = ['network', 'wireless', 'dhcp', 'firewall'].flatMap((file) => [`--pdconf-apply-${file}`, `${apply} ${file} {file}`]);
    const state = ['--state-dir', path.join(dir, 'state'), '--docker-socket', path.join(dir, 'none.sock'), '--passwd-file', path.join(dir, 'passwd')];
    const server = await start(['serve', '--host', '127.0.0.1', '--port', '0', ...state, ...commands]);
    const events = await stream(server, '', {});
    const config = (await call<HostConfig>(server.url, 'GET', '/api/v1/config/hostconfig')).body;
    const id = await submit(server, 'PUT', '/config/hostconfig', { ...config, lan: { ...config.lan, ipaddr: '10.42.0.1' } }, {});
    await events.next(ends(id));
    const change = await finalChange(server.url, id);
    expect(change.state).toBe('succeeded');
    const steps = events.events.filter((event) => event.event.startsWith('change.'));
    expect(steps.map((event) => event.event)).toEqual(['change.queued', ...change.messages.slice(1, -1).map(() => 'change.progressed'), 'change.ended']);
    expect(steps.map((event) => changeOf(event).messages.length)).toEqual(change.messages.map((_, i) => i + 1));
    expect(changeOf(steps.at(-1)!)).toEqual(change);
    expect(events.events.filter((event) => event.event === 'hostconfig.applied').map((event) => event.data.success)).toEqual([true]);
    events.close();
  });
});
