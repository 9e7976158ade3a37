// A chess board drawn as plain SVG: pieces (DejaVu Sans chess glyphs), moves by drag or
// click (legal moves only, with a promotion choice), arrows, square highlights.

const SVG = "http://www.w3.org/2000/svg";
const FILES = "abcdefgh";
// Solid glyphs (U+265A..) for the silhouette, outline glyphs (U+2654..) for the details.
const SOLID = { k: "\u265A", q: "\u265B", r: "\u265C", b: "\u265D", n: "\u265E", p: "\u265F" };
const OUTLINE = { k: "\u2654", q: "\u2655", r: "\u2656", b: "\u2657", n: "\u2658", p: "\u2659" };

export function squareName(i) {
  return FILES[i % 8] + (Math.floor(i / 8) + 1);
}

export function squareIndex(name) {
  return FILES.indexOf(name[0]) + 8 * (Number(name[1]) - 1);
}

// Pieces of a FEN's board part: {square index: "P" | "k" | ...}.
export function parseBoard(fen) {
  const pieces = {};
  const rows = fen.split(" ")[0].split("/");
  rows.forEach((row, r) => {
    let f = 0;
    for (const ch of row) {
      if (/[1-8]/.test(ch)) f += Number(ch);
      else pieces[f++ + 8 * (7 - r)] = ch;
    }
  });
  return pieces;
}

function el(name, attrs = {}, parent = null) {
  const e = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (parent) parent.appendChild(e);
  return e;
}

// Draws one piece (a group of two glyphs) centred on (x, y) in board units.
export function pieceGlyph(parent, piece, x, y, size = 100) {
  const white = piece === piece.toUpperCase();
  const kind = piece.toLowerCase();
  const g = el("g", { class: "piece " + (white ? "white" : "black") }, parent);
  const attrs = { x, y: y + size * 0.33, "font-size": size * 0.86, "text-anchor": "middle" };
  el("text", { ...attrs, class: "fill" }, g).textContent = SOLID[kind] + "\uFE0E";
  if (white) el("text", { ...attrs, class: "line" }, g).textContent = OUTLINE[kind] + "\uFE0E";
  return g;
}

// Marker ids must be unique in the document: a hidden board's would hide the others' heads.
let boards = 0;

export class Board {
  // onMove(uci) is called with a legal move made on the board.
  constructor(container, onMove = null) {
    this.onMove = onMove;
    this.flipped = false;
    this.pieces = {};
    this.legal = [];
    this.selected = null;
    this.lastMove = null;
    this.check = null;
    this.arrows = [];
    this.uid = "b" + ++boards;
    this.svg = el("svg", { viewBox: "0 0 800 800", class: "board", role: "img" });
    container.appendChild(this.svg);
    this.svg.addEventListener("pointerdown", (e) => this.down(e));
    this.svg.addEventListener("pointermove", (e) => this.drag(e));
    this.svg.addEventListener("pointerup", (e) => this.up(e));
    this.render();
  }

  set(fen, { legal = [], lastMove = null, check = null } = {}) {
    this.pieces = parseBoard(fen);
    this.legal = legal;
    this.lastMove = lastMove;
    this.check = check;
    this.selected = null;
    this.hidePromotion();
    this.render();
  }

  setArrows(arrows) {
    this.arrows = arrows;
    this.render();
  }

  flip() {
    this.flipped = !this.flipped;
    this.render();
  }

  // Board units of the centre of square i.
  xy(i) {
    let f = i % 8, r = Math.floor(i / 8);
    if (this.flipped) { f = 7 - f; r = 7 - r; }
    return [f * 100 + 50, (7 - r) * 100 + 50];
  }

  // The square under a pointer event, or null.
  at(e) {
    const rect = this.svg.getBoundingClientRect();
    let f = Math.floor(((e.clientX - rect.left) / rect.width) * 8);
    let r = 7 - Math.floor(((e.clientY - rect.top) / rect.height) * 8);
    if (f < 0 || f > 7 || r < 0 || r > 7) return null;
    if (this.flipped) { f = 7 - f; r = 7 - r; }
    return f + 8 * r;
  }

  targets(from) {
    const name = squareName(from);
    return this.legal.filter((m) => m.startsWith(name)).map((m) => squareIndex(m.slice(2, 4)));
  }

