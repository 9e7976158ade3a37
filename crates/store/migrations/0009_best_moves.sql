-- chessgraph schema, version 9: best moves, for the policy networks (`train-net`).

-- The engine's best move the position was imported with (EPD `bm`), in UCI notation
-- (e2e4, e7e8q, e1g1 for castling); NULL when the input gave none.
ALTER TABLE positions ADD COLUMN best_move TEXT;
-- The move played next from the position in the first game (PGN) that reached it,
-- in UCI notation; NULL for a game's last position and for inputs without games.
ALTER TABLE positions ADD COLUMN next_move TEXT;
-- The labeller's best move (the engine's `bestmove`), in UCI notation.
ALTER TABLE labels ADD COLUMN best_move TEXT;
