// The studio's editor: a puzzle's target and pieces drawn in 3-D (the one viewer's stage and
// cells: cpsolve/pictures/viewer.js) and as one layer in 2-D, on any of the five grids (their
// descriptions: grids.js), edited with the mouse and the keyboard, one undo step per stroke. A
// design is the spec the server hands over (cpsolve.studio.editable: every shape as cells) and
// `toSpec` gives it back in the same form, to run as a job, to keep as a draft or to save.
import * as THREE from "three";
import { Cells, Look, Stage, TARGET_COLOUR } from "./viewer.js";
import { cellOf, key, shifted } from "./grids.js";

const HISTORY = 200; // undo steps kept
const LAYER_PIXELS = 300;
const NEAR_SQUARED = 4; // a free cell of the layer whose centre is within 2 of the shape's is kept in view

// the colours: the pieces' as the pictures draw them (by their place in the spec), a constraint
// colour as cpsolve.colours.constraint_colour says (a colour word is that colour, colourN
// BurrTools' N-th, #rrggbb itself, another name the next of BurrTools' colours)
export class Colours {
  constructor(look) { Object.assign(this, look); }
  piece(index) { return this.piece_colours[index % this.piece_colours.length]; }
  constraint(name, number) {
    const word = name.trim().toLowerCase();
    if (Object.hasOwn(this.colour_words, word)) return this.colour_words[word]; // not "constructor", "toString"
    if (/^#[0-9a-f]{6}$/.test(word)) return word;
    const numbered = /^colour([0-9]+)$/.exec(word);
    const list = this.burrtools_colours;
    if (numbered && Number(numbered[1]) >= 1) return list[(Number(numbered[1]) - 1) % list.length];
    return list[number % list.length];
  }
}

// -- the design: shapes (the target first, then the pieces) and everything else of the spec
export class Design {
  constructor(spec, grids) {
    const { pieces, target, ...rest } = structuredClone(spec);
    this.rest = rest;
    this.grid = grids[rest.grid || "cube"];
    const { cells, optional = [], colours = {}, ...targetMeta } = target;
    const variable = new Set(optional.map(key));
    this.shapes = [{ name: "target", piece: false, cells: readCells(cells, colours, variable), meta: targetMeta }];
    for (const [name, piece] of Object.entries(pieces)) {
      const { cells: pieceCells, colours: pieceColours = {}, ...meta } = piece;
      this.shapes.push({ name, piece: true, cells: readCells(pieceCells, pieceColours, new Set()), meta });
    }
    this.edits = 0; // how many changes since it was made: its modified mark
    this.shapesEdited = false;
  }

  toSpec() {
    const spec = structuredClone(this.rest);
    if (this.shapesEdited) delete spec.expected; // counts of the puzzle as it was
    const shapeOf = (shape) => { // by name in a Map: a colour may be named "__proto__" or "constructor"
      const colours = new Map();
      for (const [text, state] of shape.cells) {
        if (!state.colour) continue;
        if (!colours.has(state.colour)) colours.set(state.colour, []);
        colours.get(state.colour).push(cellOf(text));
      }
      return colours.size ? { colours: Object.fromEntries(colours) } : {};
    };
    const target = this.shapes[0];
    const optional = [...target.cells].filter(([, state]) => state.variable).map(([text]) => cellOf(text));
    spec.target = { cells: [...target.cells.keys()].map(cellOf), ...(optional.length ? { optional } : {}), ...shapeOf(target), ...target.meta };
    spec.pieces = {};
    for (const shape of this.shapes.slice(1)) spec.pieces[shape.name] = { cells: [...shape.cells.keys()].map(cellOf), ...shapeOf(shape), ...shape.meta };
    return spec;
  }

  snapshot() {
    return {
      shapes: this.shapes.map((s) => ({ ...s, cells: new Map([...s.cells].map(([k, v]) => [k, { ...v }])), meta: structuredClone(s.meta) })),
      rest: structuredClone(this.rest),
    };
  }

