-- chessgraph schema, version 3: recorded benchmark runs (puzzles, matches, engine bench,
-- evaluator comparisons) so `chessgraph report` can show them next to the data and fits.

CREATE TABLE runs (
    id          INTEGER PRIMARY KEY,
    kind        TEXT NOT NULL,   -- 'solve', 'match', 'bench', 'eval', ...
    label       TEXT NOT NULL,   -- what was run: input file, engines, evaluator
    summary     TEXT NOT NULL,   -- JSON object, the command's own summary
    created_at  TEXT NOT NULL    -- UTC, ISO 8601
);
CREATE INDEX runs_kind ON runs(kind, id);
