import { randomBytes, scrypt } from 'node:crypto';
import { chmod, link, open, readFile, stat, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { seal, unseal } from './sealed.js';

/** AES-256 key length. */
export const DATA_KEY_BYTES = 32;
const KEY_FILE = 'vault.key';
/** A value sealed under the data key: a different key later is caught at start, not on a read. */
const CHECK_FILE = 'vault.check';
const CHECK_TEXT = 'igw data key check v1';
/** IGW_DATA_KEY may also be a passphrase (at least this long), stretched with scrypt. */
const MIN_PASSPHRASE_LENGTH = 8;

/** The data key is missing, malformed or unreadable; the message says what is wrong, nextStep how to fix it. */
export class DataKeyError extends Error {
  constructor(
    message: string,
    readonly nextStep = 'set IGW_DATA_KEY to the key this data dir was first started with, or unset it to use <data dir>/vault.key',
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'DataKeyError';
  }
}

/** The data-at-rest key's variable (DESIGN §4). */
export const DATA_KEY_ENV = 'IGW_DATA_KEY';
/** Its name before IGW_VAULT_KEY became only the blueprint vault key: data dirs keyed through it still open. */
const LEGACY_DATA_KEY_ENV = 'IGW_VAULT_KEY';
/**
 * Which variable a data dir keyed from the environment was keyed through. Absent while the check
 * file exists and vault.key does not: the dir was keyed through the old name.
 */
const SOURCE_FILE = 'data-key.source';

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
  throw new DataKeyError(`${source} is not a 32-byte key`, 'give 64 hex characters or 44 base64 characters (e.g. `openssl rand -hex 32`)');
}

/** A key (hex/base64 of 32 bytes) as is; any other value of 8+ characters as a passphrase (scrypt). */
async function keyFromEnvironment(value: string, name: string): Promise<Buffer> {
  try {
    return parseDataKey(value, name);
  } catch (error) {
    if (value.length < MIN_PASSPHRASE_LENGTH) {
      throw new DataKeyError(`${name} is neither a 32-byte key (64 hex characters, e.g. \`openssl rand -hex 32\`) nor a passphrase of at least ${MIN_PASSPHRASE_LENGTH} characters`, `set ${name} to such a value`, { cause: error });
    }
    // A fixed salt: the same passphrase must give the same key on every start (and under either name).
    return new Promise((resolve, reject) => scrypt(value, 'igw data key v1', 32, { N: 2 ** 15, r: 8, p: 1, maxmem: 64 * 1024 * 1024 }, (failure, key) => (failure ? reject(failure) : resolve(key))));
  }
}

