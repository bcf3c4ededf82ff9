export const providerName = 'planted';
