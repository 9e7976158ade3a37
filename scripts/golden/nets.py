#!/usr/bin/env python3
"""Golden values for chessgraph's networks (crates/cnn/src), computed with numpy and python-chess.

For each architecture it makes a tiny model with seeded weights (multiples of 1/32 in
[-0.5, 0.5] times a power of two near 4/sqrt(fan-in); biases a quarter of that range:
few distinct values, so the files compress), writes it as a chessgraph model file
(safetensors with the `chessgraph` header, written here byte by byte from the format's
specification, not by chessgraph), and computes with numpy, on a few positions:

  - the input planes, from python-chess (pieces, attacked squares, side to move, castling
    rights, the en-passant square when an en-passant capture is legal, the clocks);
  - the forward pass: 3x3 "same" convolutions, ReLU, residual blocks
    relu(x + conv(relu(conv(x)))), the heads as crates/cnn/src/arch.rs documents them;
  - the value (White's view, in [-1, 1]) and, for policy nets, the logit of every legal
    move at its AlphaZero index (from-square + 73 move planes), computed here from the
    move's geometry.

Writes tests/golden/nets/ARCH.safetensors.zst and tests/golden/nets/golden.json.
Run once: python3 scripts/golden/nets.py (needs numpy, chess and zstandard from PyPI, or
the zstd command).
"""

import json
import os
import struct
import subprocess

import chess
import numpy as np

OUT = os.path.join(os.path.dirname(__file__), "..", "..", "tests", "golden", "nets")
FENS = [
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q2/PPPBBPpP/R3K2R b Kkq - 3 17",
    "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 41",
    "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
]
# Tiny sizes: (channels, blocks).
SHAPES = {
    "cnn-study": (3, 2),
    "cnn-eval": (2, 2),
    "resnet-policy": (3, 1),
    "policy-value": (3, 2),
}
PLANES = {"cnn-study": 14}


def planes(board, study):
    x = np.zeros((14 if study else 20, 8, 8), dtype=np.float32)
    for sq, piece in board.piece_map().items():
        plane = (0 if piece.color == chess.WHITE else 6) + piece.piece_type - 1
        x[plane, chess.square_rank(sq), chess.square_file(sq)] = 1
    if study:
        for i, color in enumerate([chess.WHITE, chess.BLACK]):
            for sq in chess.SQUARES:
                if board.is_attacked_by(color, sq):
                    x[12 + i, chess.square_rank(sq), chess.square_file(sq)] = 1
        return x
    if board.turn == chess.WHITE:
        x[12] = 1
    rights = [
        board.has_kingside_castling_rights(chess.WHITE),
        board.has_queenside_castling_rights(chess.WHITE),
        board.has_kingside_castling_rights(chess.BLACK),
        board.has_queenside_castling_rights(chess.BLACK),
    ]
    for i, held in enumerate(rights):
        if held:
            x[13 + i] = 1
    if board.has_legal_en_passant():
        ep = board.ep_square
        x[17, chess.square_rank(ep), chess.square_file(ep)] = 1
    x[18] = board.halfmove_clock / 100
    x[19] = board.fullmove_number / 100
    return x


def conv(x, w, b):
    """'same' convolution of x (C, 8, 8) with w (O, C, k, k)."""
    k = w.shape[2]
    p = k // 2
    xp = np.pad(x, ((0, 0), (p, p), (p, p)))
    out = np.zeros((w.shape[0], 8, 8), dtype=np.float64)
    for i in range(k):
        for j in range(k):
            patch = xp[:, i : i + 8, j : j + 8]
            out += np.einsum("oc,chw->ohw", w[:, :, i, j], patch)
    return out + b[:, None, None]


relu = lambda z: np.maximum(z, 0)


def layers(arch, c, blocks, planes_in):
    """(name, shape) of every tensor, in the order the forward pass uses them."""
    t = []
    def conv_t(name, cin, cout, k=3):
        t.extend([(name + ".weight", (cout, cin, k, k)), (name + ".bias", (cout,))])
    def lin_t(name, cin, cout):
        t.extend([(name + ".weight", (cout, cin)), (name + ".bias", (cout,))])
    trunk = []  # ("conv", name) or ("block", name)
    if arch == "cnn-study":
        for i in range(blocks):
            conv_t(f"trunk.{i}", planes_in if i == 0 else c, c)
            trunk.append(("conv", f"trunk.{i}"))
        width = c
    elif arch == "cnn-eval":
        conv_t("trunk.0", planes_in, c)
        trunk.append(("conv", "trunk.0"))
        first = blocks // 2
        for _ in range(first):
            n = f"trunk.{len(trunk)}"
            conv_t(n + ".a", c, c); conv_t(n + ".b", c, c)
            trunk.append(("block", n))
        n = f"trunk.{len(trunk)}"
        conv_t(n, c, 2 * c)
        trunk.append(("conv", n))
        for _ in range(first, blocks):
            n = f"trunk.{len(trunk)}"
            conv_t(n + ".a", 2 * c, 2 * c); conv_t(n + ".b", 2 * c, 2 * c)
            trunk.append(("block", n))
        width = 2 * c
    else:
        conv_t("trunk.0", planes_in, c)
        trunk.append(("conv", "trunk.0"))
        for _ in range(blocks):
            n = f"trunk.{len(trunk)}"
            conv_t(n + ".a", c, c); conv_t(n + ".b", c, c)
            trunk.append(("block", n))
        width = c
    if arch == "cnn-study":
        lin_t("value.hidden", width * 64, 64); lin_t("value.out", 64, 1)
    elif arch == "cnn-eval":
        conv_t("value.conv", width, 16, 1); lin_t("value.hidden", 16 * 64, 128); lin_t("value.out", 128, 1)
    elif arch == "policy-value":
        conv_t("value.conv", width, 2, 1); lin_t("value.hidden", 2 * 64, 64); lin_t("value.out", 64, 1)
    if arch in ("resnet-policy", "policy-value"):
        conv_t("policy.conv", width, 73, 1)
    return t, trunk


