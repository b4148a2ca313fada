"""Notes of EXAONE 3 written by hand, added to the derived ones. Read against transformers'
configuration_exaone.py (ExaoneConfig: attribute_map, default_theta, __post_init__), the "exaone" entry of
conversion_mapping.py (the renaming of the released weights), models/auto (exaone built as
LlamaForCausalLM) and modeling_llama.py. Numbers are EXAONE-3.0-7.8B-Instruct's released config as recorded in
nnterp/families/checkpoints/exaone.json; the snippets run on the tiny EXAONE (a LlamaForCausalLM under
ExaoneConfig)."""

LOAD = "eager"

MORE = r'''
## The config names `ExaoneForCausalLM`, a class transformers does not have: the model is `LlamaForCausalLM`

EXAONE-3.0-7.8B-Instruct's config.json lists `architectures` `["ExaoneForCausalLM"]` and `model_type` `exaone`. transformers has no such class: `AutoModelForCausalLM` maps `exaone` to `LlamaForCausalLM` and `ExaoneConfig` to Llama's modules, so what runs is Llama's forward, module for module, and `model._module` is a `LlamaForCausalLM` whose `config.model_type` is still `exaone`. Code that dispatches on the class name sees Llama; code that dispatches on `model_type` sees EXAONE.

```python
import transformers
from transformers.models.auto.modeling_auto import MODEL_FOR_CAUSAL_LM_MAPPING_NAMES

facts = released("LGAI-EXAONE/EXAONE-3.0-7.8B-Instruct")
assert facts["architectures"] == ["ExaoneForCausalLM"]
assert not hasattr(transformers, "ExaoneForCausalLM")
assert MODEL_FOR_CAUSAL_LM_MAPPING_NAMES["exaone"] == "LlamaForCausalLM"
assert type(model._module).__name__ == "LlamaForCausalLM" and model.config.model_type == "exaone"
```

## The released weights are renamed on load: `transformer.h.N.attn.attention` becomes `model.layers.N.self_attn`

The checkpoint stores EXAONE's own parameter names, GPT-2-like: `transformer.wte`, `transformer.h.N.ln_1`, `attn.attention.{q,k,v}_proj` and `out_proj`, `ln_2`, `mlp.c_fc_0`, `mlp.c_fc_1` and `mlp.c_proj`, `transformer.ln_f`. transformers' conversion mapping for `exaone` renames them as it loads: `c_fc_0` is the gate (`gate_proj`, the one the SiLU reads), `c_fc_1` the up projection, `c_proj` the down projection, `out_proj` becomes `o_proj`, `ln_1` `input_layernorm` and `ln_2` `post_attention_layernorm`. A weight file read directly, or a paper's or a remote-code module path, uses the first names; the loaded model, nnterp's standard names and `model._module.state_dict()` use the second.

```python
import re
from transformers.conversion_mapping import get_checkpoint_conversion_mapping

renamings = get_checkpoint_conversion_mapping("exaone")
def renamed(name):
    for rule in renamings:
        name = re.sub(rule.source_patterns[0], rule.target_patterns[0], name)
    return name

stored = {"transformer.wte.weight": "model.embed_tokens.weight",
          "transformer.h.0.ln_1.weight": "model.layers.0.input_layernorm.weight",
          "transformer.h.0.attn.attention.q_proj.weight": "model.layers.0.self_attn.q_proj.weight",
          "transformer.h.0.attn.attention.out_proj.weight": "model.layers.0.self_attn.o_proj.weight",
          "transformer.h.0.ln_2.weight": "model.layers.0.post_attention_layernorm.weight",
          "transformer.h.0.mlp.c_fc_0.weight": "model.layers.0.mlp.gate_proj.weight",
          "transformer.h.0.mlp.c_fc_1.weight": "model.layers.0.mlp.up_proj.weight",
          "transformer.h.0.mlp.c_proj.weight": "model.layers.0.mlp.down_proj.weight",
          "transformer.ln_f.weight": "model.norm.weight"}
loaded = set(model._module.state_dict())
for old, new in stored.items():
    assert renamed(old) == new and new in loaded

mlp = model.layers[0].mlp
with model.trace(prompt):
    x = model.layers[0].mlp_input.save()
    act = mlp.mlp_activation.save()
torch.testing.assert_close(act, torch.nn.functional.silu(mlp.gate_proj(x)))   # c_fc_0 is the gated one
```

## EXAONE's config keys are aliases, and a config saved by transformers writes Llama's instead

EXAONE-3.0-7.8B-Instruct's config.json says `num_layers` 32, `layer_norm_epsilon` 1e-05 and `activation_function` `silu`. `ExaoneConfig.attribute_map` makes each an alias of Llama's attribute (`num_hidden_layers`, `rms_norm_eps`, `hidden_act`): reading or setting either name reaches the same value. `to_dict` and `save_pretrained` write only Llama's names, and the legacy `rope_theta` goes into `rope_parameters`: a config saved from the loaded model has no `num_layers`, `layer_norm_epsilon` or `rope_theta` key, and code that reads the released names from it finds nothing.

```python
from transformers import ExaoneConfig

facts = released("LGAI-EXAONE/EXAONE-3.0-7.8B-Instruct")
assert (facts["num_layers"], facts["layer_norm_epsilon"], facts["activation_function"]) == (32, 1e-05, "silu")
config = ExaoneConfig(**facts)
assert (config.num_hidden_layers, config.rms_norm_eps, config.hidden_act) == (32, 1e-05, "silu")
assert config.num_layers == 32
saved = config.to_dict()
assert saved["num_hidden_layers"] == 32 and saved["rms_norm_eps"] == 1e-05 and saved["hidden_act"] == "silu"
assert not {"num_layers", "layer_norm_epsilon", "activation_function"} & set(saved)
assert saved.get("rope_theta") is None and saved["rope_parameters"]["rope_theta"] == 500000.0
```

## `ln_1`, `ln_2` and `ln_f` are RMSNorms: no centring and no bias, whatever `layer_norm_epsilon` suggests

The released names are GPT-2's and the epsilon key is a LayerNorm's, but the norms are Llama's RMSNorm: x / rms(x) · weight, with no mean subtracted and no bias, eps 1e-05 on EXAONE-3.0-7.8B-Instruct. The normed stream is not centred: its mean over the hidden dimension is whatever the stream's was, scaled. A LayerNorm reimplementation, or a lens that centres before folding the weight, computes another model.

```python
norm = model.layers[0].input_layernorm
assert getattr(norm._module, "bias", None) is None
with model.trace(prompt):
    x = model.layers[0].layer_input.save()
    normed = model.layers[0].attention_norm_output.save()

eps = released("LGAI-EXAONE/EXAONE-3.0-7.8B-Instruct")["layer_norm_epsilon"]
assert model.config.rms_norm_eps == eps
rms = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * norm.weight
torch.testing.assert_close(normed, rms)
centred = torch.nn.functional.layer_norm(x, x.shape[-1:], norm.weight, None, eps)
assert not torch.allclose(normed, centred, atol=1e-4)
```

## The rotary base defaults to 500000: a config without `rope_theta` still gets EXAONE's, not Llama's 10000

EXAONE-3.0-7.8B-Instruct's config sets `rope_theta` 500000, and `ExaoneConfig` takes the same value as its `default_theta`: a config written without the key (or a model built from `ExaoneConfig()`) rotates at base 500000, while the same sizes under `LlamaConfig` rotate at 10000. A conversion that drops the key and rebuilds the config as Llama's changes every head's rotation. Each 128-dimension head turns whole, with `rotate_half`.

```python
from transformers import ExaoneConfig, LlamaConfig

facts = released("LGAI-EXAONE/EXAONE-3.0-7.8B-Instruct")
assert facts["rope_theta"] == 500000.0
without = {k: v for k, v in facts.items() if k != "rope_theta"}
assert ExaoneConfig(**without).rope_parameters == {"rope_type": "default", "rope_theta": 500000.0}
assert LlamaConfig(hidden_size=4096, num_attention_heads=32).rope_parameters["rope_theta"] == 10000.0

rotary = model._module.model.rotary_emb
d = model.head_dim
torch.testing.assert_close(rotary.inv_freq, 1.0 / 500000.0 ** (torch.arange(0, d, 2).float() / d))
```

## The config has no `head_dim`; a `num_key_value_heads` of null means one key head per query head, not the class's 8

EXAONE-3.0-7.8B-Instruct's config gives no `head_dim`: `ExaoneConfig.__post_init__` computes it as `hidden_size // num_attention_heads`, 4096 // 32 = 128. Its `num_key_value_heads` is 8, written out; the class default is also 8, but a config that sets the key to null gets `num_attention_heads` (32, plain multi-head attention), not the default. A config rebuilt with `num_key_value_heads=None` has key and value projections 4 times wider than the checkpoint's, 4096 rows instead of 1024, which its weights do not fit.

```python
from transformers import ExaoneConfig

facts = released("LGAI-EXAONE/EXAONE-3.0-7.8B-Instruct")
assert "head_dim" not in facts and facts["num_key_value_heads"] == 8
assert ExaoneConfig(**facts).head_dim == facts["hidden_size"] // facts["num_attention_heads"] == 128
as_null = ExaoneConfig(**{**facts, "num_key_value_heads": None})
assert as_null.num_key_value_heads == 32 and as_null.num_key_value_heads * as_null.head_dim == 4096
assert facts["num_key_value_heads"] * 128 == 1024
without = {k: v for k, v in facts.items() if k != "num_key_value_heads"}
assert ExaoneConfig(**without).num_key_value_heads == 8                       # the class default

k_proj = model.layers[0].self_attn.k_proj
assert k_proj.weight.shape[0] == model.num_kv_heads * model.head_dim
```
'''
