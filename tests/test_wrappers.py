"""Image-text-to-text wrappers: the contract on a text-only call and on a call with an image, under every load the
wrapper claims; where the image enters the stream; the vision side stays native."""

import pytest
import torch

from nnterp import tiny
from nnterp.declare.errors import UnknownArchitecture
from nnterp.registry import by_name, family_for, registry, wrapper_registry

WRAPPERS = sorted(wrapper_registry())


@pytest.mark.parametrize("name", WRAPPERS)
def test_contract_text_and_image(name):
    family = wrapper_registry()[name]
    # a wrapper whose every call needs an image (BLIP-2) is checked on calls with one
    calls = (tiny.image_call(name),) if family.wrapper.image_required else (None, tiny.image_call(name))
    for load in family.loads:
        model = tiny.load(name, attn_implementation=load)
        for inputs in calls:
            report = model.check(inputs, raise_on_failure=False)
            assert report.ok, str(report)


@pytest.mark.parametrize("name", [name for name in WRAPPERS if wrapper_registry()[name].wrapper.image_required])
def test_a_wrapper_said_to_need_an_image_still_fails_on_text_alone(name):
    """The day transformers' forward of BLIP-2 runs on text alone, its text-only call is checked too."""
    native, _ = tiny.build(name)
    inputs = tiny.image_call(name)
    with pytest.raises((TypeError, ValueError)):
        native(input_ids=inputs["input_ids"], attention_mask=inputs["attention_mask"])


def test_the_vision_towers_blocks_are_not_the_language_models():
    """OPT's blocks are told apart by path (its mlp is a Linear); inside BLIP-2 the vision model has blocks too."""
    model = tiny.load("blip-2")
    assert "layer_input" in repr(model.layers[0]) and "layer_input" not in repr(model.vision_model)
    assert "(token_embeddings) -> Residual [batch seq hidden_size]: The embedding module's output, the image " \
           "placeholders' own embeddings included" in repr(model)


def test_a_wrapper_with_a_language_model_of_another_type_is_refused():
    """BLIP-2 is served with its OPT language models; a Flan-T5 one (an encoder-decoder) is refused, saying so."""
    from transformers import Blip2Config

    config = Blip2Config(text_config={"model_type": "t5"}, use_decoder_only_language_model=False)
    with pytest.raises(UnknownArchitecture, match="not served with a language model of type 't5'"):
        family_for(config, "Blip2ForConditionalGeneration")


@pytest.fixture(scope="module")
def gemma3():
    return tiny.load("gemma3", attn_implementation="eager")


def test_served_through_the_text_family(gemma3):
    assert gemma3.family.text is registry()["gemma3_text"]
    native = gemma3._module
    assert gemma3.layers[0]._module is native.model.language_model.layers[0]
    assert gemma3.norm._module is native.model.language_model.norm
    assert gemma3.lm_head._module is native.lm_head
    assert gemma3.num_layers == native.config.text_config.num_hidden_layers
    assert gemma3.hidden_size == native.config.text_config.hidden_size


def test_vision_side_stays_native_and_printed(gemma3):
    assert gemma3.vision_tower._module is gemma3._module.model.vision_tower
    assert gemma3.multi_modal_projector._module is gemma3._module.model.multi_modal_projector
    printed = repr(gemma3)
    assert "(vision_tower): SiglipVisionModel(" in printed and "(multi_modal_projector):" in printed
    assert "(image_features) -> ImageFeatures [image_positions hidden_size]" in printed


def test_image_features_are_the_projected_features(gemma3):
    """image_features is what the projector returns, as the wrapper merges it; a read of the vision tower works in
    the same trace."""
    inputs = tiny.image_call("gemma3")
    with gemma3.trace(inputs):
        projected = gemma3.multi_modal_projector.output.save()
        features = gemma3.image_features.save()
    assert torch.equal(features, projected.reshape(-1, projected.shape[-1]))


