// cpsolve's one 3-D viewer (three.js): the studio's editor, its solutions and their disassembly,
// and the standalone page (`cpsolve run --html`, which carries three.js inside it) all draw with
// this module, so a piece has one look everywhere. It reads a scene (cpsolve.pictures.scene: the
// family's part names its `drawing`) and draws pieces on any grid (cubes, a grid's solids, balls),
// chains and, flat, tiles. DRAWINGS at the end holds one entry per drawing; nothing else here
// tells families apart. `window.cpsolveView` says what the last frame drew (for the tests).
import * as THREE from "three";
import { OrbitControls } from "three/addons/controls/OrbitControls.js";

export const TARGET_COLOUR = "#9aa4b1";
export const EMPTY_COLOUR = "#c8ccd2";
const GAP = 0.94; // a cell drawn this big, so that cells side by side show their edges
const PLAN_SECONDS = 20; // the default speed plays a whole plan in about this long

function moveMs(moves, speed) { // a move's time: a whole plan in PLAN_SECONDS at speed 5 (one move 0.12 to 1.5 s)
  const atFive = moves ? Math.max(120, Math.min(1500, (PLAN_SECONDS * 1000) / moves)) : 700;
  return atFive * (5 / speed);
}
const view = { shownUnits: [], drawnUnits: [], moved: [], gone: [], exploded: [], frames: 0, drawnTiles: 0, unitColours: {}, planFits: null, mounted: false };
if (typeof window !== "undefined") window.cpsolveView = view;

// -- the stage: a renderer, a camera, lights and the mouse's controls --------------------------
export class Stage {
  constructor(canvas, { background = "#f4f5f7" } = {}) {
    this.canvas = canvas;
    this.renderer = new THREE.WebGLRenderer({ canvas, antialias: true, preserveDrawingBuffer: true });
    this.renderer.setPixelRatio(Math.min(2, window.devicePixelRatio || 1));
    this.scene = new THREE.Scene();
    this.scene.background = new THREE.Color(background);
    this.camera = new THREE.PerspectiveCamera(35, 1, 0.05, 5000);
    this.camera.up.set(0, 0, 1);
    this.scene.add(new THREE.HemisphereLight("#ffffff", "#8a8f99", 1.7));
    const sun = new THREE.DirectionalLight("#ffffff", 1.5);
    sun.position.set(3, -5, 8);
    this.camera.add(sun); // the light turns with the view: the faces towards the viewer are lit
    this.scene.add(this.camera);
    this.controls = new OrbitControls(this.camera, canvas);
    this.controls.addEventListener("change", () => this.render());
    new ResizeObserver(() => this.resize()).observe(canvas);
    this.resize();
  }

  resize() {
    const { clientWidth: w, clientHeight: h } = this.canvas;
    if (!w || !h) return;
    this.renderer.setSize(w, h, false);
    this.camera.aspect = w / h;
    this.camera.updateProjectionMatrix();
    if (this.framed) this.frame(this.framed, this.framedFrom); // the same things in view at the new shape
    else this.render();
  }

  // the camera looks at every point from above one corner, far enough that the sphere holding them fits
  frame(points, direction = new THREE.Vector3(0.55, -1, 0.75)) {
    this.framed = points;
    this.framedFrom = direction;
    const box = new THREE.Box3();
    for (const p of points) box.expandByPoint(p);
    if (box.isEmpty()) box.set(new THREE.Vector3(-1, -1, -1), new THREE.Vector3(2, 2, 2));
    const sphere = box.getBoundingSphere(new THREE.Sphere());
    const radius = Math.max(1.5, sphere.radius);
    const fov = THREE.MathUtils.degToRad(this.camera.fov) / 2;
    const fit = Math.min(fov, Math.atan(Math.tan(fov) * this.camera.aspect));
    const distance = (radius / Math.sin(fit)) * 1.08;
    this.controls.target.copy(sphere.center);
    this.camera.position.copy(sphere.center).add(direction.clone().normalize().multiplyScalar(distance));
    this.camera.near = Math.max(0.01, distance - radius * 2);
    this.camera.far = distance + radius * 4;
    this.camera.updateProjectionMatrix();
    this.controls.update();
    this.render();
  }

  render() {
    view.frames += 1;
    this.renderer.render(this.scene, this.camera);
  }

  inView(points) { // whether every point lies inside what the camera shows
    this.camera.updateMatrixWorld();
    return points.every((p) => {
      const q = p.clone().project(this.camera);
      return q.x >= -1 && q.x <= 1 && q.y >= -1 && q.y <= 1 && q.z >= -1 && q.z <= 1;
    });
  }

  screenOf(point) { // a point's place on the page (the tests click there)
    const p = point.clone().project(this.camera);
    const rect = this.canvas.getBoundingClientRect();
    return [rect.left + ((p.x + 1) / 2) * rect.width, rect.top + ((1 - p.y) / 2) * rect.height];
  }
}

