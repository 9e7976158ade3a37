-- chessgraph schema, version 10: the compact layout. A position is stored once, as its
-- packed bytes (src/chess/packed.rs, 9–25 bytes), found through an index on their 47-bit
-- key; its FEN is computed on demand. `positions`, `features` and `labels` stay readable
-- with every column they had, as views over the tables that hold the rows; reading the
-- FEN columns needs chessgraph's SQL functions (`board_fen`, see src/db/functions.rs),
-- which every connection chessgraph opens has.

-- Positions: `positions.fen` is `board_fen(board)`; `fen_input` is stored only where the
-- input's text differs from it (move counters, an en passant square without a capture).
-- The renames first point the other tables' REFERENCES clauses at `position_rows`.
ALTER TABLE positions RENAME TO position_rows;
CREATE TABLE position_rows_new (
    id        INTEGER PRIMARY KEY,
    board     BLOB NOT NULL,            -- packed position: board, side, castling, legal ep
    eval_cp   INTEGER,
    mate      INTEGER,
    source_id INTEGER NOT NULL REFERENCES sources(id),
    line      INTEGER NOT NULL,
    game_id   INTEGER REFERENCES games(id),
    ply       INTEGER,
    result    TEXT,
    best_move TEXT,
    next_move TEXT,
    fen_input TEXT                      -- NULL when equal to board_fen(board)
);
INSERT INTO position_rows_new (id, board, eval_cp, mate, source_id, line, game_id, ply, result,
                               best_move, next_move, fen_input)
SELECT id, pack_fen(fen), eval_cp, mate, source_id, line, game_id, ply, result, best_move,
       next_move, nullif(fen_input, fen)
FROM position_rows ORDER BY id;
DROP TABLE position_rows;
ALTER TABLE position_rows_new RENAME TO position_rows;
-- Not UNIQUE: two positions whose keys collide are both stored, told apart by `board`.
CREATE INDEX position_rows_key ON position_rows(board_key(board));
CREATE INDEX positions_game ON position_rows(game_id) WHERE game_id IS NOT NULL;

CREATE VIEW positions AS
SELECT id, board_fen(board) AS fen, coalesce(fen_input, board_fen(board)) AS fen_input,
       eval_cp, mate, source_id, line, game_id, ply, result, best_move, next_move
FROM position_rows;

-- Writes through the view keep working for other programs (and keep FENs unique).
CREATE TRIGGER positions_insert INSTEAD OF INSERT ON positions
BEGIN
    SELECT RAISE(ABORT, 'UNIQUE constraint failed: positions.fen')
    WHERE EXISTS (SELECT 1 FROM position_rows
                  WHERE board_key(board) = board_key(pack_fen(NEW.fen))
                    AND board = pack_fen(NEW.fen));
    INSERT INTO position_rows (id, board, eval_cp, mate, source_id, line, game_id, ply,
                               result, best_move, next_move, fen_input)
    VALUES (NEW.id, pack_fen(NEW.fen), NEW.eval_cp, NEW.mate, NEW.source_id, NEW.line,
            NEW.game_id, NEW.ply, NEW.result, NEW.best_move, NEW.next_move,
            nullif(NEW.fen_input, board_fen(pack_fen(NEW.fen))));
END;
CREATE TRIGGER positions_update INSTEAD OF UPDATE ON positions
BEGIN
    UPDATE position_rows SET eval_cp = NEW.eval_cp, mate = NEW.mate, source_id = NEW.source_id,
        line = NEW.line, game_id = NEW.game_id, ply = NEW.ply, result = NEW.result,
        best_move = NEW.best_move, next_move = NEW.next_move
    WHERE id = OLD.id;
END;
CREATE TRIGGER positions_delete INSTEAD OF DELETE ON positions
BEGIN
    DELETE FROM position_rows WHERE id = OLD.id;
END;

