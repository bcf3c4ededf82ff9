import path from 'node:path';
import { Low } from 'lowdb';
import { AtomicJsonFile } from './atomic-json-file.js';

/**
 * One typed JSON document, `<folder>/<name>.json`, held in memory and rewritten whole
 * (atomically) on `write()`: for small state that changes rarely (DESIGN §4), such as the
 * accounts snapshot or one account's vault. The only user of lowdb: nothing outside store/
 * sees its `Low` type. Change `value` in place (or replace it), then `write()`.
 */
export class JsonDocument<T> {
  private constructor(private readonly database: Low<T>) {}

  /** Reads the file; `initial` stands in while it does not exist (nothing is written until `write()`). */
  static async open<T>(folder: string, name: string, initial: T): Promise<JsonDocument<T>> {
    const database = new Low<T>(new AtomicJsonFile<T>(path.join(folder, `${name}.json`)), initial);
    await database.read();
    return new JsonDocument(database);
  }

  get value(): T {
    return this.database.data;
  }

  set value(value: T) {
    this.database.data = value;
  }

  /** Writes the document as it is now; resolves once it is durable. Writes land in call order. */
  write(): Promise<void> {
    return this.database.write();
  }
}
