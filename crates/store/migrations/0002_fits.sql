-- chessgraph schema, version 2: the shared train/valid/test split and stored fits.

-- The split every tool (fit, tune, eval) uses. One row; the part of a position is a pure
-- function of (normalized FEN, seed) — see src/fit/split.rs — so the same position lands in
-- the same part in every database made with the same seed.
CREATE TABLE split_meta (
    id        INTEGER PRIMARY KEY CHECK (id = 1),
    seed      INTEGER NOT NULL,
    train_pct INTEGER NOT NULL,
    valid_pct INTEGER NOT NULL,
    test_pct  INTEGER NOT NULL,
    CHECK (train_pct >= 0 AND valid_pct >= 0 AND test_pct >= 0
           AND train_pct + valid_pct + test_pct = 100)
);
INSERT INTO split_meta (id, seed, train_pct, valid_pct, test_pct) VALUES (1, 1, 80, 10, 10);

-- The part of each position under split_meta's seed; filled lazily for positions lacking one.
CREATE TABLE splits (
    position_id INTEGER PRIMARY KEY REFERENCES positions(id),
    part        TEXT NOT NULL CHECK (part IN ('train', 'valid', 'test'))
);

-- One row per `chessgraph fit` run.
CREATE TABLE fits (
    id           INTEGER PRIMARY KEY,
    kind         TEXT NOT NULL CHECK (kind IN ('linear', 'logistic')),
    target       TEXT NOT NULL,   -- 'eval_cp', 'result' (White won) or 'sign' (eval > 0)
    features     TEXT NOT NULL,   -- JSON array of features column names, in coefficient order
    filter       TEXT NOT NULL,   -- the SQL condition on positions/features that selected the rows
    seed         INTEGER NOT NULL,-- split seed
    n_train      INTEGER NOT NULL,
    n_test       INTEGER NOT NULL,-- held-out rows (valid + test parts)
    metrics      TEXT NOT NULL,   -- JSON object: {"train": {...}, "test": {...}}
    coefficients TEXT NOT NULL,   -- JSON array of {name, estimate, std_error, statistic}, intercept first
    created_at   TEXT NOT NULL    -- UTC, ISO 8601
);
