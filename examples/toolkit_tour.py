"""A tour of the toolkit in a few lines each, on any model: a family name runs its tiny random model.

    python examples/toolkit_tour.py               # the embedded SmolLM2-135M-Instruct
    python examples/toolkit_tour.py phi           # a tiny random Phi: the same code, another family
"""

import sys

import torch

from nnterp.loading import load_model
from nnterp.tools import (
    ablate_heads, collect, direct_logit_attribution, generate, logit_difference, mean_difference, patch_heads,
    patch_positions, run, steer,
)

CLEAN = "The Eiffel Tower is in the city of"
CORRUPT = "The Colosseum is in the city of"


def main(name: str = "smollm2") -> None:
    model = load_model(name)
    real = name == "smollm2"
    answer, wrong = (" Paris", " Rome") if real else (10, 11)
    clean, corrupt = CLEAN, CORRUPT
    if not real:  # the tiny tokenizer splits words differently: corrupt three tokens of the clean prompt instead
        clean = model.tokenizer(CLEAN, return_tensors="pt").input_ids
        corrupt = clean.clone()
        corrupt[0, 1:4] = torch.tensor([5, 6, 7])

    # interventions: steering by a difference of means, relative to the stream's norm (position 0 left out)
    vector = mean_difference(model, ["I love this. It is wonderful"], ["I hate this. It is awful"], layer=model.num_layers // 2)
    print("steered:", generate(model, "I think that", steer(vector, layers=[model.num_layers // 2], relative=True,
                                                               coefficient=0.5), max_new_tokens=8))
    print("plain:  ", generate(model, "I think that", max_new_tokens=8))
    before, after = run(model, CLEAN)[0, -1], run(model, CLEAN, ablate_heads([(0, 0), (1, 1)]))[0, -1]
    print(f"two heads removed move the last logits by {float((after - before).abs().max()):.3f}")

    # activation patching, blocks x positions and blocks x heads
    metric = logit_difference(model, answer, wrong)
    print(patch_positions(model, clean, corrupt, metric).table(5))
    print(patch_heads(model, clean, corrupt, metric).table(5))

    # direct logit attribution: the parts sum to the logit
    print(direct_logit_attribution(model, CLEAN, answer).table(5))

    # data at scale: the last position's stream at every block, in batches
    data = collect(model, [CLEAN, CORRUPT, "Hello world"], ["layer_output"], batch_size=2)
    print("collected:", data, tuple(data["layer_output"].shape))


if __name__ == "__main__":
    main(*sys.argv[1:])
