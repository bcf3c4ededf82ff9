import { stat } from 'node:fs/promises';
import path from 'node:path';
import { DATA_KEY_ENV, DataKeyError, loadDataKey } from '../../crypto/data-key.js';

/**
 * The key a data dir's files, batch logs and vector stores are sealed under, for `igw migrate
 * --from-data-dir` (issue 19 item 3), whose own IGW_DATA_KEY is the team's key. From `fromEnv`
 * (the variable named by --from-data-key-env) when given; else the data dir's vault.key when it
 * has one; else (a data dir keyed through IGW_DATA_KEY) the team's key, the same one. The data
 * dir's check value (data-key.ts) refuses a wrong key before anything is read.
 */
export async function sourceDataKey(dataDir: string, env: NodeJS.ProcessEnv, fromEnv?: string): Promise<Buffer> {
  let value: string | undefined;
  if (fromEnv !== undefined) {
    value = env[fromEnv];
    if (value === undefined || value.trim() === '') throw new DataKeyError(`--from-data-key-env names ${fromEnv}, which is not set`, `export ${fromEnv} with the data key ${dataDir} was started with`);
  } else if (!(await stat(path.join(dataDir, 'vault.key')).then(() => true, () => false))) {
    value = env[DATA_KEY_ENV];
  }
  try {
    return await loadDataKey(dataDir, value === undefined ? {} : { [DATA_KEY_ENV]: value });
  } catch (error) {
    if (!(error instanceof DataKeyError)) throw error;
    throw new DataKeyError(
      `cannot open ${dataDir} to copy it: ${error.message}`,
      `when it was started with another ${DATA_KEY_ENV} than the team's, put that key in a variable and name it: --from-data-key-env NAME`,
      { cause: error },
    );
  }
}
