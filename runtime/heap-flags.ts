import { setFlagsFromString } from 'node:v8';

/** The V8 flags by which the launcher (runtime/chutebox.sh) bounds the heap. */
export const HEAP_FLAGS = ['--max-old-space-size', '--max-semi-space-size'] as const;

/**
 * Sets the launcher's heap flags back to V8's defaults once the heap is made, so that Node's built-in
 * modules load from its code cache again. V8 rejects a code cache made under other flags (it compares
 * a hash of every flag that is not at its default), so with the launcher's flags every built-in
 * module loaded after start (`node:http`, the Fetch classes) was compiled from source, a large part
 * of the start time. The heap keeps the limits it was made with: V8 reads these flags only when it
 * makes the isolate (docs/decisions/0035-heap-flags-and-the-code-cache.md, with the figures).
 *
 * Call it first thing, before any other module is imported.
 * @example
 * // node --max-old-space-size=64 --max-semi-space-size=1 chutebox.mjs …
 * releaseHeapFlags(); // getHeapStatistics().heap_size_limit stays near 64 MiB
 */
export function releaseHeapFlags(): void {
  for (const flag of HEAP_FLAGS) setFlagsFromString(`${flag}=0`);
}
