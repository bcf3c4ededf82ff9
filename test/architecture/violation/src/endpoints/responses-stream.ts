import { prepared } from './responses.js';

export const streamed = () => prepared;
