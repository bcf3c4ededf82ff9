/** What `GET /metrics` needs of the metrics: the exposition text, nothing of the gateway behind it. */
export interface MetricsExposition {
  render(): Promise<{ contentType: string; body: string }>;
}
