-- Up Migration
-- Team mode, issue 19 (DESIGN §4): keys, accounts and balances, and the request log shared by
-- every igw instance on this database. Every change to a key or an account is announced on a
-- channel (NOTIFY) with the row as it is now, so each instance's in-memory cache follows within
-- milliseconds (a key revoked on one instance stops working on all of them).

CREATE TABLE igw_keys (
  id text PRIMARY KEY,
  name text NOT NULL,
  -- SHA-256 of the key: the key itself is never stored (DESIGN §4).
  hash text NOT NULL UNIQUE,
  display text NOT NULL,
  scopes jsonb NOT NULL,
  vault_access boolean NOT NULL,
  account text NOT NULL,
  created_at bigint NOT NULL,
  expires_at bigint,
  revoked_at bigint,
  owner text
);

CREATE TABLE igw_accounts (
  id text PRIMARY KEY,
  plan text NOT NULL,
  -- Balances are exact decimals; NULL is "unlimited" (NULL minus a debit stays NULL).
  energy numeric,
  credits numeric,
  created_at bigint NOT NULL,
  -- Raised by every change: a cache applies a change only when it is newer than what it holds.
  version bigint NOT NULL DEFAULT 1
);

CREATE TABLE igw_request_log (
  id bigserial PRIMARY KEY,
  time timestamptz NOT NULL,
  request_id text NOT NULL,
  endpoint text NOT NULL,
  -- The whole log line (DESIGN §4 request log), as the JSON store writes it.
  entry jsonb NOT NULL
);
CREATE INDEX igw_request_log_time ON igw_request_log (time);

-- What `igw migrate --from-data-dir` copied, so a data dir copied twice does not count its requests twice.
CREATE TABLE igw_imports (
  data_dir text NOT NULL,
  part text NOT NULL,
  copied_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (data_dir, part)
);

CREATE FUNCTION igw_notify_key() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('igw_keys', row_to_json(NEW)::text);
  RETURN NULL;
END $$;
CREATE TRIGGER igw_keys_changed AFTER INSERT OR UPDATE ON igw_keys FOR EACH ROW EXECUTE FUNCTION igw_notify_key();

CREATE FUNCTION igw_notify_account() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- Balances as text: a JSON number would lose decimals in JavaScript.
  PERFORM pg_notify('igw_accounts', json_build_object('id', NEW.id, 'plan', NEW.plan, 'energy', NEW.energy::text,
    'credits', NEW.credits::text, 'created_at', NEW.created_at, 'version', NEW.version)::text);
  RETURN NULL;
END $$;
CREATE TRIGGER igw_accounts_changed AFTER INSERT OR UPDATE ON igw_accounts FOR EACH ROW EXECUTE FUNCTION igw_notify_account();

-- Down Migration
DROP TABLE igw_imports;
DROP TABLE igw_request_log;
DROP TABLE igw_accounts;
DROP FUNCTION igw_notify_account();
DROP TABLE igw_keys;
DROP FUNCTION igw_notify_key();
