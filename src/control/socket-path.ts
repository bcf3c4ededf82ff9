import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import path from 'node:path';

/**
 * The admin socket lives in the data dir (file permissions are the authentication). Unix socket
 * paths are limited to ~107 bytes, so a very deep data dir gets a hashed name in the temp folder.
 */
export function controlSocketPath(dataDir: string): string {
  const inside = path.join(path.resolve(dataDir), 'igw.sock');
  if (Buffer.byteLength(inside) < 100) return inside;
  return path.join(tmpdir(), `igw-${createHash('sha256').update(path.resolve(dataDir)).digest('hex').slice(0, 16)}.sock`);
}
