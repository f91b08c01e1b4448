/**
 * Engine features through the real server over stdio, against an index built by the real
 * indexer from the hand-counted corpus in fixture.ts: hover statistics, vocabulary
 * completion, engine diagnostics, the result-preview code lens and the Bo1 action.
 */
import { CompletionItemKind, type CodeAction, type CodeLens, type CompletionItem, type Diagnostic, type Hover, type MarkupContent, type TextEdit } from 'vscode-languageserver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseQuery, walk } from '../../../grammar/index.js';
import { createAnalyzer } from '../../../server/engine/analysis/index.js';
import { applyEdits, freshUri, parseMarkers, positionAt, rangeOf, textOf, type TestClient } from '../harness.js';
import { makeWorkspace, startIn, terrierIdf, type Workspace } from './fixture.js';

const terrier = createAnalyzer('terrier');
let ws: Workspace;
let client: TestClient;
beforeAll(async () => {
  ws = await makeWorkspace();
  const started = await startIn(ws.root);
  client = started.client;
  expect(started.status.index.state).toBe('ready');
});
afterAll(async () => {
  await client?.stop();
  ws?.dispose();
});

async function hoverAt(languageId: string, input: string): Promise<string | null> {
  const { text, cursor } = parseMarkers(input);
  const uri = freshUri(languageId);
  client.open(uri, languageId, text);
  const hover = await client.request<Hover | null>('textDocument/hover', { textDocument: { uri }, position: positionAt(text, cursor!) });
  return hover ? (hover.contents as MarkupContent).value : null;
}