  render() {
    const s = this.svg;
    while (s.firstChild) s.removeChild(s.firstChild);
    const defs = el("defs", {}, s);
    for (const kind of ["attack", "defend"]) {
      const m = el("marker", { id: `${this.uid}-head-${kind}`, viewBox: "0 0 10 10", refX: 6, refY: 5,
        markerWidth: 3.2, markerHeight: 3.2, orient: "auto-start-reverse" }, defs);
      el("path", { d: "M0,0 L10,5 L0,10 z", class: "head " + kind }, m);
    }
    for (let i = 0; i < 64; i++) {
      const [x, y] = this.xy(i);
      const light = (i % 8 + Math.floor(i / 8)) % 2 === 1;
      const name = squareName(i);
      const cls = ["sq", light ? "light" : "dark"];
      if (this.lastMove && (this.lastMove[0] === name || this.lastMove[1] === name)) cls.push("last");
      if (this.selected === i) cls.push("selected");
      if (this.check === name) cls.push("check");
      el("rect", { x: x - 50, y: y - 50, width: 100, height: 100, class: cls.join(" "),
        "data-square": name }, s);
    }
    // Coordinates on the edge squares.
    for (let i = 0; i < 8; i++) {
      const file = this.flipped ? 7 - i : i;
      el("text", { x: i * 100 + 95, y: 793, class: "coord", "text-anchor": "end" }, s).textContent = FILES[file];
      const rank = this.flipped ? i + 1 : 8 - i;
      el("text", { x: 5, y: i * 100 + 20, class: "coord" }, s).textContent = rank;
    }
    if (this.selected !== null) {
      for (const t of this.targets(this.selected)) {
        const [x, y] = this.xy(t);
        el("circle", { cx: x, cy: y, r: this.pieces[t] ? 46 : 15,
          class: this.pieces[t] ? "target capture" : "target" }, s);
      }
    }
    for (const [sq, p] of Object.entries(this.pieces)) {
      const [x, y] = this.xy(Number(sq));
      const g = pieceGlyph(s, p, x, y);
      g.setAttribute("data-piece-square", squareName(Number(sq)));
      if (this.dragging && this.dragging.from === Number(sq)) g.classList.add("ghost");
    }
    const arrows = el("g", { class: "arrows" }, s);
    for (const a of this.arrows) this.arrow(arrows, a);
    if (this.dragging) {
      this.dragging.glyph = pieceGlyph(s, this.pieces[this.dragging.from], 0, 0);
      this.dragging.glyph.classList.add("dragged");
      this.moveGlyph(this.dragging.x, this.dragging.y);
    }
  }

  // An arrow from a.from to a.to (square indices); a.kind attack|defend, a.side w|b.
  arrow(parent, a) {
    const [x1, y1] = this.xy(a.from), [x2, y2] = this.xy(a.to);
    const len = Math.hypot(x2 - x1, y2 - y1);
    const shorten = 30 / len;
    el("line", { x1: x1 + (x2 - x1) * 0.18, y1: y1 + (y2 - y1) * 0.18,
      x2: x2 - (x2 - x1) * shorten, y2: y2 - (y2 - y1) * shorten,
      class: `arrow ${a.kind} side-${a.side}`, "marker-end": `url(#${this.uid}-head-${a.kind})`,
      "data-edge": `${squareName(a.from)}-${squareName(a.to)}` }, parent);
  }

  moveGlyph(x, y) {
    if (this.dragging && this.dragging.glyph) {
      this.dragging.glyph.setAttribute("transform", `translate(${x},${y})`);
    }
  }

  units(e) {
    const rect = this.svg.getBoundingClientRect();
    return [((e.clientX - rect.left) / rect.width) * 800, ((e.clientY - rect.top) / rect.height) * 800];
  }

  down(e) {
    if (!this.onMove || e.button > 0) return;
    const sq = this.at(e);
    if (sq === null) return;
    if (this.selected !== null && this.targets(this.selected).includes(sq)) {
      this.choose(this.selected, sq);
      return;
    }
    if (this.targets(sq).length === 0) {
      this.selected = null;
      this.render();
      return;
    }
    this.selected = sq;
    const [x, y] = this.units(e);
    this.dragging = { from: sq, x, y, moved: false };
    this.svg.setPointerCapture?.(e.pointerId);
    this.render();
  }

  drag(e) {
    if (!this.dragging) return;
    const [x, y] = this.units(e);
    this.dragging.x = x;
    this.dragging.y = y;
    this.dragging.moved = true;
    this.moveGlyph(x, y);
  }

  up(e) {
    if (!this.dragging) return;
    const from = this.dragging.from;
    const moved = this.dragging.moved;
    this.dragging = null;
    const sq = this.at(e);
    if (moved && sq !== null && sq !== from && this.targets(from).includes(sq)) {
      this.choose(from, sq);
    } else {
      this.render(); // a click: the piece stays selected, its targets shown
    }
  }

  // A move from -> to: asks for the piece when it is a promotion.
  choose(from, to) {
    const uci = squareName(from) + squareName(to);
    const options = this.legal.filter((m) => m.startsWith(uci));
    this.selected = null;
    this.dragging = null;
    if (options.length > 1) {
      this.render();
      this.showPromotion(to, (piece) => this.onMove(uci + piece));
    } else {
      this.pieces[to] = this.pieces[from];
      delete this.pieces[from];
      this.render();
      this.onMove(options[0]);
    }
  }

  showPromotion(to, done) {
    const white = Math.floor(to / 8) === 7;
    const box = el("g", { class: "promotion" }, this.svg);
    el("rect", { x: 0, y: 0, width: 800, height: 800, class: "veil" }, box);
    ["q", "r", "b", "n"].forEach((p, i) => {
      const x = 200 + i * 100, y = 400;
      el("rect", { x, y: y - 50, width: 100, height: 100, class: "choice", "data-promotion": p }, box);
      pieceGlyph(box, white ? p.toUpperCase() : p, x + 50, y);
    });
    box.addEventListener("pointerdown", (e) => {
      e.stopPropagation();
      const [x, y] = this.units(e);
      const i = Math.floor((x - 200) / 100);
      this.hidePromotion();
      if (y > 350 && y < 450 && i >= 0 && i < 4) done(["q", "r", "b", "n"][i]);
      else this.render();
    });
    this.promotion = box;
  }

  hidePromotion() {
    if (this.promotion) this.promotion.remove();
    this.promotion = null;
  }
}
