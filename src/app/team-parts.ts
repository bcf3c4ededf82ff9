/**
 * What only team mode uses (issue 19), in one module the composition root imports on demand:
 * node-postgres and what is built on it stay unloaded in the default JSON mode (a local gateway
 * does not carry ~16 MB of code it never runs).
 */
export { TeamBatchService } from '../batches/team-batch-service.js';
export { PostgresFileBytes } from '../files/postgres-file-bytes.js';
export { postgresSettlementState } from '../store/postgres/settlement-state.js';
export { openTeamBacking } from '../vector-stores/team-backing.js';