def forward(arch, w, trunk, x):
    h = x.astype(np.float64)
    for kind, n in trunk:
        if kind == "conv":
            h = relu(conv(h, w[n + ".weight"], w[n + ".bias"]))
        else:
            a = relu(conv(h, w[n + ".a.weight"], w[n + ".a.bias"]))
            h = relu(h + conv(a, w[n + ".b.weight"], w[n + ".b.bias"]))
    value = None
    if arch != "resnet-policy":
        v = h
        if "value.conv.weight" in w:
            v = relu(conv(v, w["value.conv.weight"], w["value.conv.bias"]))
        v = v.reshape(-1)
        v = relu(w["value.hidden.weight"] @ v + w["value.hidden.bias"])
        z = (w["value.out.weight"] @ v + w["value.out.bias"])[0]
        value = 2 / (1 + np.exp(-z)) - 1 if arch == "cnn-study" else np.tanh(z)
    policy = None
    if "policy.conv.weight" in w:
        policy = conv(h, w["policy.conv.weight"], w["policy.conv.bias"]).reshape(-1)
    return value, policy


def policy_index(board, move):
    f0, r0 = chess.square_file(move.from_square), chess.square_rank(move.from_square)
    f1, r1 = chess.square_file(move.to_square), chess.square_rank(move.to_square)
    df, dr = f1 - f0, r1 - r0
    if move.promotion in (chess.KNIGHT, chess.BISHOP, chess.ROOK):
        piece = {chess.KNIGHT: 0, chess.BISHOP: 1, chess.ROOK: 2}[move.promotion]
        plane = 64 + 3 * piece + df + 1
    elif (abs(df), abs(dr)) in ((1, 2), (2, 1)):
        steps = [(1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2)]
        plane = 56 + steps.index((df, dr))
    else:
        dirs = [(0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1), (-1, 0), (-1, 1)]
        d = dirs.index((int(np.sign(df)), int(np.sign(dr))))
        plane = d * 7 + max(abs(df), abs(dr)) - 1
    return plane * 64 + move.from_square


def safetensors_bytes(tensors, header):
    meta = {"__metadata__": {"chessgraph": json.dumps(header)}}
    offset, blobs = 0, []
    for name in sorted(tensors):
        data = tensors[name].astype("<f4").tobytes()
        meta[name] = {"dtype": "F32", "shape": list(tensors[name].shape),
                      "data_offsets": [offset, offset + len(data)]}
        offset += len(data)
        blobs.append(data)
    text = json.dumps(meta).encode()
    text += b" " * (-len(text) % 8)
    return struct.pack("<Q", len(text)) + text + b"".join(blobs)


def main():
    rng = np.random.default_rng(20261128)
    golden = {}
    boards = [chess.Board(f) for f in FENS]
    for arch, (c, blocks) in SHAPES.items():
        study = arch == "cnn-study"
        spec, trunk = layers(arch, c, blocks, 14 if study else 20)
        w = {n: rng.integers(-16, 17, size=s).astype(np.float32) / 32 for n, s in spec}
        # Keep activations in a readable range: scale each weight by 1/sqrt(fan-in).
        for n, s in spec:
            if n.endswith("weight"):
                fan_in = int(np.prod(s[1:]))
                w[n] = (w[n] * 4 * (2.0 ** -round(np.log2(np.sqrt(fan_in))))).astype(np.float32)
            else:
                w[n] = (w[n] / 4).astype(np.float32)
        header = {"format": "chessgraph-net", "version": 1, "arch": arch,
                  "encoding": "study-14" if study else "alphazero-20",
                  "channels": c, "blocks": blocks, "k": 0.005,
                  "provenance": {"made_by": "scripts/golden/nets.py"}}
        raw = safetensors_bytes(w, header)
        path = os.path.join(OUT, arch + ".safetensors.zst")
        subprocess.run(["zstd", "-19", "-q", "-f", "-o", path], input=raw, check=True)
        rows = []
        for board in boards:
            value, policy = forward(arch, w, trunk, planes(board, study))
            row = {"fen": board.fen(), "value": None if value is None else float(value)}
            if policy is not None:
                row["moves"] = {m.uci(): [policy_index(board, m), float(policy[policy_index(board, m)])]
                                for m in board.legal_moves}
            rows.append(row)
        golden[arch] = rows
    with open(os.path.join(OUT, "golden.json"), "w") as f:
        json.dump(golden, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
