import { describe, expect, it } from 'vitest';
import { answerReuse, same } from './answer-reuse.ts';
import { atHand } from './at-hand.ts';
import type { Device, NetworkHost, NetworkTarget } from './device/index.ts';
import type { FunctionInput, Handler } from './invoke.ts';
import { HttpProblem } from './problem.ts';

const input: FunctionInput = { params: { chute: 'hotspot' }, query: {}, headers: {}, body: undefined, text: '' };

/** A device of files and one network's station dump, counting the reads made of it; `files` and `stations` may be changed. */
function countingDevice(files: Record<string, string>, stations = { dump: '' }) {
  const reads: string[] = [];
  const device = {
    async readFile(path: string) {
      reads.push(path);
      return files[path] ?? null;
    },
    network(target: NetworkTarget): Partial<NetworkHost> {
      return {
        async stationDump() {
          reads.push(`${target.network}: station dump`);
          return stations.dump;
        },
      };
    },
  };
  return { device: device as unknown as Device, reads };
}

/** A handler that reads /etc/hostname and counts how often it runs. */
function hostnameHandler() {
  const runs = { count: 0 };
  const handle: Handler = async (_input, device) => {
    runs.count++;
    return { hostname: (await device.readFile('/etc/hostname'))?.trim() ?? null };
  };
  return { handle, runs };
}

