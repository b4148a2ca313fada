"""Whether a hub repo id can be loaded from here, answered at once instead of after a load's retries."""

from __future__ import annotations

import os
import socket


def is_repo_id(name) -> bool:
    """``org/name`` that is not a local path."""
    return isinstance(name, str) and name.count("/") == 1 and not os.path.exists(name) and not name.startswith(".")


def cached(repo: str, cache_dir: str | None = None) -> bool:
    """Whether the repo's config is in the local hub cache."""
    try:
        from huggingface_hub import try_to_load_from_cache

        return isinstance(try_to_load_from_cache(repo, "config.json", cache_dir=cache_dir), str)
    except Exception:
        return False


def reachable(timeout: float = 3.0) -> bool:
    """One quick connection to the hub, instead of a load's retries (half a minute or more) ending in a traceback."""
    from huggingface_hub import constants

    if constants.HF_HUB_OFFLINE:
        return False
    from urllib.parse import urlparse

    host = urlparse(constants.ENDPOINT).hostname or "huggingface.co"
    try:
        socket.create_connection((host, 443), timeout=timeout).close()
        return True
    except OSError:
        return False


#: what loads offline instead, in the words of the Python API (the command line names its own)
OFFLINE_INSTEAD = ("load a local directory, a model built in memory (StandardizedTransformer(hf_model, tokenizer=tok)), "
                   "nnterp.real.load() or nnterp.tiny.load(family) offline")


def unreachable_reason(repo: str, cache_dir: str | None = None, instead: str = OFFLINE_INSTEAD) -> str | None:
    """The sentence to fail with when ``repo`` is a hub repo id that is neither cached nor reachable, else None.

    It imports huggingface_hub alone (no torch), so the command line answers with it before loading anything."""
    if not is_repo_id(repo) or cached(repo, cache_dir):
        return None
    from huggingface_hub import constants

    if constants.HF_HUB_OFFLINE:
        why = "HF_HUB_OFFLINE is set"
    elif not reachable():
        why = "the Hugging Face hub cannot be reached from here"
    else:
        return None
    return f"{repo!r} is a hub repo id, {why}, and the repo is not in the local cache: {instead}"
