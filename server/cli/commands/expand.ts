/**
 * `querylens expand --index DIR QUERYFILE`: pseudo-relevance feedback for every query of a
 * file. Each query is run (BM25 for Bo1, query likelihood for RM3, unless --scorer says
 * otherwise), its top documents feed the expansion, and the output is itself an Indri
 * query file: the chosen terms as `//` comment lines, then `qid<TAB>expanded query`.
 *
 * With `--backend-config FILE` Bo1 runs on the cluster, as the editor's Bo1 action does
 * (server/service/cluster-session.ts `expansion`): the cluster's top fbDocs are the feedback documents,
 * every statistic comes from the cluster, and the expanded query is the one the cluster ranks
 * (the user's words for the original terms, the cluster's terms for the added ones). RM3 and the
 * learned expansion have no cluster path and are refused with the reason.
 */
import type { Command } from 'commander';
import type { QueryNode, WeightedItem } from '../../../grammar/ast.js';
import { isScorerName, SCORER_NAMES } from '../../engine/scoring/scorers.js';
import { CliError } from '../errors.js';
import { BACKEND_CONFIG_HELP } from '../cluster.js';
import { addSourceOptions, formatDiagnostic, loadSource, type SourceCliOptions } from './check.js';

interface ExpandCliOptions extends SourceCliOptions {
  index?: string;
  backendConfig?: string;
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
    .option('--index <dir>', 'index folder built by `querylens index` (or --backend-config)')
    .option('--backend-config <file>', `${BACKEND_CONFIG_HELP}; bo1 only`)
    .option('--method <name>', 'bo1 (Terrier), rm3 (Indri relevance model) or learned (surface forms of the corpus weighed by a model: #wsyn or #weight groups in Indri, as the model was trained)', 'bo1')
    .option('--fb-docs <n>', 'feedback documents (default 3 for bo1, 10 for rm3)')
    .option('--fb-terms <n>', 'expansion terms (default 10; bo1 with 0 only reweights the query terms)')
    .option('--orig-weight <w>', 'rm3: weight of the original query, fbOrigWeight (default 0.5)')
    .option('--scorer <name>', `first-pass scorer: ${SCORER_NAMES.join(', ')} (default bm25 for bo1, ql for rm3)`)
    .option('--json', 'print JSON instead of the query file')
    .option('--model-dir <dir>', 'learned: folder with surface.json, surface.onnx and surface-embeddings.bin (default: model/artifacts)')
    .option('--device <device>', 'learned: model device, auto, cpu or cuda (default auto)');
  addSourceOptions(cmd).action(async (file: string, opts: ExpandCliOptions) => {
    const method = opts.method;
    if (opts.backendConfig !== undefined) return expandOnClusterForCli(file, { ...opts, backendConfig: opts.backendConfig });
    if (opts.index === undefined) throw new CliError('required option --index <dir> not specified (or --backend-config <file> for a cluster)');
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
      reader = openLocalBackend(opts.index!);
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
      out.push(...termLines(result.terms));
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

/** The table of an expansion's terms as `//` lines (weight, tfx in the feedback documents, dfx), best first. */
function termLines(terms: readonly { term: string; weight: number; tfx: number; dfx: number; isOriginal: boolean }[]): string[] {
  if (!terms.length) return [];
  const width = Math.max(4, ...terms.map((t) => t.term.length));
  return [
    `//   ${'term'.padEnd(width)}  ${'weight'.padStart(8)}  ${'tfx'.padStart(5)}  ${'dfx'.padStart(3)}`,
    ...terms.map((t) => `//   ${t.term.padEnd(width)}  ${t.weight.toFixed(4).padStart(8)}  ${String(t.tfx).padStart(5)}  ${String(t.dfx).padStart(3)}${t.isOriginal ? '  (query term)' : ''}`),
  ];
}

/** `expand --backend-config`: Bo1 of every query on the cluster (the editor's ClusterSession.expansion). */
async function expandOnClusterForCli(file: string, opts: ExpandCliOptions & { backendConfig: string }): Promise<void> {
  if (opts.method === 'rm3' || opts.method === 'learned') {
    const why =
      opts.method === 'rm3'
        ? 'on a cluster querylens expands with bo1 only (RM3 needs every feedback document\'s language model and the collection\'s, which querylens reads from a local index)'
        : "the learned expansion reads the index's vocabulary and stored text, which only a local index has";
    throw new CliError(`--method ${opts.method} cannot be used with --backend-config: ${why}; use --method bo1`);
  }
  if (opts.method !== 'bo1') throw new CliError(`unknown --method '${opts.method}': use bo1 (on a cluster)`);
  const { refuseLocalOptions, openClusterForCli, onCluster } = await import('../cluster.js');
  refuseLocalOptions({ '--index': opts.index, '--orig-weight': opts.origWeight, '--model-dir': opts.modelDir, '--device': opts.device });
  const scorer = opts.scorer ?? 'bm25';
  if (!isScorerName(scorer)) throw new CliError(`unknown --scorer '${scorer}' (expected ${SCORER_NAMES.join(', ')})`);
  const fbTerms = positiveInteger('--fb-terms', opts.fbTerms, true);
  const { printIndri, sourceDiagnostics } = await import('../../../grammar/index.js');
  const { hasErrors } = await import('../../../grammar/diagnostics.js');
  const { clusterExpandedQuery } = await import('../../backends/remote/cluster-expansion.js');
  const source = loadSource(file, opts);
  const params = source.parameters;
  const fbDocs = positiveInteger('--fb-docs', opts.fbDocs) ?? params?.fbDocs ?? 3;
  const parameters = { fbDocs, fbTerms: fbTerms ?? params?.fbTerms ?? 10 };
  const errors = sourceDiagnostics(source).filter((d) => d.severity === 'error');
  if (errors.length) {
    process.stderr.write(errors.map((d) => formatDiagnostic(file, d)).join('\n') + '\n');
    process.exitCode = 1;
  }
  const session = await openClusterForCli(opts.backendConfig, { scorer, ...parameters });
  const out: string[] = [];
  const json: unknown[] = [];
  await onCluster(session, async (cluster) => {
    for (const entry of source.entries) {
      if (hasErrors(entry.result.diagnostics) || !entry.result.ast.root) continue;
      if (entry.extra?.feedbackDocnos?.length) console.error(`querylens: warning: query ${entry.qid}: <feedbackDocno> is not used on a cluster; the cluster's top ${fbDocs} are the feedback documents`);
      const ast = entry.result.ast;
      const expansion = await cluster.expansion(entry.dialect, entry.text, ast, parameters);
      const expandedAst = clusterExpandedQuery(expansion, ast);
      for (const item of weightedItems(expandedAst.root)) item.weight = roundWeight(item.weight!);
      const expanded = expandedAst.root ? printIndri(expandedAst) : '';
      if (opts.json) {
        json.push({ qid: entry.qid, query: entry.text, feedbackDocnos: expansion.feedbackDocnos, terms: expansion.terms, expanded, backend: cluster.backend.location, scope: expansion.scope });
        continue;
      }
      out.push(`// ${entry.qid}: ${entry.text.replace(/\s+/g, ' ').trim()}`);
      out.push(`// bo1 on ${cluster.backend.location}, the cluster's first pass, feedback: ${expansion.feedbackDocnos.join(' ') || '(no documents retrieved)'}`);
      out.push(...termLines(expansion.terms));
      out.push(`${entry.qid}\t${expanded.replace(/\s*[\r\n]+\s*/g, ' ')}`);
    }
  }, { probe: true });
  if ((session.summary?.shards ?? 1) > 1) {
    console.error(`querylens: note: the term statistics are one shard's (_termvectors; the index has ${session.summary!.shards} shards)`);
  }
  if (opts.json) console.log(JSON.stringify(json, null, 2));
  else if (out.length) process.stdout.write(out.join('\n') + '\n');
}