  restore(snapshot) { this.shapes = snapshot.shapes; this.rest = snapshot.rest; this.edits += 1; this.shapesEdited = true; }

  colours() { // every constraint colour of the puzzle: its cells' and its rule's, in order of appearance
    const names = new Set();
    for (const shape of this.shapes) for (const state of shape.cells.values()) if (state.colour) names.add(state.colour);
    for (const pair of this.rest.colour_rule || []) for (const name of pair) names.add(name);
    return [...names];
  }
}

function readCells(cells, colours, variable) {
  const out = new Map();
  for (const cell of cells) out.set(key(cell), { variable: variable.has(key(cell)), colour: null });
  for (const [name, coloured] of Object.entries(colours)) for (const cell of coloured) {
    const state = out.get(key(cell));
    if (state) state.colour = name;
  }
  return out;
}

// -- the editor: one design, one shape shown, strokes, history, the 3-D and the layer view
export class Editor {
  constructor(canvas, layerCanvas, colours, changed) {
    this.canvas = canvas;
    this.layerCanvas = layerCanvas;
    this.colours = colours;
    this.changed = changed; // after every change: the page updates its lists, buttons and the draft
    this.design = null;
    this.index = 0;
    this.layer = 0;
    this.mode = "add"; // add: a click adds the cell beside the face; paint: a click sets a cell's state
    this.brush = { variable: false, colour: null };
    this.undoStack = [];
    this.redoStack = [];
    this.stroke = null;
    this.stage = new Stage(canvas);
    this.raycaster = new THREE.Raycaster();
    this.floor = new THREE.Group();
    this.stage.scene.add(this.floor);
    canvas.addEventListener("pointerdown", (e) => this.pressed(e), { capture: true });
    canvas.addEventListener("pointermove", (e) => this.dragged(e));
    canvas.addEventListener("pointerup", (e) => this.released(e));
    canvas.addEventListener("pointerleave", () => this.hideGhost());
    canvas.addEventListener("contextmenu", (e) => e.preventDefault());
    this.setUpLayerView();
  }

  get shape() { return this.design.shapes[this.index]; }
  get grid() { return this.design.grid; }
  colourOf(index) { return index ? this.colours.piece(index - 1) : TARGET_COLOUR; }
  constraintColour(name) { return this.colours.constraint(name, Math.max(0, this.design.colours().indexOf(name))); }

  load(design) {
    this.design = design;
    // the grid's own solids (a cube's is the unit cube), or balls: as the viewer draws solutions
    this.look = new Look(design.grid.balls ? { ball: 0.5 } : { solids: design.grid.solids });
    if (this.cells) this.stage.scene.remove(this.cells.group);
    this.cells = new Cells(this.look);
    this.stage.scene.add(this.cells.group);
    if (this.ghost) this.stage.scene.remove(this.ghost);
    this.ghost = null;
    this.index = design.shapes.length > 1 ? 1 : 0;
    this.undoStack = [];
    this.redoStack = [];
    this.layer = 0;
    this.select(this.index);
  }

  select(index) {
    this.index = Math.max(0, Math.min(index, this.design.shapes.length - 1));
    if (this.shape.piece) this.brush.variable = false; // only a target has optional cells
    const [low, high] = this.grid.layerRange(this.shape.cells.keys());
    this.layer = Math.max(low, Math.min(this.layer, high));
    this.redraw();
    this.frame();
  }

  // -- history: one step for each stroke or operation
  remember(before = this.state()) {
    this.undoStack.push(before);
    if (this.undoStack.length > HISTORY) this.undoStack.shift();
    this.redoStack = [];
    this.design.edits += 1;
  }

  state() { return { design: this.design.snapshot(), index: this.index }; }
  begin(kind, extra = {}) { return { kind, changed: false, before: this.state(), ...extra }; }
  end(stroke) {
    if (stroke && stroke.changed) { this.remember(stroke.before); this.design.shapesEdited = true; }
    if (!this.stage.inView(this.framePoints())) this.frame(); // the shape grew past the view: it follows
    this.changed();
  }

