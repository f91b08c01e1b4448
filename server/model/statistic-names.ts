/**
 * The per-n-gram collection statistics a collection-aware model reads (collection-statistics.ts computes
 * them). A model reads the ones its config.json lists (`statistics.names`), in that order, so a model
 * trained before a statistic was added keeps working. A module of its own so the runtime can name them
 * without importing the engine.
 */
export const STATISTIC_NAMES = [
  'idf',
  'ictf',
  'pairRatio',
  'topShare',
  'bo1',
  // What TW-BERT + Bo1 reads to decide per query and per word how much to expand (collection-statistics.ts).
  'expansion',
  'bo1Weight',
  'fbShare',
  'fbCooccur',
  'fbGap',
  'fbCoverage',
] as const;
export type StatisticName = (typeof STATISTIC_NAMES)[number];
export type NgramStatistics = Record<StatisticName, number>;
