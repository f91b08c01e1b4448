/**
 * What the editor says about each query-language operator: a one-line description, an
 * example, and the snippet completion inserts. Hover and completion both read this table,
 * so the two never disagree. Semantics follow SEMANTICS.md §1 (Indri) and §3 (Lucene classic).
 */

export interface OperatorInfo {
  /** The operator as written, e.g. `#weight`, `#uwN`, `AND`. */
  label: string;
  /** One sentence: what it matches or how it scores. */
  description: string;
  /** A complete, valid query using it. */
  example: string;
  /** LSP snippet syntax; absent for operators that are not completed (Lucene keywords). */
  snippet?: string;
}

/** Indri operators keyed by their name after `#` (lower case, as the lexer requires). */
export const INDRI_OPERATORS: Record<string, OperatorInfo> = {
  combine: {
    label: '#combine',
    description: 'Belief AND: the mean of the children\'s log beliefs (query likelihood).',
    example: '#combine( white house )',
    snippet: '#combine( ${1:term} )',
  },
  weight: {
    label: '#weight',
    description: 'Weighted belief AND: each weight comes before its item; weights are normalised by the sum of their absolute values.',
    example: '#weight( 1.0 #1(white house) 2.0 #1(easter egg hunt) )',
    snippet: '#weight( ${1:1.0} ${2:term} )',
  },
  wand: {
    label: '#wand',
    description: 'Weighted AND; Indri scores it exactly like #weight.',
    example: '#wand( 0.7 cat 0.3 dog )',
    snippet: '#wand( ${1:1.0} ${2:term} )',
  },
  wsum: {
    label: '#wsum',
    description: 'Weighted sum of beliefs (probabilities, not log probabilities).',
    example: '#wsum( 1.0 cat 2.0 dog )',
    snippet: '#wsum( ${1:1.0} ${2:term} )',
  },
  or: {
    label: '#or',
    description: 'Belief OR: 1 − Π(1 − belief of each child).',
    example: '#or( cat dog )',
    snippet: '#or( ${1:term} )',
  },
  not: {
    label: '#not',
    description: 'Belief NOT of its single child: 1 − belief.',
    example: '#combine( cat #not( dog ) )',
    snippet: '#not( ${1:term} )',
  },
  max: {
    label: '#max',
    description: 'The highest belief among the children.',
    example: '#max( cat dog )',
    snippet: '#max( ${1:term} )',
  },
  prior: {
    label: '#prior',
    description: 'Adds the log prior of each document from the named prior table.',
    example: '#combine( #prior(RECENT) news )',
    snippet: '#prior( ${1:NAME} )',
  },
  filreq: {
    label: '#filreq',
    description: 'Scores the second argument only in documents where the first (unscored) expression matches.',
    example: '#filreq( #1(white house) #combine( easter egg ) )',
    snippet: '#filreq( ${1:filter} ${2:query} )',
  },
  filrej: {
    label: '#filrej',
    description: 'Scores the second argument only in documents where the first (unscored) expression does not match.',
    example: '#filrej( sports #combine( world cup ) )',
    snippet: '#filrej( ${1:filter} ${2:query} )',
  },
  scoreif: {
    label: '#scoreif',
    description: 'Alias of #filreq: score only where the filter matches.',
    example: '#scoreif( #1(white house) #combine( easter egg ) )',
    snippet: '#scoreif( ${1:filter} ${2:query} )',
  },
  scoreifnot: {
    label: '#scoreifnot',
    description: 'Alias of #filrej: score only where the filter does not match.',
    example: '#scoreifnot( sports #combine( world cup ) )',
    snippet: '#scoreifnot( ${1:filter} ${2:query} )',
  },
  od: {
    label: '#odN',
    description: 'Ordered window: the terms in this order, each at most N positions after the previous one (#od without N: unlimited).',
    example: '#od2( white house )',
    snippet: '#od${1:1}( ${2:a} ${3:b} )',
  },
  uw: {
    label: '#uwN',
    description: 'Unordered window: all terms, in any order, inside a window of N positions (#uw without N: unlimited).',
    example: '#uw8( white house )',
    snippet: '#uw${1:8}( ${2:a} ${3:b} )',
  },
  band: {
    label: '#band',
    description: 'Boolean AND: matches (tf = 1) when every child occurs in the document.',
    example: '#band( cat dog )',
    snippet: '#band( ${1:a} ${2:b} )',
  },
  syn: {
    label: '#syn',
    description: 'Synonyms: the children are counted as one term (union of their occurrences). Same as { } and < >.',
    example: '#syn( car automobile )',
    snippet: '#syn( ${1:a} ${2:b} )',
  },
  wsyn: {
    label: '#wsyn',
    description: 'Weighted synonyms: each weight comes before its term.',
    example: '#wsyn( 1.0 car 0.5 automobile )',
    snippet: '#wsyn( ${1:1.0} ${2:a} ${3:0.5} ${4:b} )',
  },
  any: {
    label: '#any',
    description: 'Every extent of a field, e.g. #any:person.',
    example: '#combine( #any:person election )',
    snippet: '#any:${1:field}',
  },
  less: {
    label: '#less',
    description: 'Documents whose numeric field value is less than n.',
    example: '#filreq( #less(year 2000) #combine( olympics ) )',
    snippet: '#less( ${1:field} ${2:0} )',
  },
  greater: {
    label: '#greater',
    description: 'Documents whose numeric field value is greater than n.',
    example: '#filreq( #greater(year 2000) #combine( olympics ) )',
    snippet: '#greater( ${1:field} ${2:0} )',
  },
  between: {
    label: '#between',
    description: 'Documents whose numeric field value lies between lo and hi.',
    example: '#filreq( #between(year 1990 2000) #combine( olympics ) )',
    snippet: '#between( ${1:field} ${2:0} ${3:1} )',
  },
  equals: {
    label: '#equals',
    description: 'Documents whose numeric field value equals n.',
    example: '#filreq( #equals(year 2000) #combine( olympics ) )',
    snippet: '#equals( ${1:field} ${2:0} )',
  },
  dateafter: {
    label: '#dateafter',
    description: 'Documents dated after the given date (date field).',
    example: '#filreq( #dateafter(12/31/1999) #combine( olympics ) )',
    snippet: '#dateafter( ${1:MM/DD/YYYY} )',
  },
  datebefore: {
    label: '#datebefore',
    description: 'Documents dated before the given date (date field).',
    example: '#filreq( #datebefore(01/01/2000) #combine( olympics ) )',
    snippet: '#datebefore( ${1:MM/DD/YYYY} )',
  },
  datebetween: {
    label: '#datebetween',
    description: 'Documents dated between two dates (date field).',
    example: '#filreq( #datebetween(01/01/1990 12/31/1999) #combine( olympics ) )',
    snippet: '#datebetween( ${1:MM/DD/YYYY} ${2:MM/DD/YYYY} )',
  },
  dateequals: {
    label: '#dateequals',
    description: 'Documents dated on the given date (date field).',
    example: '#filreq( #dateequals(07/04/1996) #combine( olympics ) )',
    snippet: '#dateequals( ${1:MM/DD/YYYY} )',
  },
  wildcard: {
    label: '#wildcard',
    description: 'Suffix wildcard: every term starting with the prefix (same as prefix*).',
    example: '#combine( #wildcard(olymp) games )',
    snippet: '#wildcard( ${1:prefix} )',
  },
  base64: {
    label: '#base64',
    description: 'A base64-encoded term, decoded then stemmed: for terms with characters Indri cannot parse.',
    example: '#combine( #base64(Yy0z) )',
    snippet: '#base64( ${1:encoded} )',
  },
  base64quote: {
    label: '#base64quote',
    description: 'A base64-encoded term, decoded and left raw (not stemmed).',
    example: '#combine( #base64quote(Yy0z) )',
    snippet: '#base64quote( ${1:encoded} )',
  },
};