  undo() { this.step(this.undoStack, this.redoStack); }
  redo() { this.step(this.redoStack, this.undoStack); }
  step(from, to) {
    const last = from.pop();
    if (!last) return;
    to.push(this.state());
    this.design.restore(last.design);
    this.index = Math.min(last.index, this.design.shapes.length - 1);
    this.redraw();
  }

  // -- operations on the shape shown or on the design
  shift(how, sign = 1) {
    this.remember();
    this.design.shapesEdited = true;
    this.shape.cells = shifted(this.shape.cells, how, this.grid, sign);
    this.followShape();
  }

  async turn(how, turned) { // `turned`: the server's turn of the cells (the grid's own transformations)
    const texts = [...this.shape.cells.keys()];
    if (!texts.length) return;
    const cells = await turned(this.grid.name, texts.map(cellOf), how);
    this.remember();
    this.design.shapesEdited = true;
    const states = [...this.shape.cells.values()];
    this.shape.cells = new Map(cells.map((cell, i) => [key(cell), states[i]]));
    this.followShape();
  }

  followShape() { // after a turn or a shift: the layer view on the shape's cells, the camera on the shape
    const [low, high] = this.grid.layerRange(this.shape.cells.keys());
    if (this.layer < low || this.layer > high) this.layer = low;
    this.redraw();
    this.frame();
  }

  edit(change) { // a change of the design's other fields, one undo step
    this.remember();
    change(this.design);
    this.redraw();
  }

  addPiece() {
    this.remember();
    const taken = new Set(this.design.shapes.map((s) => s.name));
    let name = "";
    for (let n = 0; !name || taken.has(name); n++) name = n < 26 ? String.fromCharCode(65 + n) : `P${n}`;
    this.design.shapes.push({ name, piece: true, cells: new Map([[key(this.grid.firstCell()), { variable: false, colour: null }]]), meta: {} });
    this.design.shapesEdited = true;
    this.select(this.design.shapes.length - 1);
  }

  takeShape(shape) { // another problem's piece, as it is there (its name, unless this problem has one so named)
    this.remember();
    const taken = new Set(this.design.shapes.map((s) => s.name));
    let name = shape.name;
    for (let n = 2; taken.has(name); n++) name = `${shape.name}-${n}`;
    const cells = new Map([...shape.cells].map(([text, cell]) => [text, { ...cell }]));
    this.design.shapes.push({ name, piece: true, cells, meta: structuredClone(shape.meta) });
    this.design.shapesEdited = true;
    this.select(this.design.shapes.length - 1);
  }

  removePiece() {
    if (!this.shape.piece || this.design.shapes.length <= 2) return;
    this.remember();
    this.design.shapes.splice(this.index, 1);
    this.design.shapesEdited = true;
    this.select(this.index);
  }

  rename(name) {
    name = name.trim();
    if (!name || name === "target" || this.design.shapes.some((s) => s.name === name)) return false;
    this.remember();
    const old = this.shape.name;
    this.shape.name = name;
    for (const group of Object.values(this.design.rest.groups || {})) if (group.pieces) group.pieces = group.pieces.map((p) => (p === old ? name : p));
    this.redraw();
    return true;
  }

  setCopies(least, most) { // min = max: that many copies (count; 1 is the default); else a range
    this.remember();
    const meta = this.shape.meta;
    delete meta.count; delete meta.min; delete meta.max;
    if (least === most) { if (least !== 1) meta.count = least; }
    else { meta.min = least; meta.max = most; }
    this.redraw();
  }

  copies() {
    const m = this.shape.meta;
    if (m.count !== undefined) return [m.count, m.count];
    if (m.min === undefined && m.max === undefined) return [1, 1];
    return [m.min ?? 0, m.max ?? m.min ?? 1];
  }

