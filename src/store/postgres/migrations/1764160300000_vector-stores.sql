-- Up Migration
-- Team mode, issue 19 item 1 (DESIGN §4): vector stores shared by every igw instance on this
-- database. Records (stores, their files, file batches) are PostgresCollections (igw_records); a file's
-- chunk texts and vectors are one row, sealed as in the data dir (AES-256-GCM, the same
-- additional data), written in one transaction per file (flat cost: nothing per store is
-- rewritten). Each instance's HNSW and lexical indexes are caches of these rows, kept current
-- through a change feed (NOTIFY igw_vs_changes with the store's sequence number).

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