// -- the look of a grid's cells ------------------------------------------------------------------
// `look`: {ball: radius or 0, solids: per kind its faces (each its corners, counter-clockwise seen
// from outside), or null for cubes}. A cell is drawn at `origin` (a cube's low corner; a ball's
// centre; where its kind's solid is moved to).
export class Look {
  constructor({ ball = 0, solids = null } = {}) {
    this.ball = ball;
    this.solids = solids && solids.length ? solids : null;
    this.geometries = new Map();
  }

  get kinds() { return this.solids ? this.solids.length : 1; }

  geometry(kind) {
    if (!this.geometries.has(kind)) this.geometries.set(kind, this.make(kind));
    return this.geometries.get(kind);
  }

  make(kind) {
    if (this.ball) return new THREE.SphereGeometry(this.ball * 0.97, 24, 16);
    if (!this.solids) return new THREE.BoxGeometry(GAP, GAP, GAP).translate(0.5, 0.5, 0.5);
    const faces = this.solids[kind];
    const corners = faces.flat();
    const centre = corners.reduce((c, p) => [c[0] + p[0], c[1] + p[1], c[2] + p[2]], [0, 0, 0]).map((v) => v / corners.length);
    const shrunk = (p) => p.map((v, a) => centre[a] + (v - centre[a]) * GAP);
    const positions = [];
    for (const face of faces) { // a fan of triangles: faces are convex
      for (let i = 1; i + 1 < face.length; i++) positions.push(...shrunk(face[0]), ...shrunk(face[i]), ...shrunk(face[i + 1]));
    }
    const geometry = new THREE.BufferGeometry();
    geometry.setAttribute("position", new THREE.Float32BufferAttribute(positions, 3));
    geometry.computeVertexNormals();
    geometry.userData.faces = faces.map((face) => face.length - 2); // triangles per face, to tell the face a hit is on
    return geometry;
  }

  centre(kind, origin) { // where a cell's middle is
    if (this.ball) return new THREE.Vector3(...origin);
    if (!this.solids) return new THREE.Vector3(origin[0] + 0.5, origin[1] + 0.5, origin[2] + 0.5);
    const corners = this.solids[kind].flat();
    const c = corners.reduce((s, p) => [s[0] + p[0], s[1] + p[1], s[2] + p[2]], [0, 0, 0]).map((v) => v / corners.length);
    return new THREE.Vector3(origin[0] + c[0], origin[1] + c[1], origin[2] + c[2]);
  }

  corners(kind, origin) { // the points a cell reaches, for framing
    if (this.ball) {
      const r = this.ball;
      return [[-r, 0, 0], [r, 0, 0], [0, -r, 0], [0, r, 0], [0, 0, -r], [0, 0, r]].map((d) => new THREE.Vector3(origin[0] + d[0], origin[1] + d[1], origin[2] + d[2]));
    }
    if (!this.solids) return [[0, 0, 0], [1, 1, 1], [1, 0, 0], [0, 1, 1]].map((d) => new THREE.Vector3(origin[0] + d[0], origin[1] + d[1], origin[2] + d[2]));
    return this.solids[kind].flat().map((p) => new THREE.Vector3(origin[0] + p[0], origin[1] + p[1], origin[2] + p[2]));
  }
}

const MATERIALS = {
  solid: () => new THREE.MeshLambertMaterial(),
  faint: () => new THREE.MeshLambertMaterial({ transparent: true, opacity: 0.33, depthWrite: false }),
  empty: () => new THREE.MeshBasicMaterial({ color: EMPTY_COLOUR, wireframe: true }),
};

// Cells drawn: items {kind, origin, colour, style ("solid", "faint", "empty"), key}; one instanced
// mesh per kind and style, so thousands of cells draw in one call each.
export class Cells {
  constructor(look) {
    this.look = look;
    this.group = new THREE.Group();
    this.items = [];
  }

  set(items) {
    for (const mesh of [...this.group.children]) { this.group.remove(mesh); mesh.dispose(); }
    this.items = items;
    const buckets = new Map();
    items.forEach((item, index) => {
      const bucket = `${item.kind || 0}|${item.style || "solid"}`;
      if (!buckets.has(bucket)) buckets.set(bucket, []);
      buckets.get(bucket).push(index);
    });
    const matrix = new THREE.Matrix4();
    for (const [bucket, indexes] of buckets) {
      const [kind, style] = bucket.split("|");
      const mesh = new THREE.InstancedMesh(this.look.geometry(Number(kind)), MATERIALS[style](), indexes.length);
      indexes.forEach((index, i) => {
        const item = items[index];
        mesh.setMatrixAt(i, matrix.makeTranslation(item.origin[0], item.origin[1], item.origin[2]));
        if (style !== "empty") mesh.setColorAt(i, new THREE.Color(item.colour));
      });
      mesh.userData.items = indexes;
      mesh.userData.kind = Number(kind);
      this.group.add(mesh);
    }
  }

