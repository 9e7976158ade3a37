-- chessgraph schema, version 6: tournaments (`chessgraph tournament`): every game is stored
-- as it finishes, so that re-running the same tournament plays only the missing games, and
-- `chessgraph report` shows the cross table and ratings.

CREATE TABLE tournaments (
    id          INTEGER PRIMARY KEY,
    name        TEXT NOT NULL UNIQUE,   -- the --name given
    settings    TEXT NOT NULL,          -- JSON: time control, move limit, openings (fixed once games exist)
    created_at  TEXT NOT NULL           -- UTC, ISO 8601
);

-- The participants, in the order they were first given.
CREATE TABLE tournament_players (
    tournament_id INTEGER NOT NULL REFERENCES tournaments(id),
    seq           INTEGER NOT NULL,     -- 0, 1, ...: order of registration
    name          TEXT NOT NULL,        -- name in the tables and the PGN
    definition    TEXT NOT NULL,        -- what plays under that name: 'player SPEC' or 'engine CMD', and UCI options
    PRIMARY KEY (tournament_id, name)
) WITHOUT ROWID;

-- One row per finished game. A pair's games are numbered 0, 1, ... (game_index): game k
-- starts from opening k/2, with player_a (the pair's first name in sort order) White in
-- even k.
CREATE TABLE tournament_games (
    id            INTEGER PRIMARY KEY,
    tournament_id INTEGER NOT NULL REFERENCES tournaments(id),
    player_a      TEXT NOT NULL,
    player_b      TEXT NOT NULL,
    game_index    INTEGER NOT NULL,
    white         TEXT NOT NULL,
    black         TEXT NOT NULL,
    opening       INTEGER NOT NULL,     -- index into the openings
    start_fen     TEXT NOT NULL,
    moves         TEXT NOT NULL,        -- UCI moves separated by spaces
    result        TEXT NOT NULL CHECK (result IN ('1-0', '0-1', '1/2-1/2')),
    termination   TEXT NOT NULL,        -- checkmate, threefold repetition, illegal move "a1a1", ...
    fault         TEXT,                 -- the player who lost by an illegal move, on time or by a failure
    plies         INTEGER NOT NULL,
    created_at    TEXT NOT NULL,
    UNIQUE (tournament_id, player_a, player_b, game_index)
);