/** The ordered-window shorthand `#N(...)`: described separately because it has no name. */
export const INDRI_HASH_NUMBER: OperatorInfo = {
  label: '#N',
  description: 'Ordered window of size N: #1(a b) is the exact phrase "a b".',
  example: '#combine( #1(white house) )',
  snippet: '#${1:1}( ${2:a} ${3:b} )',
};

/** Lucene classic parser operators (SEMANTICS.md §3). */
export const LUCENE_OPERATORS: Record<string, OperatorInfo> = {
  AND: {
    label: 'AND',
    description: 'Makes the clauses on both sides required (MUST). Mixed with OR it does not follow precedence: use parentheses.',
    example: 'white AND house',
  },
  OR: {
    label: 'OR',
    description: 'Makes the clauses on both sides optional (SHOULD); a document must match at least one.',
    example: 'cat OR dog',
  },
  NOT: {
    label: 'NOT',
    description: 'Excludes documents matching the next clause (MUST_NOT).',
    example: 'cat NOT dog',
  },
  '+': {
    label: '+',
    description: 'The next clause is required (MUST).',
    example: '+white house',
  },
  '-': {
    label: '-',
    description: 'Documents matching the next clause are excluded (MUST_NOT).',
    example: 'cat -dog',
  },
  '^': {
    label: '^',
    description: 'Boost: multiplies the score of the term, phrase or group before it.',
    example: 'white^2 house',
  },
  '~': {
    label: '~',
    description: 'After a term: fuzzy match within N edits (default 2). After a phrase: sloppy phrase with N positional moves.',
    example: 'roam~1 "white house"~3',
  },
};

/**
 * Looks up the Indri operator written as `word` (the text after `#`, e.g. `uw8`, `od`, `5`).
 * Windows with a size share one entry.
 */
export function indriOperator(word: string): OperatorInfo | undefined {
  if (/^\d+$/.test(word)) return INDRI_HASH_NUMBER;
  const windowMatch = /^(od|uw)\d*$/.exec(word);
  if (windowMatch) return INDRI_OPERATORS[windowMatch[1]];
  return Object.hasOwn(INDRI_OPERATORS, word) ? INDRI_OPERATORS[word] : undefined;
}

export function luceneOperator(word: string): OperatorInfo | undefined {
  return Object.hasOwn(LUCENE_OPERATORS, word) ? LUCENE_OPERATORS[word] : undefined;
}
