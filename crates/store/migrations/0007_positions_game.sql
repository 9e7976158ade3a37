-- Positions by game: a game's moves (serve, games), and the import's clean-up of games
-- that stored no position. Without it each lookup scans every position; a position first
-- stored by another source (a CSV) can carry a game of the PGN imported after it, so the
-- source index does not answer it.
CREATE INDEX IF NOT EXISTS positions_game ON positions(game_id) WHERE game_id IS NOT NULL;
