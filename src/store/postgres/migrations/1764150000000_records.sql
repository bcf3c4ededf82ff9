-- Up Migration
-- Team mode, issue 19 (DESIGN §4): the generic table behind PostgresCollection (pg-collection.ts),
-- where feature repositories (files, batches, vector stores) keep their records, shared by every
-- igw instance on this database. Each instance reads from an in-memory cache; every change is
-- announced on the `igw_records` channel with the collection, the key and the row's version — not
-- the value: a NOTIFY payload is limited to 8000 bytes — and each other instance re-reads the row.

-- Raised by every write of any record: a cache takes a row only when it is newer than what it holds.
CREATE SEQUENCE igw_records_version;
-- Insertion order across collections: a record keeps its position when it changes (collection.ts).
CREATE SEQUENCE igw_records_position;

CREATE TABLE igw_records (
  collection text NOT NULL,
  key text NOT NULL,
  -- json, not jsonb: the record comes back as it was written (its fields' order is the API's), and
  -- strings may hold any character (jsonb refuses \u0000).
  value json NOT NULL,
  position bigint NOT NULL DEFAULT nextval('igw_records_position'),
  version bigint NOT NULL DEFAULT nextval('igw_records_version'),
  PRIMARY KEY (collection, key)
);
CREATE INDEX igw_records_order ON igw_records (collection, position);

-- A collection's own small document (JournalCollection's `meta`: a vector store's dimensions…).
CREATE TABLE igw_record_meta (
  collection text PRIMARY KEY,
  meta jsonb NOT NULL,
  version bigint NOT NULL DEFAULT nextval('igw_records_version')
);

CREATE FUNCTION igw_notify_record() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    PERFORM pg_notify('igw_records', json_build_object('collection', OLD.collection, 'key', OLD.key, 'op', 'delete', 'version', OLD.version)::text);
  ELSE
    PERFORM pg_notify('igw_records', json_build_object('collection', NEW.collection, 'key', NEW.key, 'op', 'put', 'version', NEW.version)::text);
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER igw_records_changed AFTER INSERT OR UPDATE OR DELETE ON igw_records FOR EACH ROW EXECUTE FUNCTION igw_notify_record();

CREATE FUNCTION igw_notify_record_meta() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('igw_records', json_build_object('collection', NEW.collection, 'key', NULL, 'op', 'meta', 'version', NEW.version)::text);
  RETURN NULL;
END $$;
CREATE TRIGGER igw_record_meta_changed AFTER INSERT OR UPDATE ON igw_record_meta FOR EACH ROW EXECUTE FUNCTION igw_notify_record_meta();

-- Down Migration
DROP TABLE igw_record_meta;
DROP FUNCTION igw_notify_record_meta();
DROP TABLE igw_records;
DROP FUNCTION igw_notify_record();
DROP SEQUENCE igw_records_position;
DROP SEQUENCE igw_records_version;
