/**
 * The learned surface-form expansion in the CLI (issue 15 §4): `querylens expand --method learned` prints,
 * per query, each word's suggestions (weight and source) as `//` comment lines and the query with them in it
 * (`#wsyn` or `#weight(1 w x alt)` groups in Indri, the form the model was trained for; `(w OR alt^x)` in Lucene;
 * a plain topic as Indri); `querylens search --expand learned` ranks those queries. Both load the model from --model-dir (default model/artifacts) and read the
 * word vectors and WordNet there and in /usr/share/wordnet; a missing resource is said once on stderr.
 */
import { CliError } from '../errors.js';
import { writeOutputFile } from '../output-file.js';
import { WarningPrinter } from '../warning-summary.js';
import { formatDiagnostic, loadSource, type SourceCliOptions } from './check.js';
import { checkFieldParameters, checkParameters, openBackendForCli, toSearchOptions, type ScorerCliOptions } from './search-options.js';

export interface LearnedCliOptions extends SourceCliOptions {
  index?: string;
  modelDir?: string;
  device?: string;
  json?: boolean;
}

async function loadTools(modelDir: string | undefined, device: string | undefined) {
  const { defaultModelDir } = await import('../../model/runtime.js');
  const { loadSurfaceModel } = await import('../../model/surface-model.js');
  const { SurfaceResources } = await import('../../model/surface-resources.js');
  const dir = modelDir ?? defaultModelDir();
  const d = device ?? 'auto';
  if (d !== 'auto' && d !== 'cpu' && d !== 'cuda') throw new CliError(`unknown --device '${d}' (expected auto, cpu or cuda)`);
  const loaded = await loadSurfaceModel(dir, { device: d });
  if (!loaded.ok) throw new CliError(loaded.error.message);
  for (const notice of loaded.model.notices) console.error(`querylens: ${notice}`);
  return { model: loaded.model, resources: new SurfaceResources({ modelDir: dir }) };
}

function reportProblems(resources: { problems: readonly { message: string }[] }): void {
  for (const p of resources.problems) console.error(`querylens: warning: ${p.message}`);
}

/** `querylens expand --method learned FILE`. */
export async function expandLearnedForCli(file: string, opts: LearnedCliOptions): Promise<void> {
  const source = loadSource(file, opts);
  const backend = await openBackendForCli(opts.index);
  const { sourceDiagnostics } = await import('../../../grammar/index.js');
  const { hasErrors } = await import('../../../grammar/diagnostics.js');
  const { expandLearned, whyNoAlternative } = await import('../../service/surface-expansion.js');
  const errors = sourceDiagnostics(source).filter((d) => d.severity === 'error');
  if (errors.length) {
    process.stderr.write(errors.map((d) => formatDiagnostic(file, d)).join('\n') + '\n');
    process.exitCode = 1;
  }
  const tools = await loadTools(opts.modelDir, opts.device);
  const out: string[] = [];
  const json: unknown[] = [];
  try {
    for (const entry of source.entries) {
      if (hasErrors(entry.result.diagnostics)) continue;
      const x = await expandLearned(backend, entry.result.ast, entry.text, tools);
      if (opts.json) {
        json.push({ qid: entry.qid, query: entry.text, suggestions: x.suggestions, expanded: x.text, dialect: x.dialect });
        continue;
      }
      out.push(`// ${entry.qid}: ${entry.text.replace(/\s+/g, ' ').trim()}`);
      for (const w of x.suggestions) {
        if (!w.alternatives.length) continue;
        out.push(`//   ${w.word}: ${w.alternatives.map((a) => `${a.word} ${Number(a.weight.toPrecision(2))} (${a.sources.join('+')})`).join(', ')}`);
      }
      // Say why rather than print the query back as if nothing had been asked (the shipped model rarely suggests: MODEL_CARD.md).
      if (!x.suggestions.some((w) => w.alternatives.length)) out.push(`//   no learned alternative: ${whyNoAlternative(x, tools.model.config.minWeight, tools.resources.problems.map((p) => p.message))}`);
      out.push(`${entry.qid}\t${x.text.replace(/\s*[\r\n]+\s*/g, ' ')}`);
    }
  } finally {
    await tools.model.release();
  }
  reportProblems(tools.resources);
  if (opts.json) console.log(JSON.stringify(json, null, 2));
  else if (out.length) process.stdout.write(out.join('\n') + '\n');
}

/** `querylens search --expand learned FILE`: each query ranked with its learned expansion. */
export async function searchLearnedForCli(
  file: string,
  opts: LearnedCliOptions & ScorerCliOptions & { runId: string; queriesOut?: string; quiet?: boolean; recover?: boolean },
  k: number,
): Promise<void> {
  const options = toSearchOptions(opts);
  await checkParameters(options);
  const source = loadSource(file, opts);
  const backend = await openBackendForCli(opts.index);
  checkFieldParameters(backend.fields(), options);
  const { formatRunLines } = await import('../../engine/search.js');
  const { sourceDiagnostics, entryDiagnosticsInFile } = await import('../../../grammar/sources/index.js');
  const { hasErrors } = await import('../../../grammar/diagnostics.js');
  const { rankLearned } = await import('../../service/surface-expansion.js');
  const printer = new WarningPrinter(opts.quiet === true);
  const problems = sourceDiagnostics(source);
  printer.add(file, source.text, problems);
  if (problems.some((d) => d.severity === 'error')) process.exitCode = 1;
  const tools = await loadTools(opts.modelDir, opts.device);
  const queryLines: string[] = [];
  try {
    for (const entry of source.entries) {
      if (!opts.recover && hasErrors(entry.result.diagnostics)) {
        process.stderr.write(`querylens: query ${entry.qid} has syntax errors and is not ranked (rank the recovered query with --recover)\n`);
        process.exitCode = 1;
        continue;
      }
      const r = await rankLearned(backend, entry.result.ast, entry.text, tools, { ...options, k });
      printer.add(file, source.text, entryDiagnosticsInFile(source, entry, backend.compile(entry.result.ast, options).warnings));
      if (opts.queriesOut) queryLines.push(`${entry.qid}\t${r.expansion.text.replace(/\s*[\r\n]+\s*/g, ' ')}`);
      const lines = formatRunLines(entry.qid, r.hits, opts.runId);
      if (lines && !process.stdout.write(lines)) await new Promise((res) => process.stdout.once('drain', res));
    }
  } finally {
    await tools.model.release();
    printer.flush();
  }
  reportProblems(tools.resources);
  if (opts.queriesOut) writeOutputFile(opts.queriesOut, `// queries ranked by querylens search (expand learned)\n${queryLines.join('\n')}\n`);
}
