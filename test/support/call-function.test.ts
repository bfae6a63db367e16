import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { decodeDocumentBody, encodeDocument, negotiate } from '../../functions/core/body/index.ts';
import { reply, type Handler } from '../../functions/core/handler.ts';
import { defineRoute } from '../../functions/core/route.ts';
import { callFunction, callFunctionRaw, type EndpointModule } from './call-function.ts';
import { memoryDevice } from './memory-device.ts';

/** An endpoint that takes a JSON or YAML document `{ port }` and answers `{ port }` in the format asked for. */
function echo(answer: (port: unknown) => unknown = (port) => ({ port })): EndpointModule {
  const handle: Handler = async (input) => {
    const { port } = decodeDocumentBody(input.headers['content-type'], input.text);
    const { body, contentType } = encodeDocument(answer(port), negotiate(input.headers.accept));
    return reply(body, contentType);
  };
  return {
    route: defineRoute('PUT /echo', 'echo', { body: 'document' }),
    handle,
    request: z.object({ params: z.object({}), body: z.object({ port: z.number() }) }),
    response: z.object({ port: z.number() }),
  };
}

const yaml = (text: string) => ({ body: { contentType: 'application/yaml', text } });

describe('callFunctionRaw', () => {
  it('sends a YAML body and an Accept header, and answers the YAML decoded, the headers and the text', async () => {
    const answer = await callFunctionRaw(echo(), memoryDevice(), { ...yaml('port: 80\n'), headers: { accept: 'text/yaml' } });
    expect(answer).toEqual({ status: 200, body: { port: 80 }, headers: { 'content-type': 'text/yaml; charset=utf-8' }, text: 'port: 80\n' });
  });

  it('fails a test whose YAML answer the response schema rejects', async () => {
    const broken = echo((port) => ({ port: String(port) }));
    await expect(callFunctionRaw(broken, memoryDevice(), { ...yaml('port: 80\n'), headers: { accept: 'application/yaml' } })).rejects.toThrow(
      /response schema accepts a 200 answer/,
    );
  });

  it('fails a test whose YAML request the request schema rejects but the endpoint takes', async () => {
    const lenient = echo(() => ({ port: 1 }));
    await expect(callFunctionRaw(lenient, memoryDevice(), yaml('port: eighty\n'))).rejects.toThrow(/request schema accepts a request that succeeded/);
  });

  it('answers a malformed body with the problem of its decoder, without checking the request schema', async () => {
    const answer = await callFunctionRaw(echo(), memoryDevice(), yaml('port: [80\n'));
    expect(answer).toMatchObject({ status: 400, headers: { 'content-type': 'application/problem+json' }, body: { detail: /not valid YAML/ } });
  });
});

describe('callFunction', () => {
  it('answers only status and body, so a test compares them whole', async () => {
    expect(await callFunction(echo(), memoryDevice(), {}, { port: 80 })).toEqual({ status: 200, body: { port: 80 } });
  });
});
