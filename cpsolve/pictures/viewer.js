// cpsolve's solution viewer: reads the scene (JSON in #scene) and draws it on a 2-D canvas
// (cubes as shaded faces, farthest first) or, for tiles, as SVG. No network, no libraries.
// Each family's scene names its drawing (scene.drawing); DRAWINGS at the end holds one entry per
// drawing, and nothing else here tells families apart.
"use strict";
(function () {
  const scene = JSON.parse(document.getElementById("scene").textContent);
  const $ = (id) => document.getElementById(id);
  const state = { index: 0, yaw: -0.65, pitch: 0.5, zoom: 1, panX: 0, panY: 0, explode: 0, step: 0, hidden: new Set(), plan: 0, playing: false, moveMs: 700, order: "found" };
  const view = { shownUnits: [], drawnUnits: [], drawnTiles: 0, frames: 0, moved: [], gone: [], exploded: [] }; // shown: in the scene; drawn: a face in sight; moved, gone: by the plan
  window.cpsolveView = view; // read by the tests: what the last frame drew

  function ordered() { // [solution, index] as found, or by level, or by moves (the most first; ties as found)
    const moves = (s) => (s.plan ? s.plan.length : 0);
    const key = { found: () => 0, level: (s) => s.level || 0, moves }[state.order];
    return scene.solutions.map((s, i) => [s, i]).sort((a, b) => key(b[0]) - key(a[0]) || moves(b[0]) - moves(a[0]) || a[1] - b[1]);
  }

  function header() {
    const c = scene.counts;
    const status = scene.complete ? "complete" : "incomplete: stopped by " + scene.stopped_by;
    $("title").textContent = scene.name;
    const bound = scene.complete ? "" : "at least "; // counts a run did not finish are lower bounds
    let text = `${bound}raw ${c.raw} · rotations ${c.rotations} · unique ${c.unique} (${status})`;
    if (scene.disassembly) {
      const d = scene.disassembly;
      text += ` · ${d.comes_apart} of ${d.checked} come apart` + (d.highest_level ? ` (highest level ${d.highest_level})` : "");
    }
    $("counts").textContent = text;
    const select = $("solution");
    const fillSelect = (onlyApart) => { // every solution held, or (the filter) only those that come apart; in the order chosen
      select.replaceChildren();
      ordered().forEach(([s, i]) => {
        if (onlyApart && !s.level) return;
        const option = document.createElement("option");
        option.value = String(i);
        option.textContent = `solution ${i + 1}` + (s.level ? `: comes apart, level ${s.level}` : scene.disassembly ? ": does not come apart" : "");
        select.appendChild(option);
      });
      select.value = String(state.index);
    };
    const apart = scene.solutions.findIndex((s) => s.level); // with --disassemble, open on one that comes apart
    if (apart > 0) state.index = apart;
    fillSelect(false);
    if (scene.disassembly && apart >= 0) { // sort by level or by moves, highest first
      $("sort-box").style.display = "";
      $("sort").addEventListener("change", (e) => { state.order = e.target.value; fillSelect($("apart").checked); });
    }
    const stuck = scene.solutions.filter((s) => !s.level).length;
    if (scene.disassembly && apart >= 0 && stuck > 0) { // some come apart, some do not: offer the filter
      $("apart-box").style.display = "";
      $("apart").addEventListener("change", (e) => {
        fillSelect(e.target.checked);
        if (select.value === String(state.index)) return;
        state.index = Number(select.options[0].value); // the one shown was filtered out
        select.value = String(state.index);
        if (drawing.steps) resetStep();
        if (drawing.plan) resetPlan();
        if (drawing.legend) legend();
        draw();
      });
    }
    if (scene.shown < scene.counts.unique) {
      $("limit").textContent = `the first ${scene.shown.toLocaleString("en")} of ${scene.counts.unique.toLocaleString("en")} unique solutions`
        + " (--solutions FILE writes every one, --show N draws more as text)";
    }
    select.addEventListener("change", () => {
      state.index = Number(select.value);
      if (drawing.steps) resetStep();
      if (drawing.plan) resetPlan();
      if (drawing.legend) legend();
      draw();
    });
  }

  // -- cubes ----------------------------------------------------------------------------------
  const FACES = [ // normal, then the four corners of the unit cube's face
    [[1, 0, 0], [[1, 0, 0], [1, 1, 0], [1, 1, 1], [1, 0, 1]]],
    [[-1, 0, 0], [[0, 0, 0], [0, 0, 1], [0, 1, 1], [0, 1, 0]]],
    [[0, 1, 0], [[0, 1, 0], [0, 1, 1], [1, 1, 1], [1, 1, 0]]],
    [[0, -1, 0], [[0, 0, 0], [1, 0, 0], [1, 0, 1], [0, 0, 1]]],
    [[0, 0, 1], [[0, 0, 1], [1, 0, 1], [1, 1, 1], [0, 1, 1]]],
    [[0, 0, -1], [[0, 0, 0], [0, 1, 0], [1, 1, 0], [1, 0, 0]]],
  ];

  function rotate(p) { // z up: turn about z by yaw, then look down by pitch; [screen x, screen y (down), depth (away)]
    const cy = Math.cos(state.yaw), sy = Math.sin(state.yaw), cp = Math.cos(state.pitch), sp = Math.sin(state.pitch);
    const x = p[0] * cy - p[1] * sy, y = p[0] * sy + p[1] * cy, z = p[2];
    return [x, -(z * cp + y * sp), y * cp - z * sp];
  }

  function shade(hex, normal) { // light from the upper left, in front
    const n = rotate(normal);
    const light = 0.5 + 0.5 * Math.max(0, -0.4 * n[0] - 0.7 * n[1] - 0.6 * n[2]);
    const v = parseInt(hex.slice(1), 16);
    const f = (c) => Math.max(0, Math.min(255, Math.round(c * light)));
    return `rgb(${f(v >> 16)},${f((v >> 8) & 255)},${f(v & 255)})`;
  }

  function longestSide(points) { // the longest side of the cells' bounding box, in cells
    const low = [Infinity, Infinity, Infinity], high = [-Infinity, -Infinity, -Infinity];
    for (const p of points) for (let a = 0; a < 3; a++) { low[a] = Math.min(low[a], p[a]); high[a] = Math.max(high[a], p[a]); }
    return 1 + Math.max(high[0] - low[0], high[1] - low[1], high[2] - low[2]);
  }

  // -- the disassembly plan: where each piece is after `state.plan` moves (a fraction while it plays)
  function planned(s, points) { // {offset per unit, set of units taken out}; points: the drawing's cell positions
    const offsets = s.units.map(() => [0, 0, 0]), gone = new Set();
    if (!s.plan || state.plan <= 0) return { offsets, gone };
    const out = 1 + longestSide(points); // far enough to be clear of the rest
    s.plan.forEach((move, j) => {
      const done = Math.max(0, Math.min(1, state.plan - j));
      if (done === 0) return;
      const length = move.distance === null ? out : move.distance;
      for (const unit of move.units) {
        if (move.distance === null && done === 1) { gone.add(unit); continue; }
        for (let a = 0; a < 3; a++) offsets[unit][a] += done * length * move.offset[a];
      }
    });
    return { offsets, gone };
  }

  // -- explode: each piece pushed out from the middle; pieces in the middle (a burr's core, what a
  // cage holds) each along an axis of their own, the largest of them (the cage) staying, so that
  // nothing stays hidden inside another
  const AXES = [[0, 0, 1], [0, 0, -1], [1, 0, 0], [-1, 0, 0], [0, 1, 0], [0, -1, 0]];

  function exploded(centres, sizes, centre, points) { // per unit, where explode 1 moves it
    const span = longestSide(points);
    const away = centres.map((c) => [c[0] - centre[0], c[1] - centre[1], c[2] - centre[2]]);
    const central = away.map((d, unit) => [Math.hypot(d[0], d[1], d[2]), unit]).filter(([length]) => length < 0.2 * span).map(([, unit]) => unit);
    central.sort((a, b) => sizes[b] - sizes[a] || a - b);
    central.forEach((unit, rank) => {
      if (rank === 0) { away[unit] = [0, 0, 0]; return; } // the largest: the cage, or the core's biggest part
      const axis = AXES[(rank - 1) % AXES.length], times = 1 + Math.floor((rank - 1) / AXES.length);
      away[unit] = axis.map((v) => v * span * times);
    });
    view.exploded = away.map((d) => Math.hypot(d[0], d[1], d[2]) * state.explode);
    return away;
  }

  function pieceItems(s) { // [cell, colour, unit or null, outline]: the pieces placed so far, pushed out by explode, moved by the plan
    const shown = new Set(s.order.slice(0, state.step));
    const centre = centreOf(s.cubes);
    const centres = unitCentres(s);
    const sizes = s.units.map(() => 0);
    for (const q of s.cubes) sizes[q[3]] += 1;
    const away = exploded(centres, sizes, centre, s.cubes);
    const { offsets, gone } = planned(s, s.cubes);
    noteMoves(offsets, gone);
    const items = [];
    for (const [x, y, z, unit] of s.cubes) {
      if (!shown.has(unit) || state.hidden.has(unit) || gone.has(unit)) continue;
      const d = away[unit], k = state.explode, o = offsets[unit];
      items.push([[x + o[0] + k * d[0], y + o[1] + k * d[1], z + o[2] + k * d[2]], s.units[unit].colour, unit, false]);
    }
    if (state.step >= s.order.length) for (const cell of s.empty) items.push([cell, "#dddddd", null, true]);
    return items;
  }

  function noteMoves(offsets, gone) { // for the tests: which units the plan moved and took out
    view.moved = offsets.map((o, unit) => (o.some((v) => v !== 0) ? unit : null)).filter((unit) => unit !== null);
    view.gone = Array.from(gone);
  }

  function chainItems(s) { // the chain's cubes laid so far, segment ends outlined
    const path = s.path.slice(0, state.step), ends = new Set(s.ends);
    return path.map((cell, i) => [cell, scene.chain_colours[i], i, ends.has(i)]);
  }

  function centreOf(cubes) {
    const c = [0, 0, 0];
    for (const q of cubes) for (let a = 0; a < 3; a++) c[a] += q[a] + 0.5;
    return c.map((v) => v / Math.max(1, cubes.length));
  }

  function unitCentres(s) {
    const sums = s.units.map(() => [0, 0, 0, 0]);
    for (const [x, y, z, u] of s.cubes) { sums[u][0] += x; sums[u][1] += y; sums[u][2] += z; sums[u][3] += 1; }
    return sums.map((t) => [t[0] / t[3], t[1] / t[3], t[2] / t[3]]);
  }

  function clearedCanvas() { // [context, width, height] of the canvas, painted white
    const canvas = $("canvas"), g = canvas.getContext("2d");
    g.fillStyle = "#ffffff";
    g.fillRect(0, 0, canvas.width, canvas.height);
    return [g, canvas.width, canvas.height];
  }

  function drawCubes() {
    const [g, width, height] = clearedCanvas();
    const s = scene.solutions[state.index];
    const all = drawing.cubes(s);
    const centre = centreOf(all);
    let extent = 1; // the farthest corner from the centre bounds what any view shows
    for (const q of all) extent = Math.max(extent, Math.hypot(q[0] + 0.5 - centre[0], q[1] + 0.5 - centre[1], q[2] + 0.5 - centre[2]) + 0.87);
    const scale = state.zoom * Math.min(width, height) / (2 * extent * (1 + 2 * state.explode)); // room for what explode moves out
    const faces = [];
    const occupied = new Set();
    const items = drawing.items(s);
    view.shownUnits = Array.from(new Set(items.filter((item) => item[2] !== null).map((item) => item[2])));
    for (const [cell, , unit] of items) if (unit !== null) occupied.add(cell.join(","));
    for (const [cell, colour, unit, mark] of items) {
      for (const [normal, corners] of FACES) {
        if (rotate(normal)[2] > 0) continue; // faces turned away
        const next = [cell[0] + normal[0], cell[1] + normal[1], cell[2] + normal[2]].join(",");
        if (occupied.has(next) && state.explode === 0) continue; // hidden between two cubes
        const points = corners.map((k) => rotate([cell[0] + k[0] - centre[0], cell[1] + k[1] - centre[1], cell[2] + k[2] - centre[2]]));
        const depth = points.reduce((sum, p) => sum + p[2], 0) / 4;
        faces.push([depth, points, colour, normal, unit, mark]);
      }
    }
    faces.sort((a, b) => b[0] - a[0]);
    const units = new Set();
    for (const [, points, colour, normal, unit, mark] of faces) {
      g.beginPath();
      points.forEach((p, i) => {
        const x = width / 2 + state.panX + p[0] * scale, y = height / 2 + state.panY + p[1] * scale;
        if (i === 0) g.moveTo(x, y); else g.lineTo(x, y);
      });
      g.closePath();
      if (mark === true && unit === null) { g.strokeStyle = "#999999"; g.setLineDash([4, 3]); g.stroke(); g.setLineDash([]); continue; }
      g.fillStyle = shade(colour, normal);
      g.fill();
      g.strokeStyle = mark ? "#000000" : "rgba(0,0,0,0.35)";
      g.lineWidth = mark ? 2.5 : 1;
      g.stroke();
      if (unit !== null) units.add(unit);
    }
    view.drawnUnits = Array.from(units);
    if (drawing.overlay) drawing.overlay(g, s, centre, scale, width, height);
  }

  function drawChainLine(g, s, centre, scale, width, height) {
    const path = s.path.slice(0, state.step);
    g.strokeStyle = "rgba(0,0,0,0.6)";
    g.lineWidth = 2;
    g.beginPath();
    path.forEach((cell, i) => {
      const p = rotate([cell[0] + 0.5 - centre[0], cell[1] + 0.5 - centre[1], cell[2] + 0.5 - centre[2]]);
      const x = width / 2 + state.panX + p[0] * scale, y = height / 2 + state.panY + p[1] * scale;
      if (i === 0) g.moveTo(x, y); else g.lineTo(x, y);
    });
    g.stroke();
  }

  // -- other grids: each cell a kind's solid (faces) or a ball, moved to its origin ------------
  function solidItems(s) { // [kind, origin, colour, unit or null, outline]: the pieces placed so far, pushed out by explode
    const shown = new Set(s.order.slice(0, state.step));
    const centre = centreOfPoints(s.cells);
    const sums = s.units.map(() => [0, 0, 0, 0]);
    for (const [, x, y, z, u] of s.cells) { sums[u][0] += x; sums[u][1] += y; sums[u][2] += z; sums[u][3] += 1; }
    const points = s.cells.map((q) => [q[1], q[2], q[3]]);
    const away = exploded(sums.map((t) => [t[0] / t[3], t[1] / t[3], t[2] / t[3]]), sums.map((t) => t[3]), centre, points);
    const { offsets, gone } = planned(s, points);
    noteMoves(offsets, gone);
    const items = [];
    for (const [kind, x, y, z, unit] of s.cells) {
      if (!shown.has(unit) || state.hidden.has(unit) || gone.has(unit)) continue;
      const d = away[unit], k = state.explode, o = offsets[unit];
      const origin = [x + o[0] + k * d[0], y + o[1] + k * d[1], z + o[2] + k * d[2]];
      items.push([kind, origin, s.units[unit].colour, unit, false]);
    }
    if (state.step >= s.order.length) for (const [kind, x, y, z] of s.empty) items.push([kind, [x, y, z], "#dddddd", null, true]);
    return items;
  }

  function centreOfPoints(cells) {
    const c = [0, 0, 0];
    for (const q of cells) for (let a = 0; a < 3; a++) c[a] += q[a + 1];
    return c.map((v) => v / Math.max(1, cells.length));
  }

  function cross(a, b) { return [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]; }

  function drawSolids() {
    const [g, width, height] = clearedCanvas();
    const s = scene.solutions[state.index];
    const centre = centreOfPoints(s.cells);
    let extent = 1;
    for (const q of s.cells) extent = Math.max(extent, Math.hypot(q[1] - centre[0], q[2] - centre[1], q[3] - centre[2]) + 1.2);
    const scale = state.zoom * Math.min(width, height) / (2 * extent * (1 + 2 * state.explode)); // room for what explode moves out
    const items = solidItems(s);
    view.shownUnits = Array.from(new Set(items.filter((item) => item[3] !== null).map((item) => item[3])));
    const shapes = []; // [depth, kind of shape, data, colour, unit, outline]
    for (const [kind, origin, colour, unit, mark] of items) {
      if (scene.ball) {
        const p = rotate([origin[0] - centre[0], origin[1] - centre[1], origin[2] - centre[2]]);
        shapes.push([p[2], "ball", p, colour, unit, mark]);
        continue;
      }
      for (const face of scene.solids[kind]) {
        const world = face.map((k) => [k[0] + origin[0] - centre[0], k[1] + origin[1] - centre[1], k[2] + origin[2] - centre[2]]);
        const normal = cross([world[1][0] - world[0][0], world[1][1] - world[0][1], world[1][2] - world[0][2]],
          [world[2][0] - world[0][0], world[2][1] - world[0][1], world[2][2] - world[0][2]]);
        if (rotate(normal)[2] > 0) continue; // turned away
        const points = world.map(rotate);
        shapes.push([points.reduce((sum, p) => sum + p[2], 0) / points.length, "face", [points, normal], colour, unit, mark]);
      }
    }
    shapes.sort((a, b) => b[0] - a[0]);
    const units = new Set();
    for (const [, kind, data, colour, unit, mark] of shapes) {
      if (kind === "ball") {
        const x = width / 2 + state.panX + data[0] * scale, y = height / 2 + state.panY + data[1] * scale, r = scene.ball * scale;
        g.beginPath();
        g.arc(x, y, r, 0, 2 * Math.PI);
        if (mark) { g.strokeStyle = "#999999"; g.setLineDash([4, 3]); g.stroke(); g.setLineDash([]); continue; }
        const light = g.createRadialGradient(x - r * 0.35, y - r * 0.35, r * 0.1, x, y, r);
        light.addColorStop(0, shade(colour, [0, 0, 1]));
        light.addColorStop(1, shade(colour, [0, 1, -1]));
        g.fillStyle = light;
        g.fill();
        g.strokeStyle = "rgba(0,0,0,0.35)";
        g.lineWidth = 1;
        g.stroke();
      } else {
        const [points, normal] = data;
        g.beginPath();
        points.forEach((p, i) => {
          const x = width / 2 + state.panX + p[0] * scale, y = height / 2 + state.panY + p[1] * scale;
          if (i === 0) g.moveTo(x, y); else g.lineTo(x, y);
        });
        g.closePath();
        if (mark) { g.strokeStyle = "#999999"; g.setLineDash([4, 3]); g.stroke(); g.setLineDash([]); continue; }
        const length = Math.hypot(normal[0], normal[1], normal[2]) || 1;
        g.fillStyle = shade(colour, normal.map((v) => v / length));
        g.fill();
        g.strokeStyle = "rgba(0,0,0,0.35)";
        g.lineWidth = 1;
        g.stroke();
      }
      if (unit !== null) units.add(unit);
    }
    view.drawnUnits = Array.from(units);
  }

  // -- tiles ----------------------------------------------------------------------------------
  function drawTiles() {
    const s = scene.solutions[state.index];
    const [columns, rows] = scene.board, size = 96, svgNS = "http://www.w3.org/2000/svg";
    const svg = document.createElementNS(svgNS, "svg");
    svg.setAttribute("viewBox", `0 0 ${columns * size} ${rows * size}`);
    svg.setAttribute("width", String(Math.min(900, Math.max(480, columns * size)))); // small boards drawn larger, so labels can be read
    svg.id = "board";
    const edges = [[[0, 0], [1, 0]], [[1, 0], [1, 1]], [[1, 1], [0, 1]], [[0, 1], [0, 0]]]; // top, right, bottom, left
    const labelAt = [[0.5, 0.17], [0.83, 0.5], [0.5, 0.83], [0.17, 0.5]];
    s.places.forEach((place, n) => {
      const ox = (n % columns) * size, oy = Math.floor(n / columns) * size;
      const group = document.createElementNS(svgNS, "g");
      group.setAttribute("class", "tile");
      place.shown.forEach((label, side) => {
        const [a, b] = edges[side];
        const triangle = document.createElementNS(svgNS, "polygon");
        triangle.setAttribute("points", [[a[0], a[1]], [b[0], b[1]], [0.5, 0.5]].map((p) => `${ox + p[0] * size},${oy + p[1] * size}`).join(" "));
        const colour = scene.match === "equal" ? scene.label_colours[String(label)] : side % 2 ? "#f4f4f4" : "#e8e8e8";
        triangle.setAttribute("fill", colour);
        triangle.setAttribute("stroke", "#555555");
        group.appendChild(triangle);
        if (scene.match !== "equal") { // along its edge: the side labels turned, each fitted into its triangle
          const text = document.createElementNS(svgNS, "text");
          const x = ox + labelAt[side][0] * size, y = oy + labelAt[side][1] * size;
          text.setAttribute("x", String(x));
          text.setAttribute("y", String(y + 4));
          text.setAttribute("text-anchor", "middle");
          text.setAttribute("font-size", "11");
          text.setAttribute("class", "label");
          if (side % 2) text.setAttribute("transform", `rotate(${side === 1 ? 90 : -90} ${x} ${y})`);
          text.textContent = String(label);
          group.appendChild(text);
        }
      });
      const badge = document.createElementNS(svgNS, "rect"); // the number on white: the diagonals do not cross it
      badge.setAttribute("x", String(ox + 0.28 * size));
      badge.setAttribute("y", String(oy + size / 2 - 10));
      badge.setAttribute("width", String(0.44 * size));
      badge.setAttribute("height", "20");
      badge.setAttribute("rx", "4");
      badge.setAttribute("class", "badge");
      group.appendChild(badge);
      const centre = document.createElementNS(svgNS, "text");
      centre.setAttribute("x", String(ox + size / 2));
      centre.setAttribute("y", String(oy + size / 2 + 5));
      centre.setAttribute("text-anchor", "middle");
      centre.setAttribute("font-size", "13");
      centre.setAttribute("font-weight", "bold");
      centre.textContent = `${place.tile}` + (place.turns ? `↻${place.turns}` : "");
      group.appendChild(centre);
      const title = document.createElementNS(svgNS, "title");
      title.textContent = `tile ${place.tile}, turned ${place.turns} quarter(s) counter-clockwise; edges ${place.shown.join(", ")}`;
      group.appendChild(title);
      svg.appendChild(group);
    });
    $("stage").replaceChildren(svg);
    for (const text of svg.querySelectorAll("text.label")) { // too long for its triangle: squeezed to fit (the tile's title has it whole)
      if (text.getComputedTextLength() > 0.48 * size) {
        text.setAttribute("textLength", String(0.48 * size));
        text.setAttribute("lengthAdjust", "spacingAndGlyphs");
      }
    }
    view.drawnTiles = s.places.length;
  }

  // -- controls -------------------------------------------------------------------------------
  function stepsOf() {
    return drawing.steps(scene.solutions[state.index]);
  }

  function resetStep() {
    const slider = $("step");
    slider.max = String(stepsOf());
    slider.value = slider.max;
    state.step = stepsOf();
    describeStep();
  }

  function describeStep() {
    const s = scene.solutions[state.index];
    $("step-text").textContent = `${state.step} of ${stepsOf()}` + drawing.stepText(s);
  }

  function resetPlan() { // the plan's slider for this solution, at "assembled"; hidden without a plan
    stopPlaying();
    const s = scene.solutions[state.index];
    $("plan-box").style.display = s.plan ? "" : "none";
    state.plan = 0;
    if (!s.plan) return;
    $("plan").max = String(s.plan.length);
    $("plan").value = "0";
    describePlan();
  }

  function describePlan() {
    const s = scene.solutions[state.index];
    if (!s.plan) return;
    const done = Math.ceil(state.plan - 1e-9);
    $("plan-text").textContent = done === 0 ? `assembled; ${s.plan.length} moves` : `move ${done} of ${s.plan.length}: ${s.plan[done - 1].text}`;
  }

  function play() { // one move every 0.7 s, drawn as it goes; again from the start once all are done
    const s = scene.solutions[state.index];
    if (state.playing) { stopPlaying(); return; }
    if (state.plan >= s.plan.length) state.plan = 0;
    state.step = stepsOf(); $("step").value = String(state.step); describeStep();
    state.playing = true;
    $("play").textContent = "pause";
    let last = null;
    const frame = (now) => {
      if (!state.playing) return;
      if (last !== null) state.plan = Math.min(s.plan.length, state.plan + (now - last) / state.moveMs);
      last = now;
      $("plan").value = String(Math.floor(state.plan));
      describePlan();
      draw();
      if (state.plan >= s.plan.length) stopPlaying(); else requestAnimationFrame(frame);
    };
    requestAnimationFrame(frame);
  }

  function stopPlaying() {
    state.playing = false;
    $("play").textContent = "play";
  }

  function pieceStepText(s) {
    const from = s.order_from === "disassembly" ? s.order_from : `${s.order_from}: not checked to build; --disassemble finds an order that does`;
    let text = ` pieces (${from})`;
    if (state.step > 0 && state.step <= s.order.length) text += `: last placed ${unitName(s.units[s.order[state.step - 1]])}`;
    return text;
  }

  function unitName(unit) { // its label as the text drawing and the plan say it, and its piece's name where that differs (png.py unit_name)
    const piece = scene.pieces[unit.piece].name;
    return unit.label === piece ? unit.label : `${unit.label} (${piece})`;
  }

  function legend() { // one entry per placed piece of the solution shown, each hidden on its own
    const box = $("legend");
    if (!drawing.legend || !scene.pieces || !scene.solutions.length) { box.style.display = "none"; return; }
    box.replaceChildren();
    state.hidden.clear();
    scene.solutions[state.index].units.forEach((unit, i) => {
      const entry = document.createElement("button");
      entry.className = "entry";
      entry.dataset.unit = String(i);
      entry.innerHTML = `<span class="swatch" style="background:${unit.colour}"></span>`;
      entry.appendChild(document.createTextNode(` ${unitName(unit)}`));
      entry.title = "click to hide or show this piece";
      entry.addEventListener("click", () => {
        if (state.hidden.has(i)) state.hidden.delete(i); else state.hidden.add(i);
        entry.classList.toggle("off", state.hidden.has(i));
        draw();
      });
      box.appendChild(entry);
    });
  }

  function controls() {
    const canvas = $("canvas");
    let dragging = null;
    canvas.addEventListener("contextmenu", (e) => e.preventDefault());
    canvas.addEventListener("pointerdown", (e) => { // left: turn; right or Shift: pan
      dragging = [e.clientX, e.clientY, e.button === 2 || e.shiftKey];
      canvas.setPointerCapture(e.pointerId);
    });
    canvas.addEventListener("pointermove", (e) => {
      if (!dragging) return;
      const dx = e.clientX - dragging[0], dy = e.clientY - dragging[1];
      if (dragging[2]) { state.panX += dx * canvas.width / canvas.clientWidth; state.panY += dy * canvas.height / canvas.clientHeight; }
      else {
        state.yaw += dx * 0.01;
        state.pitch = Math.max(-1.5, Math.min(1.5, state.pitch + dy * 0.01));
      }
      dragging = [e.clientX, e.clientY, dragging[2]];
      draw();
    });
    canvas.addEventListener("pointerup", () => { dragging = null; });
    canvas.addEventListener("wheel", (e) => {
      e.preventDefault();
      state.zoom = Math.max(0.2, Math.min(8, state.zoom * Math.exp(-e.deltaY * 0.001)));
      draw();
    }, { passive: false });
    $("explode").addEventListener("input", (e) => { state.explode = Number(e.target.value) / 100; draw(); });
    $("step").addEventListener("input", (e) => {
      state.step = Number(e.target.value);
      if (drawing.plan && state.plan > 0) { stopPlaying(); state.plan = 0; $("plan").value = "0"; describePlan(); } // building starts assembled
      describeStep();
      draw();
    });
    if (!drawing.plan) return;
    $("plan").addEventListener("input", (e) => {
      stopPlaying();
      state.plan = Number(e.target.value);
      state.step = stepsOf(); $("step").value = String(state.step); describeStep(); // taking apart starts from the whole
      describePlan();
      draw();
    });
    $("play").addEventListener("click", play);
    $("speed").addEventListener("input", (e) => { state.moveMs = 2100 / Number(e.target.value); });
    document.addEventListener("keydown", keyed);
  }

  function keyed(e) { // Space plays or pauses the disassembly, the arrows step it a move back or on
    const s = scene.solutions[state.index];
    if (!s || !s.plan || e.target.tagName === "SELECT" || e.ctrlKey || e.metaKey || e.altKey) return;
    if (e.key === " ") { e.preventDefault(); play(); return; }
    const by = { ArrowRight: 1, ArrowLeft: -1 }[e.key];
    if (!by) return;
    e.preventDefault();
    stopPlaying();
    state.plan = Math.max(0, Math.min(s.plan.length, (by > 0 ? Math.floor(state.plan + 1e-9) : Math.ceil(state.plan - 1e-9)) + by));
    state.step = stepsOf(); $("step").value = String(state.step); describeStep();
    $("plan").value = String(state.plan);
    describePlan();
    draw();
  }

  function draw() {
    view.frames += 1;
    if (!scene.solutions.length) { $("stage").textContent = "no solution to show"; return; }
    drawing.draw();
  }

  // One entry per drawing a family's record names (models.Family.drawing): how its solutions
  // are drawn, which cubes they hold, how many build steps they have, what the controls show.
  const CUBES = { draw: drawCubes, controls: true };
  const PIECES = { ...CUBES, items: pieceItems, cubes: (s) => s.cubes, steps: (s) => s.order.length, stepText: pieceStepText, legend: true, explode: true, plan: true };
  const DRAWINGS = {
    pieces: scene.grid ? { ...PIECES, draw: drawSolids } : PIECES, // another grid: each cell its grid's solid or a ball
    chain: { ...CUBES, items: chainItems, cubes: (s) => s.path, steps: (s) => s.path.length, stepText: () => " cubes", overlay: drawChainLine },
    tiles: { draw: drawTiles },
  };
  const drawing = DRAWINGS[scene.drawing] || { draw() {} }; // no solution: nothing to draw

  header();
  if (drawing.controls) {
    legend();
    controls();
    if (!drawing.legend) $("hint").textContent = "drag to turn, wheel to zoom"; // no legend to click
  } else {
    for (const id of ["step-box", "hint"]) $(id).style.display = "none";
  }
  if (!drawing.explode) $("explode-box").style.display = "none";
  if (scene.solutions.length && drawing.steps) resetStep();
  if (scene.solutions.length && drawing.plan) resetPlan(); else $("plan-box").style.display = "none";
  draw();
})();
