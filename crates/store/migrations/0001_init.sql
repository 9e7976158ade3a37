-- chessgraph schema, version 1. Table and column names are a documented interface
-- (see README "Schema"): add, never rename.

-- One row per import run of one input file.
CREATE TABLE sources (
    id             INTEGER PRIMARY KEY,
    path           TEXT NOT NULL,          -- as given on the command line ('-' for stdin)
    format         TEXT NOT NULL,          -- 'csv', 'pgn' or 'epd'
    compression    TEXT NOT NULL,          -- 'none', 'gzip' or 'zstd'
    fingerprint    TEXT,                   -- size + content hash; NULL for stdin
    pov            TEXT NOT NULL,          -- point of view of the input's evaluations: 'white' or 'stm'
    rows_read      INTEGER NOT NULL DEFAULT 0,
    rows_imported  INTEGER NOT NULL DEFAULT 0,
    rows_duplicate INTEGER NOT NULL DEFAULT 0,
    rows_rejected  INTEGER NOT NULL DEFAULT 0,
    started_at     TEXT NOT NULL,          -- UTC, ISO 8601
    finished_at    TEXT                    -- NULL while running or after a killed run
);

-- Rows that could not be imported, with the reason.
CREATE TABLE import_errors (
    source_id INTEGER NOT NULL REFERENCES sources(id),
    line      INTEGER NOT NULL,            -- 1-based line in the (decompressed) input
    text      TEXT NOT NULL,               -- the offending text, cut to 200 characters
    reason    TEXT NOT NULL,
    PRIMARY KEY (source_id, line, reason)
) WITHOUT ROWID;

-- Games read from PGN sources.
CREATE TABLE games (
    id        INTEGER PRIMARY KEY,
    source_id INTEGER NOT NULL REFERENCES sources(id),
    line      INTEGER NOT NULL,            -- line of the game's first tag
    white     TEXT,
    black     TEXT,
    event     TEXT,
    date      TEXT,
    result    TEXT,                        -- '1-0', '0-1', '1/2-1/2' or NULL when unknown
    start_fen TEXT,
    UNIQUE (source_id, line)
);

-- One row per distinct position (normalized FEN).
CREATE TABLE positions (
    id        INTEGER PRIMARY KEY,
    fen       TEXT NOT NULL UNIQUE,        -- board side castling ep (ep only if a legal ep capture exists)
    fen_input TEXT NOT NULL,               -- the FEN as given
    eval_cp   INTEGER,                     -- centipawns, White's point of view; NULL for mate scores
    mate      INTEGER,                     -- signed moves to mate, White's point of view (+3: White mates in 3)
    source_id INTEGER NOT NULL REFERENCES sources(id),
    line      INTEGER NOT NULL,            -- line of the row in its source
    game_id   INTEGER REFERENCES games(id),
    ply       INTEGER,                     -- plies from the game's start position (PGN only)
    result    TEXT                         -- game result (PGN, or EPD c9/result opcode)
);
CREATE INDEX positions_source ON positions(source_id, line);

-- Features per position (white minus black unless the name says a side).
CREATE TABLE features (
    position_id           INTEGER PRIMARY KEY REFERENCES positions(id),
    material              INTEGER NOT NULL,  -- P1 N3 B3 R5 Q9, white - black
    total_material        INTEGER NOT NULL,  -- same, both sides summed
    mobility_white        INTEGER NOT NULL,  -- legal moves of White with White to move
    mobility_black        INTEGER NOT NULL,  -- legal moves of Black with Black to move
    mobility              INTEGER NOT NULL,  -- mobility_white - mobility_black
    center_control        INTEGER NOT NULL,  -- attackers of d4 e4 d5 e5, white - black
    king_safety           INTEGER NOT NULL,  -- squares next to the black king attacked by White - vice versa
    connectivity          INTEGER NOT NULL,  -- weighted defenders (P50 N35 B30 R10 Q4 K0), white - black
    phase                 INTEGER NOT NULL,  -- N,B 1; R 2; Q 4; capped at 24 (24 = opening)
    white_attacks         INTEGER NOT NULL,  -- squares attacked by White, bit 0 = a1, bit 63 = h8
    black_attacks         INTEGER NOT NULL,
    in_check              INTEGER NOT NULL,  -- 1 when the side to move is in check
    hanging_white         INTEGER NOT NULL,  -- white non-king pieces attacked and not defended
    hanging_black         INTEGER NOT NULL,
    threatened_white      INTEGER NOT NULL,  -- white pieces attacked by a lower-valued black piece
    threatened_black      INTEGER NOT NULL,
    king_attackers_white  INTEGER NOT NULL,  -- white pieces attacking the black king zone (king + adjacent squares)
    king_attackers_black  INTEGER NOT NULL,
    doubled_pawns_white   INTEGER NOT NULL,  -- white pawns with another white pawn ahead on the same file
    doubled_pawns_black   INTEGER NOT NULL,
    isolated_pawns_white  INTEGER NOT NULL,  -- white pawns with no white pawn on an adjacent file
    isolated_pawns_black  INTEGER NOT NULL,
    passed_pawns_white    INTEGER NOT NULL,  -- white pawns with no black pawn ahead on the same or adjacent files
    passed_pawns_black    INTEGER NOT NULL
);

-- The attack/defense graph: one row per piece that attacks (enemy) or defends (own) another piece.
-- Keyed by target square within a position, so "attackers and defenders of each piece" is a
-- streaming GROUP BY (see the square_pressure view).
CREATE TABLE edges (
    position_id INTEGER NOT NULL REFERENCES positions(id),
    from_sq     INTEGER NOT NULL,          -- 0..63, a1 = 0, h8 = 63
    to_sq       INTEGER NOT NULL,
    attacker    TEXT NOT NULL,             -- FEN letter of the piece on from_sq (uppercase = white)
    target      TEXT NOT NULL,             -- FEN letter of the piece on to_sq
    kind        TEXT NOT NULL CHECK (kind IN ('attack', 'defend')),
    PRIMARY KEY (position_id, to_sq, from_sq)
) WITHOUT ROWID;
-- "Positions where a queen is attacked by a pawn": attacks are a sixth of all edges, so the
-- index covers only them (analyze rebuilds it after bulk loads).
CREATE INDEX edges_attacks ON edges(attacker, target) WHERE kind = 'attack';

-- Per occupied square that is attacked or defended: how many attackers and defenders.
CREATE VIEW square_pressure AS
SELECT position_id, to_sq AS sq, target AS piece,
       sum(kind = 'attack') AS attackers, sum(kind = 'defend') AS defenders
FROM edges GROUP BY position_id, to_sq;
