/**
 * The reader's caches are bounded in bytes as well as entries: a session that touches the
 * postings of many common terms keeps at most the budget, oldest first out, and a list larger
 * than the whole budget is returned without being kept.
 */
import { describe, expect, it } from 'vitest';
import { ByteBoundedCache, cached } from '../../../server/engine/index/lru.js';
import { buildMemoryIndex } from '../../../server/engine/index/memory.js';

describe('least-recently-used caches', () => {
  it('evicts the oldest entries past the byte budget, and never keeps a value larger than it', () => {
    let loads = 0;
    const cache = new ByteBoundedCache<number[]>(100, 10, (v) => v.length);
    const get = (key: number, size: number) => cache.get(key, () => (loads++, new Array<number>(size).fill(key)));
    get(1, 4);
    get(2, 4);
    expect(cache.bytes).toBe(8);
    get(1, 4); // 1 is now the most recent
    get(3, 4); // 12 bytes: 2, the oldest, goes
    expect(cache.bytes).toBe(8);
    expect(loads).toBe(3);
    get(1, 4);
    expect(loads).toBe(3);
    get(2, 4);
    expect(loads).toBe(4);
    get(9, 11); // larger than the budget: loaded, returned, not kept
    expect(get(9, 11)).toHaveLength(11);
    expect(loads).toBe(6);
    expect(cache.bytes).toBeLessThanOrEqual(10);
  });

  it('hands each value it lets go to onEvict, once, and never one it keeps or never kept', () => {
    const evicted: number[] = [];
    const cache = new ByteBoundedCache<number[]>(2, 10, (v) => v.length, (v) => evicted.push(v[0]!));
    const get = (key: number, size: number) => cache.get(key, () => new Array<number>(size).fill(key));
    get(1, 4);
    get(2, 4);
    get(1, 4);
    get(3, 4); // past 10 bytes: 2 goes
    expect(evicted).toEqual([2]);
    get(4, 1); // past 2 entries: 1 goes
    expect(evicted).toEqual([2, 1]);
    get(9, 11); // never kept: not evicted
    expect(evicted).toEqual([2, 1]);
  });

  it('evicts past the entry bound too', () => {
    const cache = new ByteBoundedCache<string>(2, 1000, () => 1);
    let loads = 0;
    for (const k of [1, 2, 3, 1]) cache.get(k, () => (loads++, String(k)));
    expect(loads).toBe(4);
  });

  it('cached keeps the most recently used', () => {
    const m = new Map<number, string>();
    let loads = 0;
    for (const k of [1, 2, 1, 3, 1, 2]) cached(m, 2, k, () => (loads++, String(k)));
    expect(loads).toBe(4);
    expect([...m.keys()]).toEqual([1, 2]);
  });

  it("a reader's remembered term ids give the lexicon's answers, past the bound where it forgets them all", () => {
    const reader = buildMemoryIndex(
      [
        { docno: 'a', fields: { text: 'flutter wing flutter' } },
        { docno: 'b', fields: { text: 'wing' } },
      ],
      { profile: 'lucene' },
    );
    const expected = { flutter: { df: 1, cf: 2 }, wing: { df: 2, cf: 2 } };
    // More distinct absent words than the reader keeps (65,536), between looks at the present ones.
    for (let round = 0; round < 3; round++) {
      for (const [term, stats] of Object.entries(expected)) {
        expect(reader.termStats(term)).toEqual(stats);
        expect(Array.from(reader.postings(term)!.docs)).toEqual(term === 'wing' ? [0, 1] : [0]);
      }
      for (let i = 0; i < 40_000; i++) expect(reader.termStats(`absent${round}-${i}`)).toBeUndefined();
    }
  });
});
