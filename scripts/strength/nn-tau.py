#!/usr/bin/env python3
"""An experiment: how far a small NNUE-style network gets when trained only on the
stored training part (Texel loss, K = 0.00792), chosen on the valid part, measured once on
the test part by Kendall tau-b. Result on the shared sample (2026-11-23): best config
h128_rs_l2_1e-3_mir_fac, valid 0.568, test 0.541 (3-seed mean 0.545) -- below the tuned
linear evaluator's 0.565: ~1,100 training games are too few for a net to generalise.

Usage: NN_DIR=/tmp/nn python3 scripts/strength/nn-tau.py CONFIG_NAME [CONFIG_NAME ...]   (see CONFIGS)
       NN_DIR=/tmp/nn python3 scripts/strength/nn-tau.py --test CONFIG_NAME  (test part, saved model)
NN_DIR must hold c.db, a copy of an analysed chessgraph.db (features and splits). Needs
PyTorch (pip install torch), numpy, scipy. One thread.
"""
import os, sys, time, json, sqlite3

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
import chessgraph_sql  # noqa: E402
os.environ.setdefault("OMP_NUM_THREADS", "1")
import numpy as np
import torch
import torch.nn as nn
from scipy.stats import kendalltau, pearsonr

torch.set_num_threads(1)
torch.manual_seed(0); np.random.seed(0)
D = os.environ.get("NN_DIR", "/tmp/nn")
K = 0.00792
CLAMP = 2500.0
PAD = 768 + 12 + 96 + 96  # 768 piece-square + factorizer features (piece, piece x rank, piece x file)
MAXF = 32
PIECES = "PNBRQKpnbrqk"
VAL = {"P": 100, "N": 320, "B": 330, "R": 500, "Q": 900, "K": 0}


def encode(fen):
    """Return (feature idx list stm-view, mirrored idx list, stm_is_white, material(white view), castling_any)."""
    board, stm, castle = fen.split()[:3]
    white = stm == "w"
    feats, mirr = [], []
    mat = 0
    rank = 7
    f = 0
    for ch in board:
        if ch == "/":
            rank -= 1; f = 0
        elif ch.isdigit():
            f += int(ch)
        else:
            sq = rank * 8 + f
            isw = ch.isupper()
            kind = "PNBRQK".index(ch.upper())
            mat += VAL[ch.upper()] * (1 if isw else -1)
            if white:
                own = isw; s = sq
            else:
                own = not isw; s = sq ^ 56
            p = kind if own else kind + 6
            feats.append(p * 64 + s)
            mirr.append(p * 64 + (s ^ 7))
            f += 1
    return feats, mirr, white, mat, castle != "-"


def load():
    cache = f"{D}/feats.npz"
    if os.path.exists(cache):
        z = np.load(cache)
        return {k: z[k] for k in z.files}
    con = sqlite3.connect(f"{D}/c.db")
    chessgraph_sql.register(con)  # positions.fen is computed from the packed board
    rows = con.execute("select p.fen, p.eval_cp, s.part from positions p join splits s on s.position_id=p.id "
                       "where p.eval_cp is not null order by p.id").fetchall()
    n = len(rows)
    X = np.full((n, MAXF), PAD, np.int16); XM = np.full((n, MAXF), PAD, np.int16)
    stmw = np.zeros(n, bool); mat = np.zeros(n, np.float32); cas = np.zeros(n, bool)
    y = np.zeros(n, np.float32); part = np.zeros(n, np.int8)
    pm = {"train": 0, "valid": 1, "test": 2}
    for i, (fen, ev, pt) in enumerate(rows):
        fe, mi, w, m, c = encode(fen)
        X[i, :len(fe)] = fe; XM[i, :len(mi)] = mi
        stmw[i] = w; mat[i] = m; cas[i] = c; y[i] = ev; part[i] = pm[pt]
    out = dict(X=X, XM=XM, stmw=stmw, mat=mat, cas=cas, y=y, part=part)
    np.savez(cache, **out)
    return out


