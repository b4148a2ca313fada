// Builds build/: circuit-tracer 0.5.0's frontend (circuit-tracer/, MIT) with the libraries it loads from CDNs at
// run time taken from node_modules instead (`npm ci` first; d3 and d3-jetpack bundled by entry.mjs), and the feature-example URLs that point at
// huggingface.co and cloudfront pointed at the local server. Each patch must match exactly once: a changed source
// stops the build rather than serving a page that still reaches the internet.
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

import { build } from "esbuild";

const here = dirname(fileURLToPath(import.meta.url));
const source = join(here, "circuit-tracer");
const out = join(here, "build");
const modules = join(here, "node_modules");

// [file in node_modules, name under build/lib]
const LIBRARIES = [
  ["dagre/dist/dagre.min.js", "dagre.min.js"],
  ["pako/dist/pako.min.js", "pako.min.js"],
];
const LICENCES = { "d3-jetpack/LICENSE": "d3-jetpack.LICENSE", "d3/LICENSE": "d3.LICENSE", "d3-collection/LICENSE": "d3-collection.LICENSE",
                   "dagre/LICENSE": "dagre.LICENSE", "pako/LICENSE": "pako.LICENSE" };

const CDN = "https://transformer-circuits.pub/2025/attribution-graphs/static_js/lib/";
const PATCHES = {
  "index.html": [
    // the hot-reload client of circuit-tracer's development server: nothing to reload here
    [`<script src='${CDN}hotserver-client-ws.js'></script>\n`, ""],
    [`<script src='${CDN}d3.js'></script>\n`, "<script src='./lib/d3.js'></script>\n"],
    [`<script src='${CDN}jetpack_2024-07-20.js'></script>\n`, ""],  // in the d3 bundle above
    // reads .npy files, which no graph page loads
    [`<script src='${CDN}npy_v0.js'></script>\n`, ""],
    ["<script src='https://unpkg.com/dagre@0.8.5/dist/dagre.min.js'></script>",
     "<script src='./lib/dagre.min.js'></script>"],
    ["<script src='https://unpkg.com/pako@2.1.0/dist/pako.min.js'></script>",
     "<script src='./lib/pako.min.js'></script>"],
  ],
  "util.js": [
    // feature examples come from the local server's /features/, not from circuit-tracer's cloudfront bucket
    ["path = path.replace('./features/', 'https://d1fk9w8oratjix.cloudfront.net/features/')",
     "path = path  // nnterp: served locally"],
  ],
  "feature_examples/init-feature-examples.js": [
    ["return `https://huggingface.co/${repoId.split('@')[0]}/resolve/${revision || 'main'}/${prefix}features/${path}`",
     "return `./features/${scan}/${path}`  // nnterp: served locally"],
  ],
};

function count(text, piece) {
  return text.split(piece).length - 1;
}

rmSync(out, { recursive: true, force: true });
cpSync(source, out, { recursive: true });
for (const [file, patches] of Object.entries(PATCHES)) {
  let text = readFileSync(join(out, file), "utf8");
  for (const [before, after] of patches) {
    const found = count(text, before);
    if (found !== 1) {
      console.error(`build.mjs: ${file} holds ${JSON.stringify(before)} ${found} times, not once: ` +
                    "update the patch to circuit-tracer's new source");
      process.exit(1);
    }
    text = text.replace(before, after);
  }
  writeFileSync(join(out, file), text);
}
mkdirSync(join(out, "lib"));
await build({ entryPoints: [join(here, "entry.mjs")], bundle: true, minify: true, format: "iife",
              legalComments: "eof", outfile: join(out, "lib", "d3.js"), logLevel: "warning" });
for (const [file, name] of LIBRARIES) {
  cpSync(join(modules, file), join(out, "lib", name));
}
for (const [file, name] of Object.entries(LICENCES)) {
  cpSync(join(modules, file), join(out, "lib", name));
}
const remote = /(src|href)=['"]https?:/g;
const left = readFileSync(join(out, "index.html"), "utf8").match(remote);
if (left) {
  console.error(`build.mjs: index.html still loads ${left.length} remote files`);
  process.exit(1);
}
console.log(`built ${out}`);
