import type { Device } from '../core/device/index.ts';
import { HttpProblem } from '../core/problem.ts';
import { reusingLast } from '../core/reusing-last.ts';
import {
  PA_VOLUME_NORM,
  parsePactlDevices,
  parsePactlInfo,
  parsePactlModules,
  type AudioDevice,
  type AudioModule,
  type AudioServer,
} from '../parsers/pactl.ts';

/** The audio server's pactl output for a listing; 503 when the device has no audio server that answers. */
async function listing(device: Device, which: Parameters<Device['audio']['pactl']>[0]): Promise<string> {
  const text = await device.audio.pactl(which);
  if (text === null) throw new HttpProblem(503, 'the device has no audio server that answers (PulseAudio through pactl)');
  return text;
}

/** A parse that failed: pactl printed what chutebox does not read. */
function unreadable(what: string): HttpProblem {
  return new HttpProblem(502, `pactl printed ${what} that cannot be read`);
}

/** The audio server (`pactl -f json info`). */
export async function audioServer(device: Device): Promise<AudioServer> {
  return serverOf(device, await listing(device, 'info')) ?? throwing(unreadable('its server information'));
}

/** The sinks or the sources. */
export async function audioDevices(device: Device, kind: 'sink' | 'source'): Promise<AudioDevice[]> {
  return devicesOf(device, await listing(device, `${kind}s`)) ?? throwing(unreadable(`its ${kind}s`));
}

/** The loaded modules. */
export async function audioModules(device: Device): Promise<AudioModule[]> {
  return modulesOf(device, await listing(device, 'modules-short'), await listing(device, 'modules')) ?? throwing(unreadable('its modules'));
}

/** Each listing's parse, made again only when pactl printed another text (frozen: an answer holding it reuses its JSON). */
const serverOf = reusingLast(parsePactlInfo);
const devicesOf = reusingLast(parsePactlDevices);
const modulesOf = reusingLast(parsePactlModules);

/**
 * Sets the volume of the sink or source the path names, and answers the body as ParaDrop does.
 *
 * @throws HttpProblem 404 when there is none by that name, 422 when the volumes are neither one nor one per channel.
 */
export async function setVolume(device: Device, kind: 'sink' | 'source', name: string, volume: number[]): Promise<number[]> {
  const found = (await audioDevices(device, kind)).find((one) => one.name === name);
  if (found === undefined) throw new HttpProblem(404, `no ${kind} named ${name}`);
  if (volume.length !== 1 && volume.length !== found.channel_count) {
    throw new HttpProblem(422, `${kind} ${name} has ${found.channel_count} channels`, {
      errors: [{ path: 'body', message: `must hold one volume, or one per channel (${found.channel_count})` }],
    });
  }
  await device.audio.setVolume(
    kind,
    name,
    volume.map((value) => Math.round(value * PA_VOLUME_NORM)),
  );
  return volume;
}

function throwing(problem: HttpProblem): never {
  throw problem;
}
