/** The CLI's `--version` is igw's one version (util/version.ts, shared with /health and MCP). */
export { VERSION } from '../util/version.js';
