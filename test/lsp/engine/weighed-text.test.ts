/**
 * The text the weights action writes (weights.ts weighedQueryText), from given model weights: 3
 * significant digits, and a query re-weighed from the model's own shape keeps the user's `#1( … )`
 * pairs even where the model now gives them 0 (issue 14 §3: TW-BERT dropped `#1(high speed)`).
 */
import { describe, expect, it } from 'vitest';
import { parseQuery, type Dialect } from '../../../grammar/index.js';
import type { NgramWeight, NgramWeights } from '../../../server/model/runtime.js';
import { weighableQuery, weighedQueryText } from '../../../server/lsp/engine/weights.js';

/** Model weights for `words` (joined by spaces): uni-gram i gets uni[i], the pair (i, i+1) gets bi[i]. */
function weightsOf(words: string[], uni: number[], bi: number[]): NgramWeights {
  const query = words.join(' ');
  const starts = words.map((_, i) => words.slice(0, i).join(' ').length + (i > 0 ? 1 : 0));
  const ngrams: NgramWeight[] = words.map((w, i) => ({ kind: 'unigram', terms: [w], surface: w, start: starts[i]!, end: starts[i]! + w.length, weight: uni[i]! }));
  for (let i = 0; i + 1 < words.length; i++) {
    ngrams.push({ kind: 'bigram', terms: [words[i]!, words[i + 1]!], surface: `${words[i]} ${words[i + 1]}`, start: starts[i]!, end: starts[i + 1]! + words[i + 1]!.length, weight: bi[i]! });
  }
  return { query, ngrams };
}

function rewrite(text: string, dialect: Dialect, weights: NgramWeights): string | null {
  const { ast } = parseQuery(text, dialect);
  const weighable = weighableQuery(ast, text);
  if (!weighable.ok) throw new Error(weighable.refusal.message);
  expect(weighable.query.plan.text).toBe(weights.query);
  return weighedQueryText(ast, weighable.query, weights);
}

describe('the weights action text', () => {
  it('keeps the user\'s #1 pair when the model re-weighs it to 0, and leaves out the 0-weight pairs it would add', () => {
    const weights = weightsOf(['supersonic', 'high', 'speed'], [0.557123, 0.31, 0.42], [0, 0]);
    expect(rewrite('#weight( 0.5571 supersonic 0.25 #1(high speed) )', 'indri', weights)).toBe('#weight( 0.557 supersonic 0.31 high 0.42 speed 0 #1(high speed) )');
    expect(rewrite('supersonic^0.5571 "high speed"^0.25', 'lucene', weights)).toBe('supersonic^0.557 high^0.31 speed^0.42 "high speed"^0');
  });

  it('writes weights with 3 significant digits', () => {
    const weights = weightsOf(['boundary', 'layer'], [1.23456, 0.0012345], [0.98765]);
    expect(rewrite('#combine( boundary layer )', 'indri', weights)).toBe('#weight( 1.23 boundary 0.00123 layer 0.988 #1(boundary layer) )');
    expect(rewrite('#combine( boundary.title #syn(layer) )', 'indri', weights)).toBe('#weight( 1.23 boundary.title 0.00123 #syn(layer) )');
  });
});
