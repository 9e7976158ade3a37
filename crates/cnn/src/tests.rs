use std::path::Path;

use shakmaty::{Chess, Position};

use super::*;
use chessgraph_core::chess::fen::parse_position;

const SMALL: Shape = Shape {
    channels: 4,
    blocks: 2,
};

fn net(arch: Arch, seed: u64) -> Net {
    test_net(arch, SMALL, seed)
}

fn positions() -> Vec<Chess> {
    [
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R b KQkq - 3 12",
        "8/8/4k3/8/8/4K3/4P3/8 w - - 20 60",
    ]
    .iter()
    .map(|f| parse_position(f).unwrap())
    .collect()
}

#[test]
fn saved_model_reloads_bit_identically() {
    let dir = tempfile::tempdir().unwrap();
    for arch in Arch::ALL {
        let a = net(arch, 7);
        let path = dir.path().join(format!("{}.safetensors", arch.as_str()));
        a.save(&path).unwrap();
        let b = Net::load(&path).unwrap();
        assert_eq!(a, b, "{}", arch.as_str());
        let again = dir.path().join("again.safetensors");
        b.save(&again).unwrap();
        assert_eq!(
            std::fs::read(&path).unwrap(),
            std::fs::read(&again).unwrap()
        );
        let pos = positions();
        let (fa, fb) = (
            a.forward(pos.iter()).unwrap(),
            b.forward(pos.iter()).unwrap(),
        );
        for (x, y) in [(fa.value, fb.value), (fa.policy, fb.policy)] {
            if let (Some(x), Some(y)) = (x, y) {
                let (x, y) = (flat(&x).unwrap(), flat(&y).unwrap());
                assert_eq!(x, y);
            }
        }
    }
}

#[test]
fn heads_have_the_documented_shapes() {
    let pos = positions();
    for arch in Arch::ALL {
        let out = net(arch, 1).forward(pos.iter()).unwrap();
        assert_eq!(out.value.is_some(), arch.has_value());
        assert_eq!(out.policy.is_some(), arch.has_policy());
        if let Some(v) = out.value {
            assert_eq!(v.dims(), [3]);
            assert!(flat(&v).unwrap().iter().all(|x| (-1.0..=1.0).contains(x)));
        }
        if let Some(p) = out.policy {
            assert_eq!(p.dims(), [3, POLICY_LEN]);
        }
    }
}

#[test]
fn priors_are_a_distribution_over_legal_moves() {
    let n = net(Arch::PolicyValue, 3);
    for pos in positions() {
        let moves: Vec<_> = pos.legal_moves().into_iter().collect();
        let (p, v) = n.priors(&pos, &moves).unwrap();
        assert_eq!(p.len(), moves.len());
        assert!((p.iter().sum::<f32>() - 1.0).abs() < 1e-5);
        let white = n.values(std::iter::once(&pos)).unwrap()[0];
        let v = v.unwrap();
        assert_eq!(
            if pos.turn() == shakmaty::Color::White {
                white
            } else {
                -white
            },
            v
        );
    }
    let err = net(Arch::CnnEval, 1)
        .priors(&Chess::default(), &[])
        .unwrap_err();
    assert!(err.to_string().contains("no policy head"), "{err}");
}

#[test]
fn centipawns_invert_the_label_scale() {
    let n = net(Arch::CnnStudy, 1);
    for cp in [-800, -100, 0, 35, 400] {
        let p = 1.0 / (1.0 + (-0.005 * f64::from(cp)).exp());
        let v = (2.0 * p - 1.0) as f32;
        assert!((n.centipawns(v) - cp).abs() <= 1, "{cp}");
    }
}

