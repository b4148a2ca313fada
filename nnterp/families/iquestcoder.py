"""IQuest-Coder (LlamaForCausalLM under IQuestCoderConfig).

transformers builds IQuest-Coder as LlamaForCausalLM: its own config class (model_type
iquestcoder) and Llama's modules, block and kernel call, so every value is read where Llama's is.
"""

from nnterp.family import Checkpoint, Family

from ._llama import tiny

FAMILY = Family(
    name="iquestcoder",
    model_types=("iquestcoder",),
    summary="IQuest-Coder's config on Llama's model class: every value where Llama's is.",
    tags=("Sequential block", "RMSNorm", "Grouped keys/values", "Gated MLP"),
    checkpoints=(
        # official model-card table of IQuest-Coder-V1 (IQuestLab/IQuest-Coder-V1 README, "Model Overview"):
        # 80 layers, hidden 5120, 40 query / 8 KV heads, vocabulary 76,800; the table gives no intermediate size.
        Checkpoint("IQuestLab/IQuest-Coder-V1-40B-Instruct", "IQuest-Coder-V1-40B-Instruct", {
            "num_hidden_layers": 80, "hidden_size": 5120, "num_attention_heads": 40, "num_key_value_heads": 8,
            "vocab_size": 76800,
        }),
    ),
    tiny=tiny("IQuestCoderConfig", head_dim=16),
)
