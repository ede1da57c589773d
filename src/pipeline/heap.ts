/**
 * The V8 heap policy of an indexing process. A run keeps little for long (entries stream to a fragment file
 * as they finish), but it allocates a great deal on its way: each file's extraction result is parsed, written
 * and dropped. V8 lets the old generation grow to several times what is live before collecting it, so at
 * 50,000 files the main thread alone held about 100 MB more than it used, and the run peaked at about 425 MB.
 * A heap that grows by at most half again what is live between collections keeps that peak near 370 MB at no
 * measurable cost in time (`npm run bench -- --only growth`), since the extraction threads, not the main
 * thread, set the pace.
 */
import v8 from 'node:v8';

const HEAP_GROWING_PERCENT = 50;

/** Process-wide, like the wasm compiler choice (parser.ts): threads started later inherit it. Setting it again is harmless. */
export function preferCompactHeap(): void {
  v8.setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
}
