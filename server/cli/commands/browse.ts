/**
 * The index browser on the command line (server/engine/index/browse.ts):
 * - `querylens terms [--top N] [--prefix p]`: the most frequent terms by document frequency;
 * - `querylens postings TERM`: a term's postings (docno, tf, positions), capped;
 * - `querylens doc DOCNO`: a document's stored fields, field extents and term vector;
 * - `querylens analyze "text"`: the analyser playground (tokens, stems, stopwords; df and cf with an index).
 * Each takes `--index DIR` (default: the "index" of the nearest querylens.json) and `--json`;
 * a missing index, term or document is one line saying so, with a non-zero exit.
 *
 * With `--backend-config FILE` each asks a cluster what it can answer, through the editor's functions
 * (server/service/cluster-browser.ts): `doc` and `analyze` on both cluster types (`get` and
 * `_termvectors`), `terms` where the cluster lists them (Elasticsearch's `_terms_enum`), and otherwise
 * the editor's explained refusal (`terms` on OpenSearch, `postings` on either) as one line.
 */
import type { Command } from 'commander';
import type { IndexReader } from '../../engine/index/reader.js';
import { CliError } from '../errors.js';
import { openIndexReader } from '../open-index.js';
import { countOption } from './search-options.js';
import { BACKEND_CONFIG_HELP } from '../cluster.js';
import type { ClusterSession } from '../../service/cluster-session.js';

interface IndexCliOptions {
  index?: string;
  json?: boolean;
  backendConfig?: string;
}

function withIndexOptions(cmd: Command): Command {
  return cmd
    .option('--index <dir>', 'index folder built by `querylens index` (default: the "index" of the nearest querylens.json, from the current folder upwards)')
    .option('--backend-config <file>', BACKEND_CONFIG_HELP)
    .option('--json', 'print JSON');
}

/**
 * `work` on the cluster of --backend-config (null without one): a refusal (what the cluster cannot answer)
 * and a cluster failure are one line each.
 */
async function onClusterOf<T>(opts: IndexCliOptions, work: (session: ClusterSession) => Promise<T>): Promise<{ value: T } | null> {
  if (opts.backendConfig === undefined) return null;
  if (opts.index !== undefined) throw new CliError('--index and --backend-config name two collections: choose one');
  const { openClusterForCli, onCluster } = await import('../cluster.js');
  const { ClusterRefusal } = await import('../../service/cluster-browser.js');
  const session = await openClusterForCli(opts.backendConfig);
  try {
    return { value: await onCluster(session, work) };
  } catch (err) {
    if (err instanceof ClusterRefusal) throw new CliError(err.message);
    throw err;
  }
}

/** The browse functions' argument errors as one-line CLI errors. */
async function browse<T>(fn: () => T): Promise<T> {
  const { BrowseError } = await import('../../engine/index/browse.js');
  try {
    return fn();
  } catch (err) {
    if (err instanceof BrowseError) throw new CliError(err.message);
    throw err;
  }
}

function table(header: string[], rows: string[][], rightAligned: boolean[]): string {
  const widths = header.map((h, c) => Math.max(h.length, ...rows.map((r) => r[c]!.length)));
  const line = (cells: string[]) => cells.map((cell, c) => (rightAligned[c] ? cell.padStart(widths[c]!) : cell.padEnd(widths[c]!))).join('  ').trimEnd();
  return [line(header), ...rows.map(line)].join('\n') + '\n';
}

/** The analysed form of what the user typed as one term (`--raw`: lowercased only, as an Indri "quoted" term). */
function analysedTerm(reader: IndexReader, text: string, raw: boolean): string {
  const terms = reader.analyzer.analyzeTerm(text, { raw });
  if (terms.length === 0) {
    throw new CliError(
      reader.analyzer.isStopword(text)
        ? `'${text}' is a stopword of the ${reader.profile} analyser: it is not indexed`
        : `'${text}' has no letters or digits: it is not a term`,
      1,
    );
  }
  if (terms.length > 1) throw new CliError(`'${text}' analyses to ${terms.length} terms (${terms.join(', ')}); give one`);
  return terms[0]!;
}