  pick(raycaster) { // the item under a ray and the outward normal of the face it hit (in space)
    const hits = raycaster.intersectObjects(this.group.children.filter((m) => !m.material.wireframe), false);
    if (!hits.length) return null;
    const hit = hits[0];
    const item = this.items[hit.object.userData.items[hit.instanceId]];
    const normal = hit.face ? hit.face.normal.clone() : new THREE.Vector3(0, 0, 1);
    const face = hit.object.geometry.userData.faces ? faceOf(hit.object.geometry.userData.faces, hit.faceIndex) : null;
    return { item, normal, point: hit.point.clone(), face };
  }

  points() { return this.items.flatMap((item) => this.look.corners(item.kind || 0, item.origin)); }

  firstColour() { // the colour its first cell is drawn in, as three.js holds it (for the tests)
    const mesh = this.group.children.find((m) => m.instanceColor);
    if (!mesh) return null;
    return `#${new THREE.Color().fromBufferAttribute(mesh.instanceColor, 0).getHexString()}`;
  }
}

function faceOf(triangles, index) { // which face of a solid a triangle of its fan belongs to
  let seen = 0;
  for (let face = 0; face < triangles.length; face++) {
    seen += triangles[face];
    if (index < seen) return face;
  }
  return triangles.length - 1;
}

// -- a solution's pieces: build order, explode, the disassembly played --------------------------

export class Pieces {
  constructor(stage, scene) {
    this.stage = stage;
    this.scene = scene;
    this.look = new Look(scene.grid ? { ball: scene.ball, solids: scene.solids } : {});
    this.root = new THREE.Group();
    stage.scene.add(this.root);
    this.state = { index: 0, step: 0, explode: 0, plan: 0, hidden: new Set(), playing: false, moveMs: 700, speed: 5 };
    this.units = [];
  }

  get solution() { return this.scene.solutions[this.state.index]; }

  cellsOf(s) { // per unit, its cells as {kind, origin}; and the optional cells left empty
    const units = s.units.map(() => []);
    if (s.cubes) for (const [x, y, z, u] of s.cubes) units[u].push({ kind: 0, origin: [x, y, z] });
    else for (const [kind, x, y, z, u] of s.cells) units[u].push({ kind, origin: [x, y, z] });
    const empty = s.cubes ? s.empty.map((c) => ({ kind: 0, origin: c })) : (s.empty || []).map(([kind, x, y, z]) => ({ kind, origin: [x, y, z] }));
    return { units, empty };
  }

  show(index) {
    this.pause();
    this.state.index = index;
    this.root.clear();
    const s = this.solution;
    const { units, empty } = this.cellsOf(s);
    this.units = units.map((cells, u) => {
      const drawn = new Cells(this.look);
      drawn.set(cells.map((cell) => ({ ...cell, colour: s.units[u].colour })));
      this.root.add(drawn.group);
      return { cells, drawn, centre: this.centreOf(cells) };
    });
    this.empty = new Cells(this.look);
    this.empty.set(empty.map((cell) => ({ ...cell, colour: EMPTY_COLOUR, style: "empty" })));
    this.root.add(this.empty.group);
    view.unitColours = Object.fromEntries(s.units.map((unit) => [unit.label, unit.colour]));
    view.meshColours = Object.fromEntries(s.units.map((unit, u) => [unit.label, this.units[u].drawn.firstColour()]));
    this.state.step = s.order.length;
    this.state.plan = 0;
    this.state.explode = 0;
    this.state.hidden.clear();
    this.state.moveMs = moveMs(s.plan ? s.plan.length : 0, this.state.speed);
    this.away = this.explodedOffsets();
    this.aside = this.asideOffsets();
    this.frameAll();
    this.update();
  }

  centreOf(cells) {
    const c = new THREE.Vector3();
    for (const cell of cells) c.add(this.look.centre(cell.kind, cell.origin));
    return cells.length ? c.divideScalar(cells.length) : c;
  }

  span() { // the longest side of the assembly's box
    const box = new THREE.Box3();
    for (const unit of this.units) for (const cell of unit.cells) box.expandByPoint(this.look.centre(cell.kind, cell.origin));
    const size = box.getSize(new THREE.Vector3());
    return 1 + Math.max(size.x, size.y, size.z);
  }

  explodedOffsets() { // per unit, where explode 1 moves it: the scene says (models/packing/scene.py, the PNG's too)
    const apart = this.solution.apart || [];
    return this.units.map((_, u) => new THREE.Vector3(...(apart[u] || [0, 0, 0])));
  }

