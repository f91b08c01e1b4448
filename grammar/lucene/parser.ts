/**
 * The Lucene classic query grammar (SPECS §3) as a Chevrotain CST parser. It builds a
 * concrete syntax tree only; visitor.ts turns it into the shared AST.
 *
 * Lucene's JavaCC grammar (QueryParser.jj) is
 *   Query  := Modifiers Clause (Conjunction Modifiers Clause)*
 *   Clause := [field ':'] (Term | '(' Query ')' ['^' NUMBER])
 * This grammar accepts a superset so that editing states parse into a useful tree:
 * a conjunction before the first clause, an empty group `()`, and stray tokens that
 * cannot start a clause (`]`, `^`, `~`, `:`, a trailing `\`) are all parsed and then
 * reported by the visitor, instead of stopping the parse.
 */
import { CstParser, EOF, type CstNode, type IToken } from 'chevrotain';
import { luceneErrorMessages } from './messages.js';
import * as T from './tokens.js';

/** Lucene's NUMBER token: digits with an optional fraction, no sign, no exponent. */
export const BOOST_NUMBER = /^[0-9]+(?:\.[0-9]+)?$/;

class LuceneCstParser extends CstParser {
  constructor() {
    super(T.allTokens, {
      recoveryEnabled: true,
      errorMessageProvider: luceneErrorMessages,
      // `field:` needs two tokens of look-ahead (Word then ':').
      maxLookahead: 2,
      // Offsets on CST nodes let the visitor put clauses and stray tokens back in order.
      nodeLocationTracking: 'onlyOffset',
    });
    this.performSelfAnalysis();
  }

  /**
   * Start offsets of the tokens that error recovery skipped in the current parse (single
   * token deletion, re-sync inside a repetition, re-sync between rules). Chevrotain builds
   * an error message before it knows whether it will insert, skip or give up, so index.ts
   * uses this to say "unexpected X" rather than "missing Y" when X was skipped.
   */
  public readonly skippedTokens = new Set<number>();

  protected override SKIP_TOKEN(): IToken {
    const current = this.LA(1);
    const next = super.SKIP_TOKEN();
    if (this.LA(1) !== current) this.skippedTokens.add(current.startOffset);
    return next;
  }

  /**
   * The whole text. Ending on EOF gives the repetition a token to re-sync towards, so a
   * `)` with no `(` is skipped and the clauses after it are still parsed.
   */
  public topQuery = this.RULE('topQuery', () => {
    this.MANY(() => {
      this.OR([{ ALT: () => this.SUBRULE(this.clauseItem) }, { ALT: () => this.SUBRULE(this.stray) }]);
    });
    this.CONSUME(EOF);
  });

  public clauseItem = this.RULE('clauseItem', () => {
    this.OPTION(() => this.SUBRULE(this.conjunction));
    this.OPTION2(() => this.SUBRULE(this.modifier));
    this.SUBRULE(this.clause);
  });

  public conjunction = this.RULE('conjunction', () => {
    this.OR([{ ALT: () => this.CONSUME(T.And) }, { ALT: () => this.CONSUME(T.Or) }]);
  });

  public modifier = this.RULE('modifier', () => {
    this.OR([{ ALT: () => this.CONSUME(T.Plus) }, { ALT: () => this.CONSUME(T.Minus) }, { ALT: () => this.CONSUME(T.Not) }]);
  });

  public clause = this.RULE('clause', () => {
    this.OPTION(() => {
      this.CONSUME(T.Word, { LABEL: 'field' });
      this.CONSUME(T.Colon);
    });
    this.OR([{ ALT: () => this.SUBRULE(this.group) }, { ALT: () => this.SUBRULE(this.term) }]);
  });

  public group = this.RULE('group', () => {
    this.CONSUME(T.LParen);
    this.MANY(() => {
      this.OR([{ ALT: () => this.SUBRULE(this.clauseItem) }, { ALT: () => this.SUBRULE(this.stray) }]);
    });
    this.CONSUME(T.RParen);
    this.OPTION(() => this.SUBRULE(this.boost));
  });

