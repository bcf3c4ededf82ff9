import { describe, expect, it } from 'vitest';
import { Activity } from '../../../src/app/activity.js';
import { GatewayMetrics } from '../../../src/metrics/gateway-metrics.js';
import { sample } from '../../helpers/metrics-text.js';

/** The port through which batches and vector stores report their stored work by state (issue 19 item 4). */
describe('igw_batch_rows / igw_ingestion_jobs: work in the store by state', () => {
  it('asks each registered service on every scrape, so the numbers are the store’s now', async () => {
    const metrics = new GatewayMetrics(new Activity(() => Date.now()), new Set());
    let queued = 3;
    metrics.countWork('batch_row', { countByState: async () => ({ queued, running: 1, succeeded: 7 }) });
    metrics.countWork('ingestion_job', { countByState: async () => ({ in_progress: 2 }) });
    let text = (await metrics.render()).body;
    expect(sample(text, 'igw_batch_rows', { state: 'queued' })).toBe(3);
    expect(sample(text, 'igw_batch_rows', { state: 'running' })).toBe(1);
    expect(sample(text, 'igw_batch_rows', { state: 'succeeded' })).toBe(7);
    expect(sample(text, 'igw_ingestion_jobs', { state: 'in_progress' })).toBe(2);
    queued = 0;
    text = (await metrics.render()).body;
    expect(sample(text, 'igw_batch_rows', { state: 'queued' })).toBe(0);
  });

  it('a service that cannot answer leaves its gauge out of that scrape, logged; the rest is served', async () => {
    const warnings: unknown[] = [];
    const metrics = new GatewayMetrics(new Activity(() => Date.now()), new Set(), { warn: (message, fields) => void warnings.push({ message, fields }) });
    metrics.countWork('batch_row', { countByState: async () => ({ queued: 5 }) });
    metrics.countWork('ingestion_job', {
      countByState: async () => {
        throw new Error('connection refused');
      },
    });
    const text = (await metrics.render()).body;
    expect(sample(text, 'igw_batch_rows', { state: 'queued' })).toBe(5);
    expect(sample(text, 'igw_ingestion_jobs')).toBeUndefined();
    expect(sample(text, 'igw_requests_total')).toBeUndefined();
    expect(warnings).toEqual([{ message: 'metrics: could not count work items', fields: { kind: 'ingestion_job', error: 'Error: connection refused' } }]);
  });
});
