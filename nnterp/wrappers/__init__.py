"""Wrappers: image-text-to-text models served through the family of the language model inside them.

A wrapper (``Gemma3ForConditionalGeneration``, ``LlavaForConditionalGeneration``, ...) holds a vision tower, a
projector and a decoder-only language model. nnterp serves the language stack with the text family's sites:
``layers`` are the language model's blocks, ``norm`` and ``lm_head`` its readout, and availability is computed
from the text config. Where the image enters the stream is served on the model: ``image_features`` (what the
wrapper places into the stream at the image positions, read where it merges them) and ``image_mask``.

A wrapper is data: a ``Wrapper`` names its model types, its text family, where the language model sits in the
native tree, the module whose forward merges the image features, its image inputs and a tiny recipe.
``family_of`` turns it into a ``Family`` whose renames are the text family's under the language model's path.
"""
