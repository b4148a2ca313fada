"""Notes of InternLM3 written by hand, added to the derived ones. Read against transformers' configuration_internlm3.py
(InternLM3Config: attribute_map qkv_bias -> attention_bias and bias -> mlp_bias, validate_architecture refusing them
unequal, the class defaults), models/auto/modeling_auto.py (internlm3 -> LlamaForCausalLM) and modeling_rope_utils.py
(dynamic_rope_update: the dynamic frequencies recomputed when a call is longer than any before, reset by a call
shorter than max_position_embeddings; _compute_dynamic_ntk_parameters). The checkpoint numbers are
internlm3-8b-instruct's config.json as nnterp/families/checkpoints/internlm3.json records it. The snippets run on the
tiny InternLM3, and, for the rotary, on one given the release's dynamic scaling over 8 positions instead of 32768."""

LOAD = "eager"

MORE = r'''
## There is no InternLM3 model class: transformers builds `LlamaForCausalLM`

internlm3-8b-instruct's config.json names `"InternLM3ForCausalLM"` in `architectures`, the class of the remote code shipped beside the weights. transformers has no such class: its auto mapping sends `model_type` "internlm3" to `LlamaForCausalLM` and `LlamaModel`, under `InternLM3Config`. A load without `trust_remote_code` is therefore Llama's modules, block and kernels, with Llama's names (`model.layers[i].self_attn.q_proj`, `mlp.gate_proj`, …), and every value is read where Llama's is; a load with `trust_remote_code=True` runs the checkpoint's own file instead, a different implementation of the same weights. Code that dispatches on the module's class name sees Llama:

```python
import transformers

facts = released("internlm/internlm3-8b-instruct")
assert facts["architectures"] == ["InternLM3ForCausalLM"]
assert not hasattr(transformers, "InternLM3ForCausalLM")
assert type(model._module).__name__ == "LlamaForCausalLM" and model.config.model_type == "internlm3"
assert type(model.config).__name__ == "InternLM3Config"
assert type(model.layers[0]._module).__name__ == "LlamaDecoderLayer"
```

## `qkv_bias` and `bias` are two names for Llama's two switches, and they must agree

The config.json sets `"qkv_bias": false` and `"bias": false`, InternLM's own keys. `InternLM3Config` maps them onto Llama's: `qkv_bias` is `attention_bias`, which in Llama's attention puts a bias on `q_proj`, `k_proj`, `v_proj` and `o_proj` together, and `bias` is `mlp_bias`. Since Llama cannot bias the query, key and value projections without biasing the output projection too, the class refuses a config where the two differ. On internlm3-8b-instruct both are false: no projection of the model has a bias, and nothing constant is added anywhere but through the norms' weights.

```python
from transformers import InternLM3Config
from nnterp import tiny

facts = released("internlm/internlm3-8b-instruct")
config = InternLM3Config(**facts)
assert config.qkv_bias is config.attention_bias is False and config.bias is config.mlp_bias is False
try:
    InternLM3Config(qkv_bias=True, bias=False)
    raise AssertionError("a config with qkv_bias but not bias was accepted")
except Exception as error:
    assert "qkv_bias" in str(error) and "output projections" in str(error), error
biased = tiny.load("internlm3", attn_implementation="eager", qkv_bias=True, bias=True)
attention, mlp = biased.layers[0].self_attn, biased.layers[0].mlp
assert all(getattr(attention, p).bias is not None for p in ("q_proj", "k_proj", "v_proj", "o_proj"))
assert all(getattr(mlp, p).bias is not None for p in ("gate_proj", "up_proj", "down_proj"))
assert all(m.bias is None for m in model._module.modules() if isinstance(m, torch.nn.Linear))
```

## The rotary is dynamic NTK: nothing changes up to 32768 tokens, and past them the base grows with the call

internlm3-8b-instruct's rotary is `rope_type` "dynamic" with `factor` 6.0 on a base of 50000000 (`rope_theta`), for `max_position_embeddings` 32768. Up to 32768 tokens it is the plain rotary at that base: the factor does nothing. For a call of L > 32768 tokens, the base of every position of the call becomes `50000000 · (6 · L / 32768 − 5) ** (128 / 126)`: 3.61e8 at L = 65536. It is not a fixed stretch of the positions, like a linear or Llama 3 scaling, but one that depends on how long the call is. On a tiny model whose dynamic range ends at 8 positions, a call of 8 tokens rotates exactly as the plain rotary does, and a longer one does not:

```python
from transformers import InternLM3Config
from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS
from nnterp import tiny

facts = released("internlm/internlm3-8b-instruct")
rope = facts["rope_parameters"]
assert (rope["rope_type"], rope["factor"], rope["rope_theta"]) == ("dynamic", 6.0, 50000000)
assert facts["max_position_embeddings"] == 32768 and facts["head_dim"] == 128
config = InternLM3Config(**facts)
d = 128
plain = 1.0 / 50000000 ** (torch.arange(0, d, 2).float() / d)
at_limit, _ = ROPE_INIT_FUNCTIONS["dynamic"](config, seq_len=32768)
torch.testing.assert_close(at_limit, plain)
doubled, _ = ROPE_INIT_FUNCTIONS["dynamic"](config, seq_len=65536)
base = float(1 / doubled[1] ** (d / 2))
assert abs(base / (50000000 * (6 * 65536 / 32768 - 5) ** (128 / 126)) - 1) < 1e-4 and 3.6e8 < base < 3.62e8

dynamic = tiny.load("internlm3", attn_implementation="eager", max_position_embeddings=8,
                    rope_parameters={"rope_type": "dynamic", "factor": 6.0, "rope_theta": 10000.0})
ids = model.tokenizer("The Eiffel Tower is in the city of Paris, in France", return_tensors="pt").input_ids
def queries(m, tokens):
    with m.trace(tokens):
        q = m.layers[0].self_attn.attention_queries.save()
    return q
assert ids.shape[1] >= 13
assert torch.equal(queries(dynamic, ids[:, :8]), queries(model, ids[:, :8]))
assert not torch.equal(queries(dynamic, ids[:, :13]), queries(model, ids[:, :13]))
```

## Past 32768 tokens a position's stream depends on how many tokens come after it

Because the base is set by the call's length, the rotation at position i, and so every score and every stream vector from the first block on, depends on the total number of tokens in the call, the ones after i included. Up to 32768 tokens the model is causal in the usual sense: a prompt's prefix gives the same `layer_output` at its positions as the whole prompt. Past 32768, it is not: the same first 40000 tokens read differently inside a call of 40000 and inside a call of 50000. Activations cached from one long prompt cannot be compared position by position with those of a longer prompt that shares its prefix, and patching between two long prompts of different lengths mixes two rotaries. On the tiny model, whose limit is 8:

```python
from nnterp import tiny

dynamic = tiny.load("internlm3", attn_implementation="eager", max_position_embeddings=8,
                    rope_parameters={"rope_type": "dynamic", "factor": 6.0, "rope_theta": 10000.0})
ids = dynamic.tokenizer("The Eiffel Tower is in the city of Paris, in France", return_tensors="pt").input_ids
def stream(tokens):
    with dynamic.trace(tokens):
        out = dynamic.layers[-1].layer_output.save()
    return out
assert torch.equal(stream(ids[:, :5]), stream(ids[:, :8])[:, :5])          # within the limit: the prefix agrees
long, longer = stream(ids[:, :10]), stream(ids[:, :13])
assert not torch.allclose(long, longer[:, :10], atol=1e-6)                   # past it: the later tokens change it
torch.testing.assert_close(long[:, :1], longer[:, :1])                       # position 0 never turns
```

## The rotary remembers the longest call: between 32768 and that length, runs depend on their order

transformers computes the dynamic frequencies only when a call is longer than any call before it, keeps them in the rotary module, and restores the plain ones only when a call is shorter than 32768 tokens. A call whose length lies between 32768 and the longest call made so far therefore rotates at the longest call's base, not at its own: the same 40000-token prompt gives different activations before and after a 60000-token prompt has run, until a prompt under 32768 tokens resets the module. In a sweep over long prompts, sort nothing by length without knowing this, or run a short prompt between the long ones. On the tiny model (limit 8):

```python
from nnterp import tiny

dynamic = tiny.load("internlm3", attn_implementation="eager", max_position_embeddings=8,
                    rope_parameters={"rope_type": "dynamic", "factor": 6.0, "rope_theta": 10000.0})
ids = dynamic.tokenizer("The Eiffel Tower is in the city of Paris, in France", return_tensors="pt").input_ids
def queries(tokens):
    with dynamic.trace(tokens):
        q = dynamic.layers[0].self_attn.attention_queries.save()
    return q
first = queries(ids[:, :10])
queries(ids[:, :13])                                       # a longer call
after_longer = queries(ids[:, :10])
assert not torch.equal(first, after_longer)               # the same call, rotated at the longer call's base
queries(ids[:, :6])                                        # a call under the limit resets the module
assert torch.equal(queries(ids[:, :10]), first)
```

## `InternLM3Config()` is the 8B's shape, but not its rotary

`InternLM3Config`'s defaults are internlm3-8b-instruct's sizes: 48 blocks, width 4096, 32 query heads of 128 over 2 key and value heads, 10240 MLP neurons, 128512 tokens, 32768 positions. Its rotary is not: with no `rope_parameters` given, it rotates at base 10000 with no scaling, where the release sets 50000000 with the dynamic factor 6. A stand-in built from the class's defaults, for a random-weights baseline or a shape test, has the 8B's every matrix and a rotary 5000 times faster at the slow end. Build it from the released config.json:

```python
from transformers import InternLM3Config

facts = released("internlm/internlm3-8b-instruct")
assert (facts["num_hidden_layers"], facts["hidden_size"], facts["num_attention_heads"], facts["num_key_value_heads"],
        facts["intermediate_size"], facts["vocab_size"]) == (48, 4096, 32, 2, 10240, 128512)
default = InternLM3Config()
assert (default.num_hidden_layers, default.hidden_size, default.num_attention_heads, default.num_key_value_heads,
        default.intermediate_size, default.vocab_size) == (48, 4096, 32, 2, 10240, 128512)
assert default.rope_parameters == {"rope_theta": 10000.0, "rope_type": "default"}
assert InternLM3Config(**facts).rope_parameters == {"rope_type": "dynamic", "factor": 6.0, "rope_theta": 50000000}
```
'''
