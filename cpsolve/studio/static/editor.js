// The studio's editor: a puzzle's pieces and target drawn in 3-D (three.js) and as one layer in
// 2-D, edited with the mouse and the keyboard, one undo step per stroke. A design is the spec the
// server hands over (cpsolve.studio.editable: every shape as cells) and `toSpec` gives it back in
// the same form, to run as a job or to save.
import * as THREE from "three";
import { OrbitControls } from "three/addons/OrbitControls.js";
import { GRIDS, cellOf, key, layerRange, layerWindow, moved } from "./grids.js";

const PALETTE = ["#e6194b", "#3cb44b", "#4363d8", "#f58231", "#911eb4", "#42d4f4", "#f032e6", "#bfef45",
  "#fabed4", "#469990", "#dcbeff", "#9a6324", "#800000", "#aaffc3", "#808000", "#000075", "#a9a9a9"];
const TARGET_COLOUR = "#9aa4b1";
const HISTORY = 200; // undo steps kept
const LAYER_PIXELS = 280;

export function colourOfName(name) { // a constraint colour's swatch: the same name, the same hue
  let hash = 0;
  for (const ch of name) hash = (hash * 31 + ch.charCodeAt(0)) >>> 0;
  return `hsl(${hash % 360}, 70%, 45%)`;
}

// -- the design: shapes (the target first, then the pieces) and everything else of the spec
export class Design {
  constructor(spec) {
    const { pieces, target, ...rest } = structuredClone(spec);
    this.rest = rest;
    this.grid = GRIDS[rest.grid || "cube"];
    const { cells, optional = [], colours = {}, ...targetMeta } = target;
    const variable = new Set(optional.map(key));
    this.shapes = [{ name: "target", piece: false, cells: readCells(cells, colours, variable), meta: targetMeta }];
    for (const [name, piece] of Object.entries(pieces)) {
      const { cells: pieceCells, colours: pieceColours = {}, ...meta } = piece;
      this.shapes.push({ name, piece: true, cells: readCells(pieceCells, pieceColours, new Set()), meta });
    }
    this.edited = false;
  }

  toSpec() {
    const spec = structuredClone(this.rest);
    if (this.edited) delete spec.expected; // counts of the puzzle as it was
    const shapeOf = (shape) => {
      const colours = {};
      for (const [text, state] of shape.cells) if (state.colour) (colours[state.colour] ||= []).push(cellOf(text));
      return Object.keys(colours).length ? { colours } : {};
    };
    const target = this.shapes[0];
    const optional = [...target.cells].filter(([, state]) => state.variable).map(([text]) => cellOf(text));
    spec.target = { cells: [...target.cells.keys()].map(cellOf), ...(optional.length ? { optional } : {}), ...shapeOf(target), ...target.meta };
    spec.pieces = {};
    for (const shape of this.shapes.slice(1)) spec.pieces[shape.name] = { cells: [...shape.cells.keys()].map(cellOf), ...shapeOf(shape), ...shape.meta };
    return spec;
  }

  snapshot() { return this.shapes.map((s) => ({ ...s, cells: new Map([...s.cells].map(([k, v]) => [k, { ...v }])), meta: structuredClone(s.meta) })); }
  restore(shapes) { this.shapes = shapes; this.edited = true; }
  colours() { return [...new Set(this.shapes.flatMap((s) => [...s.cells.values()].map((v) => v.colour).filter(Boolean)))].sort(); }
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
  constructor(canvas, layerCanvas, changed) {
    this.canvas = canvas;
    this.layerCanvas = layerCanvas;
    this.changed = changed; // called after every change: the page updates its lists and buttons
    this.design = null;
    this.index = 0;
    this.layer = 0;
    this.mode = "add"; // add: a click adds the cell beside the face; paint: a click sets a cell's state
    this.brush = { variable: false, colour: null };
    this.undoStack = [];
    this.redoStack = [];
    this.stroke = null;
    this.setUp3d();
    this.setUpLayerView();
  }

