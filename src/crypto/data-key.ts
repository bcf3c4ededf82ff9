import { randomBytes } from 'node:crypto';
import { chmod, link, open, readFile, stat, unlink } from 'node:fs/promises';
import path from 'node:path';

/** AES-256 key length. */
export const DATA_KEY_BYTES = 32;
const KEY_FILE = 'vault.key';

/** The data key is missing, malformed or unreadable; the message says how to fix it. */
export class DataKeyError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'DataKeyError';
  }
}

/**
 * Decodes a key given as 64 hex characters or as base64/base64url of 32 bytes. Anything else is
 * refused: a typo must not silently become a different key (stored data would not decrypt).
 */
export function parseDataKey(text: string, source: string): Buffer {
  const trimmed = text.trim();
  if (/^[0-9a-fA-F]{64}$/.test(trimmed)) return Buffer.from(trimmed, 'hex');
  if (/^[A-Za-z0-9+/_-]{43}=?$/.test(trimmed)) {
    const decoded = Buffer.from(trimmed.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
    if (decoded.length === DATA_KEY_BYTES) return decoded;
  }
  throw new DataKeyError(`${source} is not a 32-byte key: give 64 hex characters or 44 base64 characters (e.g. \`openssl rand -hex 32\`).`);
}

/**
 * The key that encrypts stored contents at rest (DESIGN §4): from IGW_VAULT_KEY when set, else
 * `<dataDir>/vault.key` (64 hex characters, mode 0600), created on first use. The file is written
 * to a temp name and hard-linked into place, so two processes starting at once agree on one key
 * and a crash never leaves a half-written key behind.
 */
export async function loadDataKey(dataDir: string, env: NodeJS.ProcessEnv = process.env): Promise<Buffer> {
  const fromEnv = env['IGW_VAULT_KEY'];
  if (fromEnv !== undefined && fromEnv.trim() !== '') return parseDataKey(fromEnv, 'IGW_VAULT_KEY');
  const keyPath = path.join(dataDir, KEY_FILE);
  const existing = await readKeyFile(keyPath);
  if (existing) return existing;
  const temporary = `${keyPath}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  const handle = await open(temporary, 'wx', 0o600);
  try {
    await handle.writeFile(`${randomBytes(DATA_KEY_BYTES).toString('hex')}\n`, 'utf8');
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await link(temporary, keyPath);
  } catch (error) {
    // Another process created the key first: theirs wins (read below).
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    await unlink(temporary).catch(() => undefined);
  }
  const created = await readKeyFile(keyPath);
  if (!created) throw new DataKeyError(`${keyPath} could not be created.`);
  return created;
}

async function readKeyFile(keyPath: string): Promise<Buffer | undefined> {
  let text: string;
  try {
    text = await readFile(keyPath, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new DataKeyError(`${keyPath} is not readable (${(error as Error).message}).`, { cause: error });
  }
  const key = parseDataKey(text, keyPath);
  // Someone loosened the permissions: tighten them again (the key guards every stored byte).
  const info = await stat(keyPath);
  if ((info.mode & 0o077) !== 0) await chmod(keyPath, 0o600);
  return key;
}
