"""The benchmark models and inputs, built with transformers alone so every library's process
builds the same model from the same seed."""

from __future__ import annotations

import copy
import os
from dataclasses import dataclass, field
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parent
TOKENIZER_DIR = ROOT / "results" / "word-tokenizer"

#: SmolLM2-135M-Instruct's config, for a random-weights stand-in where the checkpoint is absent
SMOLLM2_CONFIG = dict(
    hidden_size=576, num_hidden_layers=30, num_attention_heads=9, num_key_value_heads=3, head_dim=64,
    intermediate_size=1536, vocab_size=49152, max_position_embeddings=8192, rms_norm_eps=1e-5,
    tie_word_embeddings=True, rope_theta=100000.0,
)


@dataclass
class ModelSpec:
    name: str
    family: str  # llama or phi: which native module names the bare-nnsight readers use
    config_class: str
    config: dict
    batch: int
    seq: int
    checkpoint: str | None = None  # a local checkpoint directory; random weights otherwise
    notes: list[str] = field(default_factory=list)


def specs(smollm2_path: str | None) -> dict[str, ModelSpec]:
    tiny = ModelSpec(
        "tiny-llama", "llama", "LlamaConfig",
        dict(hidden_size=256, num_hidden_layers=4, num_attention_heads=8, num_key_value_heads=4, head_dim=32,
             intermediate_size=688, vocab_size=1000),
        batch=8, seq=64)
    smol = ModelSpec("smollm2-135m", "llama", "LlamaConfig", dict(SMOLLM2_CONFIG), batch=1, seq=32,
                     checkpoint=smollm2_path)
    if smollm2_path is None:
        smol.notes.append("the checkpoint is not on this machine: same config, random weights")
    phi = ModelSpec(
        "phi-100m", "phi", "PhiConfig",
        dict(hidden_size=768, num_hidden_layers=12, num_attention_heads=12, intermediate_size=3072,
             vocab_size=51200),
        batch=1, seq=32)
    return {spec.name: spec for spec in (tiny, smol, phi)}


def build(spec: ModelSpec, device: str, dtype: torch.dtype, attn_implementation: str = "sdpa", seed: int = 0,
          **overrides):
    """The model in eval mode on ``device``, with every parameter's values fixed by ``seed``."""
    import transformers
    from transformers import AutoModelForCausalLM

    if spec.checkpoint and not overrides:
        model = AutoModelForCausalLM.from_pretrained(spec.checkpoint, dtype=dtype,
                                                     attn_implementation=attn_implementation)
    else:
        config = getattr(transformers, spec.config_class)(**{**spec.config, **overrides})
        torch.manual_seed(seed)
        model = AutoModelForCausalLM.from_config(config, dtype=dtype, attn_implementation=attn_implementation)
    return model.to(device).eval()


def twin(model, attn_implementation: str | None = None):
    """An independent copy (its own weights), optionally under another attention implementation."""
    copied = copy.deepcopy(model)
    if attn_implementation and copied.config._attn_implementation != attn_implementation:
        copied.set_attn_implementation(attn_implementation)
    return copied


def sibling(model):
    """A copy of the module tree sharing every parameter and buffer: a built model to wrap, for free."""
    memo = {id(t): t for t in [*model.parameters(), *model.buffers()]}
    return copy.deepcopy(model, memo)


def inputs(spec: ModelSpec, device: str, batch: int | None = None, seq: int | None = None, seed: int = 1):
    """Token ids (random, fixed by ``seed``) and an all-ones attention mask."""
    generator = torch.Generator().manual_seed(seed)
    vocab = spec.config["vocab_size"]
    ids = torch.randint(0, vocab, (batch or spec.batch, seq or spec.seq), generator=generator)
    return ids.to(device), torch.ones_like(ids).to(device)


def tokenizer(spec: ModelSpec):
    """The checkpoint's tokenizer, or a one-word tokenizer saved once to disk (some libraries reload
    a tokenizer from its name_or_path); the benchmarks feed token ids, so its vocabulary is moot."""
    from transformers import AutoTokenizer

    if spec.checkpoint and Path(spec.checkpoint, "tokenizer.json").exists():
        return AutoTokenizer.from_pretrained(spec.checkpoint)
    if not (TOKENIZER_DIR / "tokenizer.json").exists():
        from tokenizers import Tokenizer, models, pre_tokenizers
        from transformers import PreTrainedTokenizerFast

        words = {"<|endoftext|>": 0, **{f"w{i}": i for i in range(1, 64)}}
        core = Tokenizer(models.WordLevel(words, unk_token="<|endoftext|>"))
        core.pre_tokenizer = pre_tokenizers.Whitespace()
        fast = PreTrainedTokenizerFast(tokenizer_object=core, bos_token="<|endoftext|>",
                                       eos_token="<|endoftext|>", pad_token="<|endoftext|>")
        partial = TOKENIZER_DIR.with_name(TOKENIZER_DIR.name + f".{os.getpid()}")
        fast.save_pretrained(partial)
        partial.replace(TOKENIZER_DIR) if not TOKENIZER_DIR.exists() else None
    return AutoTokenizer.from_pretrained(TOKENIZER_DIR)


def parameter_count(model) -> int:
    return sum(p.numel() for p in model.parameters())


def lm_loss(logits, ids):
    """Next-token cross-entropy of the logits against the input ids."""
    return torch.nn.functional.cross_entropy(logits[:, :-1].flatten(0, 1).float(), ids[:, 1:].flatten())


def lazily(build):
    """A zero-argument function that builds its value on the first call and keeps it: models only a
    scenario left out of the run would use are never built."""
    kept = []

    def get():
        if not kept:
            kept.append(build())
        return kept[0]
    return get
