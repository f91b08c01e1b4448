/**
 * The custom requests' types are a contract with clients: this test fails whenever
 * server/lsp/engine/protocol.ts changes without docs/LSP_EXTENSIONS.md being updated (the doc
 * records the file's SHA-256 and shows its declarations).
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  BUILD_INDEX_REQUEST,
  COMPARE_REQUEST,
  EXPLAIN_REQUEST,
  PREVIEW_REQUEST,
  RUN_FILE_REQUEST,
  SHOW_RESULTS_COMMAND,
  WEIGH_FILE_REQUEST,
} from '../../../server/lsp/engine/protocol.js';
import { REPO } from '../harness.js';

const protocol = readFileSync(join(REPO, 'server/lsp/engine/protocol.ts'), 'utf8').replace(/\r\n/g, '\n');
const doc = readFileSync(join(REPO, 'docs/LSP_EXTENSIONS.md'), 'utf8').replace(/\r\n/g, '\n');

describe('custom request types', () => {
  it('match the hash recorded in docs/LSP_EXTENSIONS.md', () => {
    const recorded = /protocol\.ts sha256: `([0-9a-f]{64})`/.exec(doc)?.[1];
    expect(recorded, 'docs/LSP_EXTENSIONS.md must record "protocol.ts sha256: `<hex>`"').toBeDefined();
    const actual = createHash('sha256').update(protocol).digest('hex');
    expect(actual, 'protocol.ts changed: update docs/LSP_EXTENSIONS.md (types and hash)').toBe(recorded);
  });

  it('are shown in the documentation as declared', () => {
    for (const declaration of protocol.match(/^export (?:interface|type) \w+[^]*?^}$|^export type [^\n]+;$/gm) ?? []) {
      expect(doc).toContain(declaration);
    }
  });

  it('name the documented methods and command', () => {
    const names = [PREVIEW_REQUEST, EXPLAIN_REQUEST, COMPARE_REQUEST, RUN_FILE_REQUEST, WEIGH_FILE_REQUEST, BUILD_INDEX_REQUEST, SHOW_RESULTS_COMMAND];
    expect(names).toEqual([
      'querylens/preview',
      'querylens/explain',
      'querylens/compare',
      'querylens/runFile',
      'querylens/weighFile',
      'querylens/buildIndex',
      'querylens.showResults',
    ]);
    for (const name of names) expect(doc).toContain(`\`${name}\``);
  });
});
