import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { makeSandbox, type Sandbox } from './cli.js';

/**
 * A CLI sandbox for one `igw serve` of a team (issue 19): its config (igw.config.json in its cwd)
 * puts the store on `databaseUrl`, and every instance of the team gets the same `dataKey`.
 */
export async function teamSandbox(databaseUrl: string, config: Record<string, unknown>, dataKey: string): Promise<Sandbox> {
  const sandbox = await makeSandbox();
  sandbox.env['IGW_DATA_KEY'] = dataKey;
  await writeFile(path.join(sandbox.cwd, 'igw.config.json'), JSON.stringify({ ...config, store: { kind: 'postgres', url: databaseUrl } }));
  return sandbox;
}
