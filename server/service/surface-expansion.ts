/**
 * The learned surface-form expansion for both front ends (issue 15): `querylens expand --method learned`,
 * `search --expand learned` and the evaluation. It reads postings and stored text for its candidates, which
 * only a local index has; another backend is refused with NotLocalIndexError.
 */
import type { QueryAst } from '../../grammar/ast.js';
import { hasErrors } from '../../grammar/diagnostics.js';
import { parseIndri, parseLucene } from '../../grammar/index.js';
import type { SearchHit, SearchOptions } from '../engine/search.js';
import { learnedExpansion, type LearnedExpansion } from '../model/surface-expansion.js';
export { whyNoAlternative } from '../model/surface-expansion.js';
import type { SurfaceModel } from '../model/surface-model.js';
import type { SurfaceResources } from '../model/surface-resources.js';
import { LocalIndexBackend, type LocalBackend } from './backend.js';
import { rankQuery, type FeedbackOptions } from './ranking.js';
import { NotLocalIndexError } from './workbench.js';

export interface LearnedExpansionTools {
  model: SurfaceModel;
  resources: SurfaceResources;
}

/** The query with the model's suggestions in it (model/surface-expansion.ts learnedExpansion). */
export async function expandLearned(backend: LocalBackend, ast: QueryAst, text: string, tools: LearnedExpansionTools): Promise<LearnedExpansion> {
  if (!(backend instanceof LocalIndexBackend)) throw new NotLocalIndexError();
  return learnedExpansion(backend.reader, ast, text, tools.model, tools.resources.lexiconFor(backend.reader));
}

/**
 * Reads the lexical resources for this index now (WordNet's tables, the word vectors of the index's words:
 * a second or more), so that an editor pays it while loading, not on the first suggestion it shows. Returns
 * what could not be loaded, with its fix.
 */
export function prepareLearnedExpansion(backend: LocalBackend, tools: LearnedExpansionTools): readonly { message: string }[] {
  if (!(backend instanceof LocalIndexBackend)) throw new NotLocalIndexError();
  const lexicon = tools.resources.lexiconFor(backend.reader);
  lexicon.synonyms?.('word', ['text']);
  return tools.resources.problems;
}

/**
 * The learned expansion of a query a front end wrote itself (the editor's TW-BERT query, to combine the two),
 * given as text of `dialect` and parsed here, so the front end parses nothing. A text with syntax errors is
 * refused: the expansion is spliced into the text at its words' places.
 */
export async function expandLearnedText(backend: LocalBackend, text: string, dialect: 'indri' | 'lucene', tools: LearnedExpansionTools): Promise<LearnedExpansion> {
  const parsed = dialect === 'lucene' ? parseLucene(text) : parseIndri(text);
  if (hasErrors(parsed.diagnostics)) throw new SyntaxError(`the query to expand has syntax errors: ${parsed.diagnostics.find((d) => d.severity === 'error')!.message}`);
  return expandLearned(backend, parsed.ast, text, tools);
}

export interface LearnedRun {
  hits: SearchHit[];
  expansion: LearnedExpansion;
  /** The query ranked last: the learned expansion, or, with `bo1`, that query expanded by Bo1. */
  finalAst: QueryAst;
}

/**
 * Ranks a query with its learned expansion; with `bo1`, the expanded query is then expanded by Bo1 from its
 * own first pass (rankQuery), so the two combine as a user combines them in the editor: accept the learned
 * suggestions, then add Bo1's terms.
 */
export async function rankLearned(
  backend: LocalBackend,
  ast: QueryAst,
  text: string,
  tools: LearnedExpansionTools,
  search: SearchOptions,
  bo1?: FeedbackOptions,
): Promise<LearnedRun> {
  const expansion = await expandLearned(backend, ast, text, tools);
  const run = rankQuery(backend, expansion.ast, { ...search, expand: bo1 });
  return { hits: run.hits, expansion, finalAst: run.expansion?.ast ?? expansion.ast };
}
