-- chessgraph schema, version 11: the position key stored. `position_rows.key` is the
-- 47-bit key of the packed board (chessgraph_core::chess::packed::key), computed in Rust
-- when a row is written, and the index is on that column. No index, trigger, CHECK or
-- default of a table calls an application function, so any SQLite client can run
-- `PRAGMA integrity_check`, `VACUUM`, `REINDEX` and `DELETE FROM position_rows` without
-- chessgraph's functions; only the views' computed columns (`positions.fen`,
-- `features.white_attacks`, `splits.part`, …) need them (the loadable extension, or
-- `chessgraph sql`).
--
-- The table is rebuilt so that the key sits beside the board and is NOT NULL; this runs
-- on chessgraph's own connection, where `board_key` is registered.
CREATE TABLE position_rows_new (
    id        INTEGER PRIMARY KEY,
    board     BLOB NOT NULL,            -- packed position: board, side, castling, legal ep
    key       INTEGER NOT NULL,         -- packed::key(board): 47 bits; not unique (collisions)
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
INSERT INTO position_rows_new (id, board, key, eval_cp, mate, source_id, line, game_id, ply,
                               result, best_move, next_move, fen_input)
SELECT id, board, board_key(board), eval_cp, mate, source_id, line, game_id, ply, result,
       best_move, next_move, fen_input
FROM position_rows ORDER BY id;
-- Dropping the table drops its indexes and leaves the views and triggers that name it,
-- which are recreated below against the new table.
DROP VIEW positions;
DROP VIEW features;
DROP VIEW splits;
DROP TABLE position_rows;
ALTER TABLE position_rows_new RENAME TO position_rows;
-- Not UNIQUE: two positions whose keys collide are both stored, told apart by `board`.
CREATE INDEX position_rows_key ON position_rows(key);
CREATE INDEX positions_game ON position_rows(game_id) WHERE game_id IS NOT NULL;

CREATE VIEW positions AS
SELECT id, board_fen(board) AS fen, coalesce(fen_input, board_fen(board)) AS fen_input,
       eval_cp, mate, source_id, line, game_id, ply, result, best_move, next_move
FROM position_rows;

-- Writes through the view keep working for programs with the functions (and keep FENs
-- unique); they store the key as chessgraph does.
CREATE TRIGGER positions_insert INSTEAD OF INSERT ON positions
BEGIN
    SELECT RAISE(ABORT, 'UNIQUE constraint failed: positions.fen')
    WHERE EXISTS (SELECT 1 FROM position_rows
                  WHERE key = board_key(pack_fen(NEW.fen)) AND board = pack_fen(NEW.fen));
    INSERT INTO position_rows (id, board, key, eval_cp, mate, source_id, line, game_id, ply,
                               result, best_move, next_move, fen_input)
    VALUES (NEW.id, pack_fen(NEW.fen), board_key(pack_fen(NEW.fen)), NEW.eval_cp, NEW.mate,
            NEW.source_id, NEW.line, NEW.game_id, NEW.ply, NEW.result, NEW.best_move,
            NEW.next_move, nullif(NEW.fen_input, board_fen(pack_fen(NEW.fen))));
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

CREATE VIEW splits AS
SELECT p.id AS position_id,
       split_part(CASE WHEN g.id IS NULL THEN board_fen(p.board)
                       ELSE game_key(g.line, g.white, g.black, g.event, g.date, g.start_fen) END,
                  m.seed, m.train_pct, m.valid_pct) AS part
FROM position_rows p LEFT JOIN games g ON g.id = p.game_id JOIN split_meta m ON m.id = 1;

-- WITHOUT ROWID tables with their primary key's columns declared first: SQLite 3.40.0 to
-- 3.41.0 (Debian 12's sqlite3 among them) report false "NULL value in T.C" errors from
-- `PRAGMA integrity_check` for a NOT NULL column declared before a key column. The two
-- tables that had one are rebuilt, same rows, the key first.
CREATE TABLE import_errors_new (
    source_id INTEGER NOT NULL REFERENCES sources(id),
    line      INTEGER NOT NULL,            -- 1-based line in the (decompressed) input
    reason    TEXT NOT NULL,
    text      TEXT NOT NULL,               -- the offending text, cut to 200 characters
    PRIMARY KEY (source_id, line, reason)
) WITHOUT ROWID;
INSERT INTO import_errors_new (source_id, line, reason, text)
SELECT source_id, line, reason, text FROM import_errors;
DROP TABLE import_errors;
ALTER TABLE import_errors_new RENAME TO import_errors;

CREATE TABLE tournament_players_new (
    tournament_id INTEGER NOT NULL REFERENCES tournaments(id),
    name          TEXT NOT NULL,        -- name in the tables and the PGN
    seq           INTEGER NOT NULL,     -- 0, 1, ...: order of registration
    definition    TEXT NOT NULL,        -- what plays under that name: 'player SPEC' or 'engine CMD', and UCI options
    PRIMARY KEY (tournament_id, name)
) WITHOUT ROWID;
INSERT INTO tournament_players_new (tournament_id, name, seq, definition)
SELECT tournament_id, name, seq, definition FROM tournament_players;
DROP TABLE tournament_players;
ALTER TABLE tournament_players_new RENAME TO tournament_players;
