// Planted: an endpoint and its stream module importing each other, and a cycle through a shared
// module (shared/metering.ts): both are errors.
import { streamed } from './responses-stream.js';
import { metered } from './shared/metering.js';

export const prepared = 'prepared';
export const both = () => streamed() + metered();
