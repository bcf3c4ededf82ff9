import type { ServerResponse } from 'node:http';
import type { MetricsExposition } from '../metrics/exposition.js';
import { GatewayError } from '../errors/gateway-error.js';
import { sendText } from '../http/respond.js';

/**
 * `GET /metrics` (issue 19): Prometheus text format, without a key like the health probes — a
 * scraper has no igw key, and the switch is the operator's (`server.metrics: true`; the gateway
 * listens on loopback unless `server.host` says otherwise). Off, the path is unknown like any other.
 */
export async function handleMetrics(response: ServerResponse, headers: Record<string, string>, metrics: MetricsExposition | undefined): Promise<void> {
  if (metrics === undefined) {
    throw new GatewayError('RESOURCE_5404', 'No endpoint at GET /metrics: set "server": {"metrics": true} in the config to serve Prometheus metrics.');
  }
  const { contentType, body } = await metrics.render();
  sendText(response, 200, body, contentType, headers);
}