  // -- cells
  put(cell) {
    if (!this.grid.valid(cell) || this.shape.cells.has(key(cell))) return false;
    this.shape.cells.set(key(cell), { variable: this.brush.variable && !this.shape.piece, colour: this.brush.colour });
    return true;
  }
  paint(cell) {
    const state = this.shape.cells.get(key(cell));
    if (!state) return false;
    state.variable = this.brush.variable && !this.shape.piece;
    state.colour = this.brush.colour;
    return true;
  }
  take(cell) { return this.shape.cells.delete(key(cell)); }

  // -- the 3-D view
  item(text, state) {
    const cell = cellOf(text);
    const colour = state.colour ? this.constraintColour(state.colour) : this.colourOf(this.index);
    return { kind: this.grid.kindOf(cell), origin: this.grid.origin(cell), colour, style: state.variable ? "faint" : "solid", key: text };
  }

  rebuild() {
    this.cells.set([...this.shape.cells].map(([text, state]) => this.item(text, state)));
    this.rebuildFloor();
  }

  centreOf(cell) { return this.look.centre(this.grid.kindOf(cell), this.grid.origin(cell)); }

  frame() { this.stage.frame(this.framePoints()); }

  framePoints() { // what the view must hold: the shape and the free cells of the layer beside it (a click's reach)
    const points = this.cells.points();
    if (!points.length) points.push(this.centreOf(this.grid.firstCell()));
    const centres = [...this.shape.cells.keys()].map((text) => this.centreOf(cellOf(text)));
    for (const cell of this.floorCells || []) {
      const centre = this.centreOf(cell);
      if (!centres.length || centres.some((c) => c.distanceToSquared(centre) <= NEAR_SQUARED)) points.push(centre);
    }
    return points;
  }

  layerCells() { // the active layer's window: every valid cell's place, as the layer view draws them
    const w = this.grid.layerWindow(this.shape.cells.keys());
    const cells = [];
    for (let r = 0; r < w.size; r++) for (let c = 0; c < w.size; c++) {
      const cell = this.grid.fromLayer(c + w.column, r + w.row, this.layer);
      const [back] = this.grid.toLayer(cell); // rows of hexagons: a cell stands on every other column
      if (this.grid.valid(cell) && back === c + w.column) cells.push(cell);
    }
    return { window: w, cells };
  }

  rebuildFloor() { // the active layer's free cells, faint dots where a click adds a cell
    this.floor.clear();
    const { cells } = this.layerCells();
    this.floorCells = cells.filter((cell) => !this.shape.cells.has(key(cell)));
    const points = this.floorCells.map((cell) => this.centreOf(cell));
    const dots = new THREE.Points(new THREE.BufferGeometry().setFromPoints(points), new THREE.PointsMaterial({ color: "#8a93a3", size: 4, sizeAttenuation: false }));
    this.floor.add(dots);
    const z = points.length ? points.reduce((s, p) => s + p.z, 0) / points.length : 0;
    this.floorHeight = z;
  }

  render() { this.stage.render(); }

  redraw() {
    this.rebuild();
    this.drawLayer();
    this.render();
    this.changed();
  }

  pointer(event) {
    const rect = this.canvas.getBoundingClientRect();
    return new THREE.Vector2(((event.clientX - rect.left) / rect.width) * 2 - 1, -((event.clientY - rect.top) / rect.height) * 2 + 1);
  }

  pick(event) { // the cell under the pointer and the face it hit, or the active layer's free cell nearest the pointer
    this.raycaster.setFromCamera(this.pointer(event), this.stage.camera);
    const hit = this.cells.pick(this.raycaster);
    if (hit) return { cell: cellOf(hit.item.key), face: hit.face, normal: hit.normal };
    const free = this.onFloor(this.raycaster.ray);
    return free ? { free } : null;
  }