def test_steering_the_image_positions_reaches_the_logits(gemma3):
    inputs = tiny.image_call("gemma3")
    with gemma3.trace(inputs):
        base = gemma3.logits.save()
    with gemma3.trace(inputs):
        mask = gemma3.image_mask
        gemma3.layers[1].layer_input[mask] = 0
        edited = gemma3.logits.save()
    first_image = inputs["input_ids"][0].tolist().index(299)
    assert torch.equal(edited[:, :first_image], base[:, :first_image])  # causal: earlier positions untouched
    assert not torch.equal(edited, base)


def test_a_model_type_shared_with_a_text_family_goes_by_class():
    """mllama's CausalLM is the text family's; its ConditionalGeneration is not served there."""
    config = tiny.config("mllama")
    assert family_for(config, "MllamaForCausalLM").name == "mllama"
    assert family_for(tiny.config("gemma3"), "Gemma3ForConditionalGeneration").name == "gemma3"


def test_unserved_wrapper_is_refused_with_its_reason():
    from transformers import Florence2Config

    with pytest.raises(UnknownArchitecture, match="encoder-decoder"):
        family_for(Florence2Config(), "Florence2ForConditionalGeneration")


def test_a_broken_wrapper_is_refused_while_its_forward_still_fails():
    """Llama 4's wrapper forward raises in transformers 5.24; the day it runs, serve the declaration (broken=None)."""
    from transformers import AutoModelForCausalLM, AutoModelForImageTextToText

    from nnterp.registry import declared_wrappers as declared

    llama4 = next(w for w in declared() if w.name == "llama4")
    config = tiny.config("llama4")
    with pytest.raises(UnknownArchitecture, match="AutoModelForCausalLM"):
        family_for(config, "Llama4ForConditionalGeneration")
    wrapper = AutoModelForImageTextToText.from_config(config).eval()
    with pytest.raises(AttributeError, match="image_outputs"):
        wrapper(input_ids=torch.tensor([[1, 5, 6]]))
    # the fix the refusal names: the language model alone, which its text family serves
    language_model = AutoModelForCausalLM.from_config(config)
    assert family_for(language_model.config, type(language_model).__name__).name == "llama4_text"
    assert llama4.broken


def test_shieldgemma2_is_served_as_gemma3():
    """ShieldGemma 2's config (model_type shieldgemma2) builds the same Gemma3ForConditionalGeneration."""
    import transformers
    from transformers import AutoModelForImageTextToText

    from nnterp import StandardizedTransformer

    config = transformers.ShieldGemma2Config(**by_name("gemma3").tiny["overrides"])
    torch.manual_seed(0)
    native = AutoModelForImageTextToText.from_config(config).eval()
    tiny._perturb_constants(native)  # the projection starts at zero: as tiny.build does, so that edits show
    model = StandardizedTransformer(native, tokenizer=tiny.tokenizer(300))
    assert model.family.name == "gemma3" and config.model_type == "shieldgemma2"
    report = model.check(tiny.image_call("gemma3"), raise_on_failure=False)
    assert report.ok, str(report)


def test_a_saved_wrapper_loads_through_its_own_auto_class(tmp_path):
    """A repo id or path of a wrapper loads under image-text-to-text (AutoModelForImageTextToText, its processor):
    text alone and the processor's text with an image both trace."""
    import numpy as np
    from PIL import Image
    from transformers import CLIPImageProcessor, LlavaProcessor

    from nnterp import StandardizedTransformer
    from nnterp.wrappers.wrapper import tiny_text

    tokenizer = tiny.tokenizer(300)
    tokenizer.add_special_tokens({"additional_special_tokens": ["<image>"]})
    image_token = tokenizer.convert_tokens_to_ids("<image>")
    native, _ = tiny.build("llava", text_config=tiny_text("llama", vocab_size=image_token + 1), image_token_id=image_token)
    native.save_pretrained(tmp_path)
    LlavaProcessor(image_processor=CLIPImageProcessor(size={"shortest_edge": 16}, crop_size={"height": 16, "width": 16}),
                   tokenizer=tokenizer, patch_size=4, vision_feature_select_strategy="default", num_additional_image_tokens=1,
                   image_token="<image>").save_pretrained(tmp_path)
    model = StandardizedTransformer(str(tmp_path), dispatch=True)
    assert type(model._module).__name__ == "LlavaForConditionalGeneration" and model.family.name == "llava"
    with model.trace("The Eiffel Tower"):
        text_only = model.logits.save()
    image = Image.fromarray((np.random.default_rng(0).random((16, 16, 3)) * 255).astype("uint8"))
    with model.trace(text="<image> The Eiffel Tower", images=[image]):
        mask = model.image_mask.save()
        features = model.image_features.save()
        entering = model.layers[0].layer_input.save()
        logits = model.logits.save()
    assert int(mask.sum()) == 16 and torch.equal(entering[mask], features)
    assert tuple(logits.shape[:2]) == tuple(mask.shape) and logits.shape[-1] == text_only.shape[-1]


