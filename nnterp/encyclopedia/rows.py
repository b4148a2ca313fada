"""Reading ``support()`` rows by block: most families have one kind of block, hybrids one per kind.

``support()`` spells a host of a hybrid with the blocks it covers, ``model.layers[i].self_attn for i in
2, 5``; these helpers split that suffix off and pick, per value, the row a diagram or a snippet should use.
"""

from __future__ import annotations

RANK = {"served": 0, "conditioned": 1, "unavailable": 2}


def split_host(host: str) -> tuple[str, str]:
    """('model.layers[i].self_attn', '2, 5') from 'model.layers[i].self_attn for i in 2, 5'."""
    base, _, blocks = host.partition(" for i in ")
    return base, blocks


def first_block(blocks: str) -> int:
    """The first block index of '2, 5-7' (0 when the host covers every block)."""
    return int(blocks.split(",")[0].split("-")[0]) if blocks else 0


def indices(blocks: str) -> list[int]:
    """[2, 5, 6, 7] from '2, 5-7'."""
    found = []
    for part in filter(None, (p.strip() for p in blocks.split(","))):
        start, _, end = part.partition("-")
        found += range(int(start), int(end or start) + 1)
    return found


def groups(rows) -> list[tuple[int, dict]]:
    """(first block index, {name: row}) per kind of block, in block order; model rows are in every group."""
    model = {row.name: row for row in rows if split_host(row.host)[0] == "model"}
    by_blocks: dict[str, dict] = {}
    for row in rows:
        base, blocks = split_host(row.host)
        if base != "model":
            by_blocks.setdefault(blocks, {})[row.name] = row
    if not by_blocks:
        return [(0, dict(model))]
    ordered = sorted(by_blocks.items(), key=lambda item: first_block(item[0]))
    return [(first_block(blocks), {**model, **found}) for blocks, found in ordered]


def best(rows) -> dict:
    """{name: row}, each value's most available row over the kinds of block (for the diagram)."""
    chosen: dict = {}
    for row in rows:
        if row.name not in chosen or RANK[row.status] < RANK[chosen[row.name].status]:
            chosen[row.name] = row
    return chosen
