-- chessgraph schema, version 4: evaluators made by `chessgraph tune`, kept so `export`,
-- `eval`, `engine` and `report` can name them.

CREATE TABLE evaluators (
    id          INTEGER PRIMARY KEY,
    name        TEXT NOT NULL UNIQUE,
    json        TEXT NOT NULL,   -- the evaluator file, exactly as `export` writes it
    valid_loss  REAL,            -- Texel loss on the validation part (rounded weights)
    test_loss   REAL,            -- Texel loss on the test part
    test_tau    REAL,            -- Kendall tau-b of the static evaluation on the test part
    created_at  TEXT NOT NULL    -- UTC, ISO 8601
);
