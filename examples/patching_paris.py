"""Where SmolLM2-135M-Instruct keeps "Eiffel → Paris": activation patching and direct logit attribution.

The clean prompt "The Eiffel Tower is in the city of" answers " Paris"; the corrupt one "The
Colosseum is in the city of" answers " Rome". Patching the clean run into the corrupt one block by
block and position by position (then head by head) shows where the answer travels; direct logit
attribution shows which heads and MLPs write it.

    python examples/patching_paris.py             # or: nnterp patch --plot ...; nnterp heads --plot ...
"""

import argparse
from pathlib import Path

from nnterp import real
from nnterp.tools import direct_logit_attribution, logit_difference, patch_heads, patch_positions, plot_attention

CLEAN = "The Eiffel Tower is in the city of"
CORRUPT = "The Colosseum is in the city of"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="examples/figures")
    args = parser.parse_args()
    out = Path(args.out)

    model = real.load(attn_implementation="eager")
    metric = logit_difference(model, " Paris", " Rome")
    positions = patch_positions(model, CLEAN, CORRUPT, metric)
    print(positions.table(8))
    positions.plot(out / "patching_positions.png")
    heads = patch_heads(model, CLEAN, CORRUPT, metric)
    print(heads.table(8))
    heads.plot(out / "patching_heads.png")
    attribution = direct_logit_attribution(model, CLEAN, " Paris")
    print(attribution.table(8))
    attribution.plot(out / "attribution_paris.png")
    best_block = attribution.top_heads(1)[0][0]
    plot_attention(model, CLEAN, best_block, path=out / f"attention_block{best_block}.png",
                   html=out / f"attention_block{best_block}.html")
    print(f"wrote {out}/patching_positions.png, patching_heads.png, attribution_paris.png, "
          f"attention_block{best_block}.png and .html")


if __name__ == "__main__":
    main()
