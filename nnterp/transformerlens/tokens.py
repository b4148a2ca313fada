"""HookedTransformer's tokens: TransformerLens's to_tokens (its BOS convention), to_string, to_str_tokens,
to_single_token, get_token_position and tokens_to_residual_directions, over the model's own tokenizer."""

from __future__ import annotations

import torch

from nnterp.declare.errors import NnterpError


class Tokens:
    """TransformerLens's token methods, on a class with ``tokenizer``, ``cfg`` and ``W_U``."""

    def _tokens(self, input, prepend_bos=None, padding_side=None) -> torch.Tensor:
        if isinstance(input, torch.Tensor):
            return input if input.ndim == 2 else input[None]
        return self.to_tokens(input, prepend_bos=prepend_bos, padding_side=padding_side)

    def to_tokens(self, input, prepend_bos=None, padding_side=None, move_to_device: bool = True,
                  truncate: bool = True) -> torch.Tensor:
        """As TransformerLens: with prepend_bos (the default) the tokenizer's BOS leads each row, prepended by hand
        where the tokenizer adds none, and removed where it adds one and prepend_bos is False."""
        bos = self.cfg.default_prepend_bos if prepend_bos is None else prepend_bos
        texts = [input] if isinstance(input, str) else list(input)
        tokenizer, prepends = self.tokenizer, bool(self.cfg.tokenizer_prepends_bos)
        rows = tokenizer(texts)["input_ids"]
        if bos and not prepends:
            first = tokenizer.bos_token_id if tokenizer.bos_token_id is not None else tokenizer.eos_token_id
            if first is None:
                raise NnterpError("this tokenizer has no BOS (nor EOS) token to prepend: pass prepend_bos=False")
            rows = [[first, *row] for row in rows]  # the id itself: a tokenizer may not parse its BOS text
        elif not bos and prepends:
            rows = [row[1:] for row in rows]
        if truncate and self.cfg.n_ctx:
            rows = [row[:self.cfg.n_ctx] for row in rows]
        pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else tokenizer.eos_token_id
        side = padding_side or tokenizer.padding_side or "right"
        width = max(len(row) for row in rows)
        padded = [row + [pad] * (width - len(row)) if side == "right" else [pad] * (width - len(row)) + row
                  for row in rows]
        encoded = torch.tensor(padded, dtype=torch.long)
        return encoded.to(self.cfg.device) if move_to_device else encoded

    def to_string(self, tokens):
        if not isinstance(tokens, torch.Tensor):
            tokens = torch.tensor(tokens)
        if tokens.ndim == 2:
            return self.tokenizer.batch_decode(tokens, clean_up_tokenization_spaces=False)
        if tokens.ndim <= 1:
            return self.tokenizer.decode(tokens, clean_up_tokenization_spaces=False)
        raise ValueError(f"tokens of shape {list(tokens.shape)}: pass [pos] or [batch pos]")

    def to_str_tokens(self, input, prepend_bos=None, padding_side=None):
        if isinstance(input, list):
            return [self.to_str_tokens(item, prepend_bos, padding_side) for item in input]
        if isinstance(input, str):
            tokens = self.to_tokens(input, prepend_bos=prepend_bos, padding_side=padding_side)[0]
        else:
            tokens = torch.as_tensor(input).squeeze()
            tokens = tokens[None] if tokens.ndim == 0 else tokens
        return self.tokenizer.batch_decode([[int(t)] for t in tokens.tolist()], clean_up_tokenization_spaces=False)

    def to_single_token(self, string: str) -> int:
        tokens = self.to_tokens(string, prepend_bos=False).squeeze()
        if tokens.numel() != 1:
            raise ValueError(f"{string!r} is {tokens.numel()} tokens, not one: use to_tokens")
        return int(tokens.item())

    def to_single_str_token(self, int_token: int) -> str:
        return self.to_str_tokens(torch.tensor([int_token]))[0]

    def get_token_position(self, single_token, input, mode: str = "first", prepend_bos=None, padding_side=None):
        tokens = self._tokens(input, prepend_bos, padding_side) if isinstance(input, str) else \
            torch.as_tensor(input)
        tokens = tokens[0] if tokens.ndim == 2 else tokens
        token = self.to_single_token(single_token) if isinstance(single_token, str) else int(single_token)
        found = (tokens == token).nonzero()
        if not len(found):
            raise ValueError(f"the token {single_token!r} is not in the input")
        return int(found[0 if mode == "first" else -1].item())

    def tokens_to_residual_directions(self, tokens) -> torch.Tensor:
        if isinstance(tokens, torch.Tensor) and tokens.numel() > 1:
            return self.W_U[:, tokens].movedim(0, -1)
        token = self.to_single_token(tokens) if isinstance(tokens, str) else int(tokens)
        return self.W_U[:, token]
