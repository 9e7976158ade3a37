// The Data view: heatmaps, stored fits and evaluators, import errors, the report.

import { pieceGlyph, squareName } from "/board.js";

const SVG = "http://www.w3.org/2000/svg";
const $ = (id) => document.getElementById(id);

function svgEl(name, attrs, parent) {
  const e = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (parent) parent.appendChild(e);
  return e;
}

// A colour for a mean evaluation: red for Black, white at 0, blue for White.
function heatColor(v, range) {
  if (v === null) return "#e4e4e4";
  const t = Math.max(-1, Math.min(1, v / range));
  const mix = (a, b) => Math.round(a + (b - a) * Math.abs(t));
  return t >= 0 ? `rgb(${mix(255, 40)},${mix(255, 90)},${mix(255, 200)})`
    : `rgb(${mix(255, 200)},${mix(255, 40)},${mix(255, 40)})`;
}

// Renders the report's Markdown (headings, paragraphs, lists, tables, code, bold).
export function markdown(md, esc) {
  const inline = (s) => esc(s)
    .replace(/`([^`]+)`/g, "<code>$1</code>")
    .replace(/\*\*([^*]+)\*\*/g, "<b>$1</b>")
    .replace(/!\[[^\]]*\]\([^)]*\)/g, "")
    .replace(/\[([^\]]+)\]\([^)]*\)/g, "$1");
  const out = [];
  const lines = md.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const h = line.match(/^(#{1,4}) (.*)$/);
    if (h) {
      const level = Math.min(6, h[1].length + 2);
      out.push(`<h${level}>${inline(h[2])}</h${level}>`);
    } else if (line.startsWith("|")) {
      const rows = [];
      while (i < lines.length && lines[i].startsWith("|")) rows.push(lines[i++]);
      i--;
      const cells = (r) => r.replace(/^\||\|$/g, "").split(/(?<!\\)\|/).map((c) => c.trim().replace(/\\\|/g, "|"));
      const head = cells(rows[0]);
      const body = rows.slice(2).map(cells);
      out.push("<table class=\"data\"><thead><tr>" + head.map((c) => `<th>${inline(c)}</th>`).join("") +
        "</tr></thead><tbody>" + body.map((r) => "<tr>" + r.map((c) => `<td>${inline(c)}</td>`).join("") + "</tr>").join("") +
        "</tbody></table>");
    } else if (line.startsWith("- ")) {
      const items = [];
      while (i < lines.length && lines[i].startsWith("- ")) items.push(lines[i++].slice(2));
      i--;
      out.push("<ul>" + items.map((t) => `<li>${inline(t)}</li>`).join("") + "</ul>");
    } else if (line.trim()) {
      out.push(`<p>${inline(line)}</p>`);
    }
  }
  return out.join("\n");
}

function table(rows, columns, esc) {
  if (!rows.length) return '<p class="muted">none</p>';
  return "<table class=\"data\"><thead><tr>" + columns.map(([h]) => `<th>${esc(h)}</th>`).join("") +
    "</tr></thead><tbody>" + rows.map((r) => "<tr>" + columns.map(([, f]) => `<td>${esc(f(r))}</td>`).join("") +
    "</tr>").join("") + "</tbody></table>";
}

const fmt = (v, d = 4) => (v === null || v === undefined ? "" : typeof v === "number" && !Number.isInteger(v) ? v.toPrecision(d) : v);

export function initData({ api, esc }) {
  let loaded = false;
  let heat = null;
  let errorsOffset = 0;

  // One piece's board: squares coloured by mean evaluation, numbers on the big one.
  // Colours show the mean minus `shift` (the overall mean); numbers show the mean itself.
  function heatBoard(parent, piece, range, big, shift) {
    const svg = svgEl("svg", { viewBox: "0 0 800 800", class: big ? "board heat big" : "board heat" }, parent);
    for (let i = 0; i < 64; i++) {
      const x = (i % 8) * 100, y = (7 - Math.floor(i / 8)) * 100;
      const v = piece.mean[i];
      const rel = v === null ? null : v - shift;
      svgEl("rect", { x, y, width: 100, height: 100, fill: heatColor(rel, range), class: "hsq" }, svg);
      if (big && v !== null) {
        const strong = Math.abs(rel) > 0.6 * range ? " strong" : "";
        const t = svgEl("text", { x: x + 50, y: y + 58, class: "hval" + strong, "text-anchor": "middle" }, svg);
        t.textContent = Math.round(v);
        const n = svgEl("text", { x: x + 50, y: y + 86, class: "hn" + strong, "text-anchor": "middle" }, svg);
        n.textContent = "n " + piece.n[i];
        n.dataset.square = squareName(i);
      }
    }
    if (big) {
      // Coordinates on the edge squares, as on the play board.
      for (let i = 0; i < 8; i++) {
        svgEl("text", { x: i * 100 + 95, y: 793, class: "coord", "text-anchor": "end" }, svg).textContent = "abcdefgh"[i];
        svgEl("text", { x: 5, y: i * 100 + 20, class: "coord" }, svg).textContent = String(8 - i);
      }
    } else {
      pieceGlyph(svg, piece.piece, 400, 400, 520).classList.add("faint");
    }
    return svg;
  }

  function drawHeat() {
    const grid = $("heat-grid");
    grid.innerHTML = "";
    const values = heat.pieces.flatMap((p) => p.mean.filter((v) => v !== null)).map((v) => Math.abs(v - heat.overall_mean));
    values.sort((a, b) => a - b);
    const range = Math.max(20, values[Math.floor(values.length * 0.95)] || 100);
    heat.range = range;
    heat.pieces.forEach((p, i) => {
      const cell = document.createElement("button");
      cell.className = "heatcell";
      cell.dataset.piece = p.piece;
      cell.title = p.name;
      heatBoard(cell, p, range, false, heat.overall_mean);
      const label = document.createElement("span");
      label.textContent = p.name.replace("_", " ");
      cell.appendChild(label);
      cell.onclick = () => showBig(i);
      grid.appendChild(cell);
    });
    $("heat-summary").textContent = `${heat.positions} positions where ${heat.where}; colour: mean ` +
      `evaluation minus the overall mean ${heat.overall_mean.toFixed(1)} cp (blue: better for White, ` +
      `red: for Black; ±${range.toFixed(0)} cp full colour); squares with fewer than ${heat.min_samples} positions are grey. ` +
      "Click a piece for its board.";
    showBig(0);
  }

  function showBig(i) {
    const p = heat.pieces[i];
    const box = $("heat-big");
    box.innerHTML = `<div class="muted">${esc(p.name.replace("_", " "))}: mean evaluation (cp, White's view) and positions per square</div>`;
    heatBoard(box, p, heat.range, true, heat.overall_mean);
    for (const c of document.querySelectorAll(".heatcell")) c.classList.toggle("active", c.dataset.piece === p.piece);
  }

  async function loadHeat() {
    const where = $("heat-where").value.trim();
    try {
      heat = await api("/api/db/heatmap" + (where ? "?where=" + encodeURIComponent(where) : ""), { quiet: true });
      $("heat-where").value = heat.where;
      drawHeat();
    } catch (e) {
      $("heat-summary").textContent = "No heatmap: " + e.message;
      $("heat-grid").innerHTML = "";
      $("heat-big").innerHTML = "";
    }
  }

  async function loadErrors() {
    const r = await api(`/api/db/import-errors?limit=50&offset=${errorsOffset}`);
    const box = $("data-errors");
    box.innerHTML = `<p class="muted">${r.total} rows refused${r.total > 50 ? `, ${r.offset + 1}–${r.offset + r.rows.length} shown` : ""}</p>` +
      table(r.rows, [["file", (e) => e.source.split("/").pop()], ["line", (e) => e.line], ["reason", (e) => e.reason], ["text", (e) => e.text]], esc);
    if (r.total > 50) {
      const prev = document.createElement("button");
      prev.textContent = "Previous";
      prev.disabled = r.offset === 0;
      prev.onclick = () => { errorsOffset = Math.max(0, errorsOffset - 50); loadErrors(); };
      const next = document.createElement("button");
      next.textContent = "Next";
      next.disabled = r.offset + r.rows.length >= r.total;
      next.onclick = () => { errorsOffset += 50; loadErrors(); };
      box.append(prev, " ", next);
    }
  }

  async function load() {
    if (loaded) return;
    loaded = true;
    $("heat-go").onclick = loadHeat;
    try {
      const report = await api("/api/db/report", { quiet: true });
      $("data-report").innerHTML = markdown(report.markdown, esc);
    } catch (e) {
      $("data-report").innerHTML = `<p class="muted">${esc(e.message)}</p>`;
      return;
    }
    loadHeat();
    const fits = await api("/api/db/fits");
    $("data-fits").innerHTML = fits.length ? fits.map((f) => {
      const coefs = Array.isArray(f.coefficients) ? f.coefficients : [];
      const test = f.metrics && f.metrics.test ? Object.entries(f.metrics.test).map(([k, v]) => `${k} ${fmt(v)}`).join(", ") : "";
      return `<div class="fit"><b>#${f.id} ${esc(f.kind)} on ${esc(f.target)}</b> <span class="muted">where ${esc(f.filter)}; ` +
        `${f.n_train} train, ${f.n_test} held out; ${esc(f.created_at)}</span><div class="muted">held out: ${esc(test)}</div>` +
        table(coefs, [["coefficient", (c) => c.name], ["estimate", (c) => fmt(c.estimate)], ["std. error", (c) => fmt(c.std_error)], ["t / z", (c) => fmt(c.statistic, 3)]], esc) + "</div>";
    }).join("") : '<p class="muted">none stored (chessgraph fit)</p>';
    const ev = await api("/api/db/evaluators");
    $("data-evaluators").innerHTML = `<p>Built-in: ${ev.builtin.map(esc).join(", ")}</p>` +
      table(ev.stored, [["stored", (e) => e.name], ["valid loss", (e) => fmt(e.valid_loss)], ["test loss", (e) => fmt(e.test_loss)], ["test τ", (e) => fmt(e.test_tau)], ["date", (e) => e.created_at]], esc);
    loadErrors();
  }

  return { load };
}
