use indicatif::ProgressBar;

use super::*;

/// Keys that collide: the real key cut to two bits (on this thread), so that 40
/// positions share 4 keys.
fn weak_keys() {
    super::writer::tests_key_mask::MASK.set(3);
}

#[test]
fn colliding_keys_keep_distinct_positions_apart_and_duplicates_together() {
    let dir = tempfile::tempdir().unwrap();
    let mut conn = crate::open(&dir.path().join("t.db")).unwrap();
    weak_keys();
    // 40 distinct positions, then the first 10 again (with move counters: the same
    // positions as far as the key goes).
    let mut csv = String::from("FEN,Evaluation\n");
    for i in 0..40 {
        csv += &format!("{},{i}\n", chessgraph_testkit::test_fen(i));
    }
    for i in 0..10 {
        csv += &format!("{} 3 40,{}\n", chessgraph_testkit::test_fen(i), 100 + i);
    }
    let path = dir.path().join("p.csv");
    std::fs::write(&path, csv).unwrap();
    let s = import_file(
        &mut conn,
        &path,
        &ImportOptions::default(),
        &ProgressBar::hidden(),
    )
    .unwrap();
    assert_eq!((s.imported, s.duplicates, s.rejected), (40, 10, 0));
    let (rows, boards, keys): (i64, i64, i64) = conn
        .query_row(
            "SELECT count(*), count(DISTINCT board), count(DISTINCT key) \
             FROM position_rows",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .unwrap();
    assert_eq!((rows, boards, keys), (40, 40, 4));
    // The first row of a position wins: its label, not the duplicate's.
    let eval: i64 = conn
        .query_row(
            "SELECT eval_cp FROM positions WHERE fen = ?1",
            [chessgraph_testkit::test_fen(7)],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(eval, 7);
}
