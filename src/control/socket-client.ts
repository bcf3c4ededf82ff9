import { connect } from 'node:net';
import { AdminError } from '../admin/admin-error.js';
import type { Config } from '../config/load.js';
import { acquireLock } from '../store/lock.js';
import { openStore } from '../store/store.js';
import { ensureDataDir } from '../store/db.js';
import { adminOperations, type AdminOperationName, type AdminOperations } from './admin-operations.js';
import type { ControlReply } from './socket-server.js';
import { controlSocketPath } from './socket-path.js';

type Args<Name extends AdminOperationName> = Parameters<AdminOperations[Name]>[0];
type Result<Name extends AdminOperationName> = Awaited<ReturnType<AdminOperations[Name]>>;

/** Sends one operation to a running server; resolves null when no server listens on this data dir. */
async function viaSocket(socketPath: string, op: string, args: unknown): Promise<ControlReply | null> {
  return new Promise((resolve, reject) => {
    const socket = connect(socketPath);
    let buffer = '';
    let connected = false;
    socket.setEncoding('utf8');
    socket.once('connect', () => {
      connected = true;
      socket.write(`${JSON.stringify({ op, args })}\n`);
    });
    socket.on('data', (text: string) => {
      buffer += text;
      const newline = buffer.indexOf('\n');
      if (newline === -1) return;
      socket.end();
      try {
        resolve(JSON.parse(buffer.slice(0, newline)) as ControlReply);
      } catch (error) {
        reject(error);
      }
    });
    socket.once('error', (error: NodeJS.ErrnoException) => {
      if (!connected && (error.code === 'ENOENT' || error.code === 'ECONNREFUSED')) resolve(null);
      else reject(error);
    });
    socket.once('close', () => {
      if (connected && buffer.indexOf('\n') === -1) reject(new Error('the server closed the admin connection without answering'));
    });
  });
}

/**
 * Runs an admin operation: through the running server's socket when there is one (it applies at
 * once), else directly on the data dir under its lock (DESIGN §4).
 */
export async function runAdmin<Name extends AdminOperationName>(dataDir: string, config: Config, op: Name, args: Args<Name>): Promise<Result<Name>> {
  const reply = await viaSocket(controlSocketPath(dataDir), op, args);
  if (reply !== null) {
    if (!reply.ok) throw new AdminError(reply.error.message, reply.error.next_step);
    return reply.result as Result<Name>;
  }
  await ensureDataDir(dataDir);
  const lock = await acquireLock(dataDir, `igw ${op.replace('.', ' ')}`);
  try {
    const store = await openStore(dataDir, config.store);
    try {
      const operation = adminOperations(store, config)[op] as (input: Args<Name>) => Promise<Result<Name>> | Result<Name>;
      return await operation(args);
    } finally {
      await store.close();
    }
  } finally {
    await lock.release();
  }
}