async function exists(file: string): Promise<boolean> {
  try {
    await stat(file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
}

/**
 * The key that encrypts stored contents at rest (DESIGN §4): from IGW_DATA_KEY when set, else
 * `<dataDir>/vault.key` (64 hex characters, mode 0600), created on first use. The file is written
 * to a temp name and hard-linked into place, so two processes starting at once agree on one key
 * and a crash never leaves a half-written key behind. IGW_VAULT_KEY is never read here (it is the
 * blueprint vault key); a data dir first keyed through it opens with the same value in
 * IGW_DATA_KEY, and `notice` gets a one-line hint the first time.
 */
export async function loadDataKey(dataDir: string, env: NodeJS.ProcessEnv = process.env, notice: (hint: string) => void = () => undefined, options: { team?: boolean } = {}): Promise<Buffer> {
  if (options.team === true) requireTeamDataKey(env);
  const checkPath = path.join(dataDir, CHECK_FILE);
  const sourcePath = path.join(dataDir, SOURCE_FILE);
  const keyedBefore = await exists(checkPath);
  // Keyed from the environment: a check value but no key file of its own.
  const keyedFromEnvironment = keyedBefore && !(await exists(path.join(dataDir, KEY_FILE)));
  const keyedThroughOldName = keyedFromEnvironment && !(await exists(sourcePath));
  const fromEnv = env[DATA_KEY_ENV];
  if (fromEnv !== undefined && fromEnv.trim() !== '') {
    const key = await keyFromEnvironment(fromEnv, DATA_KEY_ENV);
    await checkKey(dataDir, key, DATA_KEY_ENV, keyedFromEnvironment, options.team === true);
    if (!keyedBefore || keyedThroughOldName) await writeFile(sourcePath, `${DATA_KEY_ENV}\n`, { mode: 0o600 });
    if (keyedThroughOldName) {
      notice(`this data dir was first keyed through ${LEGACY_DATA_KEY_ENV}; it opens with the same value in ${DATA_KEY_ENV} from now on, and ${LEGACY_DATA_KEY_ENV} is only the blueprint vault key`);
    }
    return key;
  }
  if (keyedFromEnvironment) {
    // A new vault.key could never read what is stored: say which variable to set instead.
    const legacy = env[LEGACY_DATA_KEY_ENV];
    const legacyFits = keyedThroughOldName && legacy !== undefined && legacy.trim() !== '' && (await unlocks(dataDir, legacy));
    throw new DataKeyError(
      keyedThroughOldName
        ? `${dataDir} was first started with its data key in ${LEGACY_DATA_KEY_ENV}, which is now only the blueprint vault key`
        : `${dataDir} was first started with its data key in ${DATA_KEY_ENV}, which is not set`,
      legacyFits ? `${DATA_KEY_ENV} is its name now: export ${DATA_KEY_ENV}="$${LEGACY_DATA_KEY_ENV}"` : `set ${DATA_KEY_ENV} to the key it was first started with`,
    );
  }
  const key = await keyFromFile(dataDir);
  await checkKey(dataDir, key, path.join(dataDir, KEY_FILE), false, false);
  return key;
}

/**
 * Team mode (DESIGN §4 "Team mode"): every instance seals and opens the same stored data (files,
 * the vault…), so every instance takes the key from IGW_DATA_KEY, never from a vault.key of its own.
 */
export function requireTeamDataKey(env: NodeJS.ProcessEnv): void {
  const value = env[DATA_KEY_ENV];
  if (value !== undefined && value.trim() !== '') return;
  throw new DataKeyError(
    `team mode (store.kind "postgres") needs ${DATA_KEY_ENV}: every instance seals and opens the same stored data, so all of them must use one key`,
    `set ${DATA_KEY_ENV} to the same value on every instance (make one once with \`openssl rand -hex 32\`)`,
  );
}

/**
 * The team's data key (DESIGN §4 "Team mode"): IGW_DATA_KEY, required, as a key or a passphrase,
 * read the way every team instance reads it. `igw migrate --from-data-dir` seals under it.
 */
export function teamDataKey(env: NodeJS.ProcessEnv): Promise<Buffer> {
  requireTeamDataKey(env);
  return keyFromEnvironment(env[DATA_KEY_ENV]!, DATA_KEY_ENV);
}

/** The check value sealed under `key`: stored once, it tells a later start with another key at once. */
export function sealKeyCheck(key: Buffer): Buffer {
  return seal(key, Buffer.from(CHECK_TEXT), CHECK_FILE);
}

/** Whether `key` opens a check value sealed by `sealKeyCheck`. */
export function opensKeyCheck(key: Buffer, sealed: Buffer): boolean {
  try {
    return unseal(key, sealed, CHECK_FILE).toString('utf8') === CHECK_TEXT;
  } catch {
    return false;
  }
}

/** Whether an environment value (key or passphrase) opens this data dir's check value. */
async function unlocks(dataDir: string, value: string): Promise<boolean> {
  try {
    const key = await keyFromEnvironment(value, LEGACY_DATA_KEY_ENV);
    return opensKeyCheck(key, await readFile(path.join(dataDir, CHECK_FILE)));
  } catch {
    return false;
  }
}

/**
 * The first key a data dir is used with seals a check value; a later start with another key
 * (IGW_DATA_KEY set or changed, vault.key replaced) is refused at once instead of failing on
 * every stored file.
 */
async function checkKey(dataDir: string, key: Buffer, source: string, keyedFromEnvironment: boolean, team: boolean): Promise<void> {
  const checkPath = path.join(dataDir, CHECK_FILE);
  let sealed: Buffer | undefined;
  try {
    sealed = await readFile(checkPath);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  if (sealed === undefined) {
    // Temp file + hard link: a crash never leaves an empty check file behind.
    const temporary = `${checkPath}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
    const handle = await open(temporary, 'wx', 0o600);
    try {
      await handle.writeFile(sealKeyCheck(key));
      await handle.sync();
    } finally {
      await handle.close();
    }
    try {
      await link(temporary, checkPath);
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      sealed = await readFile(checkPath);
    } finally {
      await unlink(temporary).catch(() => undefined);
    }
  }
  if (opensKeyCheck(key, sealed)) return;
  throw new DataKeyError(
    `the data key from ${source} is not the one ${dataDir} was first started with, so its stored files could not be read`,
    team
      ? `in team mode every instance uses the team's ${DATA_KEY_ENV}: give this instance a new data dir (--data-dir); \`igw migrate --from-data-dir ${dataDir}\` copies this one into the team's database`
      : source === DATA_KEY_ENV
      ? keyedFromEnvironment
        ? `set ${DATA_KEY_ENV} to the key it was first started with`
        : `unset ${DATA_KEY_ENV} to use the data dir's own vault.key`
      : `set ${DATA_KEY_ENV} to the key it was first started with`,
  );
}

async function keyFromFile(dataDir: string): Promise<Buffer> {
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
  if (!created) throw new DataKeyError(`${keyPath} could not be created`, 'check that the data dir is writable');
  return created;
}

async function readKeyFile(keyPath: string): Promise<Buffer | undefined> {
  let text: string;
  try {
    text = await readFile(keyPath, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new DataKeyError(`${keyPath} is not readable (${(error as Error).message})`, 'check its owner and permissions (it must be readable by you, mode 0600)', { cause: error });
  }
  const key = parseDataKey(text, keyPath);
  // Someone loosened the permissions: tighten them again (the key guards every stored byte).
  const info = await stat(keyPath);
  if ((info.mode & 0o077) !== 0) await chmod(keyPath, 0o600);
  return key;
}
