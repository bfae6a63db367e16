import { describe, expect, it } from 'vitest';
import { readEntries } from '../../functions/core/logs.ts';
import type { ChuteLogEntry } from '../../functions/core/device/index.ts';
import { memoryAccounts, scenarioAccounts } from '../../emulator/scenario/accounts.ts';
import { scenarioAudio } from '../../emulator/scenario/audio.ts';
import { memoryDevice } from '../../test/support/memory-device.ts';
import { useTempDir } from '../../test/support/temp-dir.ts';
import { rootedFiles } from '../device/files.ts';
import { PASSWD_FILE } from '../scenario/format.ts';
import { recordingDevice } from './recording-device.ts';
import { writeScenario } from './write-scenario.ts';

const { folder } = useTempDir('chutebox-recording-device-');

describe('recordingDevice', () => {
  it("records the passwd database as the scenario's etc/passwd, which a scenario's accounts read back", async () => {
    const passwd = 'root:x:0:0:root:/root:/bin/ash\nparadrop:x:1000:1000:ParaDrop:/home/paradrop:/bin/ash\n';
    const keys = { paradrop: 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIErzfrvK75/Fl4oVaLVr/hQEZpVW34aj+zMgWqsbmHY+ alice@laptop\n' };
    const { device, recording } = recordingDevice({ ...memoryDevice(), accounts: memoryAccounts({ passwd, keys }) });
    expect(await device.accounts.passwd()).toBe(passwd);
    expect(await device.accounts.authorizedKeys({ name: 'paradrop', uid: 1000, gid: 1000, home: '/home/paradrop' })).toBe(keys.paradrop);
    await device.uname();
    expect([...recording.files]).toEqual([[PASSWD_FILE, passwd]]);

    const dir = await folder('scenario');
    await writeScenario(recording, dir, 'a recording');
    expect(await scenarioAccounts(rootedFiles(dir)).passwd()).toBe(passwd);
  });

  it("records what pactl prints as the scenario's pactl/ files, which a scenario's audio server answers again", async () => {
    const recorded = {
      info: '{"server_name":"pulseaudio"}',
      sinks: '[{"name":"null"}]',
      sources: '[]',
      modules: '[]',
      'modules-short': '0\tmodule-null-sink\t\t\n',
    };
    const { device, recording } = recordingDevice(memoryDevice({ audio: recorded }));
    for (const listing of Object.keys(recorded) as (keyof typeof recorded)[]) expect(await device.audio.pactl(listing)).toBe(recorded[listing]);
    await device.uname();
    const dir = await folder('scenario-audio');
    await writeScenario(recording, dir, 'a recording');
    const { audio } = scenarioAudio(rootedFiles(dir));
    for (const listing of Object.keys(recorded) as (keyof typeof recorded)[]) expect(await audio.pactl(listing)).toBe(recorded[listing]);
  });

  it("records a chute's log read without following, answering it again from the recording; a follow goes to the device", async () => {
    const line = (time: string, message: string): ChuteLogEntry => ({ time: `2026-11-21T${time}Z`, service: 'main', stream: 'stdout', message });
    const spec = { now: Date.parse('2026-11-21T12:00:00Z'), logs: { lab: [line('11:59:00', 'one'), line('11:59:30', 'two')] } };
    const { device, recording } = recordingDevice(memoryDevice(spec));
    const options = { follow: false, since: null, until: null, tail: 1 };
    expect(await readEntries(await device.chuteLogs('lab', options))).toEqual([line('11:59:30', 'two')]);
    expect([...recording.logs]).toEqual([['lab', [line('11:59:30', 'two')]]]);
    spec.logs.lab.push(line('11:59:40', 'three'));
    expect(await readEntries(await device.chuteLogs('lab', options))).toEqual([line('11:59:30', 'two')]);
    const following = (await device.chuteLogs('lab', { ...options, follow: true })).getReader();
    expect((await following.read()).value).toEqual(line('11:59:40', 'three'));
    await following.cancel();
    expect([...recording.logs]).toEqual([['lab', [line('11:59:30', 'two')]]]);
  });
});
