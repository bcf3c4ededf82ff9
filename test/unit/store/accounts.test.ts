import { appendFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Decimal } from '../../../src/billing/money.js';
import { AccountRepository, type AccountRecord, type JournalEntry } from '../../../src/store/accounts.js';

/** Same fold as the store's: unlimited stays unlimited, decimals exact. */
function apply(record: AccountRecord, entry: JournalEntry): void {
  if (record[entry.balance] === 'unlimited') return;
  record[entry.balance] = new Decimal(record[entry.balance]).minus(new Decimal(entry.amount)).toFixed();
}

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

async function fresh(accounts: Array<Partial<AccountRecord> & { id: string }> = [{ id: 'acct' }]): Promise<{ dir: string; repo: AccountRepository }> {
  const dir = await mkdtemp(path.join(tmpdir(), 'igw-unit-accounts-'));
  dirs.push(dir);
  const repo = await AccountRepository.open(dir, apply);
  for (const account of accounts) await repo.insert({ plan: 'developer', energy: '100', credits: '10', created_at: 0, ...account });
  return { dir, repo };
}

const journal = (dir: string) => readFile(path.join(dir, 'balances.jsonl'), 'utf8').catch(() => '');
const snapshotFile = async (dir: string) => JSON.parse(await readFile(path.join(dir, 'accounts.json'), 'utf8')) as { accounts: AccountRecord[]; journal_seq: number };

