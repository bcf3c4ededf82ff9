-- Up Migration
-- Team mode, issue 19 item 2 (DESIGN §4, §5 batch lifecycle): batches and their rows shared by
-- every igw instance on this database. Each instance claims a few rows at a time with a lease
-- (FOR UPDATE SKIP LOCKED, then lease_owner/lease_until); a row's sealed output line is written in
-- the transaction that marks it done, so it is recorded once. A dead instance's rows are taken
-- again once their lease has expired. The batch-level step (finalization: the output and error
-- files, the terminal status) is leased the same way on the batch row (owner/owner_until).

CREATE TABLE igw_batches (
  id text PRIMARY KEY,
  -- Creation order: lists are newest first, rows are claimed oldest batch first.
  seq bigserial NOT NULL UNIQUE,
  account text NOT NULL,
  status text NOT NULL,
  -- Set once the batch takes no more rows: the terminal status its finalization will write
  -- (succeeded, cancelled, expired or failed). Completions are refused from then on.
  ending text,
  expires_at bigint NOT NULL,
  total integer NOT NULL,
  succeeded integer NOT NULL DEFAULT 0,
  errored integer NOT NULL DEFAULT 0,
  -- The instance running the batch-level step and until when its lease holds.
  owner text,
  owner_until timestamptz,
  -- The rest of the batch object (batches/batch-record.ts); the columns above win over it.
  record jsonb NOT NULL
);
CREATE INDEX igw_batches_account ON igw_batches (account, seq);
CREATE INDEX igw_batches_active ON igw_batches (seq) WHERE status IN ('queued', 'in_progress', 'finalizing', 'cancelling');

CREATE TABLE igw_batch_rows (
  batch_id text NOT NULL REFERENCES igw_batches (id) ON DELETE CASCADE,
  -- 0-based position among the input's requests (batches/input-rows.ts).
  idx integer NOT NULL,
  custom_id text NOT NULL,
  -- The request line's body, sealed under the data key (AAD = batch id), like file bytes.
  body bytea NOT NULL,
  done boolean NOT NULL DEFAULT false,
  errored boolean,
  -- The row's output line (spec "Batch output line"), sealed under the data key (AAD = batch id).
  output bytea,
  lease_owner text,
  lease_until timestamptz,
  PRIMARY KEY (batch_id, idx)
);
CREATE INDEX igw_batch_rows_todo ON igw_batch_rows (batch_id, idx) WHERE NOT done;
CREATE INDEX igw_batch_rows_leases ON igw_batch_rows (lease_owner) WHERE NOT done;

-- Down Migration
DROP TABLE igw_batch_rows;
DROP TABLE igw_batches;
