// A grid as the server describes it (cpsolve.grids.drawing: made from the grid itself, so nothing
// here restates a grid): which triples are cells, each cell's kind and place in space, the cell
// across each face, how layers lay cells out, the lattice's shifts. Turns and mirror are asked of
// the server (POST /api/grids/NAME/turn). Cells are BurrTools' coordinates, as in a spec.

export const key = (cell) => cell.join(",");
export const cellOf = (text) => text.split(",").map(Number);
const mod = (v, p) => ((v % p) + p) % p;
const apply = (matrix, v) => matrix.map((row) => row[0] * v[0] + row[1] * v[1] + row[2] * v[2]);

export class Grid {
  constructor(description) {
    Object.assign(this, description);
    this.residueSet = new Set(this.residues.map(key));
    this.kindIndex = new Map(this.kinds.map((kind, i) => [key(kind), i]));
  }

  valid(cell) { // a cell a shape may be drawn with (a flat grid's only in its layer)
    return (!this.flat || cell[2] === 0) && this.residueSet.has(key(cell.map((v, a) => mod(v, this.cell_period[a]))));
  }

  kindOf(cell) { return this.kindIndex.get(key(cell.map((v, a) => mod(v, this.kind_period[a])))) ?? 0; }

  // where a cell's solid is moved to: real(cell - kind); a ball's centre
  origin(cell) {
    const kind = this.kinds[this.kindOf(cell)];
    return apply(this.real, cell.map((v, a) => v - (this.balls ? 0 : kind[a])));
  }

  toLayer(cell) { return apply(this.to_layers, cell).map((v) => Math.round(v)); }
  fromLayer(column, row, layer) { return apply(this.from_layers, [column, row, layer]).map((v) => Math.round(v)); }

  // the cell beside `cell` through the face a click hit: across that face of a solid; for a ball,
  // the touching ball in the direction of the click
  beside(cell, face, normal) {
    if (!this.balls && this.across) return cell.map((v, a) => v + this.across[this.kindOf(cell)][face][a]);
    let best = this.neighbour_steps[0], most = -Infinity;
    for (const step of this.neighbour_steps) {
      const real = apply(this.real, step);
      const along = (real[0] * normal.x + real[1] * normal.y + real[2] * normal.z) / Math.hypot(...real);
      if (along > most) { most = along; best = step; }
    }
    return cell.map((v, a) => v + best[a]);
  }

  // the square of the layer view that shows `cells` with a margin of a cell (on the hex grid's
  // rows of hexagons a cell is two columns wide), at least 7 wide
  layerWindow(cells) {
    const margin = this.layer_columns;
    let low = [0, 0], high = [4, 4], first = true;
    for (const text of cells) {
      const [c, r] = this.toLayer(cellOf(text));
      if (first) { low = [c, r]; high = [c, r]; first = false; }
      low = [Math.min(low[0], c), Math.min(low[1], r)];
      high = [Math.max(high[0], c), Math.max(high[1], r)];
    }
    const size = Math.max(7, high[0] - low[0] + 1 + 2 * margin, high[1] - low[1] + 3);
    return { column: low[0] - margin, row: low[1] - 1, size };
  }

  layerRange(cells) { // the shape's lowest and highest layer
    let low = 0, high = 0, first = true;
    for (const text of cells) {
      const layer = this.toLayer(cellOf(text))[2];
      if (first) { low = high = layer; first = false; }
      low = Math.min(low, layer); high = Math.max(high, layer);
    }
    return [low, high];
  }

  firstCell() { return this.kinds.find((kind) => this.valid(kind)) || [0, 0, 0]; }
}

// a shape's cells (a Map of key -> {variable, colour}) shifted along the layers' x, y or z
export function shifted(cells, how, grid, sign = 1) {
  const step = grid.shifts[how];
  const out = new Map();
  for (const [text, state] of cells) out.set(key(cellOf(text).map((v, a) => v + sign * step[a])), state);
  return out;
}
