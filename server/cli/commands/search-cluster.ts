/**
 * `querylens search --backend-config FILE QUERYFILE`: ranks every query of the file on an OpenSearch or
 * Elasticsearch cluster (server/backends/remote) and prints a TREC run, like `search --index`. The
 * cluster scores the documents, so the scorer's parameters and model weights do not apply; `--expand bo1`
 * expands each query from its top fbDocs on the cluster with statistics from the cluster
 * (cluster-expansion.ts, as the editor's Bo1 action) and ranks the expanded query there;
 * each construct the cluster evaluates differently is a warning at its place in the query file, and
 * every cluster failure is one line (ClusterError's message) with exit status 2. When the index's similarity
 * (its settings) differs from the one `--scorer` writes the queries for (BM25's k1 and b, Dirichlet's mu), a note says so.
 */
import type { ScorerName } from '../../engine/scoring/scorers.js';
import type { ClusterBackendOptions } from '../../backends/remote/cluster-backend.js';
import { CliError } from '../errors.js';
import { WarningPrinter } from '../warning-summary.js';
import { loadSource, type SourceCliOptions } from './check.js';

export interface ClusterSearchCliOptions extends SourceCliOptions {
  /** A backend configuration file, or a querylens.json with a `backend` section. */
  backendConfig: string;
  k: number;
  runId: string;
  scorer: ScorerName;
  recover?: boolean;
  quiet?: boolean;
  /** Bo1 on the cluster before the final ranking. */
  expand?: { fbDocs: number; fbTerms: number };
}

/** Ranks the query file on the configured cluster, writing run lines to `out` as each query is answered. */
export async function searchOnCluster(file: string, opts: ClusterSearchCliOptions, backendOptions?: ClusterBackendOptions, out: NodeJS.WritableStream = process.stdout): Promise<void> {
  const { sourceDiagnostics, entryDiagnosticsInFile } = await import('../../../grammar/sources/index.js');
  const { hasErrors } = await import('../../../grammar/diagnostics.js');
  const { openClusterForCli, onCluster, noteSimilarity } = await import('../cluster.js');

  const source = loadSource(file, opts);
  const session = await openClusterForCli(opts.backendConfig, { scorer: opts.scorer }, backendOptions);
  const printer = new WarningPrinter(opts.quiet === true);
  const problems = sourceDiagnostics(source);
  printer.add(file, source.text, problems);
  if (problems.some((d) => d.severity === 'error')) process.exitCode = 1;
  try {
    await onCluster(session, async ({ backend }) => {
      await noteSimilarity(session);
      const toRank = opts.recover ? source.entries : source.entries.filter((e) => !hasErrors(e.result.diagnostics));
      const skipped = source.entries.length - toRank.length;
      if (skipped) {
        process.stderr.write(`querylens: ${skipped} quer${skipped === 1 ? 'y' : 'ies'} with syntax errors not ranked; fix them, or rank the recovered queries with --recover\n`);
        process.exitCode = 1;
      }
      const { ClusterSearchBackend } = await import('../../service/cluster-search-backend.js');
      const { rankWithFeedback } = await import('../../service/search-backend.js');
      const cluster = new ClusterSearchBackend(backend);
      for (const entry of toRank) {
        const { ranking: result } = await rankWithFeedback(cluster, entry.result.ast, {
          k: opts.k,
          scorer: opts.scorer,
          describe: 0,
          expand: opts.expand ? { method: 'bo1', ...opts.expand } : undefined,
        });
        // The warnings are the written query's (the expanded one has no place in the file).
        printer.add(file, source.text, entryDiagnosticsInFile(source, entry, result.diagnostics));
        let lines = '';
        result.hits.forEach((h, i) => {
          // A TREC run separates its columns by white space: such an _id cannot be written.
          if (/\s/.test(h.docno) || h.docno === '') throw new CliError(`query ${entry.qid}: the cluster returned the document id ${JSON.stringify(h.docno)}, which a TREC run cannot hold (no spaces)`);
          lines += `${entry.qid} Q0 ${h.docno} ${i + 1} ${h.score} ${opts.runId}\n`;
        });
        if (lines && !out.write(lines)) await new Promise((res) => out.once('drain', res));
      }
    });
  } finally {
    printer.flush();
  }
}
