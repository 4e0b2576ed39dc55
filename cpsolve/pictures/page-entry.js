// The standalone page's start (`cpsolve run --html`): the viewer on the scene the page carries.
// esbuild bundles it with viewer.js and the parts of three.js they use into the one module the
// page holds (cpsolve.pictures.three.page_bundle).
import { mountPage } from "./viewer.js";

mountPage(document.getElementById("page"), JSON.parse(document.getElementById("scene").textContent));
