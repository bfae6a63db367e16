import { describe, expect, it } from 'vitest';
import { memoryDevice } from '../../test/support/memory-device.ts';
import { dockerSaveArchive, tarArchive } from '../../test/support/tar.ts';
import { callFunctionRaw, type InputProblem, type RawAnswer } from '../../test/support/call-function.ts';
import * as update from './chute.put.ts';

/** A device with one chute installed, `hello`. */
const device = () => memoryDevice({ chutes: { hello: { record: { name: 'hello', image: 'chute-hello:1', version: '1' }, config: {} } } });

const DOCKERFILE = 'FROM chutebox-test:sleeper\nENV STAGE=two\n';

/** PUT /api/v1/chutes/<chute> with a body of `contentType`: bytes (an upload) or text. */
function put<T = unknown>(
  target: ReturnType<typeof device>,
  chute: string,
  body: Uint8Array | string,
  contentType = 'application/x-tar',
): Promise<RawAnswer<T>> {
  return callFunctionRaw<T>(update, target, { params: { chute }, body: typeof body === 'string' ? { contentType, text: body } : { contentType, bytes: body } });
}

describe('PUT /api/v1/chutes/<chute> with its source (application/x-tar, as pdtools update-chute sends it)', () => {
  it('responds with 200 and queues an update with the version, environment and configuration of paradrop.yaml and the tar as its source', async () => {
    const target = device();
    const source = tarArchive({
      'paradrop.yaml': 'name: hello\nversion: 2\nenvironment: { STAGE: two }\nconfig:\n  web: { port: 8000 }\n',
      Dockerfile: DOCKERFILE,
    });
    const out = await put(target, 'hello', source);
    expect(out).toMatchObject({ status: 200, body: { change_id: 1 } });
    expect(target.submitted).toEqual([
      {
        action: 'update',
        chute: 'hello',
        version: '2',
        environment: { STAGE: 'two' },
        config: { web: { port: 8000 } },
        source,
        services: { main: 'main', services: { main: { type: 'normal', image: null, source: '' } } },
        owner: null,
      },
    ]);
    expect(await target.change(1)).toMatchObject({ action: 'update', chute: 'hello', state: 'queued' });
  });

  it('responds with 404 for a chute that is not installed, and submits nothing', async () => {
    const target = device();
    const out = await put(target, 'ghost', tarArchive({ 'paradrop.yaml': 'name: ghost\n', Dockerfile: DOCKERFILE }));
    expect(out.status).toBe(404);
    expect(target.submitted).toEqual([]);
  });

  it('responds with 422 when paradrop.yaml names another chute, for an image archive, and for a bad paradrop.yaml', async () => {
    const target = device();
    const other = await put(target, 'hello', tarArchive({ 'paradrop.yaml': 'name: other\n', Dockerfile: DOCKERFILE }));
    expect(other.body).toMatchObject({
      status: 422,
      errors: [{ path: 'body.paradrop.yaml.name', message: expect.stringMatching(/names chute other, not hello/) }],
    });
    const archive = await put(target, 'hello', dockerSaveArchive(['hello:2']));
    expect(archive.body).toMatchObject({ status: 422, errors: [{ path: 'body', message: expect.stringMatching(/image archive/) }] });
    const light = await put<InputProblem>(target, 'hello', tarArchive({ 'paradrop.yaml': 'name: hello\nservices:\n  main: { type: light, image: cobol }\n' }));
    expect(light.status).toBe(422);
    expect(light.body.errors.map((error: { path: string }) => error.path)).toEqual([
      'body.paradrop.yaml.services.main.image',
      'body.paradrop.yaml.services.main.command',
    ]);
    expect(target.submitted).toEqual([]);
  });

  it('responds with 415 for a body that is not a tar, and 400 for a bad chute name', async () => {
    const target = device();
    expect(await put(target, 'hello', '{"config": {}}', 'application/json')).toMatchObject({
      status: 415,
      body: {
        accepted: ['application/x-tar'],
        errors: [{ path: 'headers.content-type', message: expect.stringMatching(/^must be one of application\/x-tar \(the chute's source/) }],
      },
    });
    expect((await put(target, '../x', tarArchive({ 'paradrop.yaml': 'name: x\n' }))).status).toBe(400);
    expect(target.submitted).toEqual([]);
  });
});