  onFloor(ray) {
    const point = ray.intersectPlane(new THREE.Plane(new THREE.Vector3(0, 0, 1), -this.floorHeight), new THREE.Vector3());
    if (!point || !this.floorCells.length) return null;
    let best = null, nearest = Infinity;
    for (const cell of this.floorCells) {
      const centre = this.centreOf(cell);
      const distance = Math.hypot(centre.x - point.x, centre.y - point.y);
      if (distance < nearest) { nearest = distance; best = cell; }
    }
    return nearest < 1.2 ? best : null;
  }

  target(found) { return found.cell ? this.grid.beside(found.cell, found.face, found.normal) : found.free; }

  pressed(event) {
    const removing = event.button === 2 || event.ctrlKey || event.altKey;
    if (event.button !== 0 && event.button !== 2) return;
    const found = this.pick(event);
    if (!found || (removing && !found.cell) || (this.mode === "paint" && !removing && !found.cell)) return; // the controls turn or pan
    event.stopImmediatePropagation();
    this.canvas.setPointerCapture(event.pointerId);
    this.hideGhost();
    if (removing) {
      this.stroke = this.begin("remove");
      this.stroke.changed = this.take(found.cell);
    } else if (this.mode === "paint") {
      this.stroke = this.begin("paint");
      this.stroke.changed = this.paint(found.cell);
    } else {
      this.stroke = this.begin("add");
      this.stroke.changed = this.put(this.target(found));
    }
    this.redraw();
  }

  dragged(event) {
    if (!this.stroke) { this.hover(event); return; }
    const found = this.pick(event);
    let changedNow = false;
    if (found && this.stroke.kind === "add" && found.free) changedNow = this.put(found.free);
    else if (found && found.cell && this.stroke.kind !== "add") changedNow = this.stroke.kind === "remove" ? this.take(found.cell) : this.paint(found.cell);
    if (changedNow) { this.stroke.changed = true; this.redraw(); }
  }

  released(event) {
    if (!this.stroke) return;
    const stroke = this.stroke;
    this.stroke = null;
    if (this.canvas.hasPointerCapture(event.pointerId)) this.canvas.releasePointerCapture(event.pointerId);
    this.end(stroke);
  }

  hideGhost() { if (this.ghost) { this.ghost.visible = false; this.render(); } }

  hover(event) { // the wire frame where a click would add a cell
    const found = event.buttons ? null : this.pick(event);
    const cell = found && this.mode === "add" ? this.target(found) : null;
    if (!cell || !this.grid.valid(cell) || this.shape.cells.has(key(cell))) { this.hideGhost(); return; }
    const kind = this.grid.kindOf(cell);
    if (!this.ghost || this.ghost.userData.kind !== kind) {
      if (this.ghost) this.stage.scene.remove(this.ghost);
      this.ghost = new THREE.Mesh(this.look.geometry(kind), new THREE.MeshBasicMaterial({ color: "#222222", wireframe: true }));
      this.ghost.userData.kind = kind;
      this.stage.scene.add(this.ghost);
    }
    this.ghost.position.set(...this.grid.origin(cell));
    this.ghost.visible = true;
    this.render();
  }

  // -- the layer view: the active layer as a 2-D drawing (each cell its solid seen from above), edited with the mouse
  setUpLayerView() {
    const canvas = this.layerCanvas;
    canvas.width = canvas.height = LAYER_PIXELS;
    canvas.addEventListener("contextmenu", (e) => e.preventDefault());
    canvas.addEventListener("pointerdown", (event) => {
      const cell = this.layerCell(event);
      if (!cell) return;
      canvas.setPointerCapture(event.pointerId);
      const state = this.shape.cells.get(key(cell));
      const same = state && state.variable === (this.brush.variable && !this.shape.piece) && state.colour === this.brush.colour;
      const kind = event.button === 2 || event.ctrlKey || event.altKey || same ? "remove" : state ? "paint" : "add";
      this.layerStroke = this.begin(kind);
      this.layerStroke.changed = this.layerAct(cell);
      this.redraw();
    });
    canvas.addEventListener("pointermove", (event) => {
      if (!this.layerStroke) return;
      const cell = this.layerCell(event);
      if (cell && this.layerAct(cell)) { this.layerStroke.changed = true; this.redraw(); }
    });
    canvas.addEventListener("pointerup", () => { const stroke = this.layerStroke; this.layerStroke = null; this.end(stroke); });
  }