-- Features: the two attack bitboards are computed from the board (`board_attacks`), and
-- `mobility` from its two sides.
CREATE TABLE feature_rows (
    position_id           INTEGER PRIMARY KEY REFERENCES position_rows(id),
    material              INTEGER NOT NULL,
    total_material        INTEGER NOT NULL,
    mobility_white        INTEGER NOT NULL,
    mobility_black        INTEGER NOT NULL,
    center_control        INTEGER NOT NULL,
    king_safety           INTEGER NOT NULL,
    connectivity          INTEGER NOT NULL,
    phase                 INTEGER NOT NULL,
    in_check              INTEGER NOT NULL,
    hanging_white         INTEGER NOT NULL,
    hanging_black         INTEGER NOT NULL,
    threatened_white      INTEGER NOT NULL,
    threatened_black      INTEGER NOT NULL,
    king_attackers_white  INTEGER NOT NULL,
    king_attackers_black  INTEGER NOT NULL,
    doubled_pawns_white   INTEGER NOT NULL,
    doubled_pawns_black   INTEGER NOT NULL,
    isolated_pawns_white  INTEGER NOT NULL,
    isolated_pawns_black  INTEGER NOT NULL,
    passed_pawns_white    INTEGER NOT NULL,
    passed_pawns_black    INTEGER NOT NULL
);
INSERT INTO feature_rows
SELECT position_id, material, total_material, mobility_white, mobility_black,
       center_control, king_safety, connectivity, phase, in_check, hanging_white,
       hanging_black, threatened_white, threatened_black, king_attackers_white,
       king_attackers_black, doubled_pawns_white, doubled_pawns_black, isolated_pawns_white,
       isolated_pawns_black, passed_pawns_white, passed_pawns_black
FROM features ORDER BY position_id;
DROP TABLE features;
CREATE VIEW features AS
SELECT f.position_id, f.material, f.total_material, f.mobility_white, f.mobility_black,
       f.mobility_white - f.mobility_black AS mobility, f.center_control, f.king_safety, f.connectivity, f.phase,
       board_attacks(p.board, 'white') AS white_attacks,
       board_attacks(p.board, 'black') AS black_attacks,
       f.in_check, f.hanging_white, f.hanging_black, f.threatened_white, f.threatened_black,
       f.king_attackers_white, f.king_attackers_black, f.doubled_pawns_white,
       f.doubled_pawns_black, f.isolated_pawns_white, f.isolated_pawns_black,
       f.passed_pawns_white, f.passed_pawns_black
FROM feature_rows f LEFT JOIN position_rows p ON p.id = f.position_id;

-- Labels: the labeller's name once (`labellers`), the time as Unix seconds.
CREATE TABLE labellers (
    id   INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE
);
CREATE TABLE label_rows (
    labeller_id INTEGER NOT NULL REFERENCES labellers(id),
    position_id INTEGER NOT NULL REFERENCES position_rows(id),
    eval_cp     INTEGER,
    mate        INTEGER,
    depth       INTEGER,
    nodes       INTEGER,
    best_move   TEXT,
    created_at  INTEGER NOT NULL,        -- Unix seconds, UTC
    PRIMARY KEY (labeller_id, position_id)
) WITHOUT ROWID;
INSERT INTO labellers (name) SELECT DISTINCT labeller FROM labels ORDER BY labeller;
INSERT INTO label_rows (labeller_id, position_id, eval_cp, mate, depth, nodes, best_move,
                        created_at)
SELECT n.id, l.position_id, l.eval_cp, l.mate, l.depth, l.nodes, l.best_move,
       coalesce(CAST(strftime('%s', l.created_at) AS INTEGER), 0)
FROM labels l JOIN labellers n ON n.name = l.labeller ORDER BY n.id, l.position_id;
DROP TABLE labels;
CREATE VIEW labels AS
SELECT l.position_id, n.name AS labeller, l.eval_cp, l.mate, l.depth, l.nodes,
       strftime('%Y-%m-%dT%H:%M:%SZ', l.created_at, 'unixepoch') AS created_at, l.best_move
FROM label_rows l JOIN labellers n ON n.id = l.labeller_id;

-- A bulk import appends its rows without looking each one up, and finds duplicates once at
-- the end (src/db/import/bulk.rs). While it is unfinished, the ids above `bulk_after_id`
-- are its rows, not yet checked for duplicates, and `bulk_line` is the last input line
-- committed (a re-run goes on after it). NULL otherwise.
ALTER TABLE sources ADD COLUMN bulk_after_id INTEGER;
ALTER TABLE sources ADD COLUMN bulk_line INTEGER;

-- Splits: a position's part is a pure function of its split key and `split_meta`
-- (src/db/split.rs), computed by the view: nothing to store, never stale. The key is the
-- position's game (`game_key`) when it has one, else its normalized FEN.
DROP TABLE splits;
CREATE VIEW splits AS
SELECT p.id AS position_id,
       split_part(CASE WHEN g.id IS NULL THEN board_fen(p.board)
                       ELSE game_key(g.line, g.white, g.black, g.event, g.date, g.start_fen) END,
                  m.seed, m.train_pct, m.valid_pct) AS part
FROM position_rows p LEFT JOIN games g ON g.id = p.game_id JOIN split_meta m ON m.id = 1;
