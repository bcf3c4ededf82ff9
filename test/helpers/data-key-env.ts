import type { Config } from '../../src/config/load.js';

/** The data key every test gateway in team mode uses: one team, one key (DESIGN §4 "Team mode"). */
export const TEAM_TEST_DATA_KEY = '7e3f0c5a9b1d2e4f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7';

/** The environment a test gateway reads IGW_DATA_KEY from: in team mode the run's IGW_DATA_KEY (the matrix sets one), else the team's test key. */
export function dataKeyEnv(config: Config): NodeJS.ProcessEnv {
  return config.store.kind === 'postgres' ? { ...process.env, IGW_DATA_KEY: process.env['IGW_DATA_KEY'] || TEAM_TEST_DATA_KEY } : process.env;
}