  asideOffsets() { // per move that takes pieces out, where they are set aside: on an arc behind the assembly, in view
    const s = this.solution;
    const aside = new Map();
    if (!s.plan) return aside;
    const offsets = this.units.map(() => new THREE.Vector3());
    const groups = [];
    s.plan.forEach((move, j) => {
      if (move.distance !== null) {
        for (const u of move.units) offsets[u].add(new THREE.Vector3(...move.offset).multiplyScalar(move.distance));
        return;
      }
      const box = new THREE.Box3();
      for (const u of move.units) for (const cell of this.units[u].cells) box.expandByPoint(this.look.centre(cell.kind, cell.origin).add(offsets[u]));
      const size = box.getSize(new THREE.Vector3());
      groups.push({ move: j, units: move.units, centre: box.getCenter(new THREE.Vector3()), width: 2.5 + Math.max(size.x, size.y, size.z) });
    });
    const whole = new THREE.Box3();
    for (const unit of this.units) for (const cell of unit.cells) whole.expandByPoint(this.look.centre(cell.kind, cell.origin));
    const middle = whole.getCenter(new THREE.Vector3());
    const widest = Math.max(0, ...groups.map((g) => g.width));
    const around = groups.reduce((sum, g) => sum + g.width, 0);
    const radius = Math.max(this.span() * 0.75 + widest / 2 + 0.5, around / Math.PI);
    let arc = 0; // the half ring from the left round behind to the right: the camera looks from the front, above
    for (const group of groups) {
      const angle = Math.PI - (Math.PI * (arc + group.width / 2)) / Math.max(around, Math.PI * radius);
      arc += group.width;
      const spot = middle.clone().add(new THREE.Vector3(Math.cos(angle) * radius, Math.sin(angle) * radius, 0));
      const shift = spot.sub(group.centre);
      aside.set(group.move, new Map(group.units.map((u) => [u, shift.clone()])));
    }
    return aside;
  }

  planned(at) { // per unit its offset after `at` moves (a fraction while it plays), and the units taken out
    const s = this.solution;
    const offsets = this.units.map(() => new THREE.Vector3());
    const gone = new Set();
    if (!s.plan || at <= 0) return { offsets, gone };
    const out = 1 + this.span(); // a piece taken out leaves along its direction this far, then is set aside
    s.plan.forEach((move, j) => {
      const done = Math.max(0, Math.min(1, at - j));
      if (done === 0) return;
      if (move.distance === null && done === 1) {
        for (const [u, shift] of this.aside.get(j)) { offsets[u].add(shift); gone.add(u); }
        return;
      }
      const length = move.distance === null ? out : move.distance;
      for (const u of move.units) offsets[u].add(new THREE.Vector3(...move.offset).multiplyScalar(done * length));
    });
    return { offsets, gone };
  }

  placeAt(at, explode, step) { // every unit's group where it is at this moment; what is shown
    const s = this.solution;
    const shown = new Set(s.order.slice(0, step));
    const { offsets, gone } = this.planned(at);
    this.units.forEach((unit, u) => {
      unit.drawn.group.position.copy(offsets[u]).addScaledVector(this.away[u], explode);
      unit.drawn.group.visible = shown.has(u) && !this.state.hidden.has(u);
    });
    this.empty.group.visible = step >= s.order.length && at === 0 && explode === 0;
    return { offsets, gone };
  }

  pointsAt(at, explode = 0) { // the corners of every piece at a moment of the plan
    this.placeAt(at, explode, this.solution.order.length);
    return this.units.flatMap((unit) => unit.cells.flatMap((cell) => this.look.corners(cell.kind, cell.origin).map((p) => p.add(unit.drawn.group.position))));
  }

  frameAll(explode = 0) { // one frame for the whole plan (every move's end), and explode's reach: nothing leaves the view
    const s = this.solution;
    const points = [];
    const moves = s.plan ? s.plan.length : 0;
    for (let at = 0; at <= moves; at++) points.push(...this.pointsAt(at));
    if (explode > 0) points.push(...this.pointsAt(0, explode));
    this.stage.frame(points);
    this.framedExplode = explode;
  }

  planFits() { // for the tests: every moment of the plan stays in the camera's view
    const moves = this.solution.plan ? this.solution.plan.length : 0;
    const fits = [];
    for (let at = 0; at <= moves; at += 0.5) fits.push(this.stage.inView(this.pointsAt(at, 0)));
    this.update();
    return fits.every(Boolean);
  }

  update() {
    const { offsets, gone } = this.placeAt(this.state.plan, this.state.explode, this.state.step);
    view.shownUnits = this.units.map((unit, u) => (unit.drawn.group.visible ? u : null)).filter((u) => u !== null);
    view.drawnUnits = view.shownUnits;
    view.moved = offsets.map((o, u) => (o.lengthSq() > 0 ? u : null)).filter((u) => u !== null);
    view.gone = [...gone];
    view.exploded = this.away.map((d) => d.length() * this.state.explode);
    this.stage.render();
  }

  setStep(step) { this.state.step = step; this.state.plan = 0; this.update(); }
  setExplode(amount) { // the frame widens once explode reaches past what it shows
    this.state.explode = amount;
    if (amount > (this.framedExplode || 0)) this.frameAll(Math.min(1, amount + 0.25));
    this.update();
  }
  setPlan(at) { this.state.plan = at; this.state.step = this.solution.order.length; this.update(); }
  toggle(u) { if (this.state.hidden.has(u)) this.state.hidden.delete(u); else this.state.hidden.add(u); this.update(); }

