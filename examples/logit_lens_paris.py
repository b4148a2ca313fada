"""The logit lens on the seeds' prompt: the block where ' Paris' becomes the top token.

Every block's layer_output goes through model.project_on_vocab (the final norm and lm_head), so the
last block reads exactly as the logits.

    python examples/logit_lens_paris.py           # or: nnterp lens --target " Paris" --plot examples/figures/logit_lens_paris.png
"""

import argparse

from nnterp import real
from nnterp.tools import lens_on_prompt, logit_lens


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--prompt", default="The Eiffel Tower is in the city of")
    parser.add_argument("--target", default=" Paris")
    parser.add_argument("--plot", default="examples/figures/logit_lens_paris.png")
    args = parser.parse_args()

    model = real.load()
    demo = lens_on_prompt(model, args.prompt, args.target)
    print(demo.table())
    logit_lens(model, args.prompt, targets=[args.target]).plot(args.plot, target=args.target)
    print(f"wrote {args.plot}")


if __name__ == "__main__":
    main()
