/**
 * `querylens expand --index DIR QUERYFILE`: pseudo-relevance feedback for every query of a
 * file. Each query is run (BM25 for Bo1, query likelihood for RM3, unless --scorer says
 * otherwise), its top documents feed the expansion, and the output is itself an Indri
 * query file: the chosen terms as `//` comment lines, then `qid<TAB>expanded query`.
 */
import type { Command } from 'commander';
import type { QueryNode, WeightedItem } from '../../../grammar/ast.js';
import { isScorerName, SCORER_NAMES } from '../../engine/scoring/scorers.js';
import { CliError } from '../errors.js';
import { addSourceOptions, formatDiagnostic, loadSource, type SourceCliOptions } from './check.js';

interface ExpandCliOptions extends SourceCliOptions {
  index: string;
  method: string;
  fbDocs?: string;
  fbTerms?: string;
  origWeight?: string;
  scorer?: string;
  json?: boolean;
  modelDir?: string;
  device?: string;
}

function positiveInteger(name: string, text: string | undefined, allowZero = false): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text);
  if (!/^\d+$/.test(text) || (!allowZero && n === 0)) throw new CliError(`${name} must be a ${allowZero ? 'non-negative' : 'positive'} integer, got '${text}'`);
  return n;
}

/** Shortest decimal that keeps 6 significant digits: the printed query stays readable. */
function roundWeight(w: number): number {
  return Number(w.toPrecision(6));
}