export function registerBrowse(program: Command): void {
  withIndexOptions(program.command('terms').description('The most frequent terms of an index, by document frequency'))
    .option('--top <n>', 'how many terms', '25')
    .option('--prefix <p>', 'only terms starting with p (analysed forms: lowercased, stemmed)')
    .action(async (opts: IndexCliOptions & { top: string; prefix?: string }) => {
      const top = countOption('--top', opts.top, false)!;
      const { clusterIndexTerms } = await import('../../service/cluster-browser.js');
      const listed = await onClusterOf(opts, (s) => clusterIndexTerms(s, top, opts.prefix));
      if (listed) {
        const result = listed.value;
        if (opts.json) return console.log(JSON.stringify(result, null, 2));
        if (result.terms.length) process.stdout.write(table(['term', 'df'], result.terms.map((t) => [t.term, String(t.df)]), [false, true]));
        else console.log(opts.prefix ? `no term starts with '${opts.prefix}'` : 'the index has no terms');
        return console.log(`note: ${result.note}`);
      }
      const reader = await openIndexReader(opts.index);
      const { topTermsByDf } = await import('../../engine/index/browse.js');
      const result = await browse(() => topTermsByDf(reader, { top, prefix: opts.prefix }));
      if (opts.json) return console.log(JSON.stringify({ numDocs: reader.stats().numDocs, ...result }, null, 2));
      if (result.terms.length === 0) return console.log(opts.prefix ? `no term starts with '${opts.prefix}'` : 'the index has no terms');
      process.stdout.write(table(['term', 'df', 'cf'], result.terms.map((t) => [t.term, String(t.df), String(t.cf)]), [false, true, true]));
      console.log(`${result.terms.length} of ${result.matching} term${result.matching === 1 ? '' : 's'}${opts.prefix ? ` starting with '${opts.prefix}'` : ''}; ${reader.stats().numDocs} documents`);
    });

  withIndexOptions(program.command('postings').description("A term's postings: documents, term frequencies, positions"))
    .argument('<term>', 'the term as a user would write it (analysed like a query term)')
    .option('--raw', 'do not stem the term (as an Indri "quoted" term)')
    .option('--max-docs <n>', 'documents listed', '20')
    .option('--max-positions <n>', 'positions listed per document', '10')
    .action(async (text: string, opts: IndexCliOptions & { raw?: boolean; maxDocs: string; maxPositions: string }) => {
      const maxDocs = countOption('--max-docs', opts.maxDocs, false)!;
      const maxPositions = countOption('--max-positions', opts.maxPositions, false)!;
      const { clusterPostings } = await import('../../service/cluster-browser.js');
      if (await onClusterOf(opts, (s) => clusterPostings(s, text))) return;
      const reader = await openIndexReader(opts.index);
      const term = analysedTerm(reader, text, opts.raw === true);
      const { termPostings } = await import('../../engine/index/browse.js');
      const result = await browse(() => termPostings(reader, term, { maxDocs, maxPositions }));
      if (!result) throw new CliError(`'${term}'${term !== text ? ` (from '${text}')` : ''} is not in the index`, 1);
      if (opts.json) return console.log(JSON.stringify(result, null, 2));
      console.log(`${result.term}${term !== text ? ` (from '${text}')` : ''}: df ${result.df}, cf ${result.cf}`);
      process.stdout.write(
        table(
          ['docno', 'tf', 'positions'],
          result.postings.map((p) => [p.docno, String(p.tf), p.positions.join(' ') + (p.positionsCut ? ' …' : '')]),
          [false, true, false],
        ),
      );
      if (result.cut) console.log(`… ${result.df - result.postings.length} more documents (--max-docs)`);
    });

  withIndexOptions(program.command('doc').description("A document's stored fields and term vector"))
    .argument('<docno>', 'the document id')
    .option('--max-terms <n>', 'terms of the vector listed, most frequent first', '50')
    .action(async (docno: string, opts: IndexCliOptions & { maxTerms: string }) => {
      const maxTerms = countOption('--max-terms', opts.maxTerms, false)!;
      const { clusterDocument } = await import('../../service/cluster-browser.js');
      const onCluster = await onClusterOf(opts, (s) => clusterDocument(s, docno, maxTerms));
      if (onCluster) {
        const view = onCluster.value;
        if (opts.json) return console.log(JSON.stringify(view, null, 2));
        console.log(`docno: ${view.docno}, ${view.length} indexed tokens, ${view.distinctTerms} distinct terms`);
        if (view.title) console.log(`title: ${view.title}`);
        for (const [name, value] of Object.entries(view.fields)) console.log(`${name}: ${value}`);
        console.log('');
        process.stdout.write(table(['term', 'field', 'tf', 'positions'], view.terms.map((t) => [t.term, t.field, String(t.tf), t.positions.join(' ')]), [false, false, true, false]));
        if (view.distinctTerms > view.terms.length) console.log(`… ${view.distinctTerms - view.terms.length} more terms (--max-terms)`);
        return console.log(`note: ${view.note}`);
      }
      const reader = await openIndexReader(opts.index);
      const { documentView } = await import('../../engine/index/browse.js');
      const view = await browse(() => documentView(reader, docno, { maxTerms }));
      if (!view) throw new CliError(`no document '${docno}' in the index`, 1);
      if (opts.json) return console.log(JSON.stringify(view, null, 2));
      console.log(`docno: ${view.docno} (document ${view.doc}), ${view.length} indexed tokens, ${view.distinctTerms} distinct terms`);
      if (view.title) console.log(`title: ${view.title}`);
      for (const [name, value] of Object.entries(view.fields)) console.log(`${name}: ${value}`);
      const extents = Object.entries(view.extents);
      if (extents.length) console.log(`fields: ${extents.map(([f, e]) => `${f} ${e.map(([b, x]) => `[${b}, ${x})`).join(' ')}`).join('; ')}`);
      console.log('');
      process.stdout.write(table(['term', 'tf', 'positions'], view.terms.map((t) => [t.term, String(t.tf), t.positions.join(' ')]), [false, true, false]));
      if (view.distinctTerms > view.terms.length) console.log(`… ${view.distinctTerms - view.terms.length} more terms (--max-terms)`);
    });

  program
    .command('analyze')
    .description('Show how the analyser reads a text: tokens, stems, stopwords (with --index, the terms\' df and cf)')
    .argument('<text>', 'the text')
    .option('--index <dir>', "an index: analyse with its profile and show each term's statistics in it")
    .option('--profile <name>', 'analyser profile without an index: terrier or lucene', 'terrier')
    .option('--backend-config <file>', `${BACKEND_CONFIG_HELP}; the text is analysed by the cluster, as its first search field analyses it`)
    .option('--json', 'print JSON')
    .action(async (text: string, opts: IndexCliOptions & { profile: string }) => {
      if (opts.backendConfig !== undefined && opts.profile !== 'terrier') throw new CliError('--profile cannot be used with --backend-config: the cluster analyses the text with its own analyser');
      const { clusterAnalyze } = await import('../../service/cluster-browser.js');
      const analysed = await onClusterOf(opts, (s) => clusterAnalyze(s, text));
      if (analysed) {
        const result = analysed.value;
        if (opts.json) return console.log(JSON.stringify(result, null, 2));
        if (result.words.length) process.stdout.write(table(['word', 'term', 'position', 'df', 'cf'], result.words.map((w) => [w.surface, w.term, String(w.position), String(w.df), String(w.cf)]), [false, false, true, true, true]));
        else console.log('no terms: the cluster\'s analyser drops every word of it');
        return console.log(`note: ${result.note}`);
      }
      const { analyzeForDisplay } = await import('../../engine/index/browse.js');
      const { createAnalyzer, isAnalyzerProfile } = await import('../../engine/analysis/index.js');
      let reader: IndexReader | undefined;
      if (opts.index !== undefined) {
        reader = await openIndexReader(opts.index);
        if (opts.profile !== 'terrier' && opts.profile !== reader.profile) throw new CliError(`--profile ${opts.profile}: the index was built with the ${reader.profile} profile, which its terms need`);
      } else if (!isAnalyzerProfile(opts.profile)) throw new CliError(`unknown --profile '${opts.profile}' (expected terrier or lucene)`);
      const analyzer = reader ? reader.analyzer : createAnalyzer(opts.profile as 'terrier' | 'lucene');
      const words = analyzeForDisplay(analyzer, text, reader);
      if (opts.json) return console.log(JSON.stringify({ profile: analyzer.profile, words }, null, 2));
      if (words.length === 0) return console.log('no tokens (a token is a run of letters or digits)');
      const header = ['word', 'term', 'position', ...(reader ? ['df', 'cf'] : [])];
      const rows = words.map((w) => [
        w.surface,
        w.term ?? '(stopword)',
        w.position === null ? '' : String(w.position),
        ...(reader ? [w.stopword ? '' : w.df === null ? 'not indexed' : String(w.df), w.stopword || w.cf === null ? '' : String(w.cf)] : []),
      ]);
      process.stdout.write(table(header, rows, [false, false, true, true, true]));
      const stopped = words.filter((w) => w.stopword).length;
      console.log(`${words.length} tokens, ${stopped} stopword${stopped === 1 ? '' : 's'} (${analyzer.profile} profile${reader ? '' : '; --index adds df and cf'})`);
    });
}
