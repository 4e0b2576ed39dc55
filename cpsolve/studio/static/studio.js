// The studio's page: the workspace's files, a puzzle drawn and edited in 3-D and by layers on any
// grid (editor.js; loaded on its own so that the page works, as text, where three.js is not
// installed) or as its file's text, beside the results of its runs (the counts, the checks, the
// table of assemblies, the solutions drawn and taken apart by the one viewer every page carries).
// Nothing a designer does is lost: each change is kept as a draft in the workspace a moment after
// it is made (restored when the file is opened again, after a reload, a crash or a killed
// server), the file and the piece say they are modified, switching files or leaving asks first,
// a save never replaces a file that changed on disk since it was opened, and a second tab on one
// file is told. Every request carries the token.
const token = new URLSearchParams(location.search).get("token") || "";
const $ = (id) => document.getElementById(id);
const client = Math.random().toString(36).slice(2, 12); // this page, to the server (which tabs have a file open)
const DRAFT_DELAY = 400; // ms after the last change a draft is kept
const PRESENCE_EVERY = 10000;
const state = {
  path: null, revision: null, problem: 0, saved: "", savedEdits: 0, tab: "edit",
  problems: null, problemEdits: 0, // the file's problems, where the page edits them together; changes to them
  editor: null, design: null, drawn: false, job: null, source: null, viewer: null, look: null, grids: null,
  draftTimer: null, draftKept: 0,
};
const studio = { state, ready: null }; // read by the page's tests
window.studio = studio;

async function api(method, path, body, extra = {}) {
  const response = await fetch(path, {
    method,
    headers: { Authorization: `Bearer ${token}`, ...(body ? { "Content-Type": "application/json" } : {}) },
    body: body ? JSON.stringify(body) : undefined,
    ...extra,
  });
  const data = await response.json().catch(() => ({ error: `${response.status}` }));
  if (!response.ok) {
    const error = new Error(data.error || `${response.status}`);
    error.status = response.status;
    throw error;
  }
  return data;
}

