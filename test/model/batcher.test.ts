/**
 * server/model/batcher.ts with a counting model: which requests share a model call, that
 * identical texts are weighed once, that stale requests are dropped before inference and that
 * a failed call fails only its own requests. No timers are measured: the model counts calls.
 */
import { describe, expect, it } from 'vitest';
import { StaleRequestError, WeighBatcher } from '../../server/model/batcher.js';
import type { NgramWeights } from '../../server/model/runtime.js';

/** A model whose answer for a text is recognisable (weight = text length) and which records each call. */
function countingModel(fail?: (texts: string[]) => boolean) {
  const calls: string[][] = [];
  return {
    calls,
    async weigh(texts: string[]): Promise<NgramWeights[]> {
      calls.push([...texts]);
      await new Promise((r) => setTimeout(r, 1));
      if (fail?.(texts)) throw new Error('boom');
      return texts.map((t) => ({ query: t, ngrams: [{ kind: 'unigram' as const, terms: [t], surface: t, start: 0, end: t.length, weight: t.length }] }));
    },
  };
}

describe('WeighBatcher', () => {
  it('sends requests made in the same tick as one call and maps each answer back', async () => {
    const model = countingModel();
    const batcher = new WeighBatcher(model);
    const texts = ['a', 'bb', 'ccc', 'dddd'];
    const answers = await Promise.all(texts.map((t) => batcher.weigh(t)));
    expect(model.calls).toEqual([texts]);
    expect(answers.map((w) => [w.query, w.ngrams[0]!.weight])).toEqual(texts.map((t) => [t, t.length]));
    expect(batcher.stats()).toEqual({ batches: 1, queries: 4, dropped: 0, joined: 0 });
  });

  it('cuts batches at maxBatch and weighs a text asked for twice once', async () => {
    const model = countingModel();
    const batcher = new WeighBatcher(model, { maxBatch: 3 });
    const texts = ['a', 'b', 'a', 'c', 'd', 'e', 'f', 'g'];
    const answers = await Promise.all(texts.map((t) => batcher.weigh(t)));
    expect(model.calls).toEqual([
      ['a', 'b', 'c'],
      ['d', 'e', 'f'],
      ['g'],
    ]);
    expect(answers.map((w) => w.query)).toEqual(texts);
  });

  it('drops stale requests before inference and keeps the fresh ones of the same text', async () => {
    const model = countingModel();
    const batcher = new WeighBatcher(model);
    let version = 1;
    const asked = 1;
    const stale = () => version !== asked;
    const dropped = batcher.weigh('old query', stale);
    const shared = batcher.weigh('shared', stale);
    const sharedFresh = batcher.weigh('shared');
    version = 2; // an edit arrives before the batch leaves
    await expect(dropped).rejects.toBeInstanceOf(StaleRequestError);
    await expect(shared).rejects.toBeInstanceOf(StaleRequestError);
    expect((await sharedFresh).query).toBe('shared');
    expect(model.calls).toEqual([['shared']]);
    expect(batcher.stats()).toEqual({ batches: 1, queries: 1, dropped: 2, joined: 0 });
  });

  it('makes no model call when every request is stale', async () => {
    const model = countingModel();
    const batcher = new WeighBatcher(model);
    const requests = ['x', 'y'].map((t) => batcher.weigh(t, () => true));
    for (const r of requests) await expect(r).rejects.toBeInstanceOf(StaleRequestError);
    expect(model.calls).toEqual([]);
  });

  it('fails only the requests of a failed call', async () => {
    const model = countingModel((texts) => texts.includes('bad'));
    const batcher = new WeighBatcher(model, { maxBatch: 2 });
    const [a, bad, c] = [batcher.weigh('a'), batcher.weigh('bad'), batcher.weigh('c')];
    await expect(a).rejects.toThrow('boom');
    await expect(bad).rejects.toThrow('boom');
    expect((await c).query).toBe('c');
  });
  it('joins a request to the running model call for the same text instead of running again', async () => {
    const model = countingModel();
    const batcher = new WeighBatcher(model, { maxBatch: 1 });
    const first = batcher.weigh('laminar flow'); // maxBatch 1: the call leaves at once
    const second = batcher.weigh('laminar flow');
    expect((await second).query).toBe('laminar flow');
    expect(await first).toBe(await second);
    expect(model.calls).toEqual([['laminar flow']]);
    expect(batcher.stats().joined).toBe(1);
    // Once answered, the text is not in flight any more: a later request is a new call (callers cache answers).
    await batcher.weigh('laminar flow');
    expect(model.calls.length).toBe(2);
  });
});
