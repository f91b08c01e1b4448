/**
 * The arena decoded blocks come from (prefaulted-memory.ts): a worker thread faults its pages in
 * ahead of use, and what the reader writes in the slices it was handed must stay as written, also
 * while the worker is writing (adding 0 to) the pages just past them.
 */
import { describe, expect, it } from 'vitest';
import { DecodedChunkPool } from '../../../server/engine/index/postings-codec.js';
import { PrefaultedArena } from '../../../server/engine/index/prefaulted-memory.js';

const CHUNK = 64 * 128;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('PrefaultedArena', () => {
  it('hands out disjoint whole-page slices that keep what is written in them while the worker runs ahead', async () => {
    const owner = {};
    const arena = new PrefaultedArena(256 * CHUNK * 4, 64 * CHUNK * 4, owner);
    const slices: Int32Array[] = [];
    for (let round = 0; round < 4; round++) {
      for (let i = 0; i < 64; i++) {
        const slice = arena.take(CHUNK)!;
        expect(slice.length).toBe(CHUNK);
        expect(arena.holds(slice)).toBe(true);
        // Written at once, page by page, as a decoder writes a chunk: the worker is touching the pages past it.
        const id = slices.length;
        for (let j = 0; j < CHUNK; j++) slice[j] = id * 1_000_003 + j;
        slices.push(slice);
      }
      await sleep(20);
    }
    expect(arena.take(CHUNK)).toBeUndefined();
    await sleep(20);
    const wrong: string[] = [];
    slices.forEach((slice, id) => {
      for (let j = 0; j < CHUNK; j++) if (slice[j] !== id * 1_000_003 + j) wrong.push(`slice ${id} value ${j}: ${slice[j]}`);
    });
    expect(wrong.slice(0, 5)).toEqual([]);
    // Disjoint: consecutive byte ranges of one buffer.
    slices.forEach((slice, id) => expect(slice.byteOffset).toBe(id * CHUNK * 4));
    expect(arena.holds(new Int32Array(CHUNK))).toBe(false);
    expect(arena.take(1000)).toBeUndefined();
  });

  it('a pool takes chunks from its arena once none is free, and keeps every chunk of the arena given back', () => {
    const pool = new DecodedChunkPool(1, 4 * CHUNK * 4, 2 * CHUNK * 4);
    const taken = [pool.take(), pool.take(), pool.take(), pool.take()];
    expect(taken.every((c) => c?.length === CHUNK)).toBe(true);
    expect(new Set(taken.map((c) => c!.byteOffset)).size).toBe(4);
    // The arena is spent: the caller makes its own array.
    expect(pool.take()).toBeUndefined();
    for (const c of taken) pool.give(c!);
    // All four kept, past the pool's bound of one array of its own.
    expect(pool.size).toBe(4);
    pool.give(new Int32Array(CHUNK));
    pool.give(new Int32Array(CHUNK));
    expect(pool.size).toBe(5);
    // Arena chunks first.
    const next = pool.take();
    expect(taken.includes(next)).toBe(true);
  });
});