describe('AccountRepository journal', () => {
  it.each<{ name: string; debits: Array<['energy' | 'credits', string]>; energy: string; credits: string }>([
    { name: 'one energy debit', debits: [['energy', '0.5']], energy: '99.5', credits: '10' },
    { name: 'energy and credits', debits: [['energy', '1'], ['credits', '0.25'], ['energy', '0.000001']], energy: '98.999999', credits: '9.75' },
    { name: 'into the negative', debits: [['credits', '10.001']], energy: '100', credits: '-0.001' },
    { name: 'a credit (negative amount)', debits: [['energy', '-5']], energy: '105', credits: '10' },
    { name: '0.1 + 0.2 style', debits: [['credits', '0.1'], ['credits', '0.2']], energy: '100', credits: '9.7' },
  ])('debits apply at once and survive a crash (second repository, no flush): $name', async ({ debits, energy, credits }) => {
    const { dir, repo } = await fresh();
    await Promise.all(debits.map(([balance, amount]) => repo.debit('acct', balance, amount)));
    expect(repo.get('acct')).toMatchObject({ energy, credits });
    // The first repository "crashes": never flushed, snapshot timer never fired.
    expect((await snapshotFile(dir)).accounts[0]).toMatchObject({ energy: '100', credits: '10' });
    expect((await journal(dir)).trim().split('\n')).toHaveLength(debits.length);
    const reopened = await AccountRepository.open(dir, apply);
    expect(reopened.get('acct')).toMatchObject({ energy, credits });
    // Replay folded the journal into a snapshot.
    expect(await journal(dir)).toBe('');
    expect(await snapshotFile(dir)).toMatchObject({ journal_seq: debits.length });
    // And a third open does not apply them twice.
    expect((await AccountRepository.open(dir, apply)).get('acct')).toMatchObject({ energy, credits });
  });

  it('debit returns once the line is on disk', async () => {
    const { dir, repo } = await fresh();
    await repo.debit('acct', 'energy', '7');
    const lines = (await journal(dir)).trim().split('\n').map((line) => JSON.parse(line) as JournalEntry);
    expect(lines).toEqual([{ seq: 1, account: 'acct', balance: 'energy', amount: '7' }]);
  });

  it('a debit for an unknown account is ignored', async () => {
    const { dir, repo } = await fresh();
    await repo.debit('ghost', 'energy', '7');
    expect(await journal(dir)).toBe('');
    expect(repo.get('acct')).toMatchObject({ energy: '100' });
  });

  it('unlimited balances stay unlimited through debits and replay', async () => {
    const { dir, repo } = await fresh([{ id: 'acct', energy: 'unlimited', credits: 'unlimited' }]);
    await repo.debit('acct', 'energy', '1000');
    await repo.debit('acct', 'credits', '1');
    expect((await AccountRepository.open(dir, apply)).get('acct')).toMatchObject({ energy: 'unlimited', credits: 'unlimited' });
  });

  it.each<{ name: string; torn: string }>([
    { name: 'half a JSON object', torn: '{"seq":3,"account":"acct","bal' },
    { name: 'a single brace', torn: '{' },
    { name: 'garbage', torn: '\u0000\u0000\u0000' },
  ])('a torn last journal line ($name) is ignored, earlier lines are kept', async ({ torn }) => {
    const { dir, repo } = await fresh();
    await repo.debit('acct', 'energy', '1');
    await repo.debit('acct', 'credits', '2');
    await appendFile(path.join(dir, 'balances.jsonl'), torn);
    const reopened = await AccountRepository.open(dir, apply);
    expect(reopened.get('acct')).toMatchObject({ energy: '99', credits: '8' });
    // New debits continue after the last good sequence number.
    await reopened.debit('acct', 'energy', '1');
    const entries = (await journal(dir)).trim().split('\n').map((line) => JSON.parse(line) as JournalEntry);
    expect(entries.at(-1)).toMatchObject({ seq: 3, amount: '1' });
  });

  it('snapshot (flush) folds the journal into accounts.json and empties the journal', async () => {
    const { dir, repo } = await fresh([{ id: 'a' }, { id: 'b' }]);
    await repo.debit('a', 'energy', '10');
    await repo.debit('b', 'credits', '1.5');
    await repo.debit('a', 'energy', '0.25');
    expect((await journal(dir)).trim().split('\n')).toHaveLength(3);
    await repo.flush();
    expect(await journal(dir)).toBe('');
    const snapshot = await snapshotFile(dir);
    expect(snapshot.journal_seq).toBe(3);
    expect(snapshot.accounts.find((account) => account.id === 'a')).toMatchObject({ energy: '89.75', credits: '10' });
    expect(snapshot.accounts.find((account) => account.id === 'b')).toMatchObject({ energy: '100', credits: '8.5' });
    expect((await AccountRepository.open(dir, apply)).get('a')).toMatchObject({ energy: '89.75' });
  });

  it('a crash between the snapshot write and the journal truncation does not apply debits twice', async () => {
    const { dir, repo } = await fresh();
    await repo.debit('acct', 'energy', '10');
    await repo.debit('acct', 'energy', '5');
    const lines = await journal(dir);
    await repo.flush();
    // Put the already-folded lines back, as if the truncation never happened.
    await writeFile(path.join(dir, 'balances.jsonl'), lines);
    expect((await AccountRepository.open(dir, apply)).get('acct')).toMatchObject({ energy: '85' });
  });

  it('debits after a snapshot get new sequence numbers and replay on top of it', async () => {
    const { dir, repo } = await fresh();
    await repo.debit('acct', 'energy', '10');
    await repo.flush();
    await repo.debit('acct', 'energy', '1');
    expect((await journal(dir)).trim()).toBe(JSON.stringify({ seq: 2, account: 'acct', balance: 'energy', amount: '1' }));
    expect((await AccountRepository.open(dir, apply)).get('acct')).toMatchObject({ energy: '89' });
  });

  it('files are written with mode 0600', async () => {
    const { dir, repo } = await fresh();
    await repo.debit('acct', 'energy', '1');
    const { stat } = await import('node:fs/promises');
    expect((await stat(path.join(dir, 'balances.jsonl'))).mode & 0o777).toBe(0o600);
    expect((await stat(path.join(dir, 'accounts.json'))).mode & 0o777).toBe(0o600);
  });
});
