"""Induction heads in SmolLM2-135M-Instruct (Olsson et al. 2022), through the standard values.

On sequences of random tokens repeated twice, every head's induction score is its attention from
a token in the repeated half to the token after that token's first occurrence. The best heads are
named; zeroing them (in attention_premix) raises the loss on the repeated half, while zeroing as
many random heads barely does.

    python examples/induction_heads.py            # or: nnterp induction --plot examples/figures/induction_scores.png
"""

import argparse

from nnterp import real
from nnterp.tools import induction_ablation, induction_heads


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--plot", default="examples/figures/induction_scores.png")
    parser.add_argument("--length", type=int, default=40)
    parser.add_argument("--batch", type=int, default=8)
    parser.add_argument("--k", type=int, default=5)
    parser.add_argument("--draws", type=int, default=5)
    args = parser.parse_args()

    model = real.load(attn_implementation="eager")          # the pattern needs the eager kernel
    scores = induction_heads(model, length=args.length, batch=args.batch, seed=0)
    print(scores.table(10))
    print(induction_ablation(model, scores, k=args.k, draws=args.draws, seed=0).table())
    scores.plot(args.plot)
    print(f"wrote {args.plot}")


if __name__ == "__main__":
    main()
