/**
 * The editor's cluster session: server/service/cluster-session.ts (shared with the CLI's
 * `--backend-config` commands) with querylens.json's resolved configuration.
 */
import { ClusterSession as ServiceClusterSession } from '../../service/cluster-session.js';
import type { ResolvedConfig } from '../config.js';

export type ClusterSession = ServiceClusterSession<ResolvedConfig>;
export const ClusterSession = ServiceClusterSession;
export { CLUSTER_DEPTH, clusterExpansionWords, termStatisticsIn } from '../../service/cluster-session.js';
