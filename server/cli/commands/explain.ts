/**
 * `querylens explain --index DIR --query "…" --doc ID`: why one document scores what it does
 * (or why the query does not retrieve it), as an indented formula tree or JSON.
 *
 * With `--backend-config FILE` the cluster explains it (`_explain`, through the editor's
 * explainOnCluster, server/service/cluster-session.ts): the same tree, the document's rank in the
 * cluster's top 1000, the translation's approximations as warnings, and a note when the scores are
 * per-shard ones (perShardNote: several shards without dfs_query_then_fetch, or term statistics in the
 * explanation that differ between shards).
 */
import type { Command } from 'commander';
import type { Dialect } from '../../../grammar/ast.js';
import { CliError } from '../errors.js';
import { BACKEND_CONFIG_HELP } from '../cluster.js';
import { addScorerOptions, checkFieldParameters, checkParameters, openBackendForCli, toSearchOptions, type ScorerCliOptions } from './search-options.js';

interface ExplainCliOptions extends ScorerCliOptions {
  query: string;
  dialect: string;
  doc: string;
  json?: boolean;
  recover?: boolean;
  backendConfig?: string;
}

export function registerExplain(program: Command): void {
  const cmd = program.command('explain').description("Explain one document's score for a query: every formula with its numbers");
  addScorerOptions(cmd)
    .requiredOption('--query <text>', 'the query')
    .option('--dialect <dialect>', 'indri, lucene or text', 'indri')
    .requiredOption('--doc <docno>', 'the document (its docno)')
    .option('--json', 'print the explanation tree as JSON')
    .option('--recover', 'explain a query with syntax errors as the parser recovered it (by default it is refused)')
    .option('--backend-config <file>', BACKEND_CONFIG_HELP)
    .action(async (opts: ExplainCliOptions) => {
      const dialects = ['indri', 'lucene', 'text'];
      if (!dialects.includes(opts.dialect)) throw new CliError(`unknown dialect '${opts.dialect}' (expected ${dialects.join(', ')})`);
      if (opts.backendConfig !== undefined) return explainOnClusterForCli({ ...opts, backendConfig: opts.backendConfig });
      const options = toSearchOptions(opts);
      await checkParameters(options);
      const backend = await openBackendForCli(opts.index);
      checkFieldParameters(backend.fields(), options);
      const doc = backend.docByDocno(opts.doc);
      if (doc === undefined) throw new CliError(`no document '${opts.doc}' in ${opts.index ?? 'the index of querylens.json'}`);
      const { parseQuery } = await import('../../../grammar/sources/parse-query.js');
      const { renderExplain } = await import('../../engine/search.js');
      const { explainDocument } = await import('../../service/explain.js');
      const parsed = parseQuery(opts.query, opts.dialect as Dialect);
      for (const d of parsed.diagnostics) process.stderr.write(`query:${d.range.start + 1}: ${d.severity} ${d.code} ${d.message}\n`);
      if (!opts.recover && parsed.diagnostics.some((d) => d.severity === 'error')) {
        throw new CliError('the query has syntax errors (above); fix it, or explain the recovered query with --recover');
      }
      // Where the document would rank among all matching ones (answers "why is it not in my top k?").
      const explained = explainDocument(backend, parsed.ast, doc, options);
      for (const d of explained.warnings) process.stderr.write(`query:${d.range.start + 1}: ${d.severity} ${d.code} ${d.message}\n`);
      const tree = explained.explanation;
      const rank = tree.matched ? explained.rank : null;
      const matching = tree.matched ? explained.matchingDocs : 0;
      if (opts.json) {
        console.log(JSON.stringify({ docno: opts.doc, doc, scorer: explained.parameters, rank, matchingDocs: matching, explanation: tree }, null, 2));
        return;
      }
      console.log(`${opts.doc}: ${tree.matched ? `rank ${rank} of ${matching} matching documents, score ${tree.value}` : 'not retrieved by this query'}`);
      console.log(renderExplain(tree));
    });
}

/** `explain --backend-config`: the cluster's `_explain` of the document, printed as the local explanation is. */
async function explainOnClusterForCli(opts: ExplainCliOptions & { backendConfig: string }): Promise<void> {
  const { refuseLocalOptions, localScorerOptions, openClusterForCli, onCluster, noteSimilarity } = await import('../cluster.js');
  refuseLocalOptions(localScorerOptions(opts));

  const { isScorerName, SCORER_NAMES } = await import('../../engine/scoring/scorers.js');
  if (!isScorerName(opts.scorer)) throw new CliError(`unknown --scorer '${opts.scorer}' (expected ${SCORER_NAMES.join(', ')})`);
  const { parseQuery } = await import('../../../grammar/sources/parse-query.js');
  const { renderExplain } = await import('../../engine/search.js');
  const { explainOnCluster, perShardNote, CLUSTER_DEPTH } = await import('../../service/cluster-session.js');
  const parsed = parseQuery(opts.query, opts.dialect as Dialect);
  for (const d of parsed.diagnostics) process.stderr.write(`query:${d.range.start + 1}: ${d.severity} ${d.code} ${d.message}\n`);
  if (!opts.recover && parsed.diagnostics.some((d) => d.severity === 'error')) {
    throw new CliError('the query has syntax errors (above); fix it, or explain the recovered query with --recover');
  }
  const session = await openClusterForCli(opts.backendConfig, { scorer: opts.scorer });
  const query = { dialect: opts.dialect, text: opts.query, ast: parsed.ast };
  const explained = await onCluster(
    session,
    async (s) => {
      await noteSimilarity(s);
      return explainOnCluster(s, query, opts.doc);
    },
    { probe: true },
  );
  const { diagnostics, ...tree } = explained.explanation;
  for (const d of diagnostics) process.stderr.write(`query:${d.range.start + 1}: ${d.severity} ${d.code} ${d.message}\n`);
  const note = perShardNote(session, opts.dialect, opts.query);
  if (opts.json) {
    const { location } = session.backend;
    console.log(JSON.stringify({ docno: opts.doc, title: explained.title, backend: location, scorer: opts.scorer, rank: explained.rank, matchingDocs: explained.matchedDocs, explanation: tree, note }, null, 2));
    return;
  }
  const how = !tree.matched
    ? 'not retrieved by this query'
    : explained.rank !== null
      ? `rank ${explained.rank} of ${explained.matchedDocs} matching documents, score ${tree.value}`
      : `not in the top ${CLUSTER_DEPTH} of ${explained.matchedDocs} matching documents, score ${tree.value}`;
  console.log(`${opts.doc}: ${how} (${session.backend.location})`);
  console.log(renderExplain(tree));
  if (note) console.log(`note: ${note}`);
}
