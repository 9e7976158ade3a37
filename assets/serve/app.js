// chessgraph serve: the Play and Position views; data.js has the Data view.

import { Board, squareIndex } from "/board.js";
import { initData } from "/data.js";

const $ = (id) => document.getElementById(id);

export function esc(s) {
  return String(s ?? "").replace(/[&<>"']/g, (c) =>
    ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
}

// Messages show in a bar under the header (never over the controls) until the next
// action, a click on ×, a change of tab or 10 s.
let toastTimer = null;
function toast(message) {
  $("toast-text").textContent = message;
  $("toast").classList.remove("hidden");
  clearTimeout(toastTimer);
  toastTimer = setTimeout(hideToast, 10000);
}
function hideToast() {
  clearTimeout(toastTimer);
  $("toast").classList.add("hidden");
}

// A click handler for an async action: its refusal is already shown by `api`.
function act(f) {
  return () => {
    hideToast();
    return Promise.resolve(f()).catch(() => {});
  };
}

// Calls the JSON API; a refusal shows its message and throws.
async function api(path, options = {}) {
  const init = { method: options.method || "GET", headers: {} };
  // The server takes state changes as JSON only (a cross-site page cannot send that).
  if (init.method !== "GET") init.headers["Content-Type"] = "application/json";
  if (options.body !== undefined) init.body = JSON.stringify(options.body);
  const res = await fetch(path, init);
  const data = await res.json().catch(() => ({ error: `${res.status} ${res.statusText}` }));
  if (!res.ok) {
    if (!options.quiet) toast(data.error || `${res.status}`);
    throw new Error(data.error || res.status);
  }
  return data;
}

function formatScore(score) {
  if (!score) return "";
  if (score.mate !== undefined) return (score.mate > 0 ? "#" : "#-") + Math.abs(score.mate);
  const v = score.cp / 100;
  return (v > 0 ? "+" : "") + v.toFixed(2);
}

// ---- tabs ----
function show(view) {
  hideToast();
  for (const b of document.querySelectorAll(".tab")) b.classList.toggle("active", b.dataset.view === view);
  for (const s of document.querySelectorAll(".view")) s.classList.toggle("hidden", s.id !== "view-" + view);
  if (view === "data") data.load();
  if (view === "position" && !position.loaded) position.random();
}

// ---- Play ----
const play = {
  game: null,
  timer: null,
  board: null,

  init() {
    this.board = new Board($("play-board"), (uci) => this.move(uci));
    this.board.set("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
    $("play-new").onclick = act(() => this.start());
    $("play-undo").onclick = act(() => this.undo());
    $("play-flip").onclick = () => this.board.flip();
    $("play-copy").onclick = () => this.copy();
  },

  async start() {
    const body = {
      player: $("play-player").value.trim() || "engine",
      evaluator: $("play-evaluator").value,
      movetime_ms: Number($("play-movetime").value) || 1000,
      color: $("play-color").value,
      fen: $("play-fen").value.trim() || null,
    };
    const old = this.game;
    this.show(await api("/api/play", { method: "POST", body }));
    if (old) api(`/api/play/${old.id}`, { method: "DELETE", quiet: true }).catch(() => {});
    if ((this.game.human === "black") !== this.board.flipped) this.board.flip();
  },

  async move(uci) {
    if (!this.game) return;
    try {
      this.show(await api(`/api/play/${this.game.id}/move`, { method: "POST", body: { uci } }));
    } catch (e) {
      this.show(this.game);
    }
  },

  async undo() {
    if (!this.game) return;
    this.show(await api(`/api/play/${this.game.id}/undo`, { method: "POST" }));
  },

  copy() {
    const text = $("play-pgn").value;
    $("play-pgn").select();
    if (navigator.clipboard) navigator.clipboard.writeText(text).then(() => toast("PGN copied"), () => {});
    else document.execCommand("copy");
  },

  show(g) {
    this.game = g;
    const last = g.moves.length ? g.moves[g.moves.length - 1].uci : null;
    this.board.set(g.fen, {
      legal: g.legal,
      lastMove: last ? [last.slice(0, 2), last.slice(2, 4)] : null,
      check: g.check,
    });
    const status = {
      "your-move": "Your move.",
      queued: "The engine is about to think…",
      thinking: "The engine is thinking…",
      over: `Game over: ${g.result} (${g.termination}).`,
      "engine-idle": "Waiting.",
    }[g.status];
    $("play-status").textContent = (g.error ? g.error + " " : "") + status;
    $("play-status").dataset.status = g.status;
    const t = g.thinking;
    $("play-thinking").innerHTML = t
      ? `<span class="score" id="play-score">${esc(formatScore(t.score))}</span>
         <span>depth ${t.depth}${t.seldepth ? "/" + t.seldepth : ""}</span>
         <span>${(t.nodes / 1000).toFixed(0)}k nodes</span>
         <span>${(t.nps / 1000).toFixed(0)}k nps</span>
         <div class="pv" id="play-pv">${esc(t.pv.join(" "))}</div>`
      : "";
    const moves = $("play-moves");
    moves.innerHTML = "";
    let fullmove = Number(g.start_fen.split(" ")[5] || 1);
    let white = g.start_fen.split(" ")[1] === "w";
    let li = null;
    for (const m of g.moves) {
      if (white || !li) {
        li = document.createElement("li");
        li.value = fullmove;
        if (!white) li.appendChild(document.createTextNode("… "));
        moves.appendChild(li);
      }
      const span = document.createElement("span");
      span.className = "san";
      span.textContent = m.san;
      li.appendChild(span);
      if (!white) fullmove++;
      white = !white;
      if (white) li = null;
    }
    moves.scrollTop = moves.scrollHeight;
    $("play-pgn").value = g.pgn;
    clearTimeout(this.timer);
    if (g.status === "queued" || g.status === "thinking") {
      this.timer = setTimeout(() => this.poll(), 250);
    }
  },

  async poll() {
    if (!this.game) return;
    try {
      this.show(await api(`/api/play/${this.game.id}`, { quiet: true }));
    } catch (e) {
      this.timer = setTimeout(() => this.poll(), 1000);
    }
  },
};

// ---- Position ----
const position = {
  board: null,
  view: null,
  loaded: false,

  init() {
    this.board = new Board($("pos-board"));
    $("pos-show").onclick = act(() => this.fen($("pos-fen").value));
    $("pos-search").onclick = act(() => this.search());
    $("pos-random").onclick = act(() => this.random());
    $("pos-game-show").onclick = act(() => this.game($("pos-game").value));
    $("pos-id-show").onclick = act(() => this.open($("pos-id").value));
    for (const id of ["w-attack", "w-defend", "b-attack", "b-defend"]) {
      $("arrows-" + id).onchange = () => this.arrows();
    }
    $("pos-where").addEventListener("keydown", (e) => { if (e.key === "Enter") act(() => this.search())(); });
    $("pos-fen").addEventListener("keydown", (e) => { if (e.key === "Enter") act(() => this.fen($("pos-fen").value))(); });
  },

  async fen(fen) {
    if (!fen.trim()) return;
    this.show(await api("/api/position?fen=" + encodeURIComponent(fen.trim())));
  },

  async open(id) {
    if (!id) return;
    this.show(await api(`/api/db/positions/${encodeURIComponent(id)}`));
  },

  async random() {
    const where = $("pos-where").value.trim();
    const q = where ? "?where=" + encodeURIComponent(where) : "";
    this.show(await api("/api/db/positions/random" + q));
  },

  async search() {
    const where = $("pos-where").value.trim() || "1";
    // A failed search leaves no old results behind.
    $("pos-results").innerHTML = '<div class="muted">searching…</div>';
    try {
      const r = await api(`/api/db/positions?limit=100&where=${encodeURIComponent(where)}`);
      this.list(r.rows, r.more ? "first 100 shown" : `${r.rows.length} found`);
    } catch (e) {
      $("pos-results").innerHTML = '<div class="muted">no results: the search was refused</div>';
      throw e;
    }
  },

  async game(id) {
    if (!id) return;
    const r = await api(`/api/db/games/${encodeURIComponent(id)}`);
    const g = r.game;
    this.list(r.positions, `game ${g.id}: ${g.white ?? "?"} – ${g.black ?? "?"} ${g.result ?? ""}`);
  },

  list(rows, caption) {
    const box = $("pos-results");
    box.innerHTML = `<div class="muted">${esc(caption)}</div>`;
    const table = document.createElement("table");
    table.className = "list";
    table.innerHTML = '<thead><tr><th>id</th><th>ply</th><th class="num">label</th><th>FEN</th></tr></thead>';
    for (const p of rows) {
      const tr = document.createElement("tr");
      tr.dataset.id = p.id;
      tr.innerHTML = `<td>#${p.id}</td><td>${p.ply ?? ""}</td>
        <td class="num">${p.mate != null ? "#" + p.mate : p.eval_cp ?? ""}</td><td class="fen">${esc(p.fen)}</td>`;
      tr.onclick = () => this.open(p.id);
      table.appendChild(tr);
    }
    box.appendChild(table);
  },

  show(v) {
    this.view = v;
    this.loaded = true;
    this.board.set(v.fen, {});
    $("pos-fen").value = v.fen;
    this.arrows();
    this.facts(v);
    this.features(v.features);
    this.evals(v.evaluations);
  },

  arrows() {
    if (!this.view) return;
    const on = (side, kind) => $(`arrows-${side}-${kind}`).checked;
    const arrows = [];
    for (const e of this.view.edges || []) {
      const side = e.attacker === e.attacker.toUpperCase() ? "w" : "b";
      if (on(side, e.kind)) arrows.push({ from: e.from_sq, to: e.to_sq, kind: e.kind, side });
    }
    this.board.setArrows(arrows);
  },

  facts(v) {
    const p = v.position;
    const lines = [];
    if (p) {
      const label = p.mate != null ? `mate ${p.mate}` : p.eval_cp != null ? `${p.eval_cp} cp` : "none";
      lines.push(`<b>Position #${p.id}</b> · label <b id="pos-label">${esc(label)}</b> (White's view)`);
      lines.push(`${esc(p.source.split("/").pop())}:${p.line}${p.game_id ? ` · game ${p.game_id}, ply ${p.ply}` : ""}` +
        `${p.result ? ` · result ${esc(p.result)}` : ""}${p.part ? ` · ${p.part} part` : ""}`);
      for (const l of v.labels || []) {
        lines.push(`${esc(l.labeller)}: ${l.mate != null ? "mate " + l.mate : l.eval_cp + " cp"}` +
          `${l.depth ? " (depth " + l.depth + ")" : ""}`);
      }
    } else {
      lines.push("<b>Pasted FEN</b> · no stored label");
    }
    const edges = v.edges || [];
    const n = (k) => edges.filter((e) => e.kind === k).length;
    lines.push(`${v.turn} to move · ${n("attack")} attacks, ${n("defend")} defenses (${esc(v.graph)})`);
    $("pos-facts").innerHTML = lines.map((l) => `<div>${l}</div>`).join("");
  },

  features(f) {
    const box = $("pos-features");
    if (!f) {
      box.innerHTML = '<span class="muted">not analyzed</span>';
      return;
    }
    box.innerHTML = Object.entries(f)
      .filter(([k]) => !k.endsWith("_attacks"))
      .map(([k, val]) => `<div><span>${esc(k)}</span><b>${esc(val === true ? 1 : val === false ? 0 : val)}</b></div>`)
      .join("");
  },

  // Each evaluator: its total, then its term groups as bars (click a group for its terms).
  evals(list) {
    const box = $("pos-evals");
    box.innerHTML = "";
    for (const ev of list) {
      const card = document.createElement("div");
      card.className = "eval";
      card.dataset.evaluator = ev.name;
      const total = (ev.total > 0 ? "+" : "") + ev.total;
      card.innerHTML = `<div class="evalhead"><b>${esc(ev.name)}</b><span class="muted">${ev.kind}` +
        `${ev.phase !== undefined ? ", phase " + ev.phase : ""}</span><span class="total">${total} cp</span></div>`;
      if (!ev.terms) {
        card.innerHTML += '<div class="muted">a network: its total only</div>';
      } else {
        const groups = new Map();
        for (const t of ev.terms) {
          const g = groups.get(t.group) || { cp: 0, terms: [] };
          g.cp += t.cp;
          g.terms.push(t);
          groups.set(t.group, g);
        }
        const sorted = [...groups.entries()].sort((a, b) => Math.abs(b[1].cp) - Math.abs(a[1].cp));
        const max = Math.max(1, ...sorted.map(([, g]) => Math.abs(g.cp)));
        const table = document.createElement("div");
        table.className = "terms";
        for (const [name, g] of sorted) {
          const row = document.createElement("div");
          row.className = "term";
          row.innerHTML = `<span class="tname">${esc(name)}</span><span class="bar"><i></i></span>` +
            `<span class="num">${g.cp > 0 ? "+" : ""}${g.cp.toFixed(1)}</span>`;
          const bar = row.querySelector("i");
          bar.style.width = (50 * Math.abs(g.cp) / max).toFixed(1) + "%";
          bar.style.left = g.cp >= 0 ? "50%" : (50 - 50 * Math.abs(g.cp) / max).toFixed(1) + "%";
          bar.className = g.cp >= 0 ? "pos" : "neg";
          const detail = document.createElement("div");
          detail.className = "detail hidden";
          detail.textContent = g.terms
            .map((t) => `${t.name} ×${t.coefficient} (mg ${t.mg}, eg ${t.eg}) = ${t.cp.toFixed(1)}`)
            .join("\n");
          row.onclick = () => detail.classList.toggle("hidden");
          table.appendChild(row);
          table.appendChild(detail);
        }
        if (!sorted.length) table.innerHTML = '<div class="muted">no term moves the score</div>';
        card.appendChild(table);
      }
      box.appendChild(card);
    }
  },
};

const data = initData({ api, esc, position, show });

async function init() {
  play.init();
  position.init();
  for (const b of document.querySelectorAll(".tab")) b.onclick = () => show(b.dataset.view);
  $("toast-close").onclick = hideToast;
  const info = await api("/api/info");
  $("dbname").textContent = info.database ? `database ${info.database}` : "no database";
  $("players").innerHTML = info.players.map((p) => `<option value="${esc(p)}">`).join("");
  $("play-evaluator").innerHTML = info.evaluators
    .map((e) => `<option${e === info.default_evaluator ? " selected" : ""}>${esc(e)}</option>`).join("");
  await route(location.hash);
  document.body.dataset.ready = "1";
}

// Links into the page: #play, #position=ID, #fen=FEN, #data.
async function route(hash) {
  const [key, value] = decodeURIComponent(hash.slice(1)).split(/=(.*)/s);
  if (key === "position" && value) {
    position.loaded = true;
    show("position");
    await position.open(value).catch(() => {});
  } else if (key === "fen" && value) {
    position.loaded = true;
    show("position");
    await position.fen(value).catch(() => {});
  } else if (key === "data" || key === "play") {
    show(key);
  }
}

init();
window.chessgraph = { play, position, squareIndex };