  get shape() { return this.design.shapes[this.index]; }
  colourOf(index) { return index ? PALETTE[(index - 1) % PALETTE.length] : TARGET_COLOUR; }
  get grid() { return this.design.grid; }

  load(design) {
    this.design = design;
    this.ghost.geometry.dispose(); // the wire frame where a click would add: a cube or a ball
    this.ghost.geometry = design.grid.solid === "ball" ? new THREE.SphereGeometry(0.5, 12, 8) : new THREE.BoxGeometry(1, 1, 1);
    this.index = design.shapes.length > 1 ? 1 : 0;
    this.undoStack = [];
    this.redoStack = [];
    this.select(this.index);
    this.frame();
  }

  select(index) {
    this.index = Math.max(0, Math.min(index, this.design.shapes.length - 1));
    if (this.shape.piece) this.brush.variable = false; // a piece's cells are all there: only a target has optional ones
    const [low, high] = layerRange(this.shape.cells, this.grid);
    this.layer = Math.max(low, Math.min(this.layer, high));
    this.redraw();
  }

  // -- history: one step for each stroke or operation
  remember(before = { shapes: this.design.snapshot(), index: this.index }) {
    this.undoStack.push(before);
    if (this.undoStack.length > HISTORY) this.undoStack.shift();
    this.redoStack = [];
    this.design.edited = true;
  }

  begin(kind, extra = {}) { // a stroke: what it does, and the design before it (its undo step)
    return { kind, changed: false, before: { shapes: this.design.snapshot(), index: this.index }, ...extra };
  }

  end(stroke) { // a stroke that changed something is one undo step
    if (stroke && stroke.changed) this.remember(stroke.before);
    this.changed();
  }

  undo() { this.step(this.undoStack, this.redoStack); }
  redo() { this.step(this.redoStack, this.undoStack); }
  step(from, to) {
    const last = from.pop();
    if (!last) return;
    to.push({ shapes: this.design.snapshot(), index: this.index });
    this.design.restore(last.shapes);
    this.index = Math.min(last.index, this.design.shapes.length - 1);
    this.redraw();
  }

  // -- operations on the shape shown or on the design
  apply(how, sign = 1) { // turn x/y/z, mirror, shift x/y/z (sign: the direction)
    this.remember();
    this.shape.cells = moved(this.shape.cells, how, this.grid, sign);
    this.redraw();
  }

  addPiece() {
    this.remember();
    const taken = new Set(this.design.shapes.map((s) => s.name));
    let name = "";
    for (let n = 0; !name || taken.has(name); n++) name = n < 26 ? String.fromCharCode(65 + n) : `P${n}`;
    this.design.shapes.push({ name, piece: true, cells: new Map(), meta: {} });
    this.select(this.design.shapes.length - 1);
  }

  removePiece() {
    if (!this.shape.piece || this.design.shapes.length <= 2) return;
    this.remember();
    this.design.shapes.splice(this.index, 1);
    this.select(this.index);
  }

