import { stat } from 'node:fs/promises';
import { readCliKey } from '../auth/cli-key.js';
import { UserError } from '../cli/user-error.js';
import type { Config } from '../config/load.js';
import { runAdmin } from '../control/socket-client.js';

/** The key a client command sends, and whether it may be renewed after a 401. */
export interface ApiCredential {
  key(): Promise<string>;
  /**
   * After the gateway refused `rejected` (401): a key worth one more try, or a UserError saying
   * what to do. Absent for a key the user gave (a wrong key is theirs to fix).
   */
  renew?(rejected: string): Promise<string>;
}

/** --api-key / IGW_API_KEY: sent as given. */
export function givenCredential(key: string): ApiCredential {
  return { key: async () => key };
}

/**
 * No key given: the CLI's own key of the local data dir (DESIGN §1), read from <data dir>/cli.key
 * or obtained through the admin socket (no server: directly under the data-dir lock). A key the
 * gateway refuses (revoked by `igw keys revoke`) is replaced once by a fresh one.
 */
export class LocalCliCredential implements ApiCredential {
  private current: string | undefined;

  constructor(
    private readonly dataDir: string,
    private readonly baseUrl: string,
    private readonly loadConfig: () => Promise<Config>,
  ) {}

  async key(): Promise<string> {
    if (this.current !== undefined) return this.current;
    const stored = await readCliKey(this.dataDir);
    if (stored !== null) return (this.current = stored.key);
    if (!(await isDirectory(this.dataDir))) {
      // No data dir here, so no local gateway to take a key from (and none is made as a side effect).
      throw new UserError(`no API key, and no igw data dir at ${this.dataDir} to take the CLI's own key from`, 'pass --api-key KEY or set IGW_API_KEY (igw keys create makes one), or --data-dir DIR of the gateway you run');
    }
    return (this.current = (await runAdmin(this.dataDir, await this.loadConfig(), 'keys.cli', {})).key);
  }

  async renew(rejected: string): Promise<string> {
    const issued = await runAdmin(this.dataDir, await this.loadConfig(), 'keys.cli', { rejected });
    if (!issued.fresh) {
      throw new UserError(
        `the gateway at ${this.baseUrl} refuses the CLI's own key of ${this.dataDir}, so it runs on another data dir`,
        'pass --data-dir DIR of that gateway (the one its igw serve uses), or --api-key KEY / IGW_API_KEY',
      );
    }
    return (this.current = issued.key);
  }
}

async function isDirectory(folder: string): Promise<boolean> {
  try {
    return (await stat(folder)).isDirectory();
  } catch {
    return false;
  }
}
