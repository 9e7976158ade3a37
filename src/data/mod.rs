//! Input formats: CSV (chessData style), Lichess PGN with [%eval], EPD.
