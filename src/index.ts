/** Programmatic API: what `igw serve` uses, and what tests start on port 0. */
export { startGateway, type Gateway, type GatewayOptions } from './app/gateway.js';
export { loadConfig, buildConfig, parseConfigText, ConfigError, type Config, type ConfigIssue } from './config/load.js';
export { runAdmin } from './control/socket-client.js';