  play(onFrame) { // the plan from where it is (from the start once done), a move every moveMs
    const s = this.solution;
    if (!s.plan) return;
    if (this.state.playing) { this.pause(); return; }
    if (this.state.plan >= s.plan.length) this.state.plan = 0;
    this.state.step = s.order.length;
    this.state.playing = true;
    let last = null;
    const frame = (now) => {
      if (!this.state.playing) return;
      if (last !== null) this.state.plan = Math.min(s.plan.length, this.state.plan + (now - last) / this.state.moveMs);
      last = now;
      this.update();
      if (onFrame) onFrame();
      if (this.state.plan >= s.plan.length) { this.pause(); if (onFrame) onFrame(); } else requestAnimationFrame(frame);
    };
    requestAnimationFrame(frame);
  }

  pause() { this.state.playing = false; }

  stepPlan(by) { // a move on or back, from where it is
    const s = this.solution;
    if (!s.plan) return;
    this.pause();
    const at = by > 0 ? Math.floor(this.state.plan + 1e-9) : Math.ceil(this.state.plan - 1e-9);
    this.setPlan(Math.max(0, Math.min(s.plan.length, at + by)));
  }
}

// -- a chain: its cubes along the path, the segments' ends outlined ------------------------------
export class Chain {
  constructor(stage, scene) {
    this.stage = stage;
    this.scene = scene;
    this.look = new Look();
    this.root = new THREE.Group();
    stage.scene.add(this.root);
    this.state = { index: 0, step: 0 };
  }

  get solution() { return this.scene.solutions[this.state.index]; }

  show(index) {
    this.state.index = index;
    this.state.step = this.solution.path.length;
    this.root.clear();
    this.cells = new Cells(this.look);
    this.root.add(this.cells.group);
    this.update();
    this.stage.frame(this.cells.points());
  }

  update() {
    const s = this.solution;
    const path = s.path.slice(0, this.state.step);
    const ends = new Set(s.ends);
    this.cells.set(path.map((cell, i) => ({ kind: 0, origin: cell, colour: this.scene.chain_colours[i], key: i })));
    if (this.line) this.root.remove(this.line);
    const points = path.map((c) => new THREE.Vector3(c[0] + 0.5, c[1] + 0.5, c[2] + 0.5));
    this.line = new THREE.Line(new THREE.BufferGeometry().setFromPoints(points), new THREE.LineBasicMaterial({ color: "#222222" }));
    this.root.add(this.line);
    if (this.outlines) this.root.remove(this.outlines);
    this.outlines = new THREE.Group();
    const box = new THREE.EdgesGeometry(new THREE.BoxGeometry(1, 1, 1));
    for (const i of ends) if (i < path.length) {
      const edges = new THREE.LineSegments(box, new THREE.LineBasicMaterial({ color: "#000000" }));
      edges.position.set(path[i][0] + 0.5, path[i][1] + 0.5, path[i][2] + 0.5);
      this.outlines.add(edges);
    }
    this.root.add(this.outlines);
    view.shownUnits = path.map((_, i) => i);
    view.drawnUnits = view.shownUnits;
    this.stage.render();
  }

  setStep(step) { this.state.step = step; this.update(); }
}