export function registerExpand(program: Command): void {
  const cmd = program
    .command('expand')
    .description('Expand each query of a file with Bo1 or RM3 pseudo-relevance feedback; prints the terms and the expanded Indri query')
    .argument('<queryfile>', 'query file (.indri, .lucene, .tsv, Indri parameters, TREC topics)')
    .requiredOption('--index <dir>', 'index folder built by `querylens index`')
    .option('--method <name>', 'bo1 (Terrier), rm3 (Indri relevance model) or learned (surface forms of the corpus weighed by a model: #wsyn groups)', 'bo1')
    .option('--fb-docs <n>', 'feedback documents (default 3 for bo1, 10 for rm3)')
    .option('--fb-terms <n>', 'expansion terms (default 10; bo1 with 0 only reweights the query terms)')
    .option('--orig-weight <w>', 'rm3: weight of the original query, fbOrigWeight (default 0.5)')
    .option('--scorer <name>', `first-pass scorer: ${SCORER_NAMES.join(', ')} (default bm25 for bo1, ql for rm3)`)
    .option('--json', 'print JSON instead of the query file')
    .option('--model-dir <dir>', 'learned: folder with surface.json, surface.onnx and surface-embeddings.bin (default: model/artifacts)')
    .option('--device <device>', 'learned: model device, auto, cpu or cuda (default auto)');
  addSourceOptions(cmd).action(async (file: string, opts: ExpandCliOptions) => {
    const method = opts.method;
    if (method === 'learned') return expandLearned(file, opts);
    if (method !== 'bo1' && method !== 'rm3') throw new CliError(`unknown --method '${method}': use bo1, rm3 or learned`);
    const fbTerms = positiveInteger('--fb-terms', opts.fbTerms, true);
    let originalWeight: number | undefined;
    if (opts.origWeight !== undefined) {
      originalWeight = Number(opts.origWeight);
      if (!(originalWeight >= 0 && originalWeight <= 1) || opts.origWeight.trim() === '') {
        throw new CliError(`--orig-weight must be a number in [0, 1], got '${opts.origWeight}'`);
      }
    }
    const { DEFAULT_FEEDBACK_DOCS } = await import('../../engine/expansion/index.js');
    const { expandWithFeedback } = await import('../../service/ranking.js');
    const scorer = opts.scorer ?? (method === 'bo1' ? 'bm25' : 'ql');
    if (!isScorerName(scorer)) throw new CliError(`unknown --scorer '${scorer}' (expected ${SCORER_NAMES.join(', ')})`);
    const { openLocalBackend, IndexError } = await import('../../service/backend.js');
    const { printIndri, sourceDiagnostics } = await import('../../../grammar/index.js');

    const source = loadSource(file, opts);
    // An Indri parameter file's <fbDocs>/<fbTerms>/<fbOrigWeight> apply unless the command line says otherwise (SEMANTICS.md §1.7).
    const params = source.parameters;
    const fbDocs = positiveInteger('--fb-docs', opts.fbDocs) ?? params?.fbDocs ?? DEFAULT_FEEDBACK_DOCS[method];
    const fbTermsUsed = fbTerms ?? params?.fbTerms;
    const originalWeightUsed = originalWeight ?? params?.fbOrigWeight;
    let reader;
    try {
      reader = openLocalBackend(opts.index);
    } catch (err) {
      if (err instanceof IndexError) throw new CliError(err.message);
      throw err;
    }

    const errors = sourceDiagnostics(source).filter((d) => d.severity === 'error');
    if (errors.length) {
      process.stderr.write(errors.map((d) => formatDiagnostic(file, d)).join('\n') + '\n');
      process.exitCode = 1;
    }

    const out: string[] = [];
    const json: unknown[] = [];
    for (const entry of source.entries) {
      // Indri <feedbackDocno>: the user names the feedback documents; no first pass.
      let namedDocs: number[] | undefined;
      const named = entry.extra?.feedbackDocnos ?? [];
      if (named.length) {
        namedDocs = [];
        for (const docno of named) {
          const doc = reader.docByDocno(docno);
          if (doc === undefined) console.error(`querylens: warning: query ${entry.qid}: feedbackDocno ${docno} is not in the index`);
          else namedDocs.push(doc);
        }
      }
      const search = { scorer };
      const result = expandWithFeedback(reader, entry.result.ast, { method, fbDocs, fbTerms: fbTermsUsed, originalWeight: originalWeightUsed }, search, namedDocs);
      const feedback = namedDocs ?? result.feedbackDocs;
      for (const walkItem of weightedItems(result.ast.root)) walkItem.weight = roundWeight(walkItem.weight!);
      const expanded = result.ast.root ? printIndri(result.ast) : '';
      if (opts.json) {
        json.push({
          qid: entry.qid,
          query: entry.text,
          feedbackDocnos: feedback.map((d) => reader.docno(d)),
          terms: result.terms,
          expanded,
        });
        continue;
      }
      out.push(`// ${entry.qid}: ${entry.text.replace(/\s+/g, ' ').trim()}`);
      const how = named.length ? 'named feedback documents' : `${scorer} first pass`;
      out.push(`// ${method}, ${how}, feedback: ${feedback.map((d) => reader.docno(d)).join(' ') || '(no documents retrieved)'}`);
      if (result.terms.length) {
        const width = Math.max(4, ...result.terms.map((t) => t.term.length));
        out.push(`//   ${'term'.padEnd(width)}  ${'weight'.padStart(8)}  ${'tfx'.padStart(5)}  ${'dfx'.padStart(3)}`);
        for (const t of result.terms) {
          out.push(
            `//   ${t.term.padEnd(width)}  ${t.weight.toFixed(4).padStart(8)}  ${String(t.tfx).padStart(5)}  ${String(t.dfx).padStart(3)}${t.isOriginal ? '  (query term)' : ''}`,
          );
        }
      }
      out.push(`${entry.qid}\t${expanded.replace(/\s*[\r\n]+\s*/g, ' ')}`);
    }
    if (opts.json) console.log(JSON.stringify(json, null, 2));
    else if (out.length) process.stdout.write(out.join('\n') + '\n');
  });
}

/** `--method learned` (learned-expansion.ts); the feedback options belong to bo1 and rm3. */
async function expandLearned(file: string, opts: ExpandCliOptions): Promise<void> {
  const clash = Object.entries({ '--fb-docs': opts.fbDocs, '--fb-terms': opts.fbTerms, '--orig-weight': opts.origWeight, '--scorer': opts.scorer }).filter(([, v]) => v !== undefined);
  if (clash.length) throw new CliError(`${clash.map(([n]) => n).join(', ')} cannot be used with --method learned`);
  const { expandLearnedForCli } = await import('./learned-expansion.js');
  await expandLearnedForCli(file, opts);
}

/** The weighted items of the #weight nodes expansion built (for rounding before printing). */
function weightedItems(root: QueryNode | null): WeightedItem[] {
  const items: WeightedItem[] = [];
  const visit = (node: QueryNode | null): void => {
    if (!node) return;
    if (node.kind === 'belief' && node.op === 'weight' && node.range.start === 0 && node.range.end === 0) {
      for (const item of node.items) {
        if (item.weight !== undefined) items.push(item);
        visit(item.node);
      }
    } else if (node.kind === 'filter') {
      visit(node.scored);
    }
  };
  visit(root);
  return items;
}