  public term = this.RULE('term', () => {
    this.OR([
      { ALT: () => this.SUBRULE(this.wordTerm) },
      { ALT: () => this.SUBRULE(this.phrase) },
      { ALT: () => this.SUBRULE(this.regex) },
      { ALT: () => this.SUBRULE(this.range) },
      { ALT: () => this.SUBRULE(this.bareOperator) },
    ]);
  });

  /** Lucene: term [~slop] [^boost [~slop]]. */
  public wordTerm = this.RULE('wordTerm', () => {
    this.CONSUME(T.Word);
    this.OPTION(() => this.CONSUME(T.FuzzySlop));
    this.OPTION2(() => {
      this.SUBRULE(this.boost);
      this.OPTION3(() => this.CONSUME2(T.FuzzySlop));
    });
  });

  public phrase = this.RULE('phrase', () => {
    this.OR([{ ALT: () => this.CONSUME(T.Quoted) }, { ALT: () => this.CONSUME(T.QuotedUnclosed) }]);
    this.OPTION(() => this.CONSUME(T.FuzzySlop));
    this.OPTION2(() => this.SUBRULE(this.boost));
  });

  public regex = this.RULE('regex', () => {
    this.OR([{ ALT: () => this.CONSUME(T.Regex) }, { ALT: () => this.CONSUME(T.RegexUnclosed) }]);
    this.OPTION(() => this.SUBRULE(this.boost));
  });

  public range = this.RULE('range', () => {
    this.OR([{ ALT: () => this.CONSUME(T.RangeInStart) }, { ALT: () => this.CONSUME(T.RangeExStart) }]);
    this.SUBRULE(this.rangeBound, { LABEL: 'lower' });
    this.CONSUME(T.RangeTo);
    this.SUBRULE2(this.rangeBound, { LABEL: 'upper' });
    this.CONSUME(T.RangeEnd);
    this.OPTION(() => this.SUBRULE(this.boost));
  });

  public rangeBound = this.RULE('rangeBound', () => {
    this.OR([
      { ALT: () => this.CONSUME(T.RangeGoop) },
      { ALT: () => this.CONSUME(T.RangeQuoted) },
      { ALT: () => this.CONSUME(T.RangeQuotedUnclosed) },
    ]);
  });

  public bareOperator = this.RULE('bareOperator', () => {
    this.CONSUME(T.BareOperator);
    this.OPTION(() => this.SUBRULE(this.boost));
  });

  /**
   * `^` and its number. The number is optional in the grammar (and only a Word that looks
   * like Lucene's NUMBER is taken) so that in `a^ b` or `a^x` the `b` / `x` stays a term of
   * its own; the visitor reports the missing number.
   */
  public boost = this.RULE('boost', () => {
    this.CONSUME(T.Caret);
    this.OPTION({
      GATE: () => BOOST_NUMBER.test(this.LA(1).image),
      DEF: () => this.CONSUME(T.Word, { LABEL: 'value' }),
    });
  });

  /** Tokens that cannot start a clause; kept in the tree so the visitor can report them. */
  public stray = this.RULE('stray', () => {
    this.OR([
      { ALT: () => this.CONSUME(T.StrayClose) },
      { ALT: () => this.CONSUME(T.DanglingEscape) },
      { ALT: () => this.CONSUME(T.Caret) },
      { ALT: () => this.CONSUME(T.FuzzySlop) },
      { ALT: () => this.CONSUME(T.Colon) },
    ]);
  });
}

/** Built once: Chevrotain's grammar analysis is the expensive part (SPECS §3 perf note in index.ts). */
export const luceneParser = new LuceneCstParser();

export type LuceneRuleName =
  | 'topQuery'
  | 'clauseItem'
  | 'conjunction'
  | 'modifier'
  | 'clause'
  | 'group'
  | 'term'
  | 'wordTerm'
  | 'phrase'
  | 'regex'
  | 'range'
  | 'rangeBound'
  | 'bareOperator'
  | 'boost'
  | 'stray';

export type { CstNode };
