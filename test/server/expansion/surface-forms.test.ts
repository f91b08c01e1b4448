/**
 * Words for index terms (server/engine/expansion/surface-forms.ts): the most frequent word of the
 * documents' stored text that the analyser turns into the term, checked to analyse back to it.
 */
import { describe, expect, it } from 'vitest';
import { surfaceForms, representativeWord } from '../../../server/engine/expansion/surface-forms.js';
import { buildMemoryIndex } from '../../../server/engine/index/memory.js';

const reader = buildMemoryIndex([
  { docno: 'a', fields: { title: 'Supersonic flows', text: 'supersonic flow over wings; the flows were supersonic' } },
  { docno: 'b', fields: { title: 'Recovery', text: 'pressure recovery and recoveries of a wing; they agreed' } },
]);

describe('surface forms', () => {
  it('gives each stem its most frequent word, lowercased, that analyses back to it', () => {
    const forms = surfaceForms(reader, [0, 1], ['superson', 'flow', 'recoveri', 'wing']);
    expect(Object.fromEntries(forms)).toEqual({
      superson: { text: 'supersonic', raw: false },
      // "flows" twice (title and text), "flow" once.
      flow: { text: 'flows', raw: false },
      // "recovery" and "recoveries" once each: the shorter.
      recoveri: { text: 'recovery', raw: false },
      wing: { text: 'wing', raw: false },
    });
  });

  it('writes a stem with no word in the documents as itself, raw when the analyser would change it', () => {
    // Not in document 0: "recoveri" analyses to itself, so it is written as it is; Porter turns
    // "agre" (from "agreed") into "agr", so it can only be matched unstemmed.
    const forms = surfaceForms(reader, [0], ['recoveri', 'agre', 'wing']);
    expect(forms.get('recoveri')).toEqual({ text: 'recoveri', raw: false });
    expect(forms.get('agre')).toEqual({ text: 'agre', raw: true });
    expect(forms.get('wing')).toEqual({ text: 'wings', raw: false });
    // In document 1 it has its word.
    expect(surfaceForms(reader, [1], ['agre']).get('agre')).toEqual({ text: 'agreed', raw: false });
  });

  it('reads a term\'s first documents for completion', () => {
    expect(representativeWord(reader, 'superson')).toEqual({ text: 'supersonic', raw: false });
    expect(representativeWord(reader, 'zzz')).toEqual({ text: 'zzz', raw: false });
  });
});