// -- tiles: the board, flat, as SVG -------------------------------------------------------------
export function drawTiles(holder, scene, index) {
  const s = scene.solutions[index];
  const [columns, rows] = scene.board, size = 96, svgNS = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(svgNS, "svg");
  svg.setAttribute("viewBox", `0 0 ${columns * size} ${rows * size}`);
  svg.setAttribute("width", String(Math.min(900, Math.max(480, columns * size))));
  svg.id = "board";
  const edges = [[[0, 0], [1, 0]], [[1, 0], [1, 1]], [[1, 1], [0, 1]], [[0, 1], [0, 0]]]; // top, right, bottom, left
  const labelAt = [[0.5, 0.17], [0.83, 0.5], [0.5, 0.83], [0.17, 0.5]];
  const make = (name, attributes, text) => {
    const element = document.createElementNS(svgNS, name);
    for (const [key, value] of Object.entries(attributes)) element.setAttribute(key, String(value));
    if (text !== undefined) element.textContent = text;
    return element;
  };
  s.places.forEach((place, n) => {
    const ox = (n % columns) * size, oy = Math.floor(n / columns) * size;
    const group = make("g", { class: "tile" });
    place.shown.forEach((label, side) => {
      const [a, b] = edges[side];
      const points = [[a[0], a[1]], [b[0], b[1]], [0.5, 0.5]].map((p) => `${ox + p[0] * size},${oy + p[1] * size}`).join(" ");
      const colour = scene.match === "equal" ? (Object.hasOwn(scene.label_colours, String(label)) ? scene.label_colours[String(label)] : "#cccccc") : side % 2 ? "#f4f4f4" : "#e8e8e8";
      group.appendChild(make("polygon", { points, fill: colour, stroke: "#555555" }));
      if (scene.match !== "equal") {
        const x = ox + labelAt[side][0] * size, y = oy + labelAt[side][1] * size;
        const attributes = { x, y: y + 4, "text-anchor": "middle", "font-size": 11, class: "label" };
        if (side % 2) attributes.transform = `rotate(${side === 1 ? 90 : -90} ${x} ${y})`;
        group.appendChild(make("text", attributes, String(label)));
      }
    });
    group.appendChild(make("rect", { x: ox + 0.28 * size, y: oy + size / 2 - 10, width: 0.44 * size, height: 20, rx: 4, class: "badge" }));
    group.appendChild(make("text", { x: ox + size / 2, y: oy + size / 2 + 5, "text-anchor": "middle", "font-size": 13, "font-weight": "bold" },
      `${place.tile}` + (place.turns ? `↻${place.turns}` : "")));
    group.appendChild(make("title", {}, `tile ${place.tile}, turned ${place.turns} quarter(s) counter-clockwise; edges ${place.shown.join(", ")}`));
    svg.appendChild(group);
  });
  holder.replaceChildren(svg);
  for (const text of svg.querySelectorAll("text.label")) { // too long for its triangle: squeezed (the tile's title has it whole)
    if (text.getComputedTextLength() > 0.48 * size) {
      text.setAttribute("textLength", String(0.48 * size));
      text.setAttribute("lengthAdjust", "spacingAndGlyphs");
    }
  }
  view.drawnTiles = s.places.length;
}

// -- the words around a solution: its counts, a unit's name, the table of assemblies -----------
export function countsLine(scene) {
  const c = scene.counts;
  const bound = scene.complete ? "" : "at least ";
  let text = `${bound}raw ${c.raw} · rotations ${c.rotations} · unique ${c.unique} (${scene.complete ? "complete" : `incomplete: ${scene.stopped || scene.stopped_by}`})`;
  if (scene.disassembly) {
    const d = scene.disassembly;
    text += ` · ${d.comes_apart} of ${d.checked} come apart` + (d.highest_level ? ` (highest level ${d.highest_level})` : "");
  }
  return text;
}

export function unitName(scene, unit) { // its name as the plan says it, and its piece's where they differ (png.py unit_name)
  const piece = scene.pieces[unit.piece].name;
  return unit.label === piece ? unit.label : `${unit.label} (${piece})`;
}

// The assemblies kept: number, whether it comes apart, its level, its moves, the pieces it
// places; sorted by a click on a heading, filtered to those that come apart; a click on a row shows it.
export function assemblyTable(holder, scene, onPick) {
  const rows = scene.solutions.map((s, i) => ({
    index: i, apart: scene.disassembly ? (s.level ? 1 : 0) : null, level: s.level || "", moves: s.plan ? s.plan.length : 0, pieces: s.units ? s.units.length : 0,
  }));
  const columns = [["index", "#"], ["apart", "comes apart"], ["level", "level"], ["moves", "moves"], ["pieces", "pieces placed"]];
  const state = { by: "index", down: false, onlyApart: false, chosen: 0 };
  const levelKey = (level) => (level ? level.split(".").map((v) => v.padStart(6, "0")).join(".") : "");
  const table = document.createElement("table");
  table.className = "assemblies";
  const filter = document.createElement("label");
  filter.className = "only-apart";
  const box = document.createElement("input");
  box.type = "checkbox";
  filter.append(box, document.createTextNode(" only those that come apart"));
  filter.hidden = !scene.disassembly;
  box.addEventListener("change", () => { state.onlyApart = box.checked; fill(); });
  const fill = () => {
    const head = document.createElement("tr");
    for (const [key, title] of columns) {
      if (key === "apart" && !scene.disassembly) continue;
      if ((key === "level" || key === "moves") && !scene.disassembly) continue;
      const th = document.createElement("th");
      th.textContent = title + (state.by === key ? (state.down ? " ▼" : " ▲") : "");
      th.dataset.key = key;
      th.addEventListener("click", () => { state.down = state.by === key ? !state.down : key !== "index"; state.by = key; fill(); });
      head.appendChild(th);
    }
    const key = (row) => (state.by === "level" ? levelKey(row.level) : row[state.by] ?? 0);
    const shown = rows.filter((row) => !state.onlyApart || row.apart).sort((a, b) => {
      const ka = key(a), kb = key(b);
      const order = ka < kb ? -1 : ka > kb ? 1 : a.index - b.index;
      return state.down ? -order : order;
    });
    const body = shown.map((row) => {
      const tr = document.createElement("tr");
      tr.dataset.index = String(row.index);
      tr.classList.toggle("chosen", row.index === state.chosen);
      const cells = [row.index + 1];
      if (scene.disassembly) cells.push(row.apart ? "yes" : "no", row.level || "", row.moves || "");
      cells.push(row.pieces);
      for (const value of cells) { const td = document.createElement("td"); td.textContent = String(value); tr.appendChild(td); }
      tr.addEventListener("click", () => { state.chosen = row.index; fill(); onPick(row.index); });
      return tr;
    });
    table.replaceChildren(head, ...body);
  };
  fill();
  holder.replaceChildren(filter, table);
  return { choose(index) { state.chosen = index; fill(); } };
}

