/**
 * Messages in the user's words.
 *
 * `indriErrorMessageProvider` replaces Chevrotain's defaults ("Expecting --> ')' <-- but
 * found ...", token type names, token sequences) with short sentences built from token
 * labels and from what a rule means ("a term or an operator"). index.ts refines some of
 * them further once it knows the enclosing operator (missing ")" to close #combine ...).
 */
import { EOF, tokenLabel, type IParserErrorMessageProvider, type IToken, type TokenType } from 'chevrotain';
import { closestName } from '../closest.js';
import type { DiagnosticDataByCode, QueryDiagnostic } from '../diagnostics.js';
import { Dot, INDRI_OPERATORS, Term } from './tokens.js';

/** Rules where a TERM token names something (a field, a prior). */
const NAMED_WORD_RULES = new Set(['fieldName', 'priorOp', 'anyOp', 'restriction', 'contextItem', 'pathStep']);

/** What each rule expects, when Chevrotain cannot say which token was missing. */
const RULE_EXPECTS: Record<string, string> = {
  query: 'a term or an operator',
  scored: 'a term or an operator',
  termExpr: 'a term or an extent operator',
  quotedAtom: 'a single term inside "..."',
  negativeNumber: 'a number after "-"',
  unweightedOp: 'at least one item',
  weightedOp: 'at least one weight and item',
  weightedItem: 'a weight and an item',
  wsynOp: 'at least one weight and term',
  wsynItem: 'a weight and a term',
  weight: 'a weight (a number such as 0.5)',
  windowOp: 'at least one term',
  bandOp: 'at least one term',
  synonymOp: 'at least one term',
  restriction: 'a field name, passageN:M or ./path',
  fieldList: 'a field name',
  fieldName: 'a field name',
  contextList: 'a field name',
  contextItem: 'a field name or ./path',
  path: 'a path such as /field',
  pathStep: 'a path step: /field, //field or \\field',
  anyOp: 'a field name (#any:field or #any(field))',
  compareOp: 'a whole number',
  intValue: 'a whole number',
  dateOp: 'a date',
  date: 'a date (MM/DD/YYYY, DD-MON-YYYY, DD month YYYY or Month DD YYYY)',
  wildcardOp: 'a term',
  priorOp: 'a prior name',
  filterOp: 'a term or an operator',
  unknownOp: 'a term or an operator',
};

const MAX_SHOWN = 40;

/** How a token appears in a message: `"#combine"`, `the end of the query`. */
export function describeToken(token: IToken | undefined): string {
  if (!token || token.tokenType === EOF) return 'the end of the query';
  let image = token.image;
  if (image.length > MAX_SHOWN) image = image.slice(0, MAX_SHOWN) + '…';
  return JSON.stringify(image);
}

export function describeExpected(type: TokenType): string {
  return tokenLabel(type);
}

export function ruleExpects(ruleName: string): string {
  return RULE_EXPECTS[ruleName] ?? 'a term or an operator';
}

/**
 * Expected token per built mismatch message, so index.ts can tell "missing )" from other
 * mismatches without parsing message text. Cleared before each parse.
 */
export const expectedByMessage = new Map<string, TokenType>();

export const indriErrorMessageProvider: IParserErrorMessageProvider = {
  buildMismatchTokenMessage({ expected, actual, ruleName }) {
    // A bare "a term" is vague where the rule says what the word is for (a field, a prior).
    const what = expected === Term && NAMED_WORD_RULES.has(ruleName) ? ruleExpects(ruleName) : describeExpected(expected);
    const msg = `expected ${what}, found ${describeToken(actual)}`;
    expectedByMessage.set(msg, expected);
    return msg;
  },
  buildNotAllInputParsedMessage({ firstRedundant }) {
    return `unexpected ${describeToken(firstRedundant)}`;
  },
  buildNoViableAltMessage({ actual, previous, ruleName }) {
    if (previous?.tokenType === Dot && ruleName === 'termExpr') {
      return `expected a field name or a context "(field)" after ".", found ${describeToken(actual[0])}`;
    }
    return `expected ${ruleExpects(ruleName)}, found ${describeToken(actual[0])}`;
  },
  buildEarlyExitMessage({ actual, ruleName }) {
    return `expected ${ruleExpects(ruleName)}, found ${describeToken(actual[0])}`;
  },
};

/**
 * Closest known operator name for a misspelt one: the same letters in another case, or the
 * operator nearest by edit distance (grammar/closest.ts: `#weigth` → `#weight`, `#comb` → `#combine`).
 */
export function suggestOperator(image: string): string | undefined {
  const lower = image.toLowerCase();
  const exact = INDRI_OPERATORS.find((op) => op === lower);
  if (exact) return exact;
  const windowed = /^#(od|uw)[0-9]+$/.exec(lower);
  if (windowed) return lower;
  if (/^#[0-9]+$/.test(lower)) return lower;
  const named = INDRI_OPERATORS.filter((op) => /^#[a-z]/.test(op)).map((op) => op.slice(1));
  const closest = closestName(lower.slice(1), named);
  return closest === undefined ? undefined : `#${closest}`;
}

/** Message for an operator word that is not an Indri operator. */
export function unknownOperatorMessage(image: string): { message: string; suggestion?: string } {
  if (image === '#') return { message: 'expected an operator name after "#"' };
  const m = /^#(od|uw)(.*)$/.exec(image);
  if (m && m[2] !== '') {
    return { message: `#${m[1]} needs a window size or none, found "${m[2]}"` };
  }
  if (image === '#base64' || image === '#base64quote') {
    return { message: `${image} must be followed directly by "(" and a base64 body` };
  }
  const suggestion = suggestOperator(image);
  if (suggestion && suggestion === image.toLowerCase()) {
    return {
      message: `unknown operator ${image}: operators are case-sensitive, did you mean ${suggestion}?`,
      suggestion,
    };
  }
  if (suggestion) return { message: `unknown operator ${image}, did you mean ${suggestion}?`, suggestion };
  return { message: `unknown operator ${image}` };
}

export const SUM_MESSAGE =
  '#sum is not accepted by Indri as a scored operator; use #combine (equal weights) or #wsum with a weight before each item';

/**
 * "missing ")" to close #combine opened at 3:5". `at` is a 1-based line:column: the parser gives the
 * query's own, and a query file replaces it by the file's (grammar/sources, server/lsp/diagnostics.ts)
 * from the diagnostic's `data.openedAt`.
 */
export function missingCloseMessage(close: string, name: string, at: string): string {
  return `missing "${close}" to close ${name} opened at ${at}`;
}

/** 1-based line:column of an offset, for "opened at 1:1". */
export function lineColumn(text: string, offset: number): string {
  let line = 1;
  let lineStart = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) {
    line++;
    lineStart = i + 1;
  }
  return `${line}:${offset - lineStart + 1}`;
}

/**
 * A query diagnostic's message as a query file shows it: a position it names ("opened at 1:9") is
 * moved from the query's text to the file's. `filePosition` gives the 0-based line and column in
 * the file of a query offset. Other messages are returned as they are.
 */
export function messageInFile(d: QueryDiagnostic, filePosition: (queryOffset: number) => { line: number; column: number }): string {
  if (d.code !== 'syntax/missing-close') return d.message;
  const data = d.data as DiagnosticDataByCode['syntax/missing-close'] | undefined;
  if (data?.name === undefined || data.openedAt === undefined) return d.message;
  const at = filePosition(data.openedAt);
  return missingCloseMessage(data.insert, data.name, `${at.line + 1}:${at.column + 1}`);
}
