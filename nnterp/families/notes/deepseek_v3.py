"""Notes of DeepSeek-V3 written by hand, added to the derived ones. Read against transformers'
modeling_deepseek_v3.py: DeepseekV3Attention sets self.scaling = yarn_apply_mscale(config.rope_parameters,
qk_head_dim ** -0.5), which multiplies by mscale² when the rope is scaled and mscale_all_dim is set. The family
module's config facts name no rope scaling, so the derived scale note (which would give 192 ** -0.5) is replaced
by this one, whose rope parameters are DeepSeek-V3's config.json's; so is the derived rotary note, which would
call the rope unscaled."""

DROP = ("scale_note", "rotary_note")

MORE = r'''
## The softmax scale is 192 ** -0.5 × mscale², about 0.1352, not 1 / √192

A query or key head is `qk_nope_head_dim + qk_rope_head_dim` = 128 + 64 = 192 wide, but the attention does not scale by `192 ** -0.5` (0.0722). DeepSeek-V3's config.json scales the rope by YaRN (`factor` 40, `mscale` 1.0, `mscale_all_dim` 1.0, `original_max_position_embeddings` 4096, `beta_fast` 32, `beta_slow` 1, base 10000), and `DeepseekV3Attention` multiplies the scale by `mscale²`, with `mscale = 0.1 · mscale_all_dim · ln(factor) + 1` = 1.3689: `self.scaling` is 0.13523. The rotary turns the `qk_rope_head_dim` = 64 rope dimensions of each head (the other 128 carry no position), with YaRN's frequencies; its own `attention_scaling` is 1.0 (`mscale` / `mscale_all_dim`), so cos and sin are not scaled. These rope parameters are not among the family module's config facts; the snippet builds DeepSeek-V3 on the meta device with them and reads the scale the constructor computes, then checks on a tiny model with the same rope that the scores use `self.scaling`.

```python
import math
from transformers import AutoModelForCausalLM, DeepseekV3Config

yarn = {"rope_type": "yarn", "rope_theta": 10000.0, "factor": 40.0, "mscale": 1.0, "mscale_all_dim": 1.0,
        "original_max_position_embeddings": 4096, "beta_fast": 32.0, "beta_slow": 1.0}   # DeepSeek-V3's config.json
facts = model.family.checkpoints[0].config        # deepseek-ai/DeepSeek-V3's config facts
with torch.device("meta"):
    real = AutoModelForCausalLM.from_config(DeepseekV3Config(**facts, rope_parameters=yarn))

mscale = 0.1 * math.log(40) + 1
scale = real.model.layers[0].self_attn.scaling
assert abs(scale - 192 ** -0.5 * mscale ** 2) < 1e-12 and round(scale, 4) == 0.1352
assert real.model.rotary_emb.attention_scaling == 1.0
```

```python
import math
from nnterp import tiny

yarn = {"rope_type": "yarn", "rope_theta": 10000.0, "factor": 40.0, "mscale": 1.0, "mscale_all_dim": 1.0,
        "original_max_position_embeddings": 4096, "beta_fast": 32.0, "beta_slow": 1.0}
mscale = 0.1 * math.log(40) + 1
small = tiny.load("deepseek_v3", attn_implementation="eager", rope_parameters=yarn)
attention = small.layers[0].self_attn
with small.trace(prompt):
    q = attention.attention_queries.save()
    k = attention.attention_keys.save()
    scores = attention.attention_scores.save()

assert abs(attention.scaling - small.qk_head_dim ** -0.5 * mscale ** 2) < 1e-12
live = scores > torch.finfo(scores.dtype).min / 2
torch.testing.assert_close((q @ k.transpose(-1, -2) * attention.scaling)[live], scores[live])
```
'''
