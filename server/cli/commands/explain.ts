/**
 * `querylens explain --index DIR --query "…" --doc ID`: why one document scores what it does
 * (or why the query does not retrieve it), as an indented formula tree or JSON.
 */
import type { Command } from 'commander';
import type { Dialect } from '../../../grammar/ast.js';
import { CliError } from '../errors.js';
import { addScorerOptions, checkFieldParameters, checkParameters, openBackendForCli, toSearchOptions, type ScorerCliOptions } from './search-options.js';

interface ExplainCliOptions extends ScorerCliOptions {
  query: string;
  dialect: string;
  doc: string;
  json?: boolean;
  recover?: boolean;
}

export function registerExplain(program: Command): void {
  const cmd = program.command('explain').description("Explain one document's score for a query: every formula with its numbers");
  addScorerOptions(cmd)
    .requiredOption('--query <text>', 'the query')
    .option('--dialect <dialect>', 'indri, lucene or text', 'indri')
    .requiredOption('--doc <docno>', 'the document (its docno)')
    .option('--json', 'print the explanation tree as JSON')
    .option('--recover', 'explain a query with syntax errors as the parser recovered it (by default it is refused)')
    .action(async (opts: ExplainCliOptions) => {
      const dialects = ['indri', 'lucene', 'text'];
      if (!dialects.includes(opts.dialect)) throw new CliError(`unknown dialect '${opts.dialect}' (expected ${dialects.join(', ')})`);
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
