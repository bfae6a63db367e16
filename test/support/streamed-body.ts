/**
 * A request body sent in `chunks` chunks of `text`, without a Content-Length, made only as the reader
 * pulls it: for the tests of a body cut as it streams in, which check how little was pulled.
 *
 * @example
 * const streamed = streamedBody(' '.repeat(40), 1000);
 * await app.request('/api/v1/auth/local', { method: 'POST', body: streamed.body, duplex: 'half' } as RequestInit);
 * streamed.pulled() // under 10: the app stopped reading at its limit
 */
export function streamedBody(text: string, chunks: number): { body: ReadableStream<Uint8Array>; pulled(): number } {
  const chunk = new TextEncoder().encode(text);
  let pulled = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (pulled === chunks) return controller.close();
      pulled++;
      controller.enqueue(chunk);
    },
  });
  return { body, pulled: () => pulled };
}