def test_chameleon_logits_floor_the_image_tokens_and_lm_head_output_keeps_them():
    """Chameleon's head writes the float minimum into its image-token columns after lm_head: logits and the lens
    hold it, lm_head_output is lm_head's own output; a swin_norm config is refused."""
    from nnterp.wrappers.vq_tokens import _image_token_columns

    model = tiny.load("chameleon")
    columns = _image_token_columns(model._module.config)
    assert columns == list(range(280, 288))
    with model.trace(tiny.image_call("chameleon")):
        head = model.lm_head_output.save()
        logits = model.logits.save()
        lens = model.project_on_vocab(model.layers[0].layer_output).save()
    floor = torch.finfo(logits.dtype).min
    assert bool((logits[..., columns] == floor).all()) and bool((lens[..., columns] == floor).all())
    assert bool((head[..., columns] > floor).all())
    others = [i for i in range(logits.shape[-1]) if i not in columns]
    assert torch.equal(head[..., others], logits[..., others])
    config = tiny.config("chameleon")
    config.swin_norm = True
    with pytest.raises(UnknownArchitecture, match="swin_norm"):
        family_for(config, "ChameleonForConditionalGeneration")


def test_granite4_vision_adds_the_image_inside_the_stack_even_before_the_first_block():
    """Granite 4 Vision zeroes the placeholders and adds image rows before the blocks its maps name: the contract
    checks the rows where they enter, at block 1 in the tiny recipe and at block 0 when the map names it."""
    model = tiny.load("granite4_vision", deepstack_layer_map=[[-2, 0]])
    report = model.check(tiny.image_call("granite4_vision"), raise_on_failure=False)
    assert report.ok, str(report)
    assert any(r.check.startswith("layers[0].layer_input == the stream before it + image_features") and r.ok
               for r in report.results)


@pytest.mark.parametrize("name", ["llava", "qwen2_vl", "smolvlm", "paligemma", "gemma3",
                                  "chameleon"])  # VQ tokens: image ids placed by the model itself
def test_a_cache_holds_the_image_values_a_trace_reads_and_says_why_a_text_call_has_none(name):
    from nnterp.declare.errors import UnavailableValue

    model = tiny.load(name, attn_implementation="eager")
    inputs = tiny.image_call(name)
    named = model.cache(inputs, values=["image_features", "image_mask"])
    everything = model.cache(inputs)
    with model.trace(inputs):
        features = model.image_features.save()
        mask = model.image_mask.save()
    assert set(named.keys()) == {"image_features", "image_mask"}
    for cache in (named, everything):
        assert torch.equal(cache["image_features"], features) and torch.equal(cache.image_mask, mask)
    assert features.shape[0] == int(mask.sum()) > 0

    text = model.cache("The Eiffel Tower is", values=["image_features", "image_mask"])
    assert "image_features" not in text.keys() and "passes no image" in text.left_out["image_features"]
    assert not bool(text["image_mask"].any())
    with pytest.raises(UnavailableValue, match="passes no image"):
        with model.trace("The Eiffel Tower is"):
            model.image_features.save()
