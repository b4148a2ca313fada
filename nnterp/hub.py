"""Whether a hub repo id, or a model as a command names it, can be loaded from here: answered at once, from the
families' index and the hub cache, instead of after a load's retries and before torch loads."""

from __future__ import annotations

import difflib
import os
import socket

from nnterp.families import _index


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


class CommandRefused(Exception):
    """A command's argument names nothing it can load; printed as one line."""


REAL_NAMES = ("smollm2", "real", "SmolLM2-135M-Instruct")


def known(name: str) -> bool:
    """A family, a wrapper or the embedded model's name, by the index (no family module imported)."""
    return name in REAL_NAMES or name in _index.MODULES or name in _index.WRAPPERS


def not_a_family(name: str) -> str:
    near = difflib.get_close_matches(name.lower(), [*_index.MODULES, *_index.WRAPPERS], n=3, cutoff=0.5)
    hint = f"nearest: {', '.join(near)}; " if near else ""
    return (f"{name!r} is not a family ({hint}`nnterp table` lists all {len(_index.MODULES)}), 'smollm2', a local "
            f"directory, or a hub repo id (org/name)")


#: what the command line loads offline instead of a repo id it cannot reach
COMMAND_INSTEAD = "name a family (nnterp show phi), 'smollm2', or a local directory"


def refusal(name: str) -> str | None:
    """Why a command's model argument names nothing it can load, answered from the families' index and the hub
    cache before torch loads (a mistyped family, a repo id the hub cannot serve); None where it may load."""
    if os.path.exists(name):
        return None
    if "/" not in name:
        return None if known(name) else not_a_family(name)
    return unreachable_reason(name, instead=COMMAND_INSTEAD)
