// The `d3` global circuit-tracer's frontend expects (transformer-circuits.pub's d3.js and jetpack_2024-07-20.js):
// d3 7 with d3-jetpack's helpers on d3 7's own selection. d3-jetpack's prebuilt d3v7+jetpack.js puts them on a
// second, older copy of d3-selection that d3.select never returns, so they are bundled here from its sources.
import * as d3 from "d3";
import append from "./node_modules/d3-jetpack/src/append.js";
import appendMany from "./node_modules/d3-jetpack/src/appendMany.js";
import at from "./node_modules/d3-jetpack/src/at.js";
import clamp from "./node_modules/d3-jetpack/src/clamp.js";
import conventions from "./node_modules/d3-jetpack/src/conventions.js";
import drawAxis from "./node_modules/d3-jetpack/src/drawAxis.js";
import insert from "./node_modules/d3-jetpack/src/insert.js";
import nestBy from "./node_modules/d3-jetpack/src/nestBy.js";
import parent from "./node_modules/d3-jetpack/src/parent.js";
import selectAppend from "./node_modules/d3-jetpack/src/selectAppend.js";
import st from "./node_modules/d3-jetpack/src/st.js";
import translate from "./node_modules/d3-jetpack/src/translate-selection.js";
import tspans from "./node_modules/d3-jetpack/src/tspans.js";

Object.assign(d3.selection.prototype, {append, appendMany, at, insert, parent, selectAppend, st, translate, tspans,
                                       prop: d3.selection.prototype.property});
Object.assign(d3.transition.prototype, {at, st, translate});

// jetpack 2024's conventions: c.drawAxis(svg) draws c's axes into svg (2.3.0 has d3.drawAxis(c) instead)
function conventionsWithAxes(options) {
  const c = conventions(options);
  c.drawAxis = (svg) => drawAxis({...c, svg: svg || c.svg});
  return c;
}

// jetpack's attachTooltip reads d3.event, which d3 7 no longer has: the same tooltip on d3 7's (event, datum)
function attachTooltip(sel, tooltipSel, fieldFns) {
  if (!sel.size()) return;
  tooltipSel = tooltipSel || d3.select(".tooltip");
  sel
    .on("mouseover.attachTooltip", function (ev, d) {
      tooltipSel.classed("tooltip-hidden", false).html("")
        .appendMany("div", fieldFns || []).html((fn) => fn(d));
      d3.select(this).classed("tooltipped", true);
    })
    .on("mousemove.attachTooltip", (ev) => {
      const bb = tooltipSel.node().getBoundingClientRect();
      const left = clamp(20, ev.clientX - bb.width / 2, window.innerWidth - bb.width - 20);
      const top = innerHeight > ev.clientY + 20 + bb.height ? ev.clientY + 20 : ev.clientY - bb.height - 20;
      tooltipSel.style("left", left + "px").style("top", top + "px");
    })
    .on("mouseout.attachTooltip", () => {
      tooltipSel.classed("tooltip-hidden", true);
      d3.selectAll(".tooltipped").classed("tooltipped", false);
    });
}

window.d3 = {...d3, attachTooltip, clamp, conventions: conventionsWithAxes, nestBy};
