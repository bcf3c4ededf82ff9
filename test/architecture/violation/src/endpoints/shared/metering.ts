import { prepared } from '../responses.js';

export const metered = () => prepared;
