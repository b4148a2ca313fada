"""The first-position sink in SmolLM2-135M-Instruct: position 0's stream norm and the attention on key 0.

The Phi page of the encyclopedia describes one very large entry at position 0 of the stream; the
same holds here, and most heads park most of their attention on key 0.

    python examples/first_position_sink.py        # or: nnterp sink --plot examples/figures/first_position_sink.png
"""

import argparse

from nnterp import real
from nnterp.tools import first_position_sink


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--prompt", default="The Eiffel Tower is in the city of")
    parser.add_argument("--plot", default="examples/figures/first_position_sink.png")
    args = parser.parse_args()

    model = real.load(attn_implementation="eager")
    sink = first_position_sink(model, args.prompt)
    print(sink.table())
    sink.plot(args.plot)
    print(f"wrote {args.plot}")


if __name__ == "__main__":
    main()
