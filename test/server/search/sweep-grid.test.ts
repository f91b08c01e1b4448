/**
 * The sweep grid (server/engine/sweep.ts): lists and inclusive ranges without binary noise, the
 * cartesian product in order, parameters of the other scorer refused, and the settings cap.
 */
import { describe, expect, it } from 'vitest';
import { gridSettings, MAX_SWEEP_SETTINGS, parseSweepValues, SweepGridError, type SweepGrid } from '../../../server/engine/sweep.js';

const BASE: SweepGrid['base'] = { k1: 1.2, b: 0.75, mu: 2500, fbDocs: 3, fbTerms: 10, bo1: false };

describe('parseSweepValues', () => {
  it.each([
    ['k1', '0.6:1.6:0.2', [0.6, 0.8, 1, 1.2, 1.4, 1.6]],
    ['b', '0.3,0.5,0.75', [0.3, 0.5, 0.75]],
    ['b', '0:1:0.1', [0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1]],
    ['mu', '500:2500:1000', [500, 1500, 2500]],
    ['mu', '1000', [1000]],
    ['fbDocs', '1:5:2', [1, 3, 5]],
  ] as const)('%s %s', (name, text, expected) => {
    expect(parseSweepValues(name, text)).toEqual(expected);
  });

  it.each([
    ['k1', '0.6:1.6', /neither a list/],
    ['k1', '1.6:0.6:0.2', /ends before it starts/],
    ['k1', '0.6:1.6:0', /step .* must be positive/],
    ['b', '0.3,,0.5', /'' is not a number/],
    ['b', 'x', /'x' is not a number/],
    ['fbTerms', '2.5', /not a positive integer/],
    ['fbDocs', '0,1', /not a positive integer/],
    ['b', '0.5,0.5', /listed twice/],
    ['mu', '1:100000:1', /values; a sweep runs at most/],
  ] as const)('refuses %s %s', (name, text, message) => {
    expect(() => parseSweepValues(name, text)).toThrow(SweepGridError);
    expect(() => parseSweepValues(name, text)).toThrow(message);
  });
});

describe('gridSettings', () => {
  it('is the product, the first parameter varying slowest, unswept values from the base', () => {
    const settings = gridSettings({ scorer: 'bm25', values: { k1: [0.9, 1.2], b: [0.4, 0.75] }, base: BASE });
    expect(settings).toEqual([
      { scorer: 'bm25', k1: 0.9, b: 0.4, bo1: null },
      { scorer: 'bm25', k1: 0.9, b: 0.75, bo1: null },
      { scorer: 'bm25', k1: 1.2, b: 0.4, bo1: null },
      { scorer: 'bm25', k1: 1.2, b: 0.75, bo1: null },
    ]);
    expect(gridSettings({ scorer: 'ql', values: { fbTerms: [5, 20] }, base: { ...BASE, mu: 1000 } })).toEqual([
      { scorer: 'ql', mu: 1000, bo1: { fbDocs: 3, fbTerms: 5 } },
      { scorer: 'ql', mu: 1000, bo1: { fbDocs: 3, fbTerms: 20 } },
    ]);
  });

  it('refuses the other scorer\'s parameters, an empty grid, out-of-range values and too many settings', () => {
    expect(() => gridSettings({ scorer: 'bm25', values: { mu: [1000] }, base: BASE })).toThrow(/--mu is a parameter of ql, not of bm25/);
    expect(() => gridSettings({ scorer: 'ql', values: { k1: [1] }, base: BASE })).toThrow(/--k1 is a parameter of bm25, not of ql/);
    expect(() => gridSettings({ scorer: 'bm25', values: {}, base: BASE })).toThrow(/nothing to sweep/);
    expect(() => gridSettings({ scorer: 'bm25', values: { b: [1.5] }, base: BASE })).toThrow(SweepGridError);
    const many = Array.from({ length: 21 }, (_, i) => i / 20);
    expect(() => gridSettings({ scorer: 'bm25', values: { k1: many.map((x) => x + 0.1), b: many }, base: BASE })).toThrow(
      new RegExp(`the grid has 441 settings \\(21 k1 × 21 b\\); a sweep runs at most ${MAX_SWEEP_SETTINGS}`),
    );
  });
});
