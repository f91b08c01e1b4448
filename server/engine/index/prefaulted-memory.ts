/**
 * Memory for decoded blocks whose pages a worker thread faults in ahead of use.
 *
 * On the build machine (a virtual machine) the first write to a page new to the process costs about
 * 4–12 µs, and decoding a list of millions of postings into fresh arrays spent about three quarters
 * of its time there (8.8 M passages: a list of 5.6 M postings decoded in 184 ms into fresh arrays,
 * 48–67 ms into arrays written before). The arena is one SharedArrayBuffer, reserved whole but
 * faulted in page by page; a worker thread, on the other core, writes each page a little ahead of
 * the slices the reader has handed out, so the reader's first write finds it in place. Only pages
 * past what has been handed out are touched, by an atomic add of 0, which cannot lose a value the
 * reader writes there at the same time. Nothing here decides what a search returns: a slice holds
 * whatever its holder writes, like a fresh array.
 */
import { Worker } from 'node:worker_threads';

/** The arena hands out whole pages of this many bytes. */
export const ARENA_PAGE_BYTES = 4096;
const PAGE_INTS = ARENA_PAGE_BYTES >>> 2;

// The worker: touches pages from the handed-out mark up to `lead` pages past it, then sleeps until
// more is handed out; stops when told or when the arena is touched whole. Plain script (eval), so
// that it starts the same from the compiled files and from the sources under test.
const TOUCHER = `
const { workerData } = require('node:worker_threads');
const control = new Int32Array(workerData.control);
const memory = new Int32Array(workerData.memory);
const pages = memory.length >>> 10;
const lead = workerData.leadPages;
let touched = 0;
for (;;) {
  if (Atomics.load(control, 1) !== 0) break;
  const handed = Atomics.load(control, 0);
  if (touched < handed) touched = handed;
  const goal = Math.min(pages, handed + lead);
  if (touched >= goal) {
    if (goal >= pages) break;
    Atomics.wait(control, 0, handed);
    continue;
  }
  Atomics.add(memory, touched << 10, 0);
  touched++;
}
`;

/** Stops an arena's worker when its owner is collected. */
const stopWhenCollected = new FinalizationRegistry<{ control: Int32Array; worker: Worker }>(({ control, worker }) => {
  Atomics.store(control, 1, 1);
  Atomics.notify(control, 0);
  void worker.terminate();
});

export class PrefaultedArena {
  private readonly memory: SharedArrayBuffer;
  /** [0] pages handed out, [1] stop (the worker's protocol above). */
  private readonly control = new Int32Array(new SharedArrayBuffer(8));
  private handedPages = 0;

  /**
   * `bytes` reserved (a multiple of 4 KiB), pages faulted in up to `leadBytes` past what is handed
   * out. `owner`: when it is collected, the worker stops.
   */
  constructor(
    bytes: number,
    private readonly leadBytes: number,
    private readonly owner: object,
  ) {
    this.memory = new SharedArrayBuffer(bytes);
  }

  /** True for an array that lies in this arena. */
  holds(array: Int32Array): boolean {
    return array.buffer === this.memory;
  }

  /**
   * `ints` 32-bit values (a multiple of 1,024: whole pages), contents unspecified; undefined once
   * the arena is spent. The worker starts with the first slice.
   */
  take(ints: number): Int32Array | undefined {
    const pages = ints / PAGE_INTS;
    if (!Number.isInteger(pages) || (this.handedPages + pages) * ARENA_PAGE_BYTES > this.memory.byteLength) return undefined;
    const slice = new Int32Array(this.memory, this.handedPages * ARENA_PAGE_BYTES, ints);
    if (this.handedPages === 0) this.start();
    this.handedPages += pages;
    Atomics.store(this.control, 0, this.handedPages);
    Atomics.notify(this.control, 0);
    return slice;
  }

  private start(): void {
    try {
      const worker = new Worker(TOUCHER, {
        eval: true,
        workerData: { control: this.control.buffer, memory: this.memory, leadPages: Math.floor(this.leadBytes / ARENA_PAGE_BYTES) },
      });
      // Never keeps the process alive; a worker that fails leaves the reader faulting pages itself.
      worker.unref();
      worker.on('error', () => undefined);
      stopWhenCollected.register(this.owner, { control: this.control, worker });
    } catch {
      // No worker: the reader faults the pages in itself, as without an arena.
    }
  }
}
