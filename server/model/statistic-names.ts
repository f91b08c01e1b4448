/**
 * The per-n-gram collection statistics a collection-aware model reads (collection-statistics.ts computes
 * them), in the order of the model's statistics input. A module of its own so the runtime can name them
 * without importing the engine.
 */
export const STATISTIC_NAMES = ['idf', 'ictf', 'pairRatio', 'topShare', 'bo1'] as const;
export type StatisticName = (typeof STATISTIC_NAMES)[number];
export type NgramStatistics = Record<StatisticName, number>;