describe('answerReuse', () => {
  it('answers again without running the handler while every read answers the same, and still makes the reads', async () => {
    const { device, reads } = countingDevice({ '/etc/hostname': 'router\n' });
    const { handle, runs } = hostnameHandler();
    const answer = answerReuse(handle);

    const again = () => answer(input, device);
    const first = await again();
    const second = await again();
    expect(second.body).toBe('{"hostname":"router"}');
    expect(second.body).toBe(first.body);
    expect(runs.count).toBe(1);
    expect(reads).toEqual(['/etc/hostname', '/etc/hostname']);
    expect(new TextDecoder().decode(second.bytes)).toBe(second.body);
  });

  it('runs the handler again when a read answers differently, and answers from the new text', async () => {
    const files = { '/etc/hostname': 'router\n' };
    const { device } = countingDevice(files);
    const { handle, runs } = hostnameHandler();
    const answer = answerReuse(handle);

    await answer(input, device);
    files['/etc/hostname'] = 'gateway\n';
    const changed = await answer(input, device);
    expect(changed.body).toBe('{"hostname":"gateway"}');
    expect(runs.count).toBe(2);
  });

  it('makes each read once a request when the answer cannot be reused: the handler gets the reads made for the check', async () => {
    const files = { '/etc/hostname': 'router\n' };
    const { device, reads } = countingDevice(files);
    const { handle } = hostnameHandler();
    const answer = answerReuse(handle);

    await answer(input, device);
    files['/etc/hostname'] = 'gateway\n';
    await answer(input, device);
    expect(reads).toEqual(['/etc/hostname', '/etc/hostname']);
  });

  it('makes the reads again in the order the handler made them: a read made once another had answered waits for it again', async () => {
    const events: string[] = [];
    const device = {
      async readFile(path: string) {
        events.push(`start ${path}`);
        await new Promise((resolve) => setTimeout(resolve, 5));
        events.push(`end ${path}`);
        return path;
      },
    } as unknown as Device;
    const handle: Handler = async (_input, device) => {
      const [a, b] = await Promise.all([device.readFile('/a'), device.readFile('/b')]);
      return { a, b, c: await device.readFile('/c') };
    };
    const answer = answerReuse(handle);

    await answer(input, device);
    events.length = 0;
    await answer(input, device);
    expect(events).toEqual(['start /a', 'start /b', 'end /a', 'end /b', 'start /c', 'end /c']);
  });

  it("follows the reads made through a part of the device: a network's station dump that changed is answered anew", async () => {
    const stations = { dump: 'Station 6e:8d:3a:5f:21:c4 (on wlan0)\n' };
    const { device } = countingDevice({}, stations);
    const handle: Handler = async (_input, device) => {
      const host = device.network({ chute: 'hotspot', network: 'wifi', hostInterface: 'wlan0', hostapdControl: null, leaseFile: null });
      return { lines: (await host.stationDump()).split('\n').filter(Boolean).length };
    };
    const answer = answerReuse(handle);

    const again = () => answer(input, device);
    expect((await again()).body).toBe('{"lines":1}');
    stations.dump += 'Station 24:0a:c4:11:8b:3e (on wlan0)\n';
    expect((await again()).body).toBe('{"lines":2}');
  });

  it('asks for a part of the device once a check, as the handler did, and makes each of its reads on it', async () => {
    let parts = 0;
    const calls: string[] = [];
    const device = {
      network: (target: NetworkTarget): Partial<NetworkHost> => {
        parts++;
        return {
          stationDump: async () => (calls.push(`${target.network}: station dump`), ''),
          leases: async () => (calls.push(`${target.network}: leases`), ''),
        };
      },
    } as unknown as Device;
    const handle: Handler = async (_input, device) => {
      const host = device.network({ chute: 'hotspot', network: 'wifi', hostInterface: 'wlan0', hostapdControl: null, leaseFile: null });
      const [dump, leases] = await Promise.all([host.stationDump(), host.leases()]);
      return { dump, leases };
    };
    const answer = answerReuse(handle);

    await answer(input, device);
    await answer(input, device);
    expect(parts).toBe(2);
    expect(calls).toEqual(['wifi: station dump', 'wifi: leases', 'wifi: station dump', 'wifi: leases']);
  });

  it('remembers no answer but a 200: a handler that failed runs again', async () => {
    const { device } = countingDevice({});
    let runs = 0;
    const missing: Handler = async () => {
      runs++;
      throw new HttpProblem(404, 'no chute named hotspot');
    };
    const answerMissing = answerReuse(missing);

    await answerMissing(input, device);
    expect((await answerMissing(input, device)).status).toBe(404);
    expect(runs).toBe(2);
  });

  it('answers again a handler that sorts a list the device answered in place: what was read is kept as read', async () => {
    let runs = 0;
    const device = { readDir: async () => ['wlan1', 'eth0', 'wlan0'] } as unknown as Device;
    // Against the contract (`readDir`'s answer is never to be changed), but a handler that does so still answers right.
    const interfaces: Handler = async (_input, device) => (runs++, { interfaces: ((await device.readDir('/sys/class/net')) as string[]).sort() });
    const answer = answerReuse(interfaces);
    const bodies = [await answer(input, device), await answer(input, device)].map((out) => out.body);
    expect(bodies).toEqual(['{"interfaces":["eth0","wlan0","wlan1"]}', '{"interfaces":["eth0","wlan0","wlan1"]}']);
    expect(runs).toBe(1);
  });

  it('reuses the answer of a handler that answers a shared, frozen value while its reads answer the same', async () => {
    const { device } = countingDevice({ '/etc/hostname': 'router\n' });
    let runs = 0;
    const FEATURES = Object.freeze(['hostapd-control']);
    const constant: Handler = async (_input, device) => (runs++, await device.readFile('/etc/hostname'), FEATURES);
    const answer = answerReuse(constant);
    const bodies = [];
    for (let i = 0; i < 4; i++) bodies.push((await answer(input, device)).body);
    expect(bodies).toEqual(Array(4).fill('["hostapd-control"]'));
    expect(runs).toBe(1);
  });

  it('keeps the answers of different parameters, queries and Accept headers apart, whatever characters they hold', async () => {
    const { device } = countingDevice({});
    const handle: Handler = async (input) => ({ ...input.params, ...input.query, accept: input.headers.accept ?? null });
    const answer = answerReuse(handle);

    const inputs: FunctionInput[] = [
      input,
      { ...input, params: { chute: 'other' } },
      { ...input, query: { verbose: '1' } },
      { ...input, headers: { accept: 'application/yaml' } },
      // Two inputs that one string of their names and values, without their lengths, would mistake for each other.
      { ...input, params: { chute: 'a?1:b1:c' } },
      { ...input, params: { chute: 'a' }, query: { b: 'c' } },
    ];
    for (let round = 0; round < 2; round++) {
      const bodies = (await Promise.all(inputs.map((each) => answer(each, device)))).map((out) => out.body);
      expect(bodies).toEqual([
        '{"chute":"hotspot","accept":null}',
        '{"chute":"other","accept":null}',
        '{"chute":"hotspot","verbose":"1","accept":null}',
        '{"chute":"hotspot","accept":"application/yaml"}',
        '{"chute":"a?1:b1:c","accept":null}',
        '{"chute":"a","b":"c","accept":null}',
      ]);
    }
  });

  it('gives a reused answer frozen, headers too, so that no transport can change what the next request is given', async () => {
    const { device } = countingDevice({ '/etc/hostname': 'router\n' });
    const { handle } = hostnameHandler();
    const answer = answerReuse(handle);

    await answer(input, device);
    const first = await answer(input, device);
    expect(() => {
      (first.headers as Record<string, string>)['access-control-allow-origin'] = 'https://dashboard.example';
    }).toThrow(TypeError);
    expect(() => {
      first.status = 500;
    }).toThrow(TypeError);
    const second = await answer(input, device);
    expect(second).toEqual({ status: 200, headers: { 'content-type': 'application/json' }, body: first.body, bytes: new TextEncoder().encode(first.body) });
  });

  it('gives the answer it remembered, bytes and all, when a read moved but not the answer, and still sees any read change after', async () => {
    const files = { '/etc/hostname': 'router\n', '/proc/uptime': '100.25 300.00\n' };
    const { device } = countingDevice(files);
    const answer = answerReuse(async (_input, device) => {
      const [hostname, uptime] = await Promise.all([device.readFile('/etc/hostname'), device.readFile('/proc/uptime')]);
      return { hostname: hostname?.trim(), uptime: Math.floor(Number.parseFloat(uptime ?? '')) };
    });
    await answer(input, device);
    const given = await answer(input, device);
    expect(given.bytes).toBeDefined();

    files['/proc/uptime'] = '100.26 300.01\n'; // the same whole second
    expect(await answer(input, device)).toBe(given);
    expect(await answer(input, device)).toBe(given);

    files['/etc/hostname'] = 'gateway\n'; // a read that answered the same when the answer was made again
    expect(JSON.parse((await answer(input, device)).body)).toEqual({ hostname: 'gateway', uptime: 100 });
    files['/proc/uptime'] = '101.00 303.00\n';
    expect(JSON.parse((await answer(input, device)).body)).toEqual({ hostname: 'gateway', uptime: 101 });
  });
});

