-- Up Migration
-- Team mode, issue 19 (DESIGN §4): every instance seals and opens the same stored data, so all of
-- them must use the same IGW_DATA_KEY. The first instance seals a check value under its key here;
-- an instance started with another key refuses at start instead of failing on every sealed read.
CREATE TABLE igw_data_key_check (
  -- One row per database.
  singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
  sealed bytea NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);

-- Down Migration
DROP TABLE igw_data_key_check;
