import { UserError } from '../user-error.js';

/**
 * The vault key for `igw blueprints|skills`: IGW_VAULT_KEY, else a hidden prompt when both
 * stdin and stderr are a terminal. Never a prompt without a terminal: a script would hang.
 */
export async function readVaultKey(env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const fromEnv = env['IGW_VAULT_KEY'];
  if (fromEnv !== undefined && fromEnv !== '') return fromEnv;
  if (process.stdin.isTTY !== true || process.stderr.isTTY !== true) {
    throw new UserError('no vault key', 'set IGW_VAULT_KEY to the vault key of the account (there is no terminal to ask for it)');
  }
  const value = await promptHidden('vault key: ');
  if (value === '') throw new UserError('no vault key', 'type the vault key at the prompt, or set IGW_VAULT_KEY');
  return value;
}

/** Reads one line from the terminal without echoing it. */
function promptHidden(question: string): Promise<string> {
  const stdin = process.stdin;
  process.stderr.write(question);
  stdin.setRawMode(true);
  stdin.setEncoding('utf8');
  stdin.resume();
  return new Promise((resolve, reject) => {
    let value = '';
    const finish = (error?: Error) => {
      stdin.off('data', onData);
      stdin.setRawMode(false);
      stdin.pause();
      process.stderr.write('\n');
      if (error === undefined) resolve(value);
      else reject(error);
    };
    const onData = (text: string) => {
      for (const character of text) {
        if (character === '\r' || character === '\n') return finish();
        if (character === '\u0003' || character === '\u0004') return finish(new UserError('cancelled', 'run the command again, or set IGW_VAULT_KEY'));
        if (character === '\u007f' || character === '\b') value = [...value].slice(0, -1).join('');
        else value += character;
      }
    };
    stdin.on('data', onData);
  });
}