#[test]
fn bad_files_are_clear_errors() {
    let dir = tempfile::tempdir().unwrap();
    let good = net(Arch::CnnEval, 2).to_bytes().unwrap();
    let check = |bytes: &[u8], expect: &str| {
        let path = dir.path().join("bad.safetensors");
        std::fs::write(&path, bytes).unwrap();
        let err = Net::load(&path).unwrap_err().to_string();
        assert!(err.contains("bad.safetensors"), "{err}");
        assert!(err.contains(expect), "{expect:?} not in {err:?}");
    };
    check(&good[..good.len() / 2], "truncated");
    check(&good[..20], "not a safetensors file");
    check(b"", "not a safetensors file");
    check(b"CGNNUE01 an NNUE file", "not a safetensors file");
    // A safetensors file without the chessgraph header.
    let t = Tensor::zeros((2, 2), DType::F32, &Device::Cpu).unwrap();
    let plain = safetensors::serialize([("w", &t)], None).unwrap();
    check(&plain, "not a chessgraph network");
    // A header claiming another architecture than the weights are.
    let swapped = net(Arch::CnnStudy, 2);
    let lie = Header {
        arch: Arch::CnnEval,
        ..swapped.header().clone()
    };
    check(
        &file::to_bytes(&lie, swapped.tensors()).unwrap(),
        "do not fit",
    );
    // A size that disagrees with the weights.
    let wide = Header {
        shape: Shape {
            channels: 8,
            blocks: 2,
        },
        ..net(Arch::CnnEval, 2).header().clone()
    };
    check(
        &file::to_bytes(&wide, net(Arch::CnnEval, 2).tensors()).unwrap(),
        "do not fit",
    );
    // Fewer blocks in the header than in the file: extra tensors.
    let short = Header {
        shape: Shape {
            channels: 4,
            blocks: 1,
        },
        ..net(Arch::PolicyValue, 2).header().clone()
    };
    check(
        &file::to_bytes(&short, net(Arch::PolicyValue, 2).tensors()).unwrap(),
        "tensors where",
    );
    let _ = Path::new("");
}

#[test]
fn seeded_vars_are_reproducible() {
    assert_eq!(net(Arch::ResnetPolicy, 5), net(Arch::ResnetPolicy, 5));
    assert_ne!(net(Arch::ResnetPolicy, 5), net(Arch::ResnetPolicy, 6));
}

/// The forward pass of every architecture equals numpy's on python-chess's planes, on
/// model files written by an independent writer (`scripts/golden/nets.py`).
#[test]
fn forward_pass_matches_numpy() {
    let golden: serde_json::Value =
        serde_json::from_str(include_str!("../../../tests/golden/nets/golden.json")).unwrap();
    let dir = chessgraph_testkit::repo_root().join("tests/golden/nets");
    for arch in Arch::ALL {
        let packed = std::fs::read(dir.join(format!("{}.safetensors.zst", arch.as_str()))).unwrap();
        let bytes = zstd::decode_all(&packed[..]).unwrap();
        let net = Net::from_bytes(&bytes, Path::new(arch.as_str())).unwrap();
        assert_eq!(net.arch(), arch);
        let rows = golden[arch.as_str()].as_array().unwrap();
        let positions: Vec<Chess> = rows
            .iter()
            .map(|r| parse_position(r["fen"].as_str().unwrap()).unwrap())
            .collect();
        let out = net.forward(positions.iter()).unwrap();
        let values = out.value.map(|v| flat(&v).unwrap());
        let logits = out.policy.map(|p| p.to_vec2::<f32>().unwrap());
        for (i, (row, pos)) in rows.iter().zip(&positions).enumerate() {
            match (&values, row["value"].as_f64()) {
                (Some(v), Some(want)) => {
                    assert!(
                        (f64::from(v[i]) - want).abs() < 1e-5,
                        "{} value {i}: {} vs {want}",
                        arch.as_str(),
                        v[i]
                    )
                }
                (None, None) => {}
                _ => panic!(
                    "{}: value head disagrees with the golden file",
                    arch.as_str()
                ),
            }
            let Some(moves) = row.get("moves").and_then(|m| m.as_object()) else {
                assert!(logits.is_none());
                continue;
            };
            let logits = &logits.as_ref().unwrap()[i];
            let legal = pos.legal_moves();
            assert_eq!(moves.len(), legal.len());
            for m in &legal {
                let uci = chessgraph_core::chess::moves::uci(m);
                let want = &moves[&uci];
                let index = policy_index(m);
                assert_eq!(
                    index as u64,
                    want[0].as_u64().unwrap(),
                    "{uci} in {}",
                    row["fen"]
                );
                let want = want[1].as_f64().unwrap();
                assert!(
                    (f64::from(logits[index]) - want).abs() < 1e-5,
                    "{uci}: {} vs {want}",
                    logits[index]
                );
            }
        }
    }
}
