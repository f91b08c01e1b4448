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