  layerAct(cell) {
    const kind = this.layerStroke.kind;
    if (kind === "remove") return this.take(cell);
    if (kind === "paint") return this.paint(cell);
    return this.put(cell);
  }

  outline(cell) { // a cell as the layer view draws it: on cubes and balls a square or a circle at
    // its column and row, as `layers` are written; else (hexagons, triangles, sticks...) its solid seen from above
    if (!this.grid.layer_solids) {
      const [c, r] = this.grid.toLayer(cell);
      if (this.grid.balls) return { circle: [c + 0.5, r + 0.5] };
      return { polygon: [[c, r], [c + 1, r], [c + 1, r + 1], [c, r + 1]] };
    }
    const points = this.look.corners(this.grid.kindOf(cell), this.grid.origin(cell)).map((p) => [p.x, p.y]);
    return { polygon: hull(points) };
  }

  drawLayer() {
    const canvas = this.layerCanvas;
    const g = canvas.getContext("2d");
    const { cells } = this.layerCells();
    const shapes = cells.map((cell) => ({ cell, ...this.outline(cell) }));
    const xs = shapes.flatMap((s) => (s.circle ? [s.circle[0] - 0.5, s.circle[0] + 0.5] : s.polygon.map((p) => p[0])));
    const ys = shapes.flatMap((s) => (s.circle ? [s.circle[1] - 0.5, s.circle[1] + 0.5] : s.polygon.map((p) => p[1])));
    const low = [Math.min(...xs), Math.min(...ys)], high = [Math.max(...xs), Math.max(...ys)];
    const scale = (canvas.width - 8) / Math.max(high[0] - low[0], high[1] - low[1], 1);
    const at = (x, y) => [4 + (x - low[0]) * scale, 4 + (y - low[1]) * scale]; // row y down, as layers are written
    this.layerShapes = shapes.map((s) => ({ ...s, at }));
    g.clearRect(0, 0, canvas.width, canvas.height);
    const base = this.colourOf(this.index);
    for (const s of shapes) {
      const state = this.shape.cells.get(key(s.cell));
      g.beginPath();
      if (s.circle) { const [x, y] = at(...s.circle); g.arc(x, y, scale * 0.46, 0, 2 * Math.PI); }
      else s.polygon.forEach(([x, y], i) => { const [px, py] = at(x, y); if (i) g.lineTo(px, py); else g.moveTo(px, py); });
      g.closePath();
      g.fillStyle = state ? base : "#ffffff";
      g.globalAlpha = state && state.variable ? 0.35 : 1;
      g.fill();
      g.globalAlpha = 1;
      g.strokeStyle = "#c9ced6";
      g.stroke();
      if (state && state.colour) { // a constraint colour: a dot of its colour in the cell's middle
        const middle = s.circle || s.polygon.reduce((m, p) => [m[0] + p[0] / s.polygon.length, m[1] + p[1] / s.polygon.length], [0, 0]);
        const [x, y] = at(...middle);
        g.fillStyle = this.constraintColour(state.colour);
        g.beginPath(); g.arc(x, y, Math.max(3, scale * 0.15), 0, 2 * Math.PI); g.fill();
      }
    }
  }

  layerCell(event) { // the cell of the layer view under the pointer
    const rect = this.layerCanvas.getBoundingClientRect();
    const x = ((event.clientX - rect.left) / rect.width) * this.layerCanvas.width;
    const y = ((event.clientY - rect.top) / rect.height) * this.layerCanvas.height;
    for (const s of [...(this.layerShapes || [])].reverse()) {
      if (s.circle) {
        const [cx, cy] = s.at(...s.circle);
        const [ex] = s.at(s.circle[0] + 0.46, s.circle[1]);
        if (Math.hypot(x - cx, y - cy) <= ex - cx) return s.cell;
      } else if (inside([x, y], s.polygon.map((p) => s.at(...p)))) return s.cell;
    }
    return null;
  }

