"""What the tests of the embedded real checkpoints share."""

import torch


def assert_wraps_the_bare_model(wrapped, bare, prompt, sizes) -> None:
    """The wrapped model's logits are the bare transformers model's, bit for bit; ' Paris' is its top next token; its
    accessors give the checkpoint's sizes (num_layers, hidden_size, num_heads, num_kv_heads, head_dim, vocab_size)."""
    ids = wrapped.tokenizer(prompt, return_tensors="pt")
    with torch.no_grad():
        expected = bare(**ids).logits
    with wrapped.trace(prompt):
        logits = wrapped.logits.save()
        probs = wrapped.next_token_probs.save()
    assert torch.equal(logits, expected)
    assert wrapped.tokenizer.decode([int(probs[0].argmax())]) == " Paris"
    assert (wrapped.num_layers, wrapped.hidden_size, wrapped.num_heads, wrapped.num_kv_heads, wrapped.head_dim,
            wrapped.vocab_size) == sizes
