/**
 * setConfigValues (server/lsp/config-edit.ts), which `sweep --apply` and `querylens/sweep` use to
 * write a setting into querylens.json: only the set values change, everything else (other keys,
 * order, layout, line endings) stays byte for byte; what cannot be kept is refused with the place.
 */
import { applyEdits } from 'jsonc-parser';
import { describe, expect, it } from 'vitest';
import { ConfigEditRefused, setConfigValues, type ConfigValue } from '../../server/lsp/config-edit.js';

const BEST: ConfigValue[] = [
  { path: ['scorer', 'name'], value: 'bm25' },
  { path: ['scorer', 'k1'], value: 0.9 },
  { path: ['scorer', 'b'], value: 0.4 },
];

describe('setConfigValues', () => {
  it('changes the values in place and keeps every other byte', () => {
    const text = '{\n    "corpus": "c.jsonl",\n    "scorer": { "name": "bm25", "k1": 1.2, "b": 0.75 },\n    "index": ".index"\n}\n';
    const { text: next, edits } = setConfigValues(text, BEST);
    expect(next).toBe('{\n    "corpus": "c.jsonl",\n    "scorer": { "name": "bm25", "k1": 0.9, "b": 0.4 },\n    "index": ".index"\n}\n');
    expect(applyEdits(text, edits)).toBe(next);
  });

  it('adds a missing section with the file\'s indentation and line endings', () => {
    const text = '{\r\n\t"index": "idx",\r\n\t"qrels": "q.txt"\r\n}';
    const { text: next } = setConfigValues(text, [...BEST, { path: ['expansion', 'method'], value: 'bo1' }]);
    expect(next.startsWith('{\r\n\t"index": "idx",\r\n\t"qrels": "q.txt",')).toBe(true);
    expect(next).not.toMatch(/[^\r]\n/);
    expect(JSON.parse(next)).toEqual({ index: 'idx', qrels: 'q.txt', scorer: { name: 'bm25', k1: 0.9, b: 0.4 }, expansion: { method: 'bo1' } });
  });

  it('writes an object into an empty file', () => {
    expect(JSON.parse(setConfigValues('  \n', BEST).text)).toEqual({ scorer: { name: 'bm25', k1: 0.9, b: 0.4 } });
  });

  it.each([
    ['a comment', '{\n  // mine\n  "index": "idx"\n}', /not plain JSON at 2:3: a comment/],
    ['a trailing comma', '{ "index": "idx", }', /not plain JSON at 1:/],
    ['broken JSON', '{ "index": ', /not plain JSON/],
    ['an array', '[1]', /does not hold a JSON object/],
    ['a key written twice', '{ "scorer": {}, "scorer": {} }', /1:17: "scorer" is written twice in the file/],
    ['a key written twice in the section', '{ "scorer": { "k1": 1, "k1": 2 } }', /"k1" is written twice in "scorer"/],
    ['a section that is not an object', '{ "scorer": "bm25" }', /1:13: "scorer" holds a string, not an object/],
  ])('refuses %s', (_what, text, message) => {
    expect(() => setConfigValues(text, BEST)).toThrow(ConfigEditRefused);
    expect(() => setConfigValues(text, BEST)).toThrow(message);
  });
});