// -- a page's viewer: the stage, the controls, the legend and the plan's moves, for one scene --
// `holder` gets the viewer's own elements; the studio and the standalone page each put the
// counts and the table of assemblies beside it.
export class SolutionViewer {
  constructor(holder, scene) {
    this.holder = holder;
    this.scene = scene;
    this.keysWhen = () => true; // a page where the keys also do other things says when they are the viewer's
    this.drawing = DRAWINGS[scene.drawing] || null;
    holder.replaceChildren();
    holder.classList.add("cpsolve-viewer");
    if (!this.drawing || !scene.solutions.length) {
      holder.textContent = "no solution to show";
      return;
    }
    if (this.drawing.flat) {
      this.board = document.createElement("div");
      holder.appendChild(this.board);
      this.show(0);
      return;
    }
    this.canvas = document.createElement("canvas");
    this.canvas.className = "stage";
    this.canvas.tabIndex = 0;
    holder.appendChild(this.canvas);
    this.stage = new Stage(this.canvas, { background: "#ffffff" });
    this.drawn = new this.drawing.kind(this.stage, scene);
    this.controls = this.makeControls();
    holder.appendChild(this.controls);
    this.legend = document.createElement("div");
    this.legend.className = "legend";
    holder.appendChild(this.legend);
    this.moves = document.createElement("ol");
    this.moves.className = "moves";
    holder.appendChild(this.moves);
    document.addEventListener("keydown", (event) => this.keyed(event));
    view.planFits = () => this.drawn.planFits ? this.drawn.planFits() : true;
    this.show(0);
  }

  show(index) {
    this.index = index;
    if (this.board) { drawTiles(this.board, this.scene, index); return; }
    this.drawn.show(index);
    const s = this.scene.solutions[index];
    this.stepSlider.max = String(s.order ? s.order.length : s.path.length);
    this.stepSlider.value = this.stepSlider.max;
    this.planBox.hidden = !s.plan;
    if (s.plan) { this.planSlider.max = String(s.plan.length); this.planSlider.value = "0"; }
    this.fillLegend();
    this.fillMoves();
    this.describe();
  }

  makeControls() {
    const bar = document.createElement("div");
    bar.className = "controls";
    const slider = (label, attributes) => {
      const wrap = document.createElement("label");
      const input = document.createElement("input");
      input.type = "range";
      Object.assign(input, attributes);
      wrap.append(document.createTextNode(`${label} `), input);
      return [wrap, input];
    };
    const [stepBox, step] = slider("build", { min: 0, value: 0, id: "step" });
    this.stepSlider = step;
    step.addEventListener("input", () => { this.drawn.setStep(Number(step.value)); this.describe(); });
    this.stepText = document.createElement("span");
    this.stepText.id = "step-text";
    bar.append(stepBox, this.stepText);
    if (this.drawing.explode) {
      const [explodeBox, explode] = slider("explode", { min: 0, max: 100, value: 0, id: "explode" });
      explode.addEventListener("input", () => this.drawn.setExplode(Number(explode.value) / 100));
      bar.appendChild(explodeBox);
    }
    this.planBox = document.createElement("span");
    this.planBox.id = "plan-box";
    const [planLabel, plan] = slider("take apart", { min: 0, value: 0, id: "plan" });
    this.planSlider = plan;
    plan.addEventListener("input", () => { this.drawn.pause(); this.drawn.setPlan(Number(plan.value)); this.describe(); });
    const button = (text, id, title, action) => {
      const b = document.createElement("button");
      b.type = "button"; b.textContent = text; b.id = id; b.title = title;
      b.addEventListener("click", action);
      return b;
    };
    this.playButton = button("play", "play", "Space", () => this.play());
    const back = button("◀", "back", "left arrow: a move back", () => { this.drawn.stepPlan(-1); this.describe(); });
    const on = button("▶", "on", "right arrow: a move on", () => { this.drawn.stepPlan(1); this.describe(); });
    const [speedBox, speed] = slider("speed", { min: 1, max: 20, value: 5, id: "speed" }); // 5: a whole plan in PLAN_SECONDS
    speed.addEventListener("input", () => {
      const plan = this.drawn.solution.plan;
      this.drawn.state.speed = Number(speed.value);
      this.drawn.state.moveMs = moveMs(plan ? plan.length : 0, this.drawn.state.speed);
    });
    this.planText = document.createElement("span");
    this.planText.id = "plan-text";
    this.planBox.append(planLabel, back, this.playButton, on, speedBox, this.planText);
    bar.appendChild(this.planBox);
    return bar;
  }

