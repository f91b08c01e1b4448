/** Which query file a whole-file command acts on when a panel, not the query file, has the focus. */
import { describe, expect, it } from 'vitest';
import { chooseQueryEditor } from '../../client/src/query-editors.ts';

const editor = (languageId: string, name: string) => ({ document: { languageId }, name });
const indri = editor('indri', 'a.indri');
const lucene = editor('lucene', 'b.lucene');
const json = editor('json', 'querylens.json');

describe('chooseQueryEditor', () => {
  it.each([
    ['the active query editor', indri, [indri, lucene], lucene, indri],
    ['a panel has the focus: the query file last active, still visible', undefined, [indri, lucene], lucene, lucene],
    ['another kind of file is active: the last query file', json, [json, indri], indri, indri],
    ['the last query file was closed: the one visible query file', undefined, [lucene, json], indri, lucene],
    ['nothing remembered: the one visible query file', undefined, [json, indri], undefined, indri],
    ['two visible, none remembered: none (the user picks by clicking)', undefined, [indri, lucene], undefined, undefined],
    ['no query file visible', json, [json], undefined, undefined],
  ] as const)('%s', (_, active, visible, last, expected) => {
    expect(chooseQueryEditor(active, visible as readonly { document: { languageId: string } }[], last)).toBe(expected);
  });
});
