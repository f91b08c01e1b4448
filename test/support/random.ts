/**
 * The tests' seeded random numbers in [0, 1): the engine's own mulberry32 (the generator of the
 * randomisation test), so a fuzz failure replays from its seed on every machine.
 */
import { mulberry32 } from '../../server/engine/eval/significance.js';

export function seededRandom(seed: number): () => number {
  const next = mulberry32(seed);
  return () => next() / 4294967296;
}
