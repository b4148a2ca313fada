"""One module per model family; each declares ``FAMILY = Family(...)`` and is found by listing this folder."""
