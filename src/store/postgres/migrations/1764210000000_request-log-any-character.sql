-- Up Migration
-- A request-log line may name what a client sent (an ignored field's name, a model id), and JSON
-- lets a client send U+0000, which jsonb refuses: one such line failed the whole batch of lines
-- written with it. json keeps the text as written (like igw_records); the log is only read whole.
ALTER TABLE igw_request_log ALTER COLUMN entry TYPE json USING entry::json;

-- Down Migration
ALTER TABLE igw_request_log ALTER COLUMN entry TYPE jsonb USING entry::jsonb;