  layerCentre(cell) { // the page position of a cell in the layer view (for the page's tests)
    const s = (this.layerShapes || []).find((shape) => key(shape.cell) === key(cell));
    if (!s) return null;
    const middle = s.circle || s.polygon.reduce((m, p) => [m[0] + p[0] / s.polygon.length, m[1] + p[1] / s.polygon.length], [0, 0]);
    const [x, y] = s.at(...middle);
    const rect = this.layerCanvas.getBoundingClientRect();
    return [rect.left + (x / this.layerCanvas.width) * rect.width, rect.top + (y / this.layerCanvas.height) * rect.height];
  }

  setLayer(layer) { this.layer = layer; this.redraw(); }

  layerSpan() {
    const [low, high] = this.grid.layerRange(this.shape.cells.keys());
    return [Math.min(low - 1, this.layer), Math.max(high + 1, this.layer)];
  }

  // -- for the page's tests and measurements
  screenOfCell(cell) { return this.stage.screenOf(this.centreOf(cell)); }
  screenOfFace(cell, face) { // the page position of the middle of one face of a cell's solid (or a ball's side)
    if (this.grid.balls) {
      const c = this.centreOf(cell);
      return this.stage.screenOf(c.add(new THREE.Vector3(...face).multiplyScalar(0.35)));
    }
    const corners = this.grid.solids[this.grid.kindOf(cell)][face];
    const origin = this.grid.origin(cell);
    const centre = this.centreOf(cell);
    const middle = corners.reduce((m, p) => m.add(new THREE.Vector3(p[0] + origin[0], p[1] + origin[1], p[2] + origin[2])), new THREE.Vector3()).divideScalar(corners.length);
    return this.stage.screenOf(middle.lerp(centre, 0.15));
  }
  floorOf(cell) { const c = this.centreOf(cell); c.z = this.floorHeight; return this.stage.screenOf(c); }
  screenOf(cell, step) { // the page position of the face of a cell across which `step` leads (a ball: its side towards it)
    if (this.grid.balls || !this.grid.across) return this.screenOfFace(cell, step);
    const face = this.grid.across[this.grid.kindOf(cell)].findIndex((s) => s.every((v, a) => v === step[a]));
    return this.screenOfFace(cell, face);
  }
  layerPlace(column, row) { return this.layerCentre(this.grid.fromLayer(column, row, this.layer)); }
  timePaint(cell) { // milliseconds from a cell painted to the frame drawn (the GPU's work included)
    const started = performance.now();
    const stroke = this.begin("add");
    stroke.changed = this.put(cell) || this.take(cell);
    this.remember(stroke.before);
    this.redraw();
    this.stage.renderer.getContext().finish();
    return performance.now() - started;
  }
  frustumHolds() { return this.stage.inView(this.cells.points()); }
  drawnColour() { return this.cells.firstColour(); }
}

function hull(points) { // the convex hull of 2-D points, counter-clockwise (Andrew's monotone chain)
  const sorted = [...points].sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const cross = (o, a, b) => (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]);
  const half = (list) => {
    const out = [];
    for (const p of list) {
      while (out.length >= 2 && cross(out[out.length - 2], out[out.length - 1], p) <= 1e-12) out.pop();
      out.push(p);
    }
    return out;
  };
  const lower = half(sorted), upper = half([...sorted].reverse());
  return [...lower.slice(0, -1), ...upper.slice(0, -1)];
}

function inside(point, polygon) { // ray casting
  let within = false;
  for (let i = 0, j = polygon.length - 1; i < polygon.length; j = i++) {
    const [xi, yi] = polygon[i], [xj, yj] = polygon[j];
    if ((yi > point[1]) !== (yj > point[1]) && point[0] < ((xj - xi) * (point[1] - yi)) / (yj - yi) + xi) within = !within;
  }
  return within;
}
