-- Up Migration
-- Team mode, issue 19 item 1 (DESIGN §4): vector stores shared by every igw instance on this
-- database. Records (stores, their files, file batches) are one JSON document each; a file's
-- chunk texts and vectors are one row, sealed as in the data dir (AES-256-GCM, the same
-- additional data), written in one transaction per file (flat cost: nothing per store is
-- rewritten). Each instance's HNSW and lexical indexes are caches of these rows, kept current
-- through a change feed (NOTIFY igw_vs_changes with the store's sequence number).

CREATE TABLE igw_vs_records (
  -- 'store', 'file' or 'batch'
  kind text NOT NULL,
  key text NOT NULL,
  record jsonb NOT NULL,
  -- The instance that wrote this version: it skips its own notifications (its cache has it already).
  origin text NOT NULL,
  -- Insertion order (lists are oldest first); an update keeps it.
  position bigserial,
  PRIMARY KEY (kind, key)
);
CREATE INDEX igw_vs_records_position ON igw_vs_records (kind, position);

CREATE FUNCTION igw_notify_vs_record() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  row igw_vs_records;
BEGIN
  IF TG_OP = 'DELETE' THEN
    -- The deleting instance names itself for the transaction (set_config igw.origin): the row names its last writer.
    PERFORM pg_notify('igw_vs_records', json_build_object('kind', OLD.kind, 'key', OLD.key,
      'origin', COALESCE(NULLIF(current_setting('igw.origin', true), ''), OLD.origin), 'deleted', true)::text);
    RETURN NULL;
  END IF;
  row := NEW;
  -- NOTIFY payloads stop at 8000 bytes: a larger record is announced without it and read back.
  PERFORM pg_notify('igw_vs_records', json_build_object('kind', row.kind, 'key', row.key, 'origin', row.origin,
    'record', CASE WHEN octet_length(row.record::text) < 7000 THEN row.record END)::text);
  RETURN NULL;
END $$;
CREATE TRIGGER igw_vs_records_changed AFTER INSERT OR UPDATE OR DELETE ON igw_vs_records FOR EACH ROW EXECUTE FUNCTION igw_notify_vs_record();

-- One row per store that holds data: its change sequence (raised by every committed or removed
-- file, under this row's lock, so sequence order is commit order) and its embedding dimensions.
CREATE TABLE igw_vs_feed (
  store_id text PRIMARY KEY,
  seq bigint NOT NULL DEFAULT 0,
  dimensions integer
);

-- A file's chunks and vectors (the latest version; `removed` rows are tombstones, so an instance
-- catching up learns of the removal). `seq` is the store's sequence number of this change.
CREATE TABLE igw_vs_file_data (
  store_id text NOT NULL,
  file_id text NOT NULL,
  seq bigint NOT NULL,
  removed boolean NOT NULL DEFAULT false,
  chunk_count integer NOT NULL,
  usage_bytes bigint NOT NULL,
  text_sealed bytea,
  vectors_sealed bytea,
  PRIMARY KEY (store_id, file_id)
);
CREATE INDEX igw_vs_file_data_seq ON igw_vs_file_data (store_id, seq);

-- Text sources (`sources/text`) between the request and their ingestion, sealed as in the data dir.
CREATE TABLE igw_vs_sources (
  store_id text NOT NULL,
  file_id text NOT NULL,
  sealed bytea NOT NULL,
  PRIMARY KEY (store_id, file_id)
);

-- Ingestion jobs (issue 19 item 2): any instance claims one with a lease (FOR UPDATE SKIP
-- LOCKED); a job whose lease ran out (its instance died) is claimed again by another.
CREATE TABLE igw_vs_jobs (
  store_id text NOT NULL,
  file_id text NOT NULL,
  queued_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  lease_owner text,
  lease_until timestamptz,
  PRIMARY KEY (store_id, file_id)
);
CREATE INDEX igw_vs_jobs_queue ON igw_vs_jobs (queued_at);

CREATE FUNCTION igw_notify_vs_job() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('igw_vs_jobs', '');
  RETURN NULL;
END $$;
CREATE TRIGGER igw_vs_jobs_queued AFTER INSERT ON igw_vs_jobs FOR EACH STATEMENT EXECUTE FUNCTION igw_notify_vs_job();

-- Down Migration
DROP TABLE igw_vs_jobs;
DROP FUNCTION igw_notify_vs_job();
DROP TABLE igw_vs_sources;
DROP TABLE igw_vs_file_data;
DROP TABLE igw_vs_feed;
DROP TABLE igw_vs_records;
DROP FUNCTION igw_notify_vs_record();