  play() {
    this.drawn.play(() => this.describe());
    this.describe();
  }

  describe() {
    const s = this.drawn.solution;
    const state = this.drawn.state;
    const total = s.order ? s.order.length : s.path.length;
    let text = ` ${state.step} of ${total}` + (s.order ? " pieces" : " cubes");
    if (s.order && state.step > 0 && state.step <= s.order.length) text += `: last placed ${unitName(this.scene, s.units[s.order[state.step - 1]])}`;
    if (s.order_from) text += ` (${s.order_from === "disassembly" ? "the order the plan takes them out, reversed" : `${s.order_from}, not checked to build; taking it apart (disassemble) finds an order that builds`})`;
    this.stepText.textContent = text;
    this.stepSlider.value = String(state.step);
    if (!s.plan) return;
    const done = Math.ceil(state.plan - 1e-9);
    this.planSlider.value = String(Math.floor(state.plan + 1e-9));
    this.planText.textContent = done === 0 ? `assembled; ${s.plan.length} moves` : `move ${done} of ${s.plan.length}: ${s.plan[done - 1].text}`;
    this.playButton.textContent = state.playing ? "pause" : "play";
    for (const [n, item] of [...this.moves.children].entries()) item.classList.toggle("now", n === done - 1);
  }

  fillLegend() {
    const s = this.drawn.solution;
    this.legend.replaceChildren();
    if (!s.units) return;
    s.units.forEach((unit, i) => {
      const entry = document.createElement("button");
      entry.type = "button";
      entry.className = "entry";
      entry.dataset.unit = String(i);
      const swatch = document.createElement("span");
      swatch.className = "swatch";
      swatch.style.background = unit.colour;
      entry.append(swatch, document.createTextNode(` ${unitName(this.scene, unit)}`));
      entry.title = "click to hide or show this piece";
      entry.addEventListener("click", () => { this.drawn.toggle(i); entry.classList.toggle("off"); });
      this.legend.appendChild(entry);
    });
  }

  fillMoves() {
    const s = this.drawn.solution;
    this.moves.replaceChildren(...(s.plan || []).map((move, n) => {
      const item = document.createElement("li");
      item.textContent = move.text;
      item.addEventListener("click", () => { this.drawn.pause(); this.drawn.setPlan(n + 1); this.describe(); });
      return item;
    }));
  }

  keyed(event) { // Space plays or pauses the disassembly, the arrows step it
    const s = this.drawn && this.drawn.solution;
    const tag = event.target.tagName;
    const typing = (tag === "INPUT" && !["range", "checkbox", "radio", "button"].includes(event.target.type)) || tag === "SELECT" || tag === "TEXTAREA";
    if (!s || !s.plan || typing || event.ctrlKey || event.metaKey || event.altKey) return;
    if (this.holder.offsetParent === null || !this.keysWhen()) return; // not on show, or the keys are another's now
    if (event.key === " ") { event.preventDefault(); this.play(); return; }
    const by = { ArrowRight: 1, ArrowLeft: -1 }[event.key];
    if (!by) return;
    event.preventDefault();
    this.drawn.stepPlan(by);
    this.describe();
  }
}

// One entry per drawing a family's record names (models.Family.drawing).
const DRAWINGS = {
  pieces: { kind: Pieces, explode: true },
  chain: { kind: Chain, explode: false },
  tiles: { flat: true },
};

// -- the standalone page (`cpsolve run --html`): the counts, the table, the viewer --------------
export function mountPage(root, scene) {
  const title = document.createElement("h1");
  title.id = "title";
  title.textContent = scene.name;
  const counts = document.createElement("div");
  counts.id = "counts";
  counts.textContent = countsLine(scene);
  const layout = document.createElement("div");
  layout.className = "page-layout";
  const side = document.createElement("div");
  side.className = "side";
  const main = document.createElement("div");
  main.className = "main";
  layout.append(main, side);
  root.replaceChildren(title, counts, layout);
  if (scene.shown < scene.counts.unique) {
    const limit = document.createElement("div");
    limit.id = "limit";
    limit.textContent = `the first ${scene.shown.toLocaleString("en")} of ${scene.counts.unique.toLocaleString("en")} unique solutions are held here`;
    side.appendChild(limit);
  }
  const viewer = new SolutionViewer(main, scene);
  if (scene.solutions.length > 1 || scene.disassembly) {
    const tableBox = document.createElement("div");
    tableBox.className = "table-box";
    side.appendChild(tableBox);
    const first = scene.solutions.findIndex((s) => s.level);
    const table = assemblyTable(tableBox, scene, (index) => viewer.show(index));
    if (first > 0) { viewer.show(first); table.choose(first); }
  }
  view.mounted = true;
  return viewer;
}