describe('answerReuse with a device that answers at once (atHand)', () => {
  /** A device whose files are answered at once, from memory, as the emulator's are. */
  function memoryDevice(files: Record<string, string>) {
    return { readFile: (path: string) => atHand(files[path] ?? null) } as unknown as Device;
  }

  it("answers a value, not a promise, while every read answers the same: the answer is given in the request's own turn", async () => {
    const files = { '/etc/hostname': 'router\n' };
    const device = memoryDevice(files);
    const { handle, runs } = hostnameHandler();
    const answer = answerReuse(handle);

    const first = answer(input, device);
    expect(first).toBeInstanceOf(Promise);
    expect((await first).body).toBe('{"hostname":"router"}');
    const second = answer(input, device);
    expect(second).not.toBeInstanceOf(Promise);
    expect((second as Awaited<typeof second>).body).toBe('{"hostname":"router"}');
    expect(runs.count).toBe(1);
  });

  it('runs the handler again, and answers the new value, as soon as a read answers differently', async () => {
    const files = { '/etc/hostname': 'router\n' };
    const device = memoryDevice(files);
    const { handle, runs } = hostnameHandler();
    const answer = answerReuse(handle);
    await answer(input, device);

    files['/etc/hostname'] = 'lab\n';
    expect((await answer(input, device)).body).toBe('{"hostname":"lab"}');
    expect(runs.count).toBe(2);
    expect((answer(input, device) as Awaited<ReturnType<typeof answer>>).body).toBe('{"hostname":"lab"}');
  });

  it('answers a shared, frozen value at once too, once its reads were at hand', async () => {
    const device = memoryDevice({ '/etc/hostname': 'router\n' });
    const FEATURES = Object.freeze(['hostapd-control']);
    const answer = answerReuse(async (_input, device) => (await device.readFile('/etc/hostname'), FEATURES));
    await answer(input, device);
    const again = answer(input, device);
    expect(again).not.toBeInstanceOf(Promise);
    expect((again as Awaited<typeof again>).body).toBe('["hostapd-control"]');
  });

  it('answers at once from the third request when a read not at hand at first is at hand from then on', async () => {
    const files: Record<string, string> = { '/etc/hostname': 'router\n' };
    let reads = 0;
    // The first read waits (a stat of a socket, say), the later ones are known (the folder is watched).
    const device = { readFile: (path: string) => (reads++ === 0 ? Promise.resolve(files[path]) : atHand(files[path])) } as unknown as Device;
    const { handle, runs } = hostnameHandler();
    const answer = answerReuse(handle);
    await answer(input, device);
    const second = answer(input, device);
    expect(second).toBeInstanceOf(Promise);
    expect((await second).body).toBe('{"hostname":"router"}');
    const third = answer(input, device);
    expect(third).not.toBeInstanceOf(Promise);
    expect((third as Awaited<typeof third>).body).toBe('{"hostname":"router"}');
    expect(runs.count).toBe(1);
  });

  it('answers at once after requests that came while a read was in flight, once the device answers at once again', async () => {
    const files: Record<string, string> = { '/etc/hostname': 'router\n' };
    let inFlight = true;
    const device = { readFile: (path: string) => (inFlight ? Promise.resolve(files[path]) : atHand(files[path])) } as unknown as Device;
    const FEATURES = Object.freeze(['hostapd-control']);
    const answer = answerReuse(async (_input, device) => (await device.readFile('/etc/hostname'), FEATURES));
    await answer(input, device);
    await Promise.all(Array.from({ length: 32 }, () => answer(input, device)));

    inFlight = false;
    await answer(input, device);
    const again = answer(input, device);
    expect(again).not.toBeInstanceOf(Promise);
    expect((again as Awaited<typeof again>).body).toBe('["hostapd-control"]');
  });

  it('stays a promise while a read is not at hand', async () => {
    const { device } = countingDevice({ '/etc/hostname': 'router\n' });
    const { handle } = hostnameHandler();
    const answer = answerReuse(handle);
    await answer(input, device);
    expect(answer(input, device)).toBeInstanceOf(Promise);
  });
});

