/**
 * The learned expansion's query forms (server/model/surface-query.ts): `#wsyn`/`#syn` groups or (the `terms`
 * form) `#weight(1 word w alt)` in Indri,
 * `(w OR alt^x)` in Lucene, a plain topic printed as Indri; the user's words and structure kept, real
 * words, 2 significant digits, and the text parses back to the groups it shows.
 */
import { describe, expect, it } from 'vitest';
import { parseIndri, parseLucene, parseText, type QueryAst } from '../../grammar/index.js';
import { createAnalyzer } from '../../server/engine/analysis/index.js';
import { expandableWords, surfaceExpandedText, type SurfaceAlternative } from '../../server/model/surface-query.js';

const analyzer = createAnalyzer('terrier');
const alts = (entries: Record<string, [string, number][]>) =>
  new Map(Object.entries(entries).map(([term, list]) => [term, list.map(([word, weight]): SurfaceAlternative => ({ word, raw: false, weight }))]));

function expand(ast: QueryAst, text: string, entries: Record<string, [string, number][]>) {
  return surfaceExpandedText(text, ast, alts(entries), analyzer);
}

describe('learned expansion query forms', () => {
  it('groups an Indri word in place with #wsyn, keeping fields, windows and the rest as written', () => {
    const text = '#combine( Cars engine.title #1(car park) #weight( 2 car ) )';
    const out = expand(parseIndri(text).ast, text, { car: [['automobile', 0.6312], ['truck', 0.00049]] });
    expect(out).toEqual({
      dialect: 'indri',
      text: '#combine( #wsyn(1 Cars 0.63 automobile) engine.title #1(car park) #weight( 2 #wsyn(1 car 0.63 automobile) ) )',
    });
    expect(parseIndri(out.text).diagnostics).toEqual([]);
  });

  it('writes #syn when every weight is 1, and leaves out weights under 0.01 (not suggested)', () => {
    const text = 'car engine';
    expect(expand(parseIndri(text).ast, text, { car: [['automobile', 1], ['wagon', 0.0123]] }).text).toBe('#wsyn(1 car 1 automobile 0.012 wagon) engine');
    expect(expand(parseIndri(text).ast, text, { car: [['automobile', 0.999], ['wagon', 0.0099]], engin: [['motor', 0.0000001]] }).text).toBe('#syn(car automobile) engine');
  });

  it('groups a Lucene word as (word OR alt^w), keeping occur flags, boosts and fields', () => {
    const text = '+car^2 title:engine -truck';
    const out = expand(parseLucene(text).ast, text, { car: [['automobile', 0.6], ['auto', 1]], truck: [['lorry', 0.5]], engin: [['motor', 0.5]] });
    expect(out).toEqual({ dialect: 'lucene', text: '+(car OR automobile^0.6 OR auto)^2 title:engine -truck' });
    expect(parseLucene(out.text).diagnostics).toEqual([]);
  });

  it('prints a plain-text topic as Indri with the groups in it', () => {
    const text = 'what similarity laws, for aircraft?';
    const out = expand(parseText(text).ast, text, { aircraft: [['airplanes', 0.456]] });
    expect(out.dialect).toBe('indri');
    expect(out.text).toBe('what similarity laws for #wsyn(1 aircraft 0.46 airplanes)');
    const back = parseIndri(out.text);
    expect(back.diagnostics).toEqual([]);
  });

  it("in the terms form, weighs each alternative as a term of its own beside the word: #weight(1 word w alt …)", () => {
    const text = '#combine( Cars engine.title #1(car park) )';
    const out = surfaceExpandedText(text, parseIndri(text).ast, alts({ car: [['automobile', 0.6312], ['auto', 1], ['truck', 0.00049]] }), analyzer, 2, 'terms');
    expect(out).toEqual({ dialect: 'indri', text: '#combine( #weight( 1 Cars 0.63 automobile 1 auto ) engine.title #1(car park) )' });
    expect(parseIndri(out.text).diagnostics).toEqual([]);
    const topic = 'what similarity laws, for aircraft?';
    expect(surfaceExpandedText(topic, parseText(topic).ast, alts({ aircraft: [['airplanes', 0.456]] }), analyzer, 2, 'terms').text).toBe('what similarity laws for #weight( 1 aircraft 0.46 airplanes )');
    // Lucene's (word OR alt^w) is separate terms already: the same in either form.
    const lucene = '+car^2 title:engine';
    expect(surfaceExpandedText(lucene, parseLucene(lucene).ast, alts({ car: [['automobile', 0.6]] }), analyzer, 2, 'terms').text).toBe('+(car OR automobile^0.6)^2 title:engine');
  });

  it('expands only plain whole-document words', () => {
    const text = '#combine( wing.title "wing" #od2(wing flow) #syn(wing blade) 42 Flow #filrej( lift drag ) #not( drag ) )';
    expect(expandableWords(parseIndri(text).ast, analyzer).map((w) => w.word)).toEqual(['flow', 'drag']);
  });
});
