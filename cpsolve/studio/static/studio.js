// The studio's page: the workspace's files, a puzzle drawn and edited in 3-D (editor.js, loaded
// on its own so that the page works, as text, where three.js is not installed) or as its file's
// text, runs started, watched (server-sent events) and cancelled through the API, their counts, and
// their solutions drawn by the page `cpsolve run --html` writes (the same viewer), in a frame.
// Every request carries the token.
const token = new URLSearchParams(location.search).get("token") || "";
const $ = (id) => document.getElementById(id);
const state = { path: null, saved: "", job: null, source: null, editor: null, design: null, drawn: false, problem: 0, tab: "edit" };
const studio = { state, ready: null }; // read by the page's tests
window.studio = studio;

async function api(method, path, body) {
  const response = await fetch(path, {
    method,
    headers: { Authorization: `Bearer ${token}`, ...(body ? { "Content-Type": "application/json" } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const data = await response.json();
  if (!response.ok) throw new Error(data.error || `${response.status}`);
  return data;
}

const filePath = (path) => encodeURIComponent(path).replaceAll("%2F", "/");
function say(text) { $("status").textContent = text; }
function fail(error) {
  const text = String(error.message || error);
  $("error").textContent = text;
  // a message that names a piece marks it where it is drawn
  const named = /pieces\.([^.:\s]+)/.exec(text);
  for (const button of $("shapes").children) button.classList.toggle("wrong", Boolean(named) && button.dataset.name === named[1]);
}
function clearError() { $("error").textContent = ""; for (const b of $("shapes").children) b.classList.remove("wrong"); }

let editorModule = null;
async function loadEditor() { // three.js and the editor: a clear line where the set-up was skipped
  if (editorModule) return editorModule;
  try {
    editorModule = await import("./editor.js");
  } catch (error) {
    throw new Error("the 3-D editor did not load: three.js is installed by `cpsolve compile` (with npm); run it once, then reload");
  }
  return editorModule;
}

async function listFiles() {
  const { files } = await api("GET", "/api/files");
  $("files").replaceChildren(...files.map((file) => {
    const button = document.createElement("button");
    button.type = "button";
    button.textContent = file;
    button.dataset.path = file;
    button.addEventListener("click", () => open(file).catch(fail));
    return button;
  }));
}

function buttons(enabled) {
  for (const id of ["save", "save-as", "solve", "first", "count"]) $(id).disabled = !enabled;
}

async function open(path, problem = 0) {
  // nothing can be typed or saved while another file loads: a save then would write one file's
  // text under the other's name
  $("text").disabled = true;
  buttons(false);
  clearError();
  const [{ content }, puzzle] = await Promise.all([
    api("GET", `/api/files/${filePath(path)}`),
    api("GET", `/api/puzzle/${filePath(path)}?problem=${problem}`).catch((error) => ({ error })),
  ]);
  state.path = path;
  state.saved = content;
  state.problem = problem;
  $("text").value = content;
  $("text").disabled = false;
  $("name").textContent = path;
  for (const button of $("files").children) button.classList.toggle("open", button.dataset.path === path);
  $("counts").textContent = "";
  $("view").style.display = "none";
  $("exports").replaceChildren();
  say("");
  state.drawn = false;
  const select = $("problem");
  select.hidden = true;
  if (puzzle.error) {
    fail(puzzle.error); // the file as the command line refuses it; its text can be mended
  } else {
    if (puzzle.problems.length > 1) {
      select.replaceChildren(...puzzle.problems.map((name, i) => new Option(`${i}: ${name}`, String(i))));
      select.value = String(puzzle.problem);
      select.hidden = false;
    }
    state.drawn = puzzle.drawn;
    $("not-drawn").textContent = puzzle.drawn ? "" : puzzle.why;
    if (puzzle.drawn) {
      try {
        const { Design, Editor } = await loadEditor();
        state.design = new Design(puzzle.spec);
        if (!state.editor) state.editor = new Editor($("view3d"), $("layer-view"), shapesChanged);
        state.editor.load(state.design);
      } catch (error) {
        state.drawn = false;
        $("not-drawn").textContent = String(error.message || error);
      }
    }
  }
  showTab(state.drawn ? state.tab : "text");
  buttons(true);
  $("save").disabled = path.endsWith(".xmpuzzle") && !state.drawn; // shown as XML: saved from the drawing or as YAML
}

function showTab(tab) {
  state.tab = tab === "edit" && !state.drawn ? state.tab : tab;
  const drawing = tab === "edit" && state.drawn;
  $("edit").hidden = !drawing;
  $("edit").style.display = drawing ? "" : "none";
  $("text").hidden = drawing;
  $("not-drawn").hidden = drawing || !$("not-drawn").textContent;
  $("tab-edit").classList.toggle("on", drawing);
  $("tab-text").classList.toggle("on", !drawing);
  if (drawing && state.editor) state.editor.resize();
}

// -- the drawing's panels, kept in step with the editor after every change
function shapesChanged() {
  const editor = state.editor;
  const design = editor.design;
  $("shapes").replaceChildren(...design.shapes.map((shape, i) => {
    const button = document.createElement("button");
    button.type = "button";
    button.textContent = `${shape.name} (${shape.cells.size})`;
    button.dataset.name = shape.name;
    button.classList.toggle("on", i === editor.index);
    button.style.background = `color-mix(in srgb, ${editor.colourOf(i)} 35%, white)`;
    button.addEventListener("click", () => { editor.select(i); editor.frame(); });
    return button;
  }));
  const shape = editor.shape;
  $("piece-box").style.display = shape.piece ? "" : "none";
  $("remove-piece").disabled = !shape.piece || design.shapes.length <= 2;
  if (document.activeElement !== $("shape-name")) $("shape-name").value = shape.name;
  const [least, most] = shape.piece ? editor.copies() : [1, 1];
  $("least").value = least;
  $("most").value = most;
  const [low, high] = editor.layerSpan();
  $("layer").min = low; $("layer").max = high; $("layer").value = editor.layer;
  $("layer-number").textContent = editor.layer;
  for (const radio of document.querySelectorAll("input[name=brush]")) {
    radio.checked = radio.value === (editor.brush.variable ? "variable" : "fixed");
    radio.disabled = radio.value === "variable" && shape.piece;
  }
  for (const radio of document.querySelectorAll("input[name=mode]")) radio.checked = radio.value === editor.mode;
  const colours = design.colours();
  if (editor.brush.colour && !colours.includes(editor.brush.colour)) colours.push(editor.brush.colour);
  const select = $("colour");
  select.replaceChildren(new Option("none", ""), ...colours.map((c) => new Option(c, c)), new Option("new colour...", "\u0000new"));
  select.value = editor.brush.colour || "";
  const optional = [...shape.cells.values()].filter((s) => s.variable).length;
  $("cell-count").textContent = `${shape.cells.size} cells` + (optional ? `, ${optional} variable` : "");
  $("undo").disabled = !editor.undoStack.length;
  $("redo").disabled = !editor.redoStack.length;
}

// -- saving and solving
async function save(asName) {
  const path = asName || state.path;
  const query = asName ? "?new=true" : "";
  if (state.drawn && state.tab === "edit") {
    await api("PUT", `/api/puzzle/${filePath(path)}${query}`, { spec: state.design.toSpec() });
  } else {
    if (path.endsWith(".xmpuzzle")) throw new Error(`${path}: a BurrTools file is saved from the drawing, or give a .yaml name`);
    await api("PUT", `/api/files/${filePath(path)}${query}`, { content: $("text").value });
  }
  if (asName) await listFiles();
  const keep = state.editor ? { index: state.editor.index, layer: state.editor.layer, tab: state.tab } : null;
  await open(path, asName ? 0 : state.problem); // the file as saved: read back as the CLI reads it
  if (keep && state.editor && state.drawn) { state.editor.layer = keep.layer; state.editor.select(keep.index); showTab(keep.tab); }
  say(`saved ${path}`);
}

async function run(kind) {
  clearError();
  const options = { time_limit: Number($("limit").value) || 60, show: 50 };
  if (kind === "first") options.first = true;
  if (kind === "count") { options.count_only = true; options.show = 0; }
  else if ($("disassemble").checked) options.disassemble = true;
  let request;
  if (state.drawn && state.tab === "edit") request = { spec: state.design.toSpec(), options };
  else {
    if ($("text").value !== state.saved && !state.path.endsWith(".xmpuzzle")) await save();
    request = { path: state.path, options, ...($("problem").hidden ? {} : { problem: String(state.problem) }) };
  }
  $("counts").textContent = "";
  $("exports").replaceChildren();
  $("view").style.display = "none";
  const { id } = await api("POST", "/api/jobs", request);
  state.job = id;
  $("cancel").disabled = false;
  say("started");
  const source = new EventSource(`/api/jobs/${id}/events?token=${encodeURIComponent(token)}`);
  state.source = source;
  source.addEventListener("progress", (message) => say(progressLine(JSON.parse(message.data))));
  source.addEventListener("finished", (message) => { source.close(); finished(id, JSON.parse(message.data).report); });
  source.addEventListener("failed", (message) => { source.close(); ended(); fail(new Error(JSON.parse(message.data).message)); });
}

function progressLine(event) {
  const parts = [`${event.seconds.toFixed(1)} s: ${event.doing}`];
  if (event.placements_per_second) parts.push(`${Math.round(event.placements_per_second).toLocaleString("en")} placements/s`);
  if (event.classes !== null && event.classes !== undefined && !event.doing.includes("classes")) parts.push(`${event.classes.toLocaleString("en")} classes`);
  if (event.estimated_placements && event.placements) {
    parts.push(`about ${Math.min(100, (100 * event.placements) / event.estimated_placements).toFixed(1)} % of the estimated search`);
  }
  return parts.join(", ");
}

function ended() { $("cancel").disabled = true; state.job = null; }

function finished(id, report) {
  ended();
  const c = report.counts;
  const bound = report.complete ? "" : "at least ";
  $("counts").textContent = `${bound}raw ${c.raw}, rotations ${c.rotations}, unique ${c.unique}`
    + (report.complete ? " (complete)" : ` (stopped: ${report.stopped_by})`)
    + (report.orbit_stabiliser_ok === true ? "; orbit-stabiliser check ok" : "");
  say(`${report.seconds.toFixed(3)} s on ${report.engine || "no engine"}`);
  if (c.unique > 0 && !report.counting) {
    const view = $("view");
    view.src = `/api/jobs/${id}/page?token=${encodeURIComponent(token)}`;
    view.style.display = "block";
    const kinds = [["html", "page"], ["png", "PNG"], ["stl", "STL pieces (zip)"], ["xmpuzzle", "BurrTools file"]];
    $("exports").replaceChildren(document.createTextNode("export: "), ...kinds.map(([kind, label]) => {
      const link = document.createElement("a");
      link.href = `/api/jobs/${id}/export/${kind}?token=${encodeURIComponent(token)}`;
      link.download = "";
      link.textContent = label;
      return link;
    }));
  }
}

const TEMPLATE = "name: New puzzle\npieces:\n  A: {cells: [[0, 0, 0]]}\ntarget:\n  cells: [[0, 0, 0]]\n";

async function create() {
  let name = $("new-name").value.trim() || "new.yaml";
  if (!/\.(ya?ml)$/.test(name)) name += ".yaml";
  await api("PUT", `/api/files/${filePath(name)}?new=true`, { content: TEMPLATE });
  await listFiles();
  await open(name);
}

// -- the keyboard: the editor's keys where no field has the focus
function typing(event) {
  const tag = event.target.tagName;
  return (tag === "INPUT" && !["radio", "checkbox", "range"].includes(event.target.type)) || tag === "TEXTAREA" || tag === "SELECT";
}

function keyed(event) {
  const editor = state.editor;
  const ctrl = event.ctrlKey || event.metaKey;
  if (event.key === "Escape") { $("help").hidden = true; return; }
  if (ctrl && event.key.toLowerCase() === "s") { event.preventDefault(); save().catch(fail); return; }
  if (ctrl && event.key === "Enter") { event.preventDefault(); run("solve").catch(fail); return; }
  if (typing(event)) return;
  if (event.key === "?") { $("help").hidden = !$("help").hidden; return; }
  if (!editor || !state.drawn || state.tab !== "edit") return;
  const lower = event.key.toLowerCase();
  const actions = {
    a: () => { editor.mode = "add"; shapesChanged(); },
    p: () => { editor.mode = "paint"; shapesChanged(); },
    f: () => { editor.brush.variable = false; shapesChanged(); },
    v: () => { if (!editor.shape.piece) editor.brush.variable = true; shapesChanged(); },
    x: () => editor.apply("x"), y: () => editor.apply("y"), z: () => editor.apply("z"), m: () => editor.apply("mirror"),
    n: () => { editor.select((editor.index + (event.shiftKey ? -1 : 1) + editor.design.shapes.length) % editor.design.shapes.length); editor.frame(); },
    "+": () => editor.addPiece(),
    "[": () => editor.setLayer(editor.layer - 1), "]": () => editor.setLayer(editor.layer + 1),
    arrowleft: () => editor.apply("x", -1), arrowright: () => editor.apply("x", 1),
    arrowup: () => editor.apply("y", -1), arrowdown: () => editor.apply("y", 1),
    pageup: () => editor.apply("z", 1), pagedown: () => editor.apply("z", -1),
    home: () => editor.frame(),
  };
  if (ctrl && lower === "z") { event.preventDefault(); (event.shiftKey ? editor.redo() : editor.undo()); return; }
  if (ctrl && lower === "y") { event.preventDefault(); editor.redo(); return; }
  if (ctrl || event.altKey) return;
  const action = actions[lower];
  if (action) { event.preventDefault(); action(); }
}

function wire() {
  $("new").addEventListener("click", () => { clearError(); create().catch(fail); });
  $("save").addEventListener("click", () => save().catch(fail));
  $("save-as").addEventListener("click", () => {
    const name = $("save-name").value.trim();
    if (!name) { fail(new Error("give the new file's name (.yaml or .xmpuzzle)")); return; }
    save(name).catch(fail);
  });
  $("solve").addEventListener("click", () => run("solve").catch(fail));
  $("first").addEventListener("click", () => run("first").catch(fail));
  $("count").addEventListener("click", () => run("count").catch(fail));
  $("cancel").addEventListener("click", () => { if (state.job) api("DELETE", `/api/jobs/${state.job}`).catch(fail); });
  $("problem").addEventListener("change", () => open(state.path, Number($("problem").value)).catch(fail));
  $("tab-edit").addEventListener("click", () => showTab("edit"));
  $("tab-text").addEventListener("click", () => showTab("text"));
  document.addEventListener("keydown", keyed);
  const editor = () => state.editor;
  $("add-piece").addEventListener("click", () => editor().addPiece());
  $("remove-piece").addEventListener("click", () => editor().removePiece());
  $("undo").addEventListener("click", () => editor().undo());
  $("redo").addEventListener("click", () => editor().redo());
  $("shape-name").addEventListener("change", (e) => { if (!editor().rename(e.target.value)) e.target.value = editor().shape.name; });
  const copies = () => {
    const least = Math.max(0, Number($("least").value) || 0);
    const most = Math.max(least, Number($("most").value) || 0, 1);
    editor().setCopies(least, most);
  };
  $("least").addEventListener("change", copies);
  $("most").addEventListener("change", copies);
  for (const radio of document.querySelectorAll("input[name=mode]")) radio.addEventListener("change", () => { editor().mode = radio.value; });
  for (const radio of document.querySelectorAll("input[name=brush]")) radio.addEventListener("change", () => { editor().brush.variable = radio.value === "variable"; });
  $("colour").addEventListener("change", (e) => {
    let colour = e.target.value;
    if (colour === "\u0000new") colour = (prompt("the new colour's name") || "").trim();
    editor().brush.colour = colour || null;
    shapesChanged();
  });
  for (const button of document.querySelectorAll("[data-op]")) {
    button.addEventListener("click", () => editor().apply(button.dataset.op, Number(button.dataset.sign || 1)));
  }
  $("layer").addEventListener("input", (e) => editor().setLayer(Number(e.target.value)));
}

wire();
studio.ready = listFiles().then(() => { // `cpsolve studio FILE` opens the file
  const first = new URLSearchParams(location.search).get("open");
  return first ? open(first) : null;
}).catch(fail);
