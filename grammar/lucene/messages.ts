/**
 * Error messages in the user's words for the Lucene parser (custom Chevrotain
 * IParserErrorMessageProvider, as Chevrotain's `examples/parser/custom_errors` shows).
 *
 * Each message carries its stable diagnostic code in front, separated by CODE_SEPARATOR,
 * because Chevrotain keeps only the message string on its exceptions; index.ts splits the
 * two again. The code never contains the separator.
 */
import { EOF, type IParserErrorMessageProvider, type IToken, type TokenType } from 'chevrotain';
import * as T from './tokens.js';

export const CODE_SEPARATOR = '\u241e';

function withCode(code: string, message: string): string {
  return `${code}${CODE_SEPARATOR}${message}`;
}

/** Splits a provider message into its code and the text shown to the user. */
export function splitCodedMessage(message: string): { code: string; message: string } {
  const i = message.indexOf(CODE_SEPARATOR);
  if (i < 0) return { code: 'syntax/unexpected-token', message };
  return { code: message.slice(0, i), message: message.slice(i + CODE_SEPARATOR.length) };
}

/** How a token is named to the user: its own text, quoted, shortened when long. */
export function describeToken(token: IToken): string {
  if (token.tokenType === EOF) return 'the end of the query';
  const image = token.image.length > 30 ? `${token.image.slice(0, 29)}…` : token.image;
  switch (token.tokenType) {
    case T.Word:
      return `'${image}'`;
    case T.Quoted:
    case T.QuotedUnclosed:
      return `the phrase ${image}`;
    default:
      return `'${image}'`;
  }
}

function found(token: IToken): string {
  return token.tokenType === EOF ? 'but the query ends here' : `but found ${describeToken(token)}`;
}

function after(previous: IToken | undefined): string {
  if (!previous || previous.tokenType === EOF || Number.isNaN(previous.startOffset)) return '';
  switch (previous.tokenType) {
    case T.And:
    case T.Or:
    case T.Not:
    case T.Plus:
    case T.Minus:
    case T.Colon:
      return ` after '${previous.image}'`;
    default:
      return '';
  }
}

export const luceneErrorMessages: IParserErrorMessageProvider = {
  buildMismatchTokenMessage({ expected, actual, previous }) {
    if (expected === EOF) {
      if (actual.tokenType === T.RParen) return withCode('syntax/unmatched-close', "unexpected ')': there is no '(' for it to close");
      return withCode('syntax/unexpected-token', `unexpected ${describeToken(actual)}`);
    }
    if (expected === T.RParen) {
      return withCode('syntax/missing-close', `missing ')' to close the group, ${found(actual)}`);
    }
    if (expected === T.RangeEnd) {
      return withCode('syntax/missing-close', `missing ']' or '}' to close the range, ${found(actual)}`);
    }
    if (expected === T.RangeTo) {
      return withCode('lucene/range-expected-to', `expected 'TO' between the two bounds of the range, ${found(actual)}`);
    }
    if (expected === T.Word && previous?.tokenType === T.Caret) {
      return withCode('lucene/bad-boost', `expected a number after '^' (for example ^2 or ^0.5), ${found(actual)}`);
    }
    return withCode('syntax/unexpected-token', `expected ${labelOf(expected)}${after(previous)}, ${found(actual)}`);
  },
  buildNotAllInputParsedMessage({ firstRedundant }) {
    return withCode('syntax/unexpected-token', `unexpected ${describeToken(firstRedundant)}; the query should end here`);
  },
  buildNoViableAltMessage({ actual, previous, ruleName }) {
    const token = actual[0];
    if (ruleName === 'clauseItem') {
      return withCode('syntax/expected-clause', `expected a term, phrase, range or group${after(previous)}, ${found(token)}`);
    }
    if (ruleName === 'rangeBound') {
      return withCode('lucene/range-bound', `expected a range bound (a term, a quoted value or *), ${found(token)}`);
    }
    return withCode('syntax/unexpected-token', `unexpected ${describeToken(token)}`);
  },
  buildEarlyExitMessage({ actual, previous }) {
    return withCode('syntax/expected-clause', `expected a term, phrase, range or group${after(previous)}, ${found(actual[0])}`);
  },
};

function labelOf(type: TokenType): string {
  return type.LABEL ?? type.name;
}
