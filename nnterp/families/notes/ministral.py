"""Notes of Ministral written by hand, added to the derived ones. Read against transformers' configuration_ministral.py
(layer_types all sliding when a config gives none), modeling_ministral.py (MinistralAttention passing sliding_window
only on sliding layers; the two masks of MinistralModel.forward), models/auto/configuration_auto.py (a "mistral"
config with layer_types is turned into "ministral"), configuration_mistral.py and modeling_mistral.py (MistralConfig
keeps layer_types with a warning; MistralModel builds one sliding mask for every layer) and masking_utils.py (the
window's extent, the masked value). The checkpoint numbers are Ministral-8B-Instruct-2410's config.json as
nnterp/families/checkpoints/ministral.json records it. The snippets run on the tiny Ministral, and on tiny models given
a window of 3 positions."""

LOAD = "eager"

MORE = r'''
## Ministral-8B-Instruct-2410 is released as a Mistral checkpoint: its `layer_types` make transformers build Ministral

Ministral-8B-Instruct-2410's config.json names `"MistralForCausalLM"` in `architectures` (and `model_type` "mistral"), yet lists a `layer_types` pattern and a `sliding_window`, which Mistral's classes have no use for. transformers' `AutoConfig` has a rule for exactly this file: a "mistral" config that carries `layer_types` is read as "ministral", so `AutoModelForCausalLM` (and nnterp, which reads the config through `AutoConfig`) builds `MinistralForCausalLM`, whose attention honours the pattern. Code that reads `architectures` to decide what the model is, or a conversion written for Mistral, takes it for a Mistral 7B-style model with one window on every block:

```python
import json
import tempfile
from transformers import AutoConfig

facts = released("mistralai/Ministral-8B-Instruct-2410")
assert facts["architectures"] == ["MistralForCausalLM"] and len(facts["layer_types"]) == 36
with tempfile.TemporaryDirectory() as folder:
    with open(f"{folder}/config.json", "w") as file:
        json.dump({"model_type": "mistral", **facts}, file)
    config = AutoConfig.from_pretrained(folder)
assert type(config).__name__ == "MinistralConfig" and config.layer_types == facts["layer_types"]
assert type(model._module).__name__ == "MinistralForCausalLM"
```

## Built with `MistralForCausalLM` by name, every block is windowed, the full ones too

`MistralConfig` accepts the file's `layer_types` (with a warning) and keeps them on the config, but `MistralModel` never reads them: it builds one sliding-window mask whenever `sliding_window` is set and gives it to every block. Loading Ministral-8B-Instruct-2410 with `MistralForCausalLM.from_pretrained`, as its `architectures` suggests, therefore windows its 9 full-attention blocks as well; nothing fails, and within 32768 tokens nothing differs (see below), but past them the model is not the one released. On two tiny models with a window of 3 and block 0 marked full, Ministral's block 0 sees every earlier position and Mistral's sees three:

```python
from transformers import MistralConfig, MistralForCausalLM

facts = released("mistralai/Ministral-8B-Instruct-2410")
assert facts["layer_types"].count("full_attention") == 9
sizes = dict(hidden_size=64, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2, intermediate_size=128,
             vocab_size=300, head_dim=16, sliding_window=3, layer_types=["full_attention", "sliding_attention"])
mistral_config = MistralConfig(**sizes)
assert mistral_config.layer_types == ["full_attention", "sliding_attention"]        # kept, and never read
mistral = MistralForCausalLM(mistral_config).eval()
mistral.config._attn_implementation = "eager"
ids = torch.arange(1, 9)[None]
seen = [(a[0, 0] > 0).sum(-1).tolist() for a in mistral(ids, output_attentions=True).attentions]
assert seen == [[1, 2, 3, 3, 3, 3, 3, 3]] * 2                                         # both blocks windowed

from nnterp import tiny
ministral = tiny.load("ministral", attn_implementation="eager", sliding_window=3,
                      layer_types=["full_attention", "sliding_attention"])
with ministral.trace(ids):
    full = ministral.layers[0].self_attn.attention_probabilities.save()
    windowed = ministral.layers[1].self_attn.attention_probabilities.save()
assert (full[0, 0] > 0).sum(-1).tolist() == list(range(1, 9))
assert (windowed[0, 0] > 0).sum(-1).tolist() == [1, 2, 3, 3, 3, 3, 3, 3]
```

## The window is the whole context: within 32768 tokens the sliding blocks cut nothing

Ministral-8B-Instruct-2410 sets `sliding_window` 32768 and `max_position_embeddings` 32768. A sliding block sees the last 32768 positions, so on any prompt the config says the model takes, its window holds every earlier position and it computes exactly what a full-attention block would: the 27 sliding blocks and the 9 full ones differ only past 32768 tokens, where the rotary (base 100000000, no scaling) runs beyond its configured range. An analysis that contrasts "local" and "global" blocks of this checkpoint on ordinary prompts contrasts nothing. On the tiny model, a window longer than the prompt gives bit for bit the logits of an all-full model:

```python
from nnterp import tiny

facts = released("mistralai/Ministral-8B-Instruct-2410")
assert facts["sliding_window"] == facts["max_position_embeddings"] == 32768
assert facts["rope_theta"] == 100000000.0 and "rope_scaling" not in facts
wide = tiny.load("ministral", attn_implementation="eager", sliding_window=64,
                 layer_types=["full_attention", "sliding_attention"])
full = tiny.load("ministral", attn_implementation="eager", sliding_window=64,
                 layer_types=["full_attention", "full_attention"])
narrow = tiny.load("ministral", attn_implementation="eager", sliding_window=3,
                   layer_types=["full_attention", "sliding_attention"])
def logits_of(m):
    with m.trace(prompt):
        logits = m.logits.save()
    return logits
reference = logits_of(full)
assert reference.shape[1] <= 64
assert torch.equal(logits_of(wide), reference)
assert not torch.allclose(logits_of(narrow), reference)
```

## A sliding block sees `sliding_window` positions, itself included, and masks the rest with float32's lowest value

On a sliding block, query i attends to keys i − w + 1 through i, w = `sliding_window`: w positions counting its own, not w before it. `attention_scores` is read after the mask is added, and the masked entries, beyond the window and in the causal future alike, hold `torch.finfo(dtype).min` (−3.4e38 in float32), not −inf: the softmax turns them into exact zeros, but a mean, a sum or a norm taken over a row of `attention_scores` is swamped by them. Select the visible entries before reducing, as the snippet does:

```python
from nnterp import tiny

windowed = tiny.load("ministral", attn_implementation="eager", sliding_window=3,
                     layer_types=["sliding_attention", "sliding_attention"])
with windowed.trace(prompt):
    scores = windowed.layers[0].self_attn.attention_scores.save()
    probs = windowed.layers[0].self_attn.attention_probabilities.save()

n, w = scores.shape[-1], windowed.config.sliding_window
i, j = torch.arange(n)[:, None], torch.arange(n)[None, :]
visible = (j <= i) & (j > i - w)
lowest = torch.finfo(scores.dtype).min
assert bool((scores[..., ~visible] == lowest).all()) and bool((scores[..., visible] > lowest / 2).all())
assert bool((probs[..., ~visible] == 0).all()) and bool((probs[..., visible] > 0).all())
assert visible.sum(-1).tolist() == [min(k + 1, w) for k in range(n)]
assert scores.mean() < -1e37                                # a row's mean is the mask's, not the scores'
assert abs(float(scores[..., visible].mean())) < 10
```

## One block in four is full: blocks 0, 4, …, 32, and `MinistralConfig` alone makes every block sliding

Ministral-8B-Instruct-2410's `layer_types` repeats one `full_attention` block and three `sliding_attention` blocks nine times: blocks 0, 4, 8, …, 32 are full, the other 27 sliding, so the first block and the fourth from last are full and the last three slide. The pattern lives only in the file. `MinistralConfig` given no `layer_types` (a config built by hand from the sizes, a stand-in built from the class) makes every block sliding whenever `sliding_window` is set, with its own default window of 4096; with `sliding_window` None, every block is full:

```python
from transformers import MinistralConfig

facts = released("mistralai/Ministral-8B-Instruct-2410")
kinds = facts["layer_types"]
assert [i for i, kind in enumerate(kinds) if kind == "full_attention"] == list(range(0, 36, 4))
assert kinds.count("sliding_attention") == 27 and kinds[-3:] == ["sliding_attention"] * 3
assert MinistralConfig(num_hidden_layers=36).layer_types == ["sliding_attention"] * 36
assert MinistralConfig().sliding_window == 4096
assert MinistralConfig(num_hidden_layers=36, sliding_window=None).layer_types == ["full_attention"] * 36
assert model.config.layer_types == ["sliding_attention"] * model.num_layers          # the tiny model's, from the class
```

## A base of 100000000 with no scaling: 34 of each head's 64 rotary pairs turn less than once across the context

Ministral-8B-Instruct-2410 rotates all 128 dimensions of each head at `rope_theta` 100000000, with no `rope_scaling`, over 32768 positions. At that base, 34 of the 64 frequency pairs have wavelengths over 32768: across the whole context they turn less than once, and across a 512-token prompt by at most a tenth of a radian. More than half of every query and key scores keys nearly by content on an ordinary prompt; position is told by the 30 faster pairs. The tiny model's rotary is the same function of its own config:

```python
import math

facts = released("mistralai/Ministral-8B-Instruct-2410")
assert facts["rope_theta"] == 100000000.0 and facts["head_dim"] == 128 and facts["max_position_embeddings"] == 32768
d = 128
inv_freq = 1.0 / 100000000.0 ** (torch.arange(0, d, 2).float() / d)
slow = 2 * math.pi / inv_freq > 32768
assert int(slow.sum()) == 34 and float((512 * inv_freq[slow]).max()) < 0.1

rotary = model._module.model.rotary_emb
theta, dim = model.config.rope_parameters["rope_theta"], model.head_dim
torch.testing.assert_close(rotary.inv_freq, 1.0 / theta ** (torch.arange(0, dim, 2).float() / dim))
```
'''
