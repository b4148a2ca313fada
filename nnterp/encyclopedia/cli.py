"""``nnterp encyclopedia build --out DIR``: the site, an index and a page per family. This module holds the
arguments alone (it is read before torch loads); the handler is ``nnterp.encyclopedia.build:command``."""

from __future__ import annotations


def register(subparsers) -> None:
    parser = subparsers.add_parser("encyclopedia", help="the encyclopedia: a static site with a page per family")
    actions = parser.add_subparsers(dest="action", required=True)
    command = actions.add_parser("build", help="build the site into a folder that opens from disk")
    command.add_argument("--out", required=True, help="the folder to write index.html and the pages into")
    command.add_argument("--family", action="append", help="build only this family's page (repeatable)")
    command.add_argument("--quiet", action="store_true", help="print only the summary")
    command.set_defaults(run="nnterp.encyclopedia.build:command")
