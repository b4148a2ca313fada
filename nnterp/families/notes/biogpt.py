"""Notes of BioGPT written by hand, added to the derived ones. Read against transformers' modeling_biogpt.py
(BioGptLearnedPositionalEmbedding's offset and its mask-based numbering, BioGptModel.forward's position ids,
BioGptScaledWordEmbedding, the nn.LayerNorm modules built without an eps) and tokenization_biogpt.py (Moses, the
special tokens of build_inputs_with_special_tokens); the checkpoint numbers are the released config.json keys of
BioGPT, BioGPT-Large and BioGPT-Large-PubMedQA, as nnterp/families/checkpoints/biogpt.json records them. The snippets
run on the tiny BioGPT."""

LOAD = "eager"

MORE = r'''
## `layer_norm_eps` is read by nothing: every norm uses 1e-5

`BioGptConfig` has a `layer_norm_eps` key, 1e-12 by the class's default, but no module reads it: `self_attn_layer_norm`, `final_layer_norm` and the final `layer_norm` are built as `nn.LayerNorm(hidden_size)`, with PyTorch's default eps of 1e-5. A reimplementation, a converter or a lens that refolds the norms with the config's eps computes other norms (the difference shows where a row's variance is small), and changing the key changes nothing:

```python
from nnterp import tiny
from transformers import BioGptConfig

assert BioGptConfig().layer_norm_eps == 1e-12
hf = model._module
norms = [module for module in hf.modules() if isinstance(module, torch.nn.LayerNorm)]
assert len(norms) == 2 * model.num_layers + 1 and all(norm.eps == 1e-5 for norm in norms)

with model.trace(prompt):
    logits = model.logits.save()
other = tiny.load("biogpt", attn_implementation="eager", layer_norm_eps=0.5)
assert other.config.layer_norm_eps == 0.5
with other.trace(prompt):
    logits_other = other.logits.save()
assert torch.equal(logits_other, logits)
```

## Positions are a learned table read two rows down

`embed_positions` is an embedding of `max_position_embeddings + 2` rows, 1026 on BioGPT and 2050 on BioGPT-Large, and position p reads row p + 2: fairseq's offset, kept from when positions were numbered after the padding id (1). Rows 0 and 1 are never read by a forward of `BioGptModel`, and `embed_positions.weight[p]` is not position p's vector. `layers[0].input` is `token_embeddings` plus row p + 2. A prompt longer than `max_position_embeddings` (1024 tokens on BioGPT, 2048 on BioGPT-Large) indexes past the table and fails with `IndexError`.

```python
assert released("microsoft/biogpt")["max_position_embeddings"] == 1024
assert released("microsoft/BioGPT-Large")["max_position_embeddings"] == 2048

table = model._module.biogpt.embed_positions
assert table.offset == 2 and table.weight.shape[0] == model.config.max_position_embeddings + 2
with model.trace(prompt):
    tokens = model.token_embeddings.save()
    x = model.layers[0].layer_input.save()
n = x.shape[1]
torch.testing.assert_close(x - tokens, table.weight[2:n + 2][None])

too_long = torch.zeros(1, model.config.max_position_embeddings + 1, dtype=torch.long)
try:
    with model.trace(too_long):
        model.logits.save()
    raise AssertionError("a prompt past max_position_embeddings ran")
except IndexError:
    pass
```

## The table's padding-aware numbering never runs: the bare model shifts a left-padded prompt

`BioGptLearnedPositionalEmbedding.forward` can number positions from the attention mask (`cumsum(mask) − 1`, so padding does not count), but only when it is called without position ids, and `BioGptModel.forward` always passes them: `0, 1, 2, …` over the whole row, padding included. Called directly on a left-padded batch, a prompt starts at the position after its padding and its logits change. nnterp gives a left-padded batch its positions from the attention mask, so a prompt's logits in a batch are its logits alone:

```python
hf = model._module
ids = model.tokenizer(prompt, return_tensors="pt").input_ids
padded = torch.cat([torch.ones(1, 3, dtype=ids.dtype), ids], dim=1)
mask = torch.cat([torch.zeros(1, 3, dtype=torch.long), torch.ones_like(ids)], dim=1)
alone = hf(ids).logits[0, -1]
assert (hf(padded, attention_mask=mask).logits[0, -1] - alone).abs().max() > 1e-3

with model.trace([prompt, "Hello"]):   # nnterp left-pads "Hello" and gives each prompt its own positions
    batch = model.logits.save()
with model.trace(prompt):
    single = model.logits.save()
torch.testing.assert_close(batch[0, -1], single[0, -1])
```

## The token embeddings are multiplied by √hidden_size; the tied head reads them unscaled

`scale_embedding` is true on every released checkpoint: `embed_tokens` multiplies its rows by √hidden_size in its own forward, 32 on BioGPT and 40 on BioGPT-Large. `token_embeddings` is the scaled row. `output_projection`, the head (nnterp's `lm_head`), is the same matrix used without the factor, so a token's own embedding, read through the head, scores it √hidden_size times what the bare row would; a probe or a steering vector taken from `embed_tokens.weight` is 32 (or 40) times smaller than what the stream carries for that token.

```python
assert released("microsoft/biogpt")["scale_embedding"] is True
assert released("microsoft/biogpt")["hidden_size"] ** 0.5 == 32
assert released("microsoft/BioGPT-Large")["hidden_size"] ** 0.5 == 40

with model.trace(prompt):
    ids = model.input_ids.save()
    tokens = model.token_embeddings.save()
scale = model.hidden_size ** 0.5
assert model.embed_tokens.embed_scale == scale
assert torch.equal(tokens, model.embed_tokens.weight[ids] * scale)
assert model.lm_head.weight is model.embed_tokens.weight
```

## The block has no MLP module: `mlp` is `fc2`, and `mlp.input` is the neurons

fairseq's layer holds `fc1`, `activation_fn` and `fc2` as its own children, with no module around them. nnterp's `mlp` is therefore `fc2`, the down projection: `mlp.output` is what the MLP half adds to the stream, but `mlp.input` is `fc2`'s input, the `intermediate_size`-wide activations (4096 on BioGPT, 6400 on BioGPT-Large), not the `hidden_size`-wide normed stream it is on Llama. The MLP half's input is the layer value `mlp_input`, `fc1`'s input, which is `mlp_norm_output`. Code written for a model with an MLP module that reads `mlp.input` as the stream gets the neurons here, with another width; zeroing `mlp.output` still removes the whole MLP half:

```python
assert released("microsoft/biogpt")["intermediate_size"] == 4096
assert released("microsoft/BioGPT-Large")["intermediate_size"] == 6400

layer = model.layers[0]
assert layer.mlp._module is model._module.biogpt.layers[0].fc2
with model.trace(prompt):
    mid = layer.layer_mid.save()
    stream_in = layer.mlp_input.save()
    normed = layer.mlp_norm_output.save()
    neurons = layer.mlp.input.save()
    out = layer.layer_output.save()

assert neurons.shape[-1] == model.config.intermediate_size != stream_in.shape[-1] == model.hidden_size
assert torch.equal(stream_in, normed)
torch.testing.assert_close(neurons, torch.nn.functional.gelu(layer.fc1(normed)))
with model.trace(prompt):
    layer.mlp.output[:] = 0
    ablated = layer.layer_output.save()
assert torch.equal(ablated, mid)
```

## The tokenizer starts a text with `</s>`, splits it with Moses first, and needs sacremoses

`BioGptTokenizer` is fairseq's: it runs the Moses tokenizer over the text, then a BPE whose word-final pieces end in `</w>`, and it adds `</s>` (the separator, id 2, the config's `eos_token_id`) in front of a text, `</s> A </s> B` for a pair; `<s>` (id 0, `bos_token_id`) is never added. Position 0 of a tokenized text is `</s>`. The Moses step comes from the `sacremoses` package, which is not among transformers' requirements: without it, loading the tokenizer fails with an `ImportError` that names it (`pip install sacremoses`).

```python
import sys
from transformers import BioGptTokenizer

facts = released("microsoft/biogpt")
assert (facts["bos_token_id"], facts["eos_token_id"], facts["pad_token_id"]) == (0, 2, 1)

class Separator:
    sep_token_id = 2
assert BioGptTokenizer.build_inputs_with_special_tokens(Separator(), [7, 8]) == [2, 7, 8]
assert BioGptTokenizer.build_inputs_with_special_tokens(Separator(), [7], [9]) == [2, 7, 2, 9]

import importlib.metadata

required = [r for r in importlib.metadata.requires("transformers") or [] if "extra ==" not in r]
assert not any(r.startswith("sacremoses") for r in required)
kept = sys.modules.get("sacremoses")
sys.modules["sacremoses"] = None   # as where it is not installed
try:
    BioGptTokenizer(vocab_file="unused", merges_file="unused")
    raise AssertionError("the tokenizer loaded without sacremoses")
except ImportError as error:
    assert "sacremoses" in str(error)
finally:
    if kept is None:
        del sys.modules["sacremoses"]
    else:
        sys.modules["sacremoses"] = kept
```

## BioGPT-Large-PubMedQA has nine rows more than BioGPT-Large

The three released checkpoints have two widths and three vocabularies. BioGPT has 24 blocks of 1024 (16 heads of 64) and 42384 tokens; BioGPT-Large has 48 blocks of 1600 (25 heads of 64) and 57717 tokens; BioGPT-Large-PubMedQA, fine-tuned from it, has 57726 rows, nine more. Its embedding and head are therefore not BioGPT-Large's matrices: comparing the two checkpoints' logits, or reading the fine-tune with the base model's lens, needs the first 57717 rows, and ids from 57717 on are the fine-tune's own tokens, which the base model has no row for.

```python
base, tuned = released("microsoft/BioGPT-Large"), released("microsoft/BioGPT-Large-PubMedQA")
assert tuned["vocab_size"] - base["vocab_size"] == 9
assert all(base[key] == tuned[key] for key in ("hidden_size", "num_hidden_layers", "num_attention_heads"))
assert base["hidden_size"] // base["num_attention_heads"] == 64 and base["num_attention_heads"] == 25
small = released("microsoft/biogpt")
assert (small["num_hidden_layers"], small["hidden_size"], small["vocab_size"]) == (24, 1024, 42384)
```
'''
