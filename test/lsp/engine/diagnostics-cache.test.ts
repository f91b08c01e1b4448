/**
 * Engine diagnostics are cached across edits (engine-diagnostics.ts: per query text, placed per
 * line, and per ParseResult object for the incremental parser's unchanged queries). Differential
 * property: after any sequence of edits, the diagnostics of the incrementally parsed document
 * with the warm caches equal those of a fresh parse of the same text checked by a fresh session.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { parseQueryFile } from '../../../grammar/index.js';
import { openLocalBackend } from '../../../server/service/backend.js';
import { resolveConfig } from '../../../server/lsp/config.js';
import { parseQueryFileIncremental, type ParseMemo, type QueryDocument } from '../../../server/lsp/documents.js';
import { engineDiagnostics } from '../../../server/lsp/engine/engine-diagnostics.js';
import { EngineSession } from '../../../server/lsp/engine/session.js';
import { makeWorkspace, type Workspace } from './fixture.js';

/** Queries with stopwords, unknown terms, unknown fields, capped wildcards, errors; some multi-line-free duplicates. */
const QUERY = fc.constantFrom(
  '#combine( the flow over a plate )',
  '#combine( zebra heat )',
  '#weight( 0.5 flow.abstract 0.5 #1(of the) )',
  '#combine( zz* flow )',
  '#combine( boundary layer',
  '#uw8( heat the conduction ) qwertz',
  '#any:person flow',
);
const LINE = fc.oneof(
  fc.tuple(fc.integer({ min: 1, max: 6 }), QUERY).map(([qid, q]) => `${qid}\t${q}`),
  QUERY.map((q) => `  ${q}`),
  QUERY,
  fc.constantFrom('', '// comment', '\t'),
);
const EDIT = fc.oneof(
  fc.record({ kind: fc.constant('set' as const), at: fc.nat(), line: LINE }),
  fc.record({ kind: fc.constant('insert' as const), at: fc.nat(), line: LINE }),
  fc.record({ kind: fc.constant('delete' as const), at: fc.nat(), line: fc.constant('') }),
);

let ws: Workspace;
const session = () => new EngineSession(openLocalBackend(ws.index, { reuseCompiledQueries: true }), resolveConfig({}, null), null, ws.index);
beforeAll(async () => {
  ws = await makeWorkspace();
});
afterAll(() => ws.dispose());

function document(text: string, version: number, source: QueryDocument['source']): QueryDocument {
  const uri = 'file:///tmp/cache.indri';
  return { uri, dialect: 'indri', version, document: TextDocument.create(uri, 'indri', version, text), source };
}

describe('engine diagnostics across edits', () => {
  it('equal a fresh check of the edited text', () => {
    fc.assert(
      fc.property(fc.array(LINE, { minLength: 1, maxLength: 12 }), fc.array(EDIT, { maxLength: 12 }), (initial, edits) => {
        const warm = session();
        let lines = [...initial];
        let memo: ParseMemo | undefined;
        for (let v = 0; v <= edits.length; v++) {
          if (v > 0) {
            const e = edits[v - 1]!;
            const at = e.at % (lines.length + 1);
            if (e.kind === 'set' && at < lines.length) lines[at] = e.line;
            else if (e.kind === 'insert') lines.splice(at, 0, e.line);
            else if (e.kind === 'delete' && at < lines.length) lines.splice(at, 1);
            lines = [...lines];
          }
          const text = lines.join('\n');
          const parsed = parseQueryFileIncremental(text, 'indri', 'cache.indri', memo);
          memo = parsed.memo;
          const incremental = engineDiagnostics(warm, document(text, v, parsed.source));
          const fresh = engineDiagnostics(session(), document(text, v, parseQueryFile(text, 'indri', 'cache.indri')));
          expect(incremental).toEqual(fresh);
        }
      }),
      { numRuns: 150 },
    );
  });
});
