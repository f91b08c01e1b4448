/**
 * The collection the engine features weigh against (weights.ts CollectionSource): the cluster when
 * querylens.json has a `backend` section, else the loaded index, else none.
 */
import type { EngineContext } from './context.js';
import { indexCollection, type CollectionSource } from './weights.js';

export function collectionOf(context: EngineContext): CollectionSource | null {
  const cluster = context.cluster();
  if (cluster) return cluster.collection();
  const session = context.session();
  return session ? indexCollection(session) : null;
}