class Net(nn.Module):
    def __init__(self, H, H2=0, residual=False, skip=False, out_init=None):
        super().__init__()
        self.skip = skip
        if skip:  # linear piece-square path added to the output (unregularized); skip="tapered": mg/eg PSTs mixed by phase
            self.pst = nn.EmbeddingBag(PAD + 1, 2 if skip == "tapered" else 1, mode="sum", padding_idx=PAD)
            nn.init.zeros_(self.pst.weight)
        phw = torch.zeros(PAD + 1)
        for f in range(768):
            phw[f] = [0, 1, 1, 2, 4, 0][(f // 64) % 6]
        self.register_buffer("phw", phw)
        self.linear = H == 0
        if self.linear:
            H = 1
        self.emb = nn.EmbeddingBag(PAD + 1, H, mode="sum", padding_idx=PAD)
        nn.init.normal_(self.emb.weight, 0, 0.1)
        with torch.no_grad():
            self.emb.weight[PAD].zero_()
        self.b1 = nn.Parameter(torch.full((H,), 0.0 if self.linear else 0.5))
        if self.linear:
            pass
        elif H2:
            self.l2 = nn.Linear(H, H2); self.out = nn.Linear(H2, 1)
        else:
            self.l2 = None; self.out = nn.Linear(H, 1)
        if out_init is not None and not self.linear:
            nn.init.normal_(self.out.weight, 0, out_init); nn.init.zeros_(self.out.bias)
        self.residual = residual
        if residual:
            self.wm = nn.Parameter(torch.tensor(1.0))

    def forward(self, idx, matstm):
        if self.linear:
            o = (self.emb(idx).squeeze(1) + self.b1[0]) * 300.0
            return o + self.wm * matstm if self.residual else o
        a = torch.clamp(self.emb(idx) + self.b1, 0, 1)
        if self.l2 is not None:
            a = torch.clamp(self.l2(a), 0, 1)
        o = self.out(a).squeeze(1) * 300.0  # centipawns, side to move
        if self.residual:
            o = o + self.wm * matstm
        if self.skip == "tapered":
            ph = (self.phw[idx].sum(1) / 24.0).clamp(max=1.0)
            t = self.pst(idx)
            o = o + (ph * t[:, 0] + (1 - ph) * t[:, 1]) * 100.0
        elif self.skip:
            o = o + self.pst(idx).squeeze(1) * 100.0
        return o


def texel(pred, y, k=K):
    return ((torch.sigmoid(k * pred) - torch.sigmoid(k * y)) ** 2).mean()


CONFIGS = {
    # name: dict(H, H2, residual, mirror, factor, lr, wd, opt, drop, bs); H=0 -> linear (PST) model
    "h32":       dict(H=32,  lr=1e-3),
    "h64":       dict(H=64,  lr=1e-3),
    "h128":      dict(H=128, lr=1e-3),
    "h256":      dict(H=256, lr=1e-3),
    "h128_lr3":  dict(H=128, lr=3e-3),
    "h128_lr3e4": dict(H=128, lr=3e-4),
    "h128_res":  dict(H=128, lr=1e-3, residual=True),
    "h128_mir":  dict(H=128, lr=1e-3, mirror=True),
    "h128_fac":  dict(H=128, lr=1e-3, factor=True),
    "h128x32":   dict(H=128, H2=32, lr=1e-3),
    "lin":       dict(H=0, lr=1e-3),
    "lin_res":   dict(H=0, lr=1e-3, residual=True),
    "lin_res_fac_mir": dict(H=0, lr=1e-3, residual=True, factor=True, mirror=True),
    "h128_wd1e-2": dict(H=128, lr=1e-3, opt="adamw", wd=1e-2),
    "h128_wd1e-1": dict(H=128, lr=1e-3, opt="adamw", wd=1e-1),
    "h128_l2_1e-5": dict(H=128, lr=1e-3, wd=1e-5),
    "h128_l2_1e-4": dict(H=128, lr=1e-3, wd=1e-4),
    "h128_drop":  dict(H=128, lr=1e-3, drop=0.1),
    "h128_all":  dict(H=128, lr=1e-3, residual=True, mirror=True, factor=True),
    "h32_all":   dict(H=32, lr=1e-3, residual=True, mirror=True, factor=True),
    "h64_all":   dict(H=64, lr=1e-3, residual=True, mirror=True, factor=True),
    "h256_all":  dict(H=256, lr=1e-3, residual=True, mirror=True, factor=True),
    "h128x32_all": dict(H=128, H2=32, lr=1e-3, residual=True, mirror=True, factor=True),
    "lin_res_mir": dict(H=0, lr=1e-3, residual=True, mirror=True),
    "h32_rs":    dict(H=32, lr=1e-3, residual=True, skip=True, out_init=0.01),
    "h128_rs":   dict(H=128, lr=1e-3, residual=True, skip=True, out_init=0.01),
    "h128_rs_lr3e4": dict(H=128, lr=3e-4, residual=True, skip=True, out_init=0.01),
    "h128_rs_aw1e-1": dict(H=128, lr=1e-3, residual=True, skip=True, out_init=0.01, opt="adamw", wd=1e-1),
    "h128_rs_aw1": dict(H=128, lr=1e-3, residual=True, skip=True, out_init=0.01, opt="adamw", wd=1.0),
    "h128_rs_l2_1e-4": dict(H=128, lr=1e-3, residual=True, skip=True, out_init=0.01, wd=1e-4),
    "h128_rs_l2_1e-3": dict(H=128, lr=1e-3, residual=True, skip=True, out_init=0.01, wd=1e-3),
    "h128_rs_drop2": dict(H=128, lr=1e-3, residual=True, skip=True, out_init=0.01, drop=0.2),
    "h128_rs_mir": dict(H=128, lr=1e-3, residual=True, skip=True, out_init=0.01, mirror=True),
    "h128_rs_l2_3e-3": dict(H=128, lr=1e-3, residual=True, skip=True, out_init=0.01, wd=3e-3),
    "h128_rs_l2_1e-2": dict(H=128, lr=1e-3, residual=True, skip=True, out_init=0.01, wd=1e-2),
    "h32_rs_l2_1e-3": dict(H=32, lr=1e-3, residual=True, skip=True, out_init=0.01, wd=1e-3),
    "h64_rs_l2_1e-3": dict(H=64, lr=1e-3, residual=True, skip=True, out_init=0.01, wd=1e-3),
    "h256_rs_l2_1e-3": dict(H=256, lr=1e-3, residual=True, skip=True, out_init=0.01, wd=1e-3),
    "h128_rs_l2_1e-3_mir": dict(H=128, lr=1e-3, residual=True, skip=True, out_init=0.01, wd=1e-3, mirror=True),
    "h128x32_rs_l2_1e-3": dict(H=128, H2=32, lr=1e-3, residual=True, skip=True, out_init=0.01, wd=1e-3),
    "h128_rs_l2_1e-3_lr3e-3": dict(H=128, lr=3e-3, residual=True, skip=True, out_init=0.01, wd=1e-3),
    "h128_res_l2_1e-3": dict(H=128, lr=1e-3, residual=True, wd=1e-3),
    "h128_res_l2_1e-4": dict(H=128, lr=1e-3, residual=True, wd=1e-4),
    "h128_rs_l2_1e-3_mir_fac": dict(H=128, lr=1e-3, residual=True, skip=True, out_init=0.01, wd=1e-3, mirror=True, factor=True),
    "lin_res_tap": dict(H=0, lr=1e-3, residual=True, skip="tapered"),
    "lin_res_tap_mir": dict(H=0, lr=1e-3, residual=True, skip="tapered", mirror=True),
    "h128_rt_l2_1e-3_mir": dict(H=128, lr=1e-3, residual=True, skip="tapered", out_init=0.01, wd=1e-3, mirror=True),
    "h128_rt_l2_3e-4_mir": dict(H=128, lr=1e-3, residual=True, skip="tapered", out_init=0.01, wd=3e-4, mirror=True),
    "h32_rt_l2_1e-3_mir": dict(H=32, lr=1e-3, residual=True, skip="tapered", out_init=0.01, wd=1e-3, mirror=True),
    "h128_rs_l2_1e-3_mir_k4": dict(H=128, lr=1e-3, residual=True, skip=True, out_init=0.01, wd=1e-3, mirror=True, k=0.004),
    "h128_rs_l2_1e-3_mir_k2": dict(H=128, lr=1e-3, residual=True, skip=True, out_init=0.01, wd=1e-3, mirror=True, k=0.002),
    "h128_rt_l2_1e-3_mir_fac": dict(H=128, lr=1e-3, residual=True, skip="tapered", out_init=0.01, wd=1e-3, mirror=True, factor=True),
    "h32_rt_l2_1e-3_mir_fac": dict(H=32, lr=1e-3, residual=True, skip="tapered", out_init=0.01, wd=1e-3, mirror=True, factor=True),
    "h256_rt_l2_1e-3_mir_fac": dict(H=256, lr=1e-3, residual=True, skip="tapered", out_init=0.01, wd=1e-3, mirror=True, factor=True),
    "h128x32_rt_l2_1e-3_mir_fac": dict(H=128, H2=32, lr=1e-3, residual=True, skip="tapered", out_init=0.01, wd=1e-3, mirror=True, factor=True),
    "h128_rt_l2_1e-3_mir_fac_e60": dict(H=128, lr=1e-3, residual=True, skip="tapered", out_init=0.01, wd=1e-3, mirror=True, factor=True, epochs=60),
    "h32_rt_l2_1e-3_mir_fac_e60": dict(H=32, lr=1e-3, residual=True, skip="tapered", out_init=0.01, wd=1e-3, mirror=True, factor=True, epochs=60),
    "h128_rs_l2_1e-4_mir_fac_e60": dict(H=128, lr=1e-3, residual=True, skip=True, out_init=0.01, wd=1e-4, mirror=True, factor=True, epochs=60),
    "h128_fac_mir_e60": dict(H=128, lr=1e-3, mirror=True, factor=True, epochs=60),
    "h128_rs_l2_3e-4_mir_fac": dict(H=128, lr=1e-3, residual=True, skip=True, out_init=0.01, wd=3e-4, mirror=True, factor=True),
    "h128_rs_l2_3e-3_mir_fac": dict(H=128, lr=1e-3, residual=True, skip=True, out_init=0.01, wd=3e-3, mirror=True, factor=True),
    "h64_rs_l2_1e-3_mir_fac": dict(H=64, lr=1e-3, residual=True, skip=True, out_init=0.01, wd=1e-3, mirror=True, factor=True),
    "h256_rs_l2_1e-3_mir_fac": dict(H=256, lr=1e-3, residual=True, skip=True, out_init=0.01, wd=1e-3, mirror=True, factor=True),
    "h128_rs_l2_1e-3_mir_fac_s1": dict(H=128, lr=1e-3, residual=True, skip=True, out_init=0.01, wd=1e-3, mirror=True, factor=True, seed=1),
    "h128_rs_l2_1e-3_mir_fac_s2": dict(H=128, lr=1e-3, residual=True, skip=True, out_init=0.01, wd=1e-3, mirror=True, factor=True, seed=2),
    "h32_rs_l2_1e-4": dict(H=32, lr=1e-3, residual=True, skip=True, out_init=0.01, wd=1e-4),
    "h256_rs_l2_1e-4": dict(H=256, lr=1e-3, residual=True, skip=True, out_init=0.01, wd=1e-4),
}


def tensors(d, mask, mirror=False, factor=False):
    X = d["X"][mask].astype(np.int64)
    X[X == 768] = PAD
    sgn = np.where(d["stmw"][mask], 1.0, -1.0).astype(np.float32)
    ystm = np.clip(d["y"][mask] * sgn, -CLAMP, CLAMP)
    mstm = d["mat"][mask] * sgn
    if mirror:
        m2 = ~d["cas"][mask]
        XM = d["XM"][mask][m2].astype(np.int64); XM[XM == 768] = PAD
        X = np.concatenate([X, XM])
        ystm = np.concatenate([ystm, ystm[m2]]); mstm = np.concatenate([mstm, mstm[m2]])
        sgn = np.concatenate([sgn, sgn[m2]])
    if factor:
        valid = X < 768
        p, sq = X // 64, X % 64
        ex = [np.where(valid, 768 + p, PAD), np.where(valid, 780 + p * 8 + sq // 8, PAD),
              np.where(valid, 876 + p * 8 + sq % 8, PAD)]
        X = np.concatenate([X] + ex, axis=1)
    return (torch.from_numpy(X), torch.from_numpy(mstm.astype(np.float32)),
            torch.from_numpy(ystm.astype(np.float32)), sgn)


def predict(net, X, M, bs=8192):
    net.eval(); out = []
    with torch.no_grad():
        for i in range(0, len(X), bs):
            out.append(net(X[i:i + bs], M[i:i + bs]))
    net.train()
    return torch.cat(out)


def evaluate(net, T, yraw):
    X, M, Y, sgn = T
    p = predict(net, X, M)
    loss = texel(p, Y).item()
    pw = p.numpy().astype(np.float64) * sgn  # back to White's view
    yr = yraw.astype(np.float64)
    tau = float(kendalltau(pw, yr).statistic)
    r = float(pearsonr(pw, yr).statistic)
    return loss, tau, r


def run(name, d, max_epochs=30, patience=4, time_budget=420):
    c = dict(H2=0, residual=False, mirror=False, wd=0.0, bs=512, drop=0.0, factor=False, opt="adam", skip=False, out_init=None, k=K, seed=0)
    c.update(CONFIGS[name])
    tr, va = d["part"] == 0, d["part"] == 1
    Ttr = tensors(d, tr, c["mirror"], c["factor"]); Tva = tensors(d, va, False, c["factor"])
    Ttr_eval = tensors(d, tr, False, c["factor"])
    torch.manual_seed(c["seed"])
    net = Net(c["H"], c["H2"], c["residual"], c["skip"], c["out_init"])
    nparams = sum(p.numel() for p in net.parameters()) - net.emb.weight.shape[1] * (1 + 204) - (net.pst.weight.shape[1] * 205 if c["skip"] else 0)  # exclude pad row + factorizer rows (foldable into 768 at inference)
    OPT = torch.optim.AdamW if c["opt"] == "adamw" else torch.optim.Adam
    # weight decay only on the neural part; material weight / linear PST path unregularized
    lin_names = {"wm", "pst.weight"}
    if c["H"] == 0:
        lin_names |= {"emb.weight", "b1"}
    reg = [p for n_, p in net.named_parameters() if n_ not in lin_names]
    unreg = [p for n_, p in net.named_parameters() if n_ in lin_names]
    opt = OPT([dict(params=reg, weight_decay=c["wd"]), dict(params=unreg, weight_decay=0.0)], lr=c["lr"])
    sched = torch.optim.lr_scheduler.ReduceLROnPlateau(opt, factor=0.3, patience=1)
    X, M, Y, _ = Ttr; n = len(X)
    best = (1e9, None, -1); bad = 0; t0 = time.time(); ep_times = []
    log = []
    max_epochs = c.get("epochs", max_epochs)
    for ep in range(max_epochs):
        te = time.time()
        perm = torch.randperm(n)
        tot = 0.0
        for i in range(0, n, c["bs"]):
            b = perm[i:i + c["bs"]]
            xb = X[b]
            if c["drop"] > 0:  # feature dropout (drop piece features randomly)
                xb = torch.where(torch.rand(xb.shape) < c["drop"], torch.full_like(xb, PAD), xb)
            loss = texel(net(xb, M[b]), Y[b], c["k"])
            opt.zero_grad(); loss.backward(); opt.step()
            with torch.no_grad():
                net.emb.weight[PAD].zero_()
            tot += loss.item() * len(b)
        ep_times.append(time.time() - te)
        vl, vt, _ = evaluate(net, Tva, d["y"][va])
        sched.step(vl)
        log.append((ep, tot / n, vl, vt))
        print(f"{name} ep{ep} train {tot/n:.6f} valid {vl:.6f} tau {vt:.4f} {ep_times[-1]:.1f}s", flush=True)
        if vl < best[0] - 1e-7:
            best = (vl, {k: v.clone() for k, v in net.state_dict().items()}, ep); bad = 0
        else:
            bad += 1
            if bad >= patience:
                break
        if time.time() - t0 > time_budget:
            print("time budget hit", flush=True); break
    net.load_state_dict(best[1])
    torch.save(best[1], f"{D}/{name}.pt")
    trl, trt, _ = evaluate(net, Ttr_eval, d["y"][tr])
    vl, vt, vr = evaluate(net, Tva, d["y"][va])
    res = dict(name=name, cfg=c, params=nparams, best_epoch=best[2], epochs_run=len(log),
               sec_per_epoch=float(np.mean(ep_times)), train_loss=trl, train_tau=trt,
               valid_loss=vl, valid_tau=vt, valid_r=vr)
    with open(f"{D}/runs.jsonl", "a") as f:
        f.write(json.dumps(res) + "\n")
    print("RESULT", json.dumps(res), flush=True)
    return res


def test(name, d):
    c = dict(H2=0, residual=False, factor=False); c.update(CONFIGS[name])
    net = Net(c["H"], c["H2"], c["residual"], c.get("skip", False), c.get("out_init"))
    net.load_state_dict(torch.load(f"{D}/{name}.pt"), strict=False)
    te = d["part"] == 2
    T = tensors(d, te, False, c["factor"])
    l, t, r = evaluate(net, T, d["y"][te])
    res = dict(name=name, test_loss=l, test_tau=t, test_r=r)
    with open(f"{D}/test.jsonl", "a") as f:
        f.write(json.dumps(res) + "\n")
    print("TEST", json.dumps(res))


def ensemble(names, d, part):
    """Average (side-to-move cp) predictions of several saved models; part 1=valid, 2=test."""
    m = d["part"] == part
    preds = []
    for name in names:
        c = dict(H2=0, residual=False, factor=False); c.update(CONFIGS[name])
        net = Net(c["H"], c["H2"], c["residual"], c.get("skip", False), c.get("out_init"))
        net.load_state_dict(torch.load(f"{D}/{name}.pt"), strict=False)
        T = tensors(d, m, False, c["factor"])
        preds.append(predict(net, T[0], T[1])); sgn = T[3]; Y = T[2]
    p = torch.stack(preds).mean(0)
    l = texel(p, Y).item()
    pw = p.numpy().astype(np.float64) * sgn; yr = d["y"][m].astype(np.float64)
    res = dict(ensemble=names, part=["train", "valid", "test"][part], loss=l,
               tau=float(kendalltau(pw, yr).statistic), r=float(pearsonr(pw, yr).statistic))
    with open(f"{D}/ensemble.jsonl", "a") as f:
        f.write(json.dumps(res) + "\n")
    print("ENS", json.dumps(res))


def material_baseline(d):
    out = {}
    for pi, pn in enumerate(["train", "valid", "test"]):
        m = d["part"] == pi
        out[pn] = dict(tau=float(kendalltau(d["mat"][m], d["y"][m]).statistic),
                       r=float(pearsonr(d["mat"][m].astype(np.float64), d["y"][m].astype(np.float64)).statistic), n=int(m.sum()))
    print("MATERIAL", json.dumps(out))
    with open(f"{D}/material.json", "w") as f:
        json.dump(out, f)


if __name__ == "__main__":
    d = load()
    a = sys.argv[1:]
    if a and a[0] == "--material":
        material_baseline(d)
    elif a and a[0] in ("--ens-valid", "--ens-test"):
        ensemble(a[1:], d, 1 if a[0] == "--ens-valid" else 2)
    elif a and a[0] == "--test":
        for nm in a[1:]:
            test(nm, d)
    else:
        for nm in a:
            run(nm, d)
