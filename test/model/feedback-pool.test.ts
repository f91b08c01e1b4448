/**
 * TW-BERT + Bo1's feedback pool (server/model/feedback-pool.ts): the leave-one-collection-out choice
 * never reads the left-out collection's own figure, and the pool format round-trips.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { chooseFeedbackPools, formatFeedbackPool, parseFeedbackPool, type FeedbackPool } from '../../server/model/feedback-pool.js';

const POOLS: FeedbackPool[] = [
  { docs: 3, terms: 10 },
  { docs: 5, terms: 10 },
  { docs: 5, terms: 20 },
];

describe('chooseFeedbackPools', () => {
  it('chooses each fold on the other collections, the shipped pool on all of them', () => {
    // a prefers 5/20 by far; b and c prefer 5/10 a little. Left out, a gets the others' choice (5/10); b and c,
    // with a among their others, get 5/20; over all three, 5/20 wins on the mean.
    const gains = { a: [0.0, 0.01, 0.2], b: [0.0, 0.03, 0.0], c: [0.0, 0.03, 0.01] };
    const choice = chooseFeedbackPools(POOLS, gains);
    expect(choice.perFold).toEqual({ a: { docs: 5, terms: 10 }, b: { docs: 5, terms: 20 }, c: { docs: 5, terms: 20 } });
    expect(choice.shipped).toEqual({ docs: 5, terms: 20 });
  });

  it('never reads the left-out collection: changing its gains changes no choice of its own fold', () => {
    const gainArb = fc.array(fc.double({ min: -0.5, max: 0.5, noNaN: true }), { minLength: POOLS.length, maxLength: POOLS.length });
    fc.assert(
      fc.property(fc.array(gainArb, { minLength: 2, maxLength: 7 }), gainArb, fc.nat(), (rows, replacement, pick) => {
        const gains = Object.fromEntries(rows.map((r, i) => [`c${i}`, r]));
        const left = `c${pick % rows.length}`;
        const before = chooseFeedbackPools(POOLS, gains).perFold[left];
        const after = chooseFeedbackPools(POOLS, { ...gains, [left]: replacement }).perFold[left];
        expect(after).toEqual(before);
      }),
      { numRuns: 200 },
    );
  });

  it('breaks ties towards the earlier (smaller) pool, and refuses what cannot be chosen from', () => {
    expect(chooseFeedbackPools(POOLS, { a: [0.1, 0.1, 0.1], b: [0.1, 0.1, 0.1] }).shipped).toEqual(POOLS[0]);
    expect(() => chooseFeedbackPools([], { a: [], b: [] })).toThrow(/no feedback pool/);
    expect(() => chooseFeedbackPools(POOLS, { a: [0, 0, 0] })).toThrow(/at least two collections/);
    expect(() => chooseFeedbackPools(POOLS, { a: [0, 0], b: [0, 0, 0] })).toThrow(/a: 2 gains for 3 pools/);
    expect(() => chooseFeedbackPools(POOLS, { a: [0, Number.NaN, 0], b: [0, 0, 0] })).toThrow(/not a finite number/);
  });
});

describe('feedback pool text', () => {
  it('parses DOCS/TERMS and prints it back; anything else is null', () => {
    expect(parseFeedbackPool('5/20')).toEqual({ docs: 5, terms: 20 });
    expect(parseFeedbackPool(' 10 / 30 ')).toEqual({ docs: 10, terms: 30 });
    expect(formatFeedbackPool({ docs: 5, terms: 20 })).toBe('5/20');
    for (const bad of ['5', '5/', '0/10', '5/20/1', 'a/b', '-1/10', '3/1001']) expect(parseFeedbackPool(bad), bad).toBeNull();
  });
});
