/** A least-recently-used cache over a Map (iteration order is insertion order: the first key is the oldest). */
export function cached<T>(cache: Map<number, T>, size: number, key: number, load: () => T): T {
  const hit = cache.get(key);
  if (hit !== undefined) {
    cache.delete(key);
    cache.set(key, hit);
    return hit;
  }
  const value = load();
  if (cache.size >= size) cache.delete(cache.keys().next().value!);
  cache.set(key, value);
  return value;
}

/**
 * A least-recently-used cache bounded in entries and in bytes (`sizeOf` of each value): at a
 * scale where one common term's decoded postings take hundreds of megabytes, a bound in entries
 * alone would let a session hold gigabytes. A value larger than the whole budget is not kept.
 */
export class ByteBoundedCache<T, K = number> {
  private readonly entries = new Map<K, { value: T; bytes: number }>();
  private total = 0;

  constructor(
    private readonly maxEntries: number,
    private readonly maxBytes: number,
    private readonly sizeOf: (value: T) => number,
    /** Called with each value the cache lets go to stay within its bounds. */
    private readonly onEvict?: (value: T) => void,
  ) {}

  get(key: K, load: () => T): T {
    const hit = this.entries.get(key);
    if (hit !== undefined) {
      this.entries.delete(key);
      this.entries.set(key, hit);
      return hit.value;
    }
    const value = load();
    const bytes = this.sizeOf(value);
    if (bytes > this.maxBytes) return value;
    this.entries.set(key, { value, bytes });
    this.total += bytes;
    while (this.entries.size > this.maxEntries || this.total > this.maxBytes) {
      const [oldest, entry] = this.entries.entries().next().value!;
      this.entries.delete(oldest);
      this.total -= entry.bytes;
      this.onEvict?.(entry.value);
    }
    return value;
  }

  /** Bytes held now (for tests). */
  get bytes(): number {
    return this.total;
  }
}
