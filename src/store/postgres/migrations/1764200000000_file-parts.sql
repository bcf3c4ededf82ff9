-- Up Migration
-- Team mode, issue 19 (DESIGN §4): a file's bytes, sealed as in the data dir (sealed stream, AAD =
-- file id), in parts of about 1 MB, so an upload is written and a download read part by part
-- (never the whole file in memory). An upload writes its parts in one transaction, then its record
-- (igw_records, collection "files"): parts committed without a record (a crash between the two)
-- are removed at a later start once they are old enough not to be an upload in progress.
CREATE TABLE igw_file_parts (
  file_id text NOT NULL,
  part integer NOT NULL,
  bytes bytea NOT NULL,
  written_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (file_id, part)
);

-- Down Migration
DROP TABLE igw_file_parts;