  rename(name) {
    name = name.trim();
    if (!name || name === "target" || this.design.shapes.some((s) => s.name === name)) return false;
    this.remember();
    this.shape.name = name;
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
  put(cell) { // add a cell with the brush (no change where one is)
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
  setUp3d() {
    const renderer = new THREE.WebGLRenderer({ canvas: this.canvas, antialias: true, preserveDrawingBuffer: true });
    renderer.setPixelRatio(window.devicePixelRatio || 1);
    this.renderer = renderer;
    this.scene = new THREE.Scene();
    this.scene.background = new THREE.Color("#f4f5f7");
    this.camera = new THREE.PerspectiveCamera(40, 1, 0.1, 1000);
    this.camera.up.set(0, 0, 1);
    this.scene.add(new THREE.HemisphereLight("#ffffff", "#8a8f99", 1.6));
    const sun = new THREE.DirectionalLight("#ffffff", 1.6);
    sun.position.set(3, -5, 8);
    this.scene.add(sun);
    this.solid = null;
    this.ghost = new THREE.Mesh(new THREE.BoxGeometry(1, 1, 1), new THREE.MeshBasicMaterial({ color: "#222", wireframe: true }));
    this.ghost.visible = false;
    this.scene.add(this.ghost);
    this.floor = new THREE.Group();
    this.scene.add(this.floor);
    this.raycaster = new THREE.Raycaster();
    // the editor's listeners come before the controls': a press on a cell or the layer's floor is
    // a stroke and the controls never see it; a press elsewhere turns (left) or pans (right) the view
    this.canvas.addEventListener("pointerdown", (e) => this.pressed(e));
    this.canvas.addEventListener("pointermove", (e) => this.dragged(e));
    this.canvas.addEventListener("pointerup", (e) => this.released(e));
    this.canvas.addEventListener("contextmenu", (e) => e.preventDefault());
    this.controls = new OrbitControls(this.camera, this.canvas);
    this.controls.addEventListener("change", () => this.render());
    new ResizeObserver(() => this.resize()).observe(this.canvas);
  }

  resize() {
    const { clientWidth: w, clientHeight: h } = this.canvas;
    if (!w || !h) return;
    this.renderer.setSize(w, h, false);
    this.camera.aspect = w / h;
    this.camera.updateProjectionMatrix();
    this.render();
  }

  position(cell) { const s = this.grid.spacing; return new THREE.Vector3(cell[0] * s, cell[1] * s, cell[2] * s); }

  frame() { // the camera looks at the shape shown from above one corner
    const cells = [...this.shape.cells.keys()].map(cellOf);
    const centre = new THREE.Vector3();
    for (const cell of cells) centre.add(this.position(cell));
    if (cells.length) centre.divideScalar(cells.length);
    const span = Math.max(4, ...cells.map((c) => this.position(c).distanceTo(centre) * 2 + 1));
    this.controls.target.copy(centre);
    this.camera.position.copy(centre).add(new THREE.Vector3(0.9, -1.6, 1.3).multiplyScalar(span));
    this.controls.update();
    this.render();
  }

  geometry() {
    return this.grid.solid === "ball" ? new THREE.SphereGeometry(0.48, 20, 14) : new THREE.BoxGeometry(0.94, 0.94, 0.94);
  }

  rebuild() { // the shape's cells as two instanced meshes (solid, and optional cells see-through)
    for (const mesh of [this.solid, this.optional]) if (mesh) { this.scene.remove(mesh); mesh.dispose(); }
    const entries = [...this.shape.cells];
    const base = new THREE.Color(this.colourOf(this.index));
    const make = (list, material) => {
      const mesh = new THREE.InstancedMesh(this.geometry(), material, Math.max(1, list.length));
      mesh.count = list.length;
      const matrix = new THREE.Matrix4();
      list.forEach(([text, state], i) => {
        mesh.setMatrixAt(i, matrix.makeTranslation(this.position(cellOf(text))));
        mesh.setColorAt(i, state.colour ? new THREE.Color(colourOfName(state.colour)) : base);
      });
      mesh.userData.cells = list.map(([text]) => text);
      this.scene.add(mesh);
      return mesh;
    };
    this.solid = make(entries.filter(([, s]) => !s.variable), new THREE.MeshLambertMaterial());
    this.optional = make(entries.filter(([, s]) => s.variable), new THREE.MeshLambertMaterial({ transparent: true, opacity: 0.35, depthWrite: false }));
    this.rebuildFloor();
  }

  rebuildFloor() { // the active layer: a grid the size of the layer view, where a click adds a cell
    this.floor.clear();
    const w = layerWindow(this.shape.cells, this.grid);
    const points = [];
    const s = this.grid.spacing;
    const at = (c, r) => this.position(this.grid.fromLayer(c, r, this.layer));
    for (let i = 0; i <= w.size; i++) {
      for (const [a, b] of [[[w.column + i - 0.5, w.row - 0.5], [w.column + i - 0.5, w.row + w.size - 0.5]],
        [[w.column - 0.5, w.row + i - 0.5], [w.column + w.size - 0.5, w.row + i - 0.5]]]) {
        points.push(at(...a), at(...b));
      }
    }
    const lines = new THREE.LineSegments(new THREE.BufferGeometry().setFromPoints(points), new THREE.LineBasicMaterial({ color: "#b8bec8" }));
    lines.position.z = -0.5 * s * (this.grid.solid === "ball" ? 0.7 : 1);
    this.floor.add(lines);
    this.window = w;
  }

  render() {
    this.renderer.render(this.scene, this.camera);
  }

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

  pick(event) { // the cell under the pointer and the face's outward normal, or a free cell of the active layer
    this.raycaster.setFromCamera(this.pointer(event), this.camera);
    const hits = this.raycaster.intersectObjects([this.solid, this.optional].filter(Boolean), false);
    if (hits.length) {
      const hit = hits[0];
      const text = hit.object.userData.cells[hit.instanceId];
      const cell = cellOf(text);
      const normal = this.grid.solid === "ball" ? hit.point.clone().sub(this.position(cell)).toArray() : hit.face.normal.toArray();
      return { cell, normal };
    }
    const free = this.onLayer(this.raycaster.ray, this.layer);
    return free ? { free } : null;
  }

  onLayer(ray, layer) { // where a ray meets a layer, as that layer's nearest cell inside the window
    const height = this.position(this.grid.fromLayer(0, 0, layer)).z;
    const point = ray.intersectPlane(new THREE.Plane(new THREE.Vector3(0, 0, 1), -height), new THREE.Vector3());
    if (!point) return null;
    const s = this.grid.spacing;
    const [c, r] = this.grid.toLayer([point.x / s, point.y / s, layer]).map((v) => Math.round(v));
    const w = this.window;
    if (c < w.column || r < w.row || c >= w.column + w.size || r >= w.row + w.size) return null;
    return this.grid.fromLayer(c, r, layer);
  }

  pressed(event) {
    const removing = event.button === 2 || event.ctrlKey || event.altKey;
    if (event.button !== 0 && event.button !== 2) return;
    const found = this.pick(event);
    if (!found || (removing && !found.cell) || (this.mode === "paint" && !removing && !found.cell)) return; // the controls turn or pan
    event.stopImmediatePropagation();
    this.canvas.setPointerCapture(event.pointerId);
    if (removing) {
      this.stroke = this.begin("remove");
      this.stroke.changed = this.take(found.cell);
    } else if (this.mode === "paint") {
      this.stroke = this.begin("paint");
      this.stroke.changed = this.paint(found.cell);
    } else {
      const cell = found.cell ? this.grid.beside(found.cell, found.normal) : found.free;
      this.stroke = this.begin("add", { layer: cell[2] });
      this.stroke.changed = this.put(cell);
    }
    this.redraw();
  }

  dragged(event) {
    if (!this.stroke) { this.hover(event); return; }
    let changedNow = false;
    if (this.stroke.kind === "add") { // a drag adds cells in the layer the stroke began in
      this.raycaster.setFromCamera(this.pointer(event), this.camera);
      const saved = this.window;
      this.window = { column: -1e9, row: -1e9, size: 2e9 };
      const cell = this.onLayer(this.raycaster.ray, this.stroke.layer);
      this.window = saved;
      if (cell) changedNow = this.put(cell);
    } else {
      const found = this.pick(event);
      if (found && found.cell) changedNow = this.stroke.kind === "remove" ? this.take(found.cell) : this.paint(found.cell);
    }
    if (changedNow) {
      this.stroke.changed = true;
      this.redraw();
    }
  }

  released(event) {
    if (!this.stroke) return;
    const stroke = this.stroke;
    this.stroke = null;
    if (this.canvas.hasPointerCapture(event.pointerId)) this.canvas.releasePointerCapture(event.pointerId);
    this.end(stroke);
  }

  hover(event) { // the wire frame where a click would add a cell
    const found = event.buttons ? null : this.pick(event);
    const cell = found && this.mode === "add" ? (found.cell ? this.grid.beside(found.cell, found.normal) : found.free) : null;
    this.ghost.visible = Boolean(cell && this.grid.valid(cell));
    if (this.ghost.visible) {
      this.ghost.position.copy(this.position(cell));
    }
    this.render();
  }

  // -- the layer view: the active layer of the shape as a 2-D grid, drawn and edited with the mouse
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

  layerCell(event) {
    const rect = this.layerCanvas.getBoundingClientRect();
    const w = this.layerWindowNow;
    const side = rect.width / w.size;
    const c = Math.floor((event.clientX - rect.left) / side) + w.column;
    const r = Math.floor((event.clientY - rect.top) / side) + w.row;
    return this.grid.fromLayer(c, r, this.layer);
  }

  layerCentre(column, row) { // the page position of a layer-view square (for the page's tests)
    const rect = this.layerCanvas.getBoundingClientRect();
    const w = this.layerWindowNow;
    const side = rect.width / w.size;
    return [rect.left + (column - w.column + 0.5) * side, rect.top + (row - w.row + 0.5) * side];
  }

  drawLayer() {
    const canvas = this.layerCanvas;
    const g = canvas.getContext("2d");
    const w = layerWindow(this.shape.cells, this.grid);
    this.layerWindowNow = w;
    const side = canvas.width / w.size;
    g.clearRect(0, 0, canvas.width, canvas.height);
    const base = this.colourOf(this.index);
    for (let r = 0; r < w.size; r++) for (let c = 0; c < w.size; c++) {
      const cell = this.grid.fromLayer(c + w.column, r + w.row, this.layer);
      const state = this.shape.cells.get(key(cell));
      const x = c * side, y = r * side;
      g.strokeStyle = "#c9ced6";
      g.fillStyle = state ? base : "#ffffff";
      g.globalAlpha = state && state.variable ? 0.35 : 1;
      g.beginPath();
      if (this.grid.solid === "ball") g.arc(x + side / 2, y + side / 2, side * 0.45, 0, 2 * Math.PI);
      else g.rect(x + 1, y + 1, side - 2, side - 2);
      g.fill();
      g.globalAlpha = 1;
      g.stroke();
      if (state && state.colour) { // a constraint colour: a dot of its hue
        g.fillStyle = colourOfName(state.colour);
        g.beginPath();
        g.arc(x + side / 2, y + side / 2, side * 0.18, 0, 2 * Math.PI);
        g.fill();
      }
    }
  }

  setLayer(layer) { this.layer = layer; this.redraw(); }

  layerSpan() { // the layers the slider offers: the shape's, one beyond each side, and the active one
    const [low, high] = layerRange(this.shape.cells, this.grid);
    return [Math.min(low - 1, this.layer), Math.max(high + 1, this.layer)];
  }

  // -- for the page's tests and measurements
  screenOf(cell, normal) { // the page position of a cell's face (the face whose outward normal is given)
    const p = this.position(cell).add(new THREE.Vector3(...normal).multiplyScalar(this.grid.solid === "ball" ? 0.35 : 0.47));
    p.project(this.camera);
    const rect = this.canvas.getBoundingClientRect();
    return [rect.left + (p.x + 1) / 2 * rect.width, rect.top + (1 - p.y) / 2 * rect.height];
  }

  floorOf(cell) { // the page position of a free cell of the active layer
    const p = this.position(cell);
    p.z = this.position(this.grid.fromLayer(0, 0, this.layer)).z;
    p.project(this.camera);
    const rect = this.canvas.getBoundingClientRect();
    return [rect.left + (p.x + 1) / 2 * rect.width, rect.top + (1 - p.y) / 2 * rect.height];
  }

  timePaint(cell) { // milliseconds from a cell painted to the frame drawn (the GPU's work included)
    const started = performance.now();
    const stroke = this.begin("add");
    stroke.changed = this.put(cell) || this.take(cell);
    this.remember(stroke.before);
    this.redraw();
    this.renderer.getContext().finish();
    return performance.now() - started;
  }
}
