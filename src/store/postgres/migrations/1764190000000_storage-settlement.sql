-- Up Migration
-- Team mode, issue 19 item 4: vector-store storage is settled once a day across every instance.
-- The settlement's state (time-weighted sizes not yet charged, grace clocks) is one row, changed
-- under its row lock: the instance that settles a day takes it out of the state, so no other
-- instance charges it again.
CREATE TABLE igw_storage_settlement (
  id integer PRIMARY KEY CHECK (id = 1),
  state jsonb NOT NULL
);

-- Down Migration
DROP TABLE igw_storage_settlement;