describe('hover statistics', () => {
  it('gives the analysed form, df, cf and the scorer idf of a term', async () => {
    const value = await hoverAt('indri', '1\t#combine( fl<|>ows boundary )');
    expect(value).toMatch(/\*\*flows\*\* → `flow` \(terrier analysis\)/);
    expect(value).toContain(`| whole document | 3 | 4 | ${terrierIdf(3).toFixed(3)} |`);
  });

  it('gives the effective weight after nested weights multiply (Terrier semantics)', async () => {
    const value = await hoverAt('indri', '1\t#weight( 0.5 #weight( 3.0 fl<|>ow 1.0 heat ) 1.0 plate )');
    expect(value).toMatch(/Effective weight \*\*1\.5\*\*/);
    // qtw = 1.5 / max(1.5, 0.5, 1.0)
    expect(value).toMatch(/qtw 1\.000 after dividing by the largest weight/);
    const heat = await hoverAt('indri', '1\t#weight( 0.5 #weight( 3.0 flow 1.0 he<|>at ) 1.0 plate )');
    expect(heat).toMatch(/Effective weight \*\*0\.5\*\*/);
    expect(heat).toContain('| whole document | 2 | 5 |');
  });

  it('gives the restricted statistics of a field-restricted term', async () => {
    const value = await hoverAt('indri', '1\t#combine( fl<|>ow.title )');
    expect(value).toContain('| whole document | 3 | 4 | — |');
    // "Flow" is in d1's title only.
    expect(value).toContain(`| in title | 1 | 1 | ${terrierIdf(1).toFixed(3)} |`);
  });

  it('gives the exact window df/cf of #1(…) over the operator and over its terms', async () => {
    const over = await hoverAt('indri', '1\t#combine( #<|>1(heat conduction) flow )');
    expect(over).toMatch(/\*\*#N\*\* \(window of 1\)/); // the grammar's section is kept
    expect(over).toMatch(/Concept `#1\(heat conduct\)` — exact window statistics/);
    expect(over).toContain(`| window | 1 | 2 | ${terrierIdf(1).toFixed(3)} |`);
    const inside = await hoverAt('indri', '1\t#combine( #1(heat cond<|>uction) flow )');
    expect(inside).toContain('| whole document | 1 | 2 | — |');
    expect(inside).toMatch(/Scored as part of `#1\(heat conduct\)`/);
  });

  it('gives window statistics of #uwN and of a Lucene phrase', async () => {
    const uw = await hoverAt('indri', '1\t#combine( #uw<|>2(layer boundary) )');
    // "boundary layer" adjacent in d1, d3 (title and text), d6
    expect(uw).toMatch(/Concept `#uw2\(layer boundari\)` — exact window statistics/);
    expect(uw).toContain('| window | 3 | 4 |');
    const phrase = await hoverAt('lucene', '1\t"boundary la<|>yer" flow');
    expect(phrase).toMatch(/Scored as part of `"boundari layer"`/);
  });

  it('says when a term is a stopword or not in the index', async () => {
    expect(await hoverAt('indri', '1\t#combine( t<|>he flow )')).toMatch(/\*\*the\*\* is a stopword for the terrier profile/);
    expect(await hoverAt('indri', '1\t#combine( zebr<|>as flow )')).toMatch(/`zebra` does not occur in the index/);
  });
});

describe('vocabulary completion', () => {
  async function complete(languageId: string, input: string): Promise<CompletionItem[]> {
    const { text, cursor } = parseMarkers(input);
    const uri = freshUri(languageId);
    client.open(uri, languageId, text);
    return client.request<CompletionItem[]>('textDocument/completion', { textDocument: { uri }, position: positionAt(text, cursor!) });
  }

  it('returns vocabulary terms of the prefix, most frequent first, replacing the prefix', async () => {
    const items = (await complete('indri', '1\t#combine( h<|> )')).filter((i) => i.detail?.startsWith('df'));
    // Words, not stems: `hyperson` is inserted as the word of the documents that it comes from.
    expect(items.map((i) => i.label)).toEqual(['heat', 'high', 'hypersonic']);
    expect(items.map((i) => (i.textEdit as TextEdit).newText)).toEqual(['heat', 'high', 'hypersonic']);
    expect(items[0]!.detail).toBe('df 2 · cf 5');
    expect(items[2]!.detail).toBe('df 1 · cf 1 · index term hyperson');
    expect((items[0]!.textEdit as TextEdit).range).toEqual({ start: { line: 0, character: 12 }, end: { line: 0, character: 13 } });
    const b = (await complete('indri', '1\t#combine( flow b<|> )')).filter((i) => i.detail?.startsWith('df')).map((i) => i.label);
    expect(b[0]).toBe('boundary');
    expect(b).toContain('bodies');
  });

  it('offers indexed field names after "term." and "field:" in Lucene', async () => {
    const fields = await complete('indri', '1\t#combine( flow.ti<|> )');
    expect(fields.filter((i) => i.kind === CompletionItemKind.Field).map((i) => i.label)).toEqual(['title']);
    const lucene = await complete('lucene', '1\tti<|>');
    expect(lucene.map((i) => i.label)).toContain('title:');
  });

  it('leaves operator names to the grammar completion', async () => {
    const items = await complete('indri', '1\t#wei<|>');
    expect(items.some((i) => i.detail?.startsWith('df'))).toBe(false);
  });
});

/** The engine's checks of the query itself (not the judged-query count, which depends on the ranking). */
const isQueryLint = (d: Diagnostic): boolean => String(d.code).startsWith('engine/') && d.code !== 'engine/unjudged-top-k';

describe('engine diagnostics', () => {
  async function diagnose(languageId: string, input: string): Promise<{ text: string; ranges: { start: number; end: number }[]; diagnostics: Diagnostic[] }> {
    const { text, ranges } = parseMarkers(input);
    const uri = freshUri(languageId);
    client.open(uri, languageId, text);
    const diagnostics = (await client.diagnosticsFor(uri)).filter(isQueryLint);
    return { text, ranges, diagnostics };
  }

  it('flags out-of-vocabulary terms and stopwords with exact ranges', async () => {
    const { text, ranges, diagnostics } = await diagnose('indri', '1\t#combine( flow <|zebra|> <|the|> #1(<|qwertz|> plate) )');
    expect(diagnostics.map((d) => [d.code, textOf(text, d.range)])).toEqual([
      ['engine/oov', 'zebra'],
      ['engine/stopword', 'the'],
      ['engine/oov', 'qwertz'],
    ]);
    expect(diagnostics.map((d) => d.range)).toEqual(ranges.map((r) => rangeOf(text, r)));
    expect(diagnostics[0]!.message).toMatch(/"zebra" \(analysed "zebra"\) does not occur in the index/);
    expect(diagnostics[0]!.data).toEqual({ term: 'zebra', analysed: ['zebra'] });
  });

  it('flags a field the index does not have, on the field name only', async () => {
    const indri = await diagnose('indri', '1\t#combine( flow.<|abstract|> plate.title )');
    expect(indri.diagnostics.map((d) => [d.code, textOf(indri.text, d.range)])).toEqual([['engine/unknown-field', 'abstract']]);
    expect(indri.diagnostics[0]!.message).toMatch(/indexed: title, text/);
    const any = await diagnose('indri', '1\t#combine( #any:<|person|> #filreq( #any(<|date|>) flow ) )');
    expect(any.diagnostics.map((d) => [d.code, textOf(any.text, d.range)])).toEqual([
      ['engine/unknown-field', 'person'],
      ['engine/unknown-field', 'date'],
    ]);
    const lucene = await diagnose('lucene', '1\t<|body|>:flow title:plate');
    expect(lucene.diagnostics.map((d) => [d.code, textOf(lucene.text, d.range)])).toEqual([['engine/unknown-field', 'body']]);
  });

  async function fixOf(languageId: string, text: string, code: string): Promise<{ title: string; after: string } | undefined> {
    const uri = freshUri(languageId);
    client.open(uri, languageId, text);
    const diagnostic = (await client.diagnosticsFor(uri)).find((d) => d.code === code);
    expect(diagnostic, `a ${code} diagnostic in ${text}`).toBeDefined();
    const actions = await client.request<CodeAction[]>('textDocument/codeAction', {
      textDocument: { uri },
      range: diagnostic!.range,
      context: { diagnostics: [diagnostic!], only: ['quickfix'] },
    });
    const fix = actions.find((a) => a.diagnostics?.[0]?.code === code);
    return fix ? { title: fix.title, after: applyEdits(text, fix.edit!.changes![uri]!) } : undefined;
  }

  it('suggests the closest indexed field and fixes the name', async () => {
    const { diagnostics } = await diagnose('indri', '1	#combine( flow.titel )');
    expect(diagnostics[0]!.message).toMatch(/no field "titel" .*; did you mean "title"\?$/);
    expect(await fixOf('indri', '1	#combine( flow.titel plate )', 'engine/unknown-field')).toEqual({ title: 'Change the field to "title"', after: '1	#combine( flow.title plate )' });
    expect((await fixOf('lucene', '1	txt:flow plate', 'engine/unknown-field'))?.after).toBe('1	text:flow plate');
    // Nothing near: no suggestion, no fix.
    expect(await fixOf('indri', '1	#combine( flow.abstract )', 'engine/unknown-field')).toBeUndefined();
  });

  it('drops a stopword with its weight or operator, leaving a valid query', async () => {
    const cases: [string, string, string][] = [
      ['indri', '1	#combine( the flow plate )', '1	#combine( flow plate )'],
      ['indri', '1	#combine( flow plate the )', '1	#combine( flow plate )'],
      ['indri', '1	#weight( 0.5 the 1.0 flow )', '1	#weight( 1.0 flow )'],
      ['indri', '1	the flow', '1	flow'],
      ['lucene', '1	flow +the^2 plate', '1	flow plate'],
      ['lucene', '1	flow the', '1	flow'],
    ];
    for (const [dialect, before, after] of cases) {
      const fix = await fixOf(dialect, before, 'engine/stopword');
      expect(fix, before).toEqual({ title: 'Remove the stopword "the"', after });
      expect(parseQuery(after.slice(2), dialect as 'indri' | 'lucene').diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    }
    // Where dropping it would change or break the query, no fix: the only item, a word of a window.
    expect(await fixOf('indri', '1	#combine( the )', 'engine/stopword')).toBeUndefined();
    expect(await fixOf('indri', '1	#combine( #1(flow of the plate) heat )', 'engine/stopword')).toBeUndefined();
    expect(await fixOf('lucene', '1	flow AND the', 'engine/stopword')).toBeUndefined();
  });

  it('flags a wildcard that expands past the cap', async () => {
    const { text, diagnostics } = await diagnose('indri', '1\t#combine( zz* flow* )');
    expect(diagnostics.map((d) => [d.code, textOf(text, d.range)])).toEqual([['engine/wildcard-cap', 'zz*']]);
  });

  it('says nothing about a clean query and follows edits', async () => {
    const uri = freshUri('indri');
    client.open(uri, 'indri', '1\t#combine( flow plate )');
    expect((await client.diagnosticsFor(uri)).filter(isQueryLint)).toEqual([]);
    client.change(uri, '1\t#combine( flow plates zebra )');
    expect((await client.diagnosticsFor(uri)).filter(isQueryLint).map((d) => d.code)).toEqual(['engine/oov']);
  });
});

describe('result-preview code lens', () => {
  it('shows results, nDCG@10 when judged, and the top title; the command opens the results panel', async () => {
    const text = ['1\t#combine( boundary layer flow )', '2\t#combine( heat conduction )', '9\t#combine( zebra )', '4\t#combine( broken '].join('\n');
    const uri = freshUri('indri');
    client.open(uri, 'indri', text);
    const lenses = await client.request<CodeLens[]>('textDocument/codeLens', { textDocument: { uri } });
    expect(lenses.map((l) => l.range.start.line)).toEqual([0, 1, 2]);
    // Topic 1 judges d1, d3, d6 (not d5); topic 2 judges d2 (not d5): the unjudged hits are counted.
    expect(lenses[0]!.command!.title).toMatch(/^▶ 4 results · nDCG@10 \d\.\d\d · 1 of the top 4 unjudged · top: Boundary layer transition$/);
    expect(lenses[1]!.command!.title).toMatch(/^▶ 2 results · nDCG@10 1\.00 · 1 of the top 2 unjudged · top: Heat conduction in slabs$/);
    // qid 9 is not judged: no metric; nothing matches: no top.
    expect(lenses[2]!.command!.title).toBe('▶ 0 results');
    expect(lenses[0]!.command!.command).toBe('querylens.showResults');
    expect(lenses[0]!.command!.arguments).toEqual(['1', uri]);
  });
});

describe('queries without a written id are never judged', () => {
  it('a line numbered 2 by its position gets no nDCG against topic 2; the same query with the written id 2 does', async () => {
    // Line 2 has no id: its implied id is 2, which topic 2 of the qrels judges.
    const text = ['// comment', '#combine( heat conduction )', '2\t#combine( heat conduction )'].join('\n');
    const uri = freshUri('indri');
    client.open(uri, 'indri', text);
    const lenses = await client.request<CodeLens[]>('textDocument/codeLens', { textDocument: { uri } });
    expect(lenses.map((l) => l.range.start.line)).toEqual([1, 2]);
    expect(lenses[0]!.command!.title).toMatch(/^▶ 2 results · top: Heat conduction in slabs$/);
    expect(lenses[1]!.command!.title).toMatch(/^▶ 2 results · nDCG@10 1\.00 · 1 of the top 2 unjudged · top: /);
  });
});

describe('Bo1 expansion action', () => {
  async function actionsAt(languageId: string, input: string): Promise<{ text: string; uri: string; actions: CodeAction[] }> {
    const { text, cursor } = parseMarkers(input);
    const uri = freshUri(languageId);
    client.open(uri, languageId, text);
    const position = positionAt(text, cursor!);
    const actions = await client.request<CodeAction[]>('textDocument/codeAction', {
      textDocument: { uri },
      range: { start: position, end: position },
      context: { diagnostics: [] },
    });
    return { text, uri, actions };
  }

  /** The analysed terms of a rewritten query, as the engine reads it. */
  function analysedTerms(query: string, dialect: 'indri' | 'lucene'): string[] {
    const parsed = parseQuery(query, dialect);
    expect(parsed.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    const out: string[] = [];
    walk(parsed.ast.root, (n) => void (n.kind === 'term' && out.push(...terrier.analyzeTerm(n.text, { raw: n.raw }))));
    return out.sort();
  }

  it('lists the words and weights in the title and rewrites an Indri query as #weight of words a person wrote', async () => {
    const { text, uri, actions } = await actionsAt('indri', '1\t#combine( Supersonic <|>flows )');
    const bo1 = actions.find((a) => a.title.startsWith('Add Bo1 expansion terms: '));
    expect(bo1, JSON.stringify(actions.map((a) => a.title))).toBeDefined();
    expect(bo1!.title).toMatch(/^Add Bo1 expansion terms: [a-z0-9]+ \d\.\d\d(, [a-z0-9]+ \d\.\d\d)*(, …)?$/);
    expect(bo1!.kind).toBe('refactor.rewrite.bo1');
    const query = applyEdits(text, bo1!.edit!.changes![uri]!).slice(2);
    expect(query).toMatch(/^#weight\( /);
    // The user's words as typed; each added stem as a word of the documents (boundari → boundary), never a quoted stem.
    expect(query).toMatch(/ Supersonic /);
    expect(query).toMatch(/ flows /);
    expect(query).toMatch(/ boundary /);
    expect(query).not.toContain('"');
    expect(bo1!.title).toContain('boundary ');
    // Weights with at most 3 significant digits.
    for (const w of query.match(/\d+(\.\d+)?/g)!) expect(w.replace(/^0\.0*|\./g, '').length, w).toBeLessThanOrEqual(3);
    // It is the expansion: the words analyse to exactly the expansion's terms.
    const terms = (bo1!.data as { terms: { term: string }[] }).terms.map((t) => t.term).sort();
    expect(terms).toContain('superson');
    expect(analysedTerms(query, 'indri')).toEqual(terms);
  });

  it('rewrites a Lucene query with t^w boosts, in words', async () => {
    const { text, uri, actions } = await actionsAt('lucene', '1\tsupersonic <|>flow');
    const bo1 = actions.find((a) => a.title.startsWith('Add Bo1 expansion terms: '))!;
    const query = applyEdits(text, bo1.edit!.changes![uri]!).slice(2);
    expect(query).toMatch(/\^\d/);
    expect(query).toMatch(/(^| )supersonic\^/);
    expect(query).toMatch(/ boundary\^/);
    const terms = (bo1.data as { terms: { term: string }[] }).terms.map((t) => t.term).sort();
    expect(analysedTerms(query, 'lucene')).toEqual(terms);
  });

  it('offers nothing on a query with syntax errors', async () => {
    const { actions } = await actionsAt('indri', '1\t#combine( bound<|>ary ');
    expect(actions.some((a) => a.title.startsWith('Add Bo1'))).toBe(false);
  });
});

describe('Bo1 rewrite layout', () => {
  let narrow: Workspace;
  let narrowClient: TestClient;
  beforeAll(async () => {
    narrow = await makeWorkspace({ config: { corpus: 'data/corpus.jsonl', index: 'idx', formatting: { width: 40 } } });
    narrowClient = (await startIn(narrow.root)).client;
  });
  afterAll(async () => {
    await narrowClient?.stop();
    narrow?.dispose();
  });

  async function rewrite(uri: string, text: string, line: number, character: number): Promise<string> {
    narrowClient.open(uri, 'indri', text);
    const actions = await narrowClient.request<CodeAction[]>('textDocument/codeAction', {
      textDocument: { uri },
      range: { start: { line, character }, end: { line, character } },
      context: { diagnostics: [] },
    });
    const bo1 = actions.find((a) => a.title.startsWith('Add Bo1 expansion terms: '));
    expect(bo1, JSON.stringify(actions.map((a) => a.title))).toBeDefined();
    return applyEdits(text, bo1!.edit!.changes![uri]!);
  }

  it('lays a query past the width out one item per line where the file allows it (an Indri parameter file)', async () => {
    const text = '<parameters>\n  <query>\n    <number>1</number>\n    <text>#combine( supersonic flow )</text>\n  </query>\n</parameters>\n';
    const after = await rewrite('untitled:bo1-layout-1.xml', text, 3, 22);
    const body = /<text>([\s\S]*)<\/text>/.exec(after)![1]!;
    expect(body.split('\n').length).toBeGreaterThan(3);
    expect(body).toMatch(/^#weight\(\n( {12}[0-9.]+ [a-z]+\n)+ {10}\)$/);
    expect(body).toMatch(/\n {12}[0-9.]+ supersonic\n/);
    // The formatter leaves it as it is: the rewrite is already in the canonical layout.
    narrowClient.change('untitled:bo1-layout-1.xml', after);
    const edits = await narrowClient.request<TextEdit[]>('textDocument/formatting', { textDocument: { uri: 'untitled:bo1-layout-1.xml' }, options: { tabSize: 2, insertSpaces: true } });
    expect(edits).toEqual([]);
  });

  it('keeps a one-query-per-line file one query per line', async () => {
    const after = await rewrite(freshUri('indri'), '1\t#combine( supersonic flow )\n2\theat\n', 0, 14);
    expect(after.split('\n')).toHaveLength(3);
    expect(after).toMatch(/^1\t#weight\( .* \)\n2\theat\n$/);
  });
});
