-- chessgraph schema, version 5: labels from engines (`chessgraph label`), one row per
-- position and labeller, beside the label the position was imported or generated with
-- (positions.eval_cp / positions.mate, called "imported" by --labels).

CREATE TABLE labels (
    position_id INTEGER NOT NULL REFERENCES positions(id),
    labeller    TEXT NOT NULL,            -- name given to `chessgraph label --name` (e.g. 'stockfish')
    eval_cp     INTEGER,                  -- centipawns, White's point of view; NULL for mate scores
    mate        INTEGER,                  -- signed moves to mate, White's point of view
    depth       INTEGER,                  -- depth of the search that gave the score
    nodes       INTEGER,                  -- nodes it searched
    created_at  TEXT NOT NULL,            -- UTC, ISO 8601
    PRIMARY KEY (labeller, position_id)
) WITHOUT ROWID;

-- Positions a labeller could not label (engine crash, timeout, garbage), so that a re-run
-- does not retry them forever; `chessgraph label --retry-failed` clears them.
CREATE TABLE label_failures (
    position_id INTEGER NOT NULL REFERENCES positions(id),
    labeller    TEXT NOT NULL,
    reason      TEXT NOT NULL,
    PRIMARY KEY (labeller, position_id)
) WITHOUT ROWID;
