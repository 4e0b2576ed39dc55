// The grids the studio's editor draws: where a cell sits in space, which cells touch it, how a
// layer is laid out in 2-D, and the turns, mirror and shifts of a shape. Cells are BurrTools'
// coordinates, as in a spec (docs/spec.md, Grids); nothing here depends on three.js.

const key = (cell) => cell.join(",");
const cellOf = (text) => text.split(",").map(Number);

// a ball's 12 neighbours: steps with two coordinates +-1 (the face-centred cubic packing)
const BALL_STEPS = [];
for (const dx of [-1, 0, 1]) for (const dy of [-1, 0, 1]) for (const dz of [-1, 0, 1]) {
  if (Math.abs(dx) + Math.abs(dy) + Math.abs(dz) === 2) BALL_STEPS.push([dx, dy, dz]);
}

export const GRIDS = {
  cube: {
    name: "cube",
    solid: "cube",
    spacing: 1,
    valid: () => true,
    // layer view: column, row of layer k <-> the cell
    toLayer: ([x, y, z]) => [x, y, z],
    fromLayer: (column, row, layer) => [column, row, layer],
    // the cell beside `cell` through the face a click hit (its outward normal, in cell space)
    beside: (cell, normal) => cell.map((v, i) => v + Math.round(normal[i])),
    // shifts a person asks for: along x, y (the layer's columns and rows) and z (layers)
    steps: { x: [1, 0, 0], y: [0, 1, 0], z: [0, 0, 1] },
  },
  sphere: {
    name: "sphere",
    solid: "ball",
    spacing: Math.SQRT1_2, // touching balls are sqrt 2 apart in BurrTools' coordinates
    valid: ([x, y, z]) => (((x + y + z) % 2) + 2) % 2 === 0,
    // ball puzzles are drawn as square layers: ball (column, row) of layer k sits over the hollow
    // whose corner is that ball of layer k - 1 (cpsolve.grids.sphere)
    toLayer: ([x, y, z]) => [(x + y - z) / 2, (y - z - x) / 2, z],
    fromLayer: (column, row, layer) => [column - row, column + row + layer, layer],
    beside: (cell, normal) => {
      let best = BALL_STEPS[0], most = -Infinity;
      for (const step of BALL_STEPS) {
        const along = (step[0] * normal[0] + step[1] * normal[1] + step[2] * normal[2]) / Math.SQRT2;
        if (along > most) { most = along; best = step; }
      }
      return cell.map((v, i) => v + best[i]);
    },
    steps: { x: [1, 1, 0], y: [-1, 1, 0], z: [0, 1, 1] },
  },
};

// turns of a quarter about each axis, and the mirror in x: they keep both lattices
const TURNS = {
  x: ([x, y, z]) => [x, -z, y],
  y: ([x, y, z]) => [z, y, -x],
  z: ([x, y, z]) => [-y, x, z],
  mirror: ([x, y, z]) => [-x, y, z],
};

// a shape's cells (a Map of key -> {variable, colour}) turned, mirrored or shifted
export function moved(cells, how, grid, sign = 1) {
  const out = new Map();
  const step = grid.steps[how];
  for (const [text, state] of cells) {
    const cell = cellOf(text);
    const next = step ? cell.map((v, i) => v + sign * step[i]) : TURNS[how](cell);
    out.set(key(next), state);
  }
  return out;
}

// the square of the layer view that shows `cells` with a margin, at least 7 wide
export function layerWindow(cells, grid) {
  let low = [0, 0], high = [4, 4];
  let first = true;
  for (const text of cells.keys()) {
    const [c, r] = grid.toLayer(cellOf(text));
    if (first) { low = [c, r]; high = [c, r]; first = false; }
    low = [Math.min(low[0], c), Math.min(low[1], r)];
    high = [Math.max(high[0], c), Math.max(high[1], r)];
  }
  const size = Math.max(7, high[0] - low[0] + 3, high[1] - low[1] + 3);
  return { column: low[0] - 1, row: low[1] - 1, size };
}

export function layerRange(cells, grid) {
  let low = 0, high = 0;
  for (const text of cells.keys()) {
    const z = grid.toLayer(cellOf(text))[2];
    low = Math.min(low, z); high = Math.max(high, z);
  }
  return [low, high];
}

export { key, cellOf };