describe('answerReuse with an answer that changes on every request (it holds the time)', () => {
  /** A device whose clock moves by `step` ms at each reading, and whose files are at hand; `step` may be changed. */
  function clockDevice(clock = { now: 1_795_551_682_000, step: 1 }) {
    const device = { now: () => (clock.now += clock.step), readFile: () => atHand('router\n') } as unknown as Device;
    return { device, clock };
  }
  /** A handler answering the hostname and the time, and what it was handed as the device each time. */
  function timeHandler() {
    const handed: Device[] = [];
    const handle: Handler = async (_input, device) => {
      handed.push(device);
      return { hostname: (await device.readFile('/etc/hostname'))?.trim(), time: device.now() / 1000 };
    };
    return { handle, handed };
  }

  it('answers the time as it is at each request, all along', async () => {
    const { device, clock } = clockDevice();
    const answer = answerReuse(timeHandler().handle);
    for (let i = 0; i < 50; i++) expect(JSON.parse((await answer(input, device)).body).time).toBe(clock.now / 1000);
  });

  it('stops recording the reads of an answer that came out different three times in a row: the handler is handed the device itself', async () => {
    const { device } = clockDevice();
    const { handle, handed } = timeHandler();
    const answer = answerReuse(handle);
    for (let i = 0; i < 6; i++) await answer(input, device);
    // The first answer and three made again were recorded (the device behind a proxy); then not.
    expect(handed.slice(0, 4).every((given) => given !== device)).toBe(true);
    expect(handed.slice(4)).toEqual([device, device]);
  });

  it('answers unchecked for longer each time the answer is found changed again, up to 256 requests', async () => {
    const { device } = clockDevice();
    const { handle, handed } = timeHandler();
    const answer = answerReuse(handle);
    for (let i = 0; i < 1000; i++) await answer(input, device);
    // The requests whose reads were recorded: the first, three more made again, then one after each unchecked stretch.
    const recorded = handed.flatMap((given, i) => (given === device ? [] : [i]));
    const gaps = recorded.slice(1).map((at, k) => at - recorded[k]!);
    expect(gaps).toEqual([1, 1, 1, 33, 65, 129, 257, 257]);
  });

  it('answers unchecked no longer when the time moved only between some requests (two in one millisecond)', async () => {
    const { device, clock } = clockDevice();
    const { handle, handed } = timeHandler();
    const answer = answerReuse(handle);
    for (let i = 0; i < 1000; i++) {
      clock.step = i % 3 === 0 ? 0 : 1; // every third request comes in the millisecond of the one before
      await answer(input, device);
    }
    expect(handed.filter((given) => given !== device).length).toBeLessThan(20);
  });

  it('reuses the answer again, without running the handler, once it stopped changing for the rest of a stretch', async () => {
    const { device, clock } = clockDevice();
    const { handle, handed } = timeHandler();
    const answer = answerReuse(handle);
    for (let i = 0; i < 6; i++) await answer(input, device);

    clock.step = 0; // the clock stops: the answer stays the same from now on
    for (let i = 0; i < 32; i++) await answer(input, device);
    const runs = handed.length;
    const again = answer(input, device);
    expect(again).not.toBeInstanceOf(Promise);
    expect(JSON.parse((again as Awaited<typeof again>).body).time).toBe(clock.now / 1000);
    expect(handed.length).toBe(runs);
  });
});

describe('same', () => {
  it('compares text, numbers, lists and plain objects by value, and anything else by identity', () => {
    expect(same('a\n', `a${'\n'}`)).toBe(true);
    expect(same(Number.NaN, Number.NaN)).toBe(true);
    expect(same([1, { a: 'x' }], [1, { a: 'x' }])).toBe(true);
    expect(same([1, 2], [1, 2, 3])).toBe(false);
    expect(same({ a: 1 }, { a: 1, b: undefined })).toBe(false);
    expect(same(new Uint8Array([1, 2]), new Uint8Array([1, 2]))).toBe(true);
    expect(same(new Uint8Array([1, 2]), new Uint8Array([1, 3]))).toBe(false);
    expect(same(new Date(0), new Date(0))).toBe(false);
    expect(same(null, undefined)).toBe(false);
  });
});
