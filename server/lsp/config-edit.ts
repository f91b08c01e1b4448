/**
 * Setting values in the text of a `querylens.json` without disturbing anything else in it: the
 * other keys, their order, the layout and the line endings stay byte for byte as written, only the
 * set values change (jsonc-parser's `modify` computes the smallest edits). What cannot be kept is
 * refused with the reason, never rewritten: text that is not plain JSON (comments, trailing commas,
 * syntax errors, which the configuration reader rejects too), a key written twice, or a section
 * that holds something other than an object. The result is parsed again and compared with the
 * original, so an edit that would change any other value is refused as well.
 */
import { applyEdits, modify, parseTree, printParseErrorCode, type Edit, type Node, type ParseError } from 'jsonc-parser';
import type { SweepSetting } from '../engine/sweep.js';

/** One value to write: `["scorer", "k1"]` → 0.9. */
export interface ConfigValue {
  path: [string] | [string, string];
  value: string | number;
}

/** The file's contents cannot be kept as they are if the values are written: nothing is written. */
/** The querylens.json values of a sweep's setting (what `sweep --apply` and `querylens/sweep`'s configEdit write). */
export function sweepSettingValues(s: SweepSetting): ConfigValue[] {
  const values: ConfigValue[] = [{ path: ['scorer', 'name'], value: s.scorer }];
  if (s.scorer === 'bm25') values.push({ path: ['scorer', 'k1'], value: s.k1! }, { path: ['scorer', 'b'], value: s.b! });
  else values.push({ path: ['scorer', 'mu'], value: s.mu! });
  if (s.bo1) values.push({ path: ['expansion', 'method'], value: 'bo1' }, { path: ['expansion', 'fbDocs'], value: s.bo1.fbDocs }, { path: ['expansion', 'fbTerms'], value: s.bo1.fbTerms });
  return values;
}

export class ConfigEditRefused extends Error {}

/** 1-based line and column of a UTF-16 offset. */
export function lineColumnAt(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let start = 0;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      start = i + 1;
    }
  }
  return { line, column: offset - start + 1 };
}

function describeError(text: string, e: ParseError): string {
  const at = lineColumnAt(text, e.offset);
  const what = printParseErrorCode(e.error);
  const hint = what === 'InvalidCommentToken' ? 'a comment, which querylens.json cannot hold' : what === 'PropertyNameExpected' || what === 'ValueExpected' ? `${what} (a trailing comma?)` : what;
  return `${at.line}:${at.column}: ${hint}`;
}

/** Refuses an object with a key written twice: which of the two a reader takes is not something to guess. */
function checkUniqueKeys(text: string, object: Node, where: string): void {
  const seen = new Set<string>();
  for (const property of object.children ?? []) {
    const key = property.children?.[0]?.value as string;
    if (seen.has(key)) {
      const at = lineColumnAt(text, property.offset);
      throw new ConfigEditRefused(`${at.line}:${at.column}: "${key}" is written twice in ${where}`);
    }
    seen.add(key);
  }
}

function propertyValue(object: Node, key: string): Node | undefined {
  const property = object.children?.find((p) => p.children?.[0]?.value === key);
  return property?.children?.[1];
}

/** The indentation and line ending the file already uses, so new lines look like the old ones. */
function formattingOf(text: string): { insertSpaces: boolean; tabSize: number; eol: string } {
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const indent = /\n([ \t]+)\S/.exec(text)?.[1];
  if (indent?.startsWith('\t')) return { insertSpaces: false, tabSize: 1, eol };
  return { insertSpaces: true, tabSize: indent ? indent.length : 2, eol };
}

function withValues(original: unknown, values: readonly ConfigValue[]): unknown {
  const copy = structuredClone(original) as Record<string, Record<string, unknown>>;
  for (const { path, value } of values) {
    if (path.length === 1) copy[path[0]] = value as never;
    else (copy[path[0]] ??= {})[path[1]] = value;
  }
  return copy;
}

function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null || Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  return ka.length === kb.length && ka.every((k) => Object.prototype.hasOwnProperty.call(b, k) && sameJson((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

/**
 * The edits that set `values` in `text` (a querylens.json), and the text they give. An empty or
 * blank file is treated as `{}`. Throws ConfigEditRefused (see the module comment).
 */
export function setConfigValues(text: string, values: readonly ConfigValue[]): { edits: Edit[]; text: string } {
  const base = text.trim() === '' ? '{}\n' : text;
  const errors: ParseError[] = [];
  const root = parseTree(base, errors, { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false });
  if (errors.length) throw new ConfigEditRefused(`not plain JSON at ${describeError(base, errors[0]!)}`);
  if (!root || root.type !== 'object') throw new ConfigEditRefused('the file does not hold a JSON object');
  checkUniqueKeys(base, root, 'the file');
  for (const { path } of values) {
    if (path.length === 1) continue;
    const section = propertyValue(root, path[0]);
    if (!section) continue;
    if (section.type !== 'object') {
      const at = lineColumnAt(base, section.offset);
      throw new ConfigEditRefused(`${at.line}:${at.column}: "${path[0]}" holds ${section.type === 'array' ? 'an array' : `a ${section.type}`}, not an object of settings`);
    }
    checkUniqueKeys(base, section, `"${path[0]}"`);
  }

  const formattingOptions = formattingOf(base);
  let next = base;
  for (const { path, value } of values) next = applyEdits(next, modify(next, path, value, { formattingOptions }));
  // Whatever the edits, no other value may change: checked on the parsed results.
  if (!sameJson(JSON.parse(next), withValues(JSON.parse(base), values))) throw new ConfigEditRefused('the edit would change other settings');
  // One replacement of the differing span: the smallest edit a client applies (workspace/applyEdit).
  let start = 0;
  while (start < text.length && start < next.length && text[start] === next[start]) start++;
  let endOld = text.length;
  let endNew = next.length;
  while (endOld > start && endNew > start && text[endOld - 1] === next[endNew - 1]) {
    endOld--;
    endNew--;
  }
  const edits: Edit[] = next === text ? [] : [{ offset: start, length: endOld - start, content: next.slice(start, endNew) }];
  return { edits, text: next };
}
