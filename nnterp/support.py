"""``model.support()``: the values, by host, with where each is read and under which load.

It is data (iterable rows, JSON) that prints as the encyclopedia's "Values, by host" table.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass

from .vocabulary import HOSTS, HOST_PATHS, values_of


@dataclass(frozen=True)
class SupportRow:
    host: str            # "model.layers[i].self_attn"
    host_class: str      # "PhiAttention"
    name: str
    layout: str
    description: str
    read_at: str
    status: str          # "served", "conditioned" or "unavailable"
    note: str = ""       # the condition (⚠︎) or the reason
    available: bool = True  # served under this load

    @property
    def marked(self) -> bool:
        return self.status != "served"


class Support(list):
    """The rows of ``support()``; prints as a table, dumps as JSON."""

    def by_host(self):
        hosts: dict[str, list[SupportRow]] = {}
        for row in self:
            hosts.setdefault(row.host, []).append(row)
        return hosts

    def counts(self) -> dict[str, int]:
        counts = {"served": 0, "conditioned": 0, "unavailable": 0}
        for row in self:
            counts[row.status] += 1
        return counts

    def to_json(self, **kwargs) -> str:
        return json.dumps([asdict(row) for row in self], **kwargs)

    def __str__(self) -> str:
        out = []
        for host, rows in self.by_host().items():
            width = max(len(r.name) for r in rows) + 2
            lwidth = max(len(r.layout) for r in rows)
            out.append(f"{host} {rows[0].host_class}")
            for r in rows:
                mark = "⚠︎ " if r.marked else "  "
                out.append(f"  {mark}{r.name:<{width}}{r.layout:<{lwidth}}  {r.description}")
                out.append(f"    {'':<{width}}{'':<{lwidth}}  read at: {r.read_at}")
                if r.note:
                    label = "condition" if r.status == "conditioned" else "reason"
                    now = "" if r.status != "conditioned" else (" (met by this load)" if r.available else " (not met by this load)")
                    out.append(f"    {'':<{width}}{'':<{lwidth}}  ⚠︎ {label}: {r.note}{now}")
            out.append("")
        return "\n".join(out).rstrip()

    __repr__ = __str__


def build_support(model) -> Support:
    state = model._nnterp_state
    hosts = {
        "model": model,
        "layer": model.layers[0],
        "attention": model.layers[0].self_attn,
        "mlp": model.layers[0].mlp,
    }
    rows = Support()
    for host in HOSTS:
        envoy = hosts[host]
        for spec in values_of(host):
            site = envoy._nnterp_site(spec.name)
            if not site.served:
                status, note, available, layout = "unavailable", site.reason, False, "scalar"
                description = f"Unavailable: {site.reason}"
            else:
                layout, description = str(spec.layout), site.description or spec.description
                status, note, available = "served", "", True
                if site.condition is not None:
                    status, note, available = "conditioned", site.condition.text, site.condition.holds(model)
            rows.append(SupportRow(
                host=HOST_PATHS[host], host_class=type(envoy._module).__name__, name=spec.name, layout=layout,
                description=description, read_at=site.describe(envoy._module), status=status, note=note,
                available=available,
            ))
    return rows
