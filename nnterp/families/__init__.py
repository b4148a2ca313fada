"""One module per model family; each declares ``FAMILY = Family(...)``. ``_index`` names the module of each family
(read without importing one); ``_declared.declared(name)`` imports one."""