const filePath = (path) => encodeURIComponent(path).replaceAll("%2F", "/");
function say(text, kind = "") { $("status").textContent = text; $("status").dataset.state = kind; }
function banner(text, actions = []) {
  const box = $("banner");
  box.replaceChildren(document.createTextNode(text), ...actions.map(([label, action]) => {
    const b = document.createElement("button");
    b.type = "button"; b.textContent = label;
    b.addEventListener("click", () => { action(); });
    return b;
  }));
  box.hidden = !text;
}
function fail(error) {
  const text = String(error.message || error);
  $("error").textContent = text;
  const named = /pieces\.([^.:\s]+)/.exec(text); // a message that names a piece marks it where it is drawn
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

async function loadLook() { // the grids as the server describes them, and the colours pictures draw in
  state.look = await api("GET", "/api/look");
  const { Grid } = await import("./grids.js");
  state.grids = Object.fromEntries(state.look.grids.map((g) => [g.name, new Grid(g)]));
  $("new-grid").replaceChildren(...state.look.grids.map((g) => new Option(`${g.name}: ${g.title}`, g.name)));
}

// -- what is modified, and the draft that keeps it ------------------------------------------------
function modified() {
  if (!state.path) return false;
  if (state.drawn && state.tab !== "text" && state.design) return state.design.edits !== state.savedEdits || state.problemEdits > 0;
  return $("text").value !== state.saved;
}

function showModified() {
  const changed = modified();
  $("modified").hidden = !changed;
  document.title = `${changed ? "● " : ""}${state.path || "cpsolve studio"} · cpsolve studio`;
  for (const button of $("files").children) button.classList.toggle("modified", button.dataset.path === state.path && changed);
}

function changedNow() { // after every edit: the marks, and a draft kept a moment later
  showModified();
  clearTimeout(state.draftTimer);
  if (modified()) state.draftTimer = setTimeout(() => keepDraft().catch(fail), DRAFT_DELAY);
}

function drawnBody() { // the drawing as it is saved: its problems where the page edits several, else its spec
  const problems = currentProblems();
  return problems ? { problems } : { spec: state.design.toSpec() };
}

function draftBody() {
  const drawing = state.drawn && state.tab !== "text" && state.design;
  return { ...(drawing ? drawnBody() : { content: $("text").value }), base: state.revision, problem: state.problem, client };
}

async function keepDraft(keepalive = false) {
  clearTimeout(state.draftTimer);
  if (!state.path || !modified()) return;
  const kept = await api("PUT", `/api/drafts/${filePath(state.path)}`, draftBody(), { keepalive });
  state.draftKept = kept.kept;
}

async function dropDraft(path) { await api("DELETE", `/api/drafts/${filePath(path)}`).catch(() => null); }

// -- leaving a file: the question, where there are unsaved changes ---------------------------------
function ask(text) { // save, keep the draft and go on, or stay: "save", "keep" or "stay"
  const dialog = $("leave");
  $("leave-text").textContent = text;
  return new Promise((resolve) => {
    const answer = (value) => { dialog.close(); resolve(value); };
    $("leave-save").onclick = () => answer("save");
    $("leave-keep").onclick = () => answer("keep");
    $("leave-stay").onclick = () => answer("stay");
    dialog.oncancel = () => answer("stay");
    dialog.showModal();
  });
}

async function leaveCurrent() { // whether the page may leave the open file
  if (!state.path || !modified()) return true;
  const answer = await ask(`${state.path} has unsaved changes. They are kept as a draft and come back when you open it again.`);
  if (answer === "stay") return false;
  if (answer === "save") { await save(); return !modified(); }
  await keepDraft();
  return true;
}

window.addEventListener("beforeunload", (event) => {
  if (!modified()) return;
  keepDraft(true).catch(() => null); // the draft goes out even as the page closes
  event.preventDefault();
  event.returnValue = "";
});

// -- files -----------------------------------------------------------------------------------
async function listFiles() {
  const [{ files }, { drafts }] = await Promise.all([api("GET", "/api/files"), api("GET", "/api/drafts")]);
  const drafted = new Set(drafts.map((d) => d.path));
  $("files").replaceChildren(...files.map((file) => {
    const button = document.createElement("button");
    button.type = "button";
    button.textContent = file;
    button.dataset.path = file;
    button.classList.toggle("drafted", drafted.has(file));
    button.classList.toggle("open", file === state.path);
    button.title = drafted.has(file) ? "unsaved changes kept as a draft" : "";
    button.addEventListener("click", () => switchTo(file).catch(fail));
    return button;
  }));
  showModified();
}

async function switchTo(path, problem = 0) {
  if (path === state.path && problem === state.problem) return;
  if (!(await leaveCurrent())) return;
  await open(path, problem);
  await listFiles(); // which files have drafts now
}

function buttons(enabled) {
  for (const id of ["save", "save-as", "solve", "first", "count"]) $(id).disabled = !enabled;
}

async function open(path, problem = 0) {
  // nothing can be typed or saved while another file loads: a save then would write one file's
  // text under the other's name
  $("text").disabled = true;
  buttons(false);
  $("add-problem").disabled = true; // until the file's problems are read
  clearError();
  banner("");
  if (state.path && state.path !== path) api("POST", "/api/presence", { path: state.path, client, leaving: true }).catch(() => null);
  const [file, puzzle, draft] = await Promise.all([
    api("GET", `/api/files/${filePath(path)}`),
    api("GET", `/api/puzzle/${filePath(path)}?problem=${problem}`).catch((error) => ({ error })),
    api("GET", `/api/drafts/${filePath(path)}`).then((found) => found.draft).catch(() => null),
  ]);
  state.path = path;
  state.revision = file.revision;
  state.saved = file.content;
  state.problem = problem;
  $("text").value = file.content;
  $("text").disabled = false;
  $("name").textContent = path;
  for (const button of $("files").children) button.classList.toggle("open", button.dataset.path === path);
  clearResults();
  state.drawn = false;
  state.problems = null;
  state.problemEdits = 0;
  state.problemNames = [];
  if (puzzle.error) {
    fail(puzzle.error); // the file as the command line refuses it; its text can be mended
  } else {
    state.problemNames = puzzle.problems;
    // a spec's one problem is named as the spec is (a BurrTools problem may have no name)
    const named = (spec, i) => puzzle.problems[i] || (puzzle.problems.length === 1 ? spec.name || "" : "");
    state.problems = puzzle.specs ? puzzle.specs.map((spec, i) => ({ name: named(spec, i), spec })) : null;
    state.drawn = puzzle.drawn;
    $("not-drawn").textContent = puzzle.drawn ? "" : puzzle.why;
    if (puzzle.drawn) await loadDesign(puzzle.spec).catch((error) => { state.drawn = false; $("not-drawn").textContent = String(error.message || error); });
  }
  state.savedEdits = state.design ? state.design.edits : 0;
  showTab(state.drawn ? (state.tab === "text" ? "edit" : state.tab) : "text");
  buttons(true);
  $("save").disabled = path.endsWith(".xmpuzzle") && !state.drawn; // shown as XML: saved from the drawing or as YAML
  if (draft && (draft.problems ? state.problems : draft.problem === problem)) restoreDraft(draft);
  fillProblems();
  showModified();
  const { others } = await api("POST", "/api/presence", { path, client });
  if (others.length) banner(`${path} is open in another tab too: a save there or here may replace the other's; the second save is refused where the file changed.`);
}

async function loadDesign(spec) {
  const { Colours, Design, Editor } = await loadEditor();
  state.design = new Design(spec, state.grids);
  if (!state.editor) state.editor = new Editor($("view3d"), $("layer-view"), new Colours(state.look), editorChanged);
  state.editor.load(state.design);
  fillTurns();
  fillAbout();
}

function restoreDraft(draft) {
  const when = new Date(draft.kept * 1000).toLocaleTimeString();
  if (draft.problems && state.problems && state.drawn) {
    state.problems = draft.problems;
    state.problem = Math.min(draft.problem, draft.problems.length - 1);
    state.problemEdits = 1; // modified: the draft is not the file
    loadDesign(state.problems[state.problem].spec).then(() => {
      state.savedEdits = state.design.edits;
      fillProblems();
      showTab("edit");
      showModified();
    }).catch(fail);
  } else if (draft.spec && state.drawn) {
    loadDesign(draft.spec).then(() => {
      state.design.edits = state.savedEdits + 1; // modified: the draft is not the file
      state.design.shapesEdited = true;
      showTab("edit");
      showModified();
    }).catch(fail);
  } else if (draft.content !== undefined) {
    $("text").value = draft.content;
    showTab("text");
  }
  const changed = draft.changed_since ? " The file changed on disk since: saving will ask you to save under another name." : "";
  banner(`Unsaved changes from ${when} were restored from the draft.${changed}`, [["discard them", () => discardDraft().catch(fail)]]);
  showModified();
}

async function discardDraft() {
  await dropDraft(state.path);
  const path = state.path;
  state.path = null;
  await open(path, state.problem);
}

function showTab(tab) {
  if (!state.drawn && tab !== "text") tab = "text";
  state.tab = tab;
  $("edit").hidden = tab !== "edit";
  $("about").hidden = tab !== "about";
  $("text").hidden = tab !== "text";
  $("not-drawn").hidden = state.drawn || !$("not-drawn").textContent;
  for (const name of ["edit", "about", "text"]) $(`tab-${name}`).classList.toggle("on", tab === name);
  if (tab === "edit" && state.editor) state.editor.stage.resize();
}

// -- the drawing's panels, kept in step with the editor after every change
function editorChanged() {
  const editor = state.editor;
  const design = editor.design;
  $("shapes").replaceChildren(...design.shapes.map((shape, i) => {
    const button = document.createElement("button");
    button.type = "button";
    button.textContent = `${shape.name} (${shape.cells.size})`;
    button.dataset.name = shape.name;
    button.classList.toggle("on", i === editor.index);
    button.style.setProperty("--swatch", editor.colourOf(i));
    button.addEventListener("click", () => { editor.select(i); });
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
  select.replaceChildren(new Option("none", ""), ...colours.map((c) => {
    const option = new Option(c, c);
    option.style.color = editor.constraintColour(c);
    return option;
  }), new Option("new colour...", "\u0000new"));
  select.value = editor.brush.colour || "";
  const optional = [...shape.cells.values()].filter((s) => s.variable).length;
  $("cell-count").textContent = `${shape.cells.size} cells` + (optional ? `, ${optional} variable` : "");
  $("undo").disabled = !editor.undoStack.length;
  $("redo").disabled = !editor.redoStack.length;
  if (document.activeElement !== $("puzzle-name")) $("puzzle-name").value = design.rest.name || "";
  fillRules();
  if (state.problems) fillProblems();
  changedNow();
}

function fillTurns() {
  const turns = state.design.grid.turns;
  $("turns").replaceChildren(...turns.map((how) => {
    const b = document.createElement("button");
    b.type = "button";
    b.textContent = how === "mirror" ? "mirror" : `turn ${how}`;
    b.title = how === "mirror" ? "M" : how.toUpperCase();
    b.addEventListener("click", () => turn(how));
    return b;
  }));
}

function turn(how) {
  if (!state.design.grid.turns.includes(how)) return;
  state.editor.turn(how, (grid, cells, which) => api("POST", `/api/grids/${grid}/turn`, { cells, how: which }).then((r) => r.cells)).catch(fail);
}

function fillAbout() {
  const design = state.design;
  $("puzzle-name").value = design.rest.name || "";
  $("description").value = design.rest.description || "";
  $("grid-line").textContent = `grid: ${design.grid.name} (${design.grid.title})`;
  fillRules();
}

function fillRules() { // the colour rule: [piece colour, target colour] pairs, each removable
  const design = state.design;
  if (!design) return;
  const rules = design.rest.colour_rule || [];
  $("rule-list").replaceChildren(...rules.map((pair, n) => {
    const row = document.createElement("div");
    row.className = "rule";
    for (const name of pair) {
      const swatch = document.createElement("span");
      swatch.className = "swatch";
      swatch.style.background = state.editor.constraintColour(name);
      row.append(swatch, document.createTextNode(` ${name} `));
      if (name === pair[0]) row.append(document.createTextNode("on "));
    }
    const remove = document.createElement("button");
    remove.type = "button"; remove.textContent = "remove";
    remove.addEventListener("click", () => state.editor.edit((d) => { d.rest.colour_rule.splice(n, 1); if (!d.rest.colour_rule.length) delete d.rest.colour_rule; }));
    row.appendChild(remove);
    return row;
  }));
  const colours = design.colours();
  for (const id of ["rule-piece", "rule-target"]) $(id).replaceChildren(...colours.map((c) => new Option(c, c)));
}

// -- problems: a file's several puzzles, each its own target, pieces and counts (BurrTools' problems)
function problemTitle(index) {
  const entry = state.problems ? state.problems[index] : null;
  return (entry ? entry.name : state.problemNames[index]) || `problem ${index}`; // numbered from 0, as --problem
}

function currentProblems() { // every problem as it is now, the one drawn included; null: one at a time
  if (!state.problems) return null;
  const list = state.problems.map((entry) => ({ name: entry.name, spec: entry.spec }));
  list[state.problem] = { name: list[state.problem].name, spec: state.design.toSpec() };
  return list;
}

function keepShown() { // the problem drawn, stored with the others (its edits counted as the file's)
  if (state.design.edits !== state.savedEdits) state.problemEdits += 1;
  state.problems[state.problem].spec = state.design.toSpec();
  state.savedEdits = state.design.edits;
}

async function drawProblem(index) {
  state.problem = index;
  await loadDesign(state.problems[index].spec);
  state.savedEdits = state.design.edits;
  clearResults();
  fillProblems();
  changedNow();
}

async function showProblem(index) { // another problem of the file, its edits kept with the others
  if (index === state.problem || !state.problems[index]) return;
  keepShown();
  await drawProblem(index);
}

function addProblem() { // a copy of the problem drawn, to change its target, its pieces and their counts
  const taken = new Set(state.problems.map((_, i) => problemTitle(i)));
  let number = state.problems.length;
  while (taken.has(`problem ${number}`)) number += 1;
  keepShown();
  const spec = structuredClone(state.problems[state.problem].spec);
  delete spec.expected; // the counts were the other problem's
  state.problems.push({ name: `problem ${number}`, spec: { ...spec, name: `problem ${number}` } });
  state.problemEdits += 1;
  return drawProblem(state.problems.length - 1);
}

function removeProblem(index) { // gone from the file when it is saved; the banner offers it back until then
  if (state.problems.length <= 1) return;
  keepShown();
  const title = problemTitle(index);
  const [removed] = state.problems.splice(index, 1);
  state.problemEdits += 1;
  const shown = state.problem === index ? Math.min(index, state.problems.length - 1) : state.problem - (index < state.problem ? 1 : 0);
  drawProblem(shown).then(() => banner(`removed problem ${title}`, [["undo", () => {
    keepShown();
    state.problems.splice(index, 0, removed);
    banner("");
    drawProblem(index).catch(fail);
  }]])).catch(fail);
}

function renameProblem(index, name) {
  name = name.trim();
  const taken = state.problems.some((_, i) => i !== index && problemTitle(i) === name);
  if (taken) { fillProblems(); return; } // an empty name is BurrTools' unnamed problem
  state.problems[index].name = name;
  state.problemEdits += 1;
  fillProblems();
  changedNow();
}

function fillProblems() { // the list in the puzzle tab, the chooser at the top, the pieces other problems have
  const select = $("problem");
  const count = state.problems ? state.problems.length : state.problemNames.length;
  select.replaceChildren(...Array.from({ length: count }, (_, i) => new Option(`${i}: ${problemTitle(i)}`, String(i))));
  select.value = String(state.problem);
  select.hidden = count <= 1;
  $("add-problem").disabled = !state.problems || !state.drawn;
  $("problems-hint").textContent = state.problems ? "" : (count > 1 ? "this file's problems are edited one at a time: choose one at the top" : "");
  $("problem-list").replaceChildren(...(state.problems || []).map((entry, i) => {
    const row = document.createElement("div");
    row.className = "problem" + (i === state.problem ? " on" : "");
    const show = document.createElement("button");
    show.type = "button"; show.textContent = i === state.problem ? "drawn" : "draw";
    show.disabled = i === state.problem;
    show.addEventListener("click", () => showProblem(i).catch(fail));
    const name = document.createElement("input");
    name.value = entry.name; name.size = 18; name.placeholder = `problem ${i} (no name)`;
    name.setAttribute("aria-label", `problem ${i}'s name`);
    name.addEventListener("change", () => renameProblem(i, name.value));
    const spec = i === state.problem ? null : entry.spec;
    const pieces = spec ? Object.keys(spec.pieces).length : state.design.shapes.length - 1;
    const info = document.createElement("span");
    info.className = "hint"; info.textContent = ` ${pieces} pieces `;
    const remove = document.createElement("button");
    remove.type = "button"; remove.textContent = "remove"; remove.disabled = state.problems.length <= 1;
    remove.addEventListener("click", () => removeProblem(i));
    row.append(show, name, info, remove);
    return row;
  }));
  const here = new Set(state.design ? state.design.shapes.map((shape) => shape.name) : []);
  const offered = [];
  for (const [i, entry] of (state.problems || []).entries()) {
    if (i === state.problem) continue;
    for (const name of Object.keys(entry.spec.pieces)) if (!here.has(name)) offered.push(new Option(`${name} (${problemTitle(i)})`, `${i}\u0000${name}`));
  }
  $("take-piece").replaceChildren(new Option("+ piece of another problem", ""), ...offered);
  $("take-piece").hidden = !offered.length;
}

async function takePiece(choice) { // a piece another problem has, into this one (its cells, colours and copies)
  const [index, name] = choice.split("\u0000");
  const { Design } = await loadEditor();
  const other = new Design(state.problems[Number(index)].spec, state.grids);
  const shape = other.shapes.find((s) => s.piece && s.name === name);
  if (shape) state.editor.takeShape(shape);
}

// -- saving ------------------------------------------------------------------------------------
async function save(asName) {
  const path = asName || state.path;
  const query = asName ? "?new=true" : "";
  const base = asName ? undefined : state.revision;
  try {
    if (state.drawn && state.tab !== "text") {
      await api("PUT", `/api/puzzle/${filePath(path)}${query}`, { ...drawnBody(), base });
    } else {
      if (path.endsWith(".xmpuzzle")) throw new Error(`${path}: a BurrTools file is saved from the drawing, or give a .yaml name`);
      await api("PUT", `/api/files/${filePath(path)}${query}`, { content: $("text").value, base });
    }
  } catch (error) {
    if (/a YAML spec holds one problem/.test(error.message)) {
      const other = path.replace(/\.ya?ml$/, ".xmpuzzle");
      banner(`${path} is a YAML spec, which holds one problem; this puzzle has ${state.problems.length}.`, [[`save as ${other}`, () => save(other).catch(fail)]]);
    }
    if (error.status === 409 && !asName) {
      const other = path.replace(/(\.[^.]+)$/, "-2$1");
      $("save-name").value = other;
      banner(`${path} changed on disk since you opened it: nothing was replaced. Save under another name, or open it again to see the change (your edit stays a draft).`,
        [[`save as ${other}`, () => save(other).catch(fail)]]);
      await keepDraft();
    }
    throw error;
  }
  clearTimeout(state.draftTimer);
  if (asName) await dropDraft(state.path);
  const keep = state.editor && state.drawn ? { index: state.editor.index, layer: state.editor.layer, tab: state.tab } : null;
  const wasTab = state.tab;
  state.path = null; // the file as saved: read back as the command line reads it
  await open(path, asName && !state.problems ? 0 : state.problem);
  await listFiles();
  if (keep && state.editor && state.drawn) { state.editor.layer = keep.layer; state.editor.select(keep.index); showTab(keep.tab); } else showTab(wasTab);
  say(`saved ${path}`, "saved");
}

// -- running -----------------------------------------------------------------------------------
function clearResults() {
  if (state.source) { state.source.close(); state.source = null; }
  for (const id of ["summary", "placements", "exports", "table-box", "viewer"]) $(id).replaceChildren();
  state.viewer = null;
  say("");
}

async function run(kind) {
  clearError();
  const options = { time_limit: Number($("limit").value) || 60, show: 100 };
  if (kind === "first") options.first = true;
  if (kind === "count") { options.count_only = true; options.show = 0; }
  else if ($("disassemble").checked) options.disassemble = true;
  let request;
  if (state.drawn && state.tab !== "text") request = { spec: state.design.toSpec(), name: state.path, options };
  else {
    if ($("text").value !== state.saved) await save(); // typed text runs as it is saved
    request = { path: state.path, options, ...($("problem").hidden ? {} : { problem: String(state.problem) }) };
  }
  clearResults();
  const { id } = await api("POST", "/api/jobs", request);
  state.job = id;
  $("cancel").disabled = false;
  say(`started: ${state.path}`, "started");
  const source = new EventSource(`/api/jobs/${id}/events?token=${encodeURIComponent(token)}`);
  state.source = source;
  source.addEventListener("progress", (message) => { if (state.job === id) say(progressLine(JSON.parse(message.data)), "running"); });
  source.addEventListener("finished", (message) => { source.close(); finished(id, JSON.parse(message.data).report).catch(fail); });
  source.addEventListener("failed", (message) => {
    source.close();
    ended();
    const line = JSON.parse(message.data).message;
    say(`failed: ${line}`, "failed");
    fail(new Error(line));
  });
}

function progressLine(event) {
  const parts = [`running ${event.seconds.toFixed(1)} s: ${event.doing}`];
  if (event.placements_per_second) parts.push(`${Math.round(event.placements_per_second).toLocaleString("en")} placements/s`);
  if (event.share_done !== null && event.share_done !== undefined) parts.push(`about ${Math.round(100 * event.share_done)}% of the estimated search`);
  return parts.join(", ");
}

function ended() { $("cancel").disabled = true; state.job = null; }

async function cancel() {
  const id = state.job;
  if (!id) return;
  say("cancelling…", "cancelling");
  $("cancel").disabled = true;
  const answer = await api("DELETE", `/api/jobs/${id}`);
  if (answer.state === "cancelled") say(`cancelled after ${answer.report ? answer.report.seconds.toFixed(1) : "?"} s: the counts are lower bounds`, "cancelled");
}

async function finished(id, report) {
  ended();
  const c = report.counts;
  const bound = report.complete ? "" : "at least ";
  const lines = [`${bound}raw ${c.raw}, rotations ${c.rotations}, unique ${c.unique} (${report.complete ? "complete" : `stopped: ${report.stopped_by}`})`];
  if (report.orbit_stabiliser_ok === true) lines.push("orbit-stabiliser check ok");
  else if (report.orbit_stabiliser_ok === false) lines.push(`orbit-stabiliser check FAILED: ${report.identity_problems.join("; ")}`);
  if (report.matches_expected === true) lines.push("expected: match");
  else if (report.matches_expected === false) lines.push(`expected ${JSON.stringify(report.expected)}: MISMATCH`);
  if (report.disassembly) lines.push(`${report.disassembly.comes_apart} of ${report.disassembly.checked} come apart` + (report.disassembly.highest_level ? ` (highest level ${report.disassembly.highest_level})` : ""));
  $("summary").replaceChildren(...lines.map((line) => { const d = document.createElement("div"); d.textContent = line; return d; }));
  if (report.stopped_by === "cancelled") say("cancelled: the counts are lower bounds", "cancelled");
  else say(`done in ${report.seconds.toFixed(3)} s on ${report.engine || "no engine"}`, "done");
  if (c.unique === 0 || report.counting) return;
  const scene = await api("GET", `/api/jobs/${id}/scene`);
  if (scene.pieces && scene.pieces.some((p) => p.placements !== undefined)) {
    $("placements").replaceChildren(document.createTextNode("placements: "), ...scene.pieces.map((p) => {
      const span = document.createElement("span");
      span.className = "placement";
      span.innerHTML = `<span class="swatch" style="background:${p.colour}"></span> `;
      span.append(`${p.name} ${p.placements.toLocaleString("en")}`);
      if (p.placements <= 2) span.classList.add("few");
      return span;
    }));
  }
  const kinds = [["html", "page"], ["png", "PNG"], ["stl", "STL pieces (zip)"], ["xmpuzzle", "BurrTools file"]];
  $("exports").replaceChildren(document.createTextNode("export: "), ...kinds.map(([kind, label]) => {
    const link = document.createElement("a");
    link.href = `/api/jobs/${id}/export/${kind}?token=${encodeURIComponent(token)}`;
    link.download = "";
    link.textContent = label;
    return link;
  }));
  const { SolutionViewer, assemblyTable } = await import("./viewer.js");
  const viewer = new SolutionViewer($("viewer"), scene);
  viewer.keysWhen = () => $("results").matches(":hover") || $("results").contains(document.activeElement);
  state.viewer = viewer;
  const table = assemblyTable($("table-box"), scene, (index) => viewer.show(index));
  const first = scene.solutions.findIndex((s) => s.level);
  if (first > 0) { viewer.show(first); table.choose(first); }
}

// -- a new puzzle, on any grid ------------------------------------------------------------------
async function create() {
  let name = $("new-name").value.trim() || "new.yaml";
  if (!/\.(ya?ml)$/.test(name)) name += ".yaml";
  const grid = state.grids[$("new-grid").value] || state.grids.cube;
  const cell = grid.firstCell();
  const spec = { name: name.replace(/\.ya?ml$/, ""), ...(grid.name === "cube" ? {} : { grid: grid.name }), pieces: { A: { cells: [cell] } }, target: { cells: [cell] } };
  if (!(await leaveCurrent())) return;
  await api("PUT", `/api/puzzle/${filePath(name)}?new=true`, { spec });
  await listFiles();
  state.path = null;
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
  if (state.viewer && state.viewer.keysWhen() && [" ", "ArrowLeft", "ArrowRight"].includes(event.key)) return; // the viewer's
  const lower = event.key.toLowerCase();
  const actions = {
    a: () => { editor.mode = "add"; editorChanged(); },
    p: () => { editor.mode = "paint"; editorChanged(); },
    f: () => { editor.brush.variable = false; editorChanged(); },
    v: () => { if (!editor.shape.piece) editor.brush.variable = true; editorChanged(); },
    x: () => turn("x"), y: () => turn("y"), z: () => turn("z"), m: () => turn("mirror"),
    n: () => editor.select((editor.index + (event.shiftKey ? -1 : 1) + editor.design.shapes.length) % editor.design.shapes.length),
    "+": () => editor.addPiece(),
    "[": () => editor.setLayer(editor.layer - 1), "]": () => editor.setLayer(editor.layer + 1),
    arrowleft: () => editor.shift("x", -1), arrowright: () => editor.shift("x", 1),
    arrowup: () => editor.shift("y", -1), arrowdown: () => editor.shift("y", 1),
    pageup: () => editor.shift("z", 1), pagedown: () => editor.shift("z", -1),
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
  $("cancel").addEventListener("click", () => cancel().catch(fail));
  $("problem").addEventListener("change", () => {
    const index = Number($("problem").value);
    (state.problems ? showProblem(index) : switchTo(state.path, index)).catch(fail);
  });
  $("add-problem").addEventListener("click", () => addProblem().catch(fail));
  $("take-piece").addEventListener("change", (e) => { if (e.target.value) takePiece(e.target.value).catch(fail); e.target.value = ""; });
  for (const tab of ["edit", "about", "text"]) $(`tab-${tab}`).addEventListener("click", () => showTab(tab));
  $("text").addEventListener("input", changedNow);
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
    if (colour === "\u0000new") colour = (prompt("the new colour's name (a colour word, #rrggbb, or any name)") || "").trim();
    editor().brush.colour = colour || null;
    editorChanged();
  });
  for (const button of document.querySelectorAll("[data-shift]")) {
    button.addEventListener("click", () => editor().shift(button.dataset.shift, Number(button.dataset.sign || 1)));
  }
  $("layer").addEventListener("input", (e) => editor().setLayer(Number(e.target.value)));
  $("puzzle-name").addEventListener("change", (e) => editor().edit((d) => { d.rest.name = e.target.value.trim(); }));
  $("description").addEventListener("change", (e) => editor().edit((d) => { d.rest.description = e.target.value; }));
  $("add-rule").addEventListener("click", () => {
    const pair = [$("rule-piece").value, $("rule-target").value];
    if (!pair[0] || !pair[1]) { fail(new Error("colour the cells first: a rule pairs two colours the puzzle has")); return; }
    editor().edit((d) => { d.rest.colour_rule = [...(d.rest.colour_rule || []), pair]; });
  });
  setInterval(() => { if (state.path) api("POST", "/api/presence", { path: state.path, client }).catch(() => null); }, PRESENCE_EVERY);
}

wire();
studio.ready = loadLook().then(listFiles).then(() => { // `cpsolve studio FILE` opens the file
  const first = new URLSearchParams(location.search).get("open");
  return first ? open(first) : null;
}).catch(fail);
