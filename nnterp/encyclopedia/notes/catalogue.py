"""The traps the catalogue of decoder-only families lists for each model type, as data.

Taken from the catalogue of the 147 decoder-only families of transformers 5.24.0
(tiny models built from each config class, forwards observed, sources read). Each entry keeps the
catalogue's tag of how the fact is known: [obs] observed on a tiny model, [src] read in the modeling
source, [cfg] a config default, [inf] inferred and not verified. A family without notes of its own
gets these on its page.
"""

TRANSFORMERS = '5.24.0'

#: model_type -> {"quirks": [...], "caveats": [...]} (caveats: what a standard value meets there)
TRAPS = {'afmoe': {'caveats': ['attention_head_outputs is gated [src]'],
           'quirks': ['MLP norms named pre_mlp_layernorm/post_mlp_layernorm [obs]',
                      'attention output gate: out * sigmoid(gate_proj(x)) [src]',
                      'qk-norm; RoPE only on local (sliding) layers [src]',
                      'optional muP embedding scale sqrt(hidden) [src]',
                      'MoE (router `router`, shared_experts), first layer dense [obs]']},
 'apertus': {'caveats': [],
             'quirks': ['norms named attention_layernorm / feedforward_layernorm [obs]',
                        'plain MLP up_proj/down_proj with xIELU activation [obs]',
                        'qk-norm [obs]',
                        'llama3 rope [obs cfg]']},
 'apertus1p5_text': {'caveats': [],
                     'quirks': ['norms named attention_layernorm / feedforward_layernorm [obs]',
                                'plain MLP up_proj/down_proj with xIELU activation [obs]',
                                'qk-norm [obs]',
                                'llama3 rope [obs cfg]']},
 'arcee': {'caveats': [], 'quirks': ['plain MLP up_proj/down_proj with relu2 (no gate_proj) [obs]']},
 'aria_text': {'caveats': [],
               'quirks': ['text part of Aria VLM; router `router`; expert weights transposed [E,in,out] '
                          '[obs]']},
 'axk1': {'caveats': [], 'quirks': ['MLA + MoE (deepseek_v3-like) [obs]']},
 'axk2': {'caveats': [],
          'quirks': ['MLA + indexer; input_layernorm is a gated RMSNorm module with an inner mlp [obs]',
                     'q_gate_proj attention-output gate [obs]']},
 'bailing_hybrid': {'caveats': [],
                    'quirks': ['delta/linear attention (BailingHybridDeltaAttention) in the self_attn slot '
                               'with g_proj gate [obs]',
                               'MLA on full layers [obs]',
                               'MoE [obs]']},
 'bamba': {'caveats': [],
           'quirks': ['mamba2 mixer; attention layers at attn_layer_indices (default: none!) [obs cfg]',
                      'partial rotary 0.5 [obs cfg]',
                      'layer returns (hidden, attn_weights) tuple [obs]']},
 'beam': {'caveats': [],
          'quirks': ['residual adds via depth_scaled_residual_add(idx) [src]',
                     'attention output gate (gate_proj), qk-norm [obs]',
                     'final logit softcap 30 [src]',
                     'MoE after dense first layers [obs]']},
 'biogpt': {'caveats': [],
            'quirks': ['embeddings scaled by sqrt(hidden) (scale_embedding) [src]',
                       'lm_head named output_projection; tied [obs]',
                       'kernel via attention_interface [obs]']},
 'bitnet': {'caveats': ['attention_head_outputs (o_proj input) and mlp_neurons (down_proj input) are AFTER '
                        'the sub-norms [src]'],
            'quirks': ['extra attn_sub_norm (RMSNorm applied to attention output before o_proj) and '
                       'ffn_sub_norm (before down_proj) [src]',
                       'relu2 gated MLP [obs]']},
 'bloom': {'caveats': ['attention_output / mlp_output cannot be read as module outputs (they already include '
                       'the residual) [src]'],
           'quirks': ['self_attention(x_ln, residual) and mlp(x_ln, residual) return residual + branch [src]',
                      'ALiBi (no RoPE); word_embeddings_layernorm right after the embedding [src]',
                      'custom attention (baddbmm, no interface) [obs]',
                      'apply_residual_connection_post_layernorm uses the normed input as residual [src]',
                      'layer returns tuple [obs]']},
 'blt': {'caveats': ['no single residual stream [src]'],
         'quirks': ['three stacks (model.local_encoder.layers, model.global_transformer.layers, '
                    'model.local_decoder.layers) + entropy patcher model [obs]',
                    'llama-style layers inside each stack [obs hash]',
                    '10 kernel calls per forward in the tiny model (patcher + stacks + cross-attn) [obs]']},
 'codegen': {'caveats': [],
             'quirks': ['partial interleaved rotary (rotary_dim; rotate_every_two) [src]',
                        'gptj: separate q/k/v/out_proj without bias; codegen: fused qkv_proj with '
                        'mp_num-blocked layout [obs/src]',
                        'lm_head untied, with bias [obs]',
                        'no position embeddings other than rotary [src]']},
 'cohere': {'caveats': [],
            'quirks': ['CohereLayerNorm = mean-centred LayerNorm without bias [src]',
                       'logits * logit_scale (0.0625 default); tied [src/obs]',
                       'cohere: optional qk-norm (use_qk_norm, per-head LayerNorm) [obs variant]; rope '
                       'interleaved (rotate_half variant) [src]',
                       'cohere2/compass: sliding layers RoPE, full layers NoPE [src]; compass needs '
                       'per-layer-type rope_parameters [obs]']},
 'cohere2': {'caveats': [],
             'quirks': ['CohereLayerNorm = mean-centred LayerNorm without bias [src]',
                        'logits * logit_scale (0.0625 default); tied [src/obs]',
                        'cohere: optional qk-norm (use_qk_norm, per-head LayerNorm) [obs variant]; rope '
                        'interleaved (rotate_half variant) [src]',
                        'cohere2/compass: sliding layers RoPE, full layers NoPE [src]; compass needs '
                        'per-layer-type rope_parameters [obs]']},
 'cohere2_moe': {'caveats': [],
                 'quirks': ['MoE (router `gate`) [obs]',
                            'sliding layers use RoPE, full layers are NoPE [src]',
                            'LayerNorm without bias; logits * logit_scale; tied [src/obs]']},
 'cohere_compass_text': {'caveats': [],
                         'quirks': ['CohereLayerNorm = mean-centred LayerNorm without bias [src]',
                                    'logits * logit_scale (0.0625 default); tied [src/obs]',
                                    'cohere: optional qk-norm (use_qk_norm, per-head LayerNorm) [obs '
                                    'variant]; rope interleaved (rotate_half variant) [src]',
                                    'cohere2/compass: sliding layers RoPE, full layers NoPE [src]; compass '
                                    'needs per-layer-type rope_parameters [obs]']},
 'cpmant': {'caveats': ['self_att / ffn sub-block outputs include the residual (added inside) [src]'],
            'quirks': ['cpmant.encoder.layers[i].{self_att.{layernorm_before_attention, self_attention}, '
                       'ffn.{layernorm_before_ffn, ffn}} [obs]',
                       'relative position bias; prompt/segment embeddings [src]',
                       'custom attention (no interface) [obs]',
                       'decoder layer returns tuple[2] [obs]']},
 'ctrl': {'caveats': [],
          'quirks': ['names transformer.w / h[i].{layernorm1, multi_head_attention.{Wq,Wk,Wv,dense}, '
                     'layernorm2, ffn (Sequential 0/1/2)} / layernorm [obs]',
                     'sinusoidal positions; embeddings * sqrt(d) [src]',
                     'kernel via attention_interface [obs]']},
 'cwm': {'caveats': [], 'quirks': ['interleaved sliding/full layers, llama3 rope [obs cfg]']},
 'dbrx': {'caveats': ["layer_mid is the first element of norm_attn_norm's output tuple [src]"],
          'quirks': ['transformer.blocks[i].norm_attn_norm.{norm_1, attn.{Wqkv,out_proj}, norm_2} returns '
                     '(residual_after_attn, norm_2 output); ffn.{router, experts.mlp.{w1,v1,w2}} [obs]',
                     'LayerNorm without bias; clip_qkv [src]',
                     'library bug workarounds needed in 5.24.0: attn_config.rope_theta must be passed, and '
                     'clip_qkv=None crashes torch.clamp [obs]']},
 'deepseek_v2': {'caveats': [],
                 'quirks': ['MLA with q_lora (q_a_proj/q_a_layernorm/q_b_proj); q_lora_rank=None gives '
                            'q_proj (DeepSeek-V2-Lite) [obs variant]',
                            'MoE gate/experts/shared_experts; greedy or group-limited top-k [src]',
                            'num_experts_per_tok default None -> must be set [obs]']},
 'deepseek_v3': {'caveats': [],
                 'quirks': ['MLA; first_k_dense_replace dense layers then MoE [obs]',
                            'interleaved rope (rope_interleave) [src]',
                            'MTP layers not built [cfg]']},
 'deepseek_v32': {'caveats': ['sparse key selection happens inside attention; kernel args carry indices '
                              '[obs]'],
                  'quirks': ['MLA + lightning `indexer` (DSA sparse attention: top-k key selection, '
                             '`indices` kwarg to kernel) [obs]']},
 'deepseek_v4': {'caveats': ['residual stream is 4-D [B,T,n_hc,H] between layers [src]'],
                 'quirks': ['attn_hc/ffn_hc collapse n streams to one input and write back with post/comb '
                            'mixing [src]',
                            'compressed attention (compressor), grouped output projection o_a_proj (grouped) '
                            '-> o_b_proj, kv_proj single KV head [obs]',
                            'attention sinks (s_aux); sliding 128; partial rotary [obs]',
                            'hash-routed MoE layers then routed MoE; final norm applied after hc_head '
                            '[obs/src]',
                            'default attn implementation resolves to eager [obs]']},
 'diffllama': {'caveats': ['attention_scores/probabilities come as two maps per layer; '
                           'attention_head_outputs is after groupnorm [src]'],
               'quirks': ['differential attention: q/k split in two halves, kernel called TWICE per layer '
                          '[obs: 4 calls/2 layers], outputs combined with learned lambda and a groupnorm '
                          '(RMSNorm) [src]']},
 'doge': {'caveats': [],
          'quirks': ['dynamic-mask attention: dt_proj builds a per-key mask bias [src]',
                     'qk-norm [obs]',
                     'is_moe=True swaps the MLP for CDMoE (router_gate + up/down expert embeddings) [obs '
                     'variant]']},
 'dory': {'caveats': ['hooks fire several times per forward; final norm also called mid-model [src]'],
          'quirks': ['layers [input | recurrent block x n_recurrent_loops | output]; the same layer modules '
                     'run several times per forward [obs: 4 kernel calls for 2 layers]',
                     'model.norm reused inside the loop [src]',
                     'L2Norm instead of RMSNorm; attention gate_proj + sub-norm [obs]']},
 'dots1': {'caveats': [],
           'quirks': ['qk-norm; first_k_dense_replace dense layers [obs]',
                      'default config (n_routed_experts=None) fails to build (TypeError in experts) [obs]; '
                      'recipe sets experts']},
 'dots3_note_text': {'caveats': [],
                     'quirks': ['MLA + indexer + g_proj output gate; sliding and indexed layers; partial '
                                'rotary [obs]',
                                'text part of a multimodal model [src]']},
 'emu3': {'caveats': [],
          'quirks': ['text decoder of a VLM (image tokens in vocab); extra `dropout` module on both residual '
                     'branches [src]']},
 'ernie4_5': {'caveats': [], 'quirks': ['tied embeddings by default [obs]']},
 'ernie4_5_moe': {'caveats': [], 'quirks': ['shared_experts; tied embeddings [obs]']},
 'exaone': {'caveats': [], 'quirks': ['model_type alias: own config class, builds LlamaForCausalLM [obs]']},
 'exaone4': {'caveats': [],
             'quirks': ['identical layer forward to olmo2 [obs hash]; qk-norm; sliding/full '
                        '(sliding_window_pattern) [obs]']},
 'exaone_moe': {'caveats': [], 'quirks': ['qk-norm; sliding/full layers [obs]']},
 'falcon': {'caveats': ['attention_queries/keys/values not observable at an interface call [obs]'],
            'quirks': ['custom attention (no attention_interface; own sdpa/eager path) [obs: 0 kernel calls]',
                       'multi-query by default; GQA with new_decoder_architecture [cfg]',
                       'rotary or ALiBi (alibi=True) [src]',
                       'layer returns (hidden, attn_weights) tuple [obs]',
                       'does not support set_attn_implementation [obs warning]']},
 'falcon_h1': {'caveats': ['attention_output is one of two summed mixer outputs [src]'],
               'quirks': ['mamba and self_attn run in parallel on the same normed input, outputs scaled by '
                          'ssm/attention multipliers and summed [src]',
                          'muP multipliers on embeddings, lm_head, keys, mlp [src]',
                          'layer returns 1-tuple [obs]']},
 'falcon_mamba': {'caveats': ['no attention/MLP values [obs]'],
                  'quirks': ['mamba v1 mixer (in_proj, conv1d, x_proj, dt_proj, out_proj) [obs]',
                             'falcon_mamba: extra weightless RMSNorms on dt/B/C [obs]',
                             'residual kept in fp32 (residual_in_fp32) [src]']},
 'flex_olmo': {'caveats': [], 'quirks': ['MoE on every layer (router `gate`) [obs]', 'qk-norm [obs]']},
 'flint': {'caveats': [],
           'quirks': ['qk-norm; sliding/full layers; attention sinks (s_aux); default attn implementation '
                      'resolves to eager [obs]',
                      'mlp_only_layers defaults to [0,1] (dense); MoE needs >2 layers or mlp_only_layers '
                      'override [obs]',
                      'MoE with shared_expert [obs]']},
 'gemma': {'caveats': [],
           'quirks': ['embeddings scaled by sqrt(hidden) inside GemmaTextScaledWordEmbedding [src]',
                      'RMSNorm computes x*(1+weight) [src]',
                      'GELU-tanh gated MLP; tied lm_head [obs]']},
 'gemma2': {'caveats': [],
            'quirks': ['attention logit softcap 50 (softcap kwarg) [obs]; final logit softcap 30 [src]',
                       'alternating sliding/full [obs]; query_pre_attn_scalar scaling [obs]',
                       'embed * sqrt(hidden); RMSNorm (1+w); default attn implementation resolves to eager '
                       '[obs]']},
 'gemma3_text': {'caveats': [],
                 'quirks': ['qk-norm (replaces softcapping) [obs]',
                            '5:1 sliding/full with separate local rope [cfg/src]',
                            'embed * sqrt(hidden); RMSNorm (1+w) [src]']},
 'gemma3n_text': {'caveats': ['layer_output is 4-D; standard stream = predictions[altup_active_idx] [src]'],
                  'quirks': ['layer input/output are stacked AltUp predictions [altup_num_inputs,B,T,H] '
                             '[src]',
                             'laurel low-rank residual averaged with attention output (/sqrt2) [src]',
                             'q/k/v norms, scaling=1.0; KV sharing for the last num_kv_shared_layers [obs]',
                             "activation sparsity (gaussian top-k) in the first layers' MLP [cfg]",
                             'final logit softcap [src]']},
 'gemma4_text': {'caveats': ['layer_output != stream after the MLP add (scaled by layer_scalar, plus '
                             'per-layer-input update) [src]'],
                 'quirks': ['q_norm/k_norm/v_norm, kernel scaling=1.0 [obs]',
                            'per-layer input embeddings (embed_tokens_per_layer, '
                            'per_layer_input_gate/projection, post_per_layer_input_norm) added as a 3rd '
                            'residual update [src]',
                            'hidden *= layer_scalar at the end of every layer [src]',
                            'optional KV sharing across layers (num_kv_shared_layers, attention_k_eq_v) '
                            '[cfg/src]',
                            'enable_moe_block adds router/experts as LAYER children whose output is summed '
                            'with the dense mlp (extra post/pre_feedforward_layernorm_1/_2) [obs variant]',
                            'partial rotary 0.25 (rope_type proportional) [obs cfg]']},
 'gemma4_unified_text': {'caveats': [],
                         'quirks': ['q/k/v norms, scaling=1.0 [obs]',
                                    'layer_scalar multiply [src]',
                                    'bidirectional attention for vision tokens (use_bidirectional_attention) '
                                    '[cfg]',
                                    'partial rotary ([0.25]) [obs cfg]']},
 'glm': {'caveats': [],
         'quirks': ['fused gate_up_proj; activation module named activation_fn [obs]',
                    'q/k/v bias; partial rotary 0.5 [obs]']},
 'glm4': {'caveats': [],
          'quirks': ['post_self_attn_layernorm on attn output; post_attention_layernorm is the pre-MLP norm; '
                     'post_mlp_layernorm on MLP output [src]',
                     'fused gate_up_proj + activation_fn; q/k/v bias; partial rotary 0.5 [obs]']},
 'glm4_moe': {'caveats': [],
              'quirks': ['partial rotary 0.5; optional qk-norm (use_qk_norm) [obs cfg]',
                         'sarvam_moe: model_type alias building Glm4MoeForCausalLM with use_qk_norm=True '
                         '[obs]']},
 'glm4_moe_lite': {'caveats': [], 'quirks': ['MLA + MoE [obs]']},
 'glm_moe_dsa': {'caveats': [],
                 'quirks': ['MLA + indexer (DSA) [obs]',
                            'decoder layer returns (hidden, topk_indices) tuple; attention returns 3 values '
                            '[obs/src]']},
 'gpt-sw3': {'caveats': [],
             'quirks': ['Conv1D layers (weight [in,out]) for c_attn/c_proj/c_fc [obs]',
                        'learned absolute positions wpe; tied [obs]',
                        'kernel via attention_interface [obs]; optional scale_attn_by_inverse_layer_idx / '
                        'reorder_and_upcast_attn [cfg]',
                        'gpt-sw3: model_type alias of GPT2 [obs]']},
 'gpt2': {'caveats': [],
          'quirks': ['Conv1D layers (weight [in,out]) for c_attn/c_proj/c_fc [obs]',
                     'learned absolute positions wpe; tied [obs]',
                     'kernel via attention_interface [obs]; optional scale_attn_by_inverse_layer_idx / '
                     'reorder_and_upcast_attn [cfg]',
                     'gpt-sw3: model_type alias of GPT2 [obs]']},
 'gpt_bigcode': {'caveats': [],
                 'quirks': ['nn.Linear (not Conv1D) c_attn; multi-query by default (c_attn out = H + '
                            '2*head_dim) [obs]',
                            'kernel via attention_interface [obs]']},
 'gpt_neo': {'caveats': [],
             'quirks': ['attention nested: attn.attention.{q_proj,k_proj,v_proj,out_proj} (no bias on q/k/v) '
                        '[obs]',
                        'alternating global/local (window 256) layers [cfg]',
                        'custom _attn, no query scaling [src; obs: 0 kernel calls]',
                        'layer returns tuple [obs]']},
 'gpt_neox': {'caveats': ['no layer_mid in the default (parallel) config [src]'],
              'quirks': ['parallel: h = x + attn(input_layernorm(x)) + mlp(post_attention_layernorm(x)) '
                         '[src]',
                         'partial rotary 0.25; untied lm_head (named lm_head in 5.x) [obs]',
                         'kernel via attention_interface [obs]']},
 'gpt_neox_japanese': {'caveats': ['attention module output excludes dense_bias on the last layer [src]'],
                       'quirks': ['custom _attn (no attention_interface) [obs]',
                                  'dense bias only exists on the LAST layer and is returned separately from '
                                  'attention and added in bias_dropout_add [src]',
                                  'partial rotary (rotary_ndims) [src]',
                                  'layer returns (hidden, attn_weights) tuple; lm_head named embed_out '
                                  '[obs]']},
 'gpt_oss': {'caveats': ['mlp_output hook gets a tuple [src]'],
             'quirks': ['attention sinks (s_aux) [obs]; default attn implementation resolves to eager [obs]',
                        'biases on q/k/v/o, router and experts [obs]',
                        'mlp returns (hidden, router_scores) tuple [src]',
                        'clamped SwiGLU (swiglu_limit) in experts; expert weights [E,in,out] [src/obs]',
                        'alternating sliding(128)/full [obs]']},
 'gptj': {'caveats': [],
          'quirks': ['partial interleaved rotary (rotary_dim; rotate_every_two) [src]',
                     'gptj: separate q/k/v/out_proj without bias; codegen: fused qkv_proj with '
                     'mp_num-blocked layout [obs/src]',
                     'lm_head untied, with bias [obs]',
                     'no position embeddings other than rotary [src]']},
 'granite': {'caveats': [],
             'quirks': ['residual_multiplier scales each branch before the add; embedding_multiplier on '
                        'embeddings; logits divided by logits_scaling; attention scaling = '
                        'attention_multiplier (kernel scaling=1.0 in tiny cfg) [src/obs]']},
 'granite_swa': {'caveats': ['sinks add an extra logit column inside the kernel: attention_probabilities '
                             'rows do not sum to 1 over keys [inf]'],
                 'quirks': ['granite multipliers + sliding/full layers + attention sinks (s_aux kwarg) [obs]',
                            'per-layer-type rotary (rotary_embs ModuleList) [obs]']},
 'granitemoe': {'caveats': [],
                'quirks': ['MoE module named block_sparse_moe (router `router`) [obs]',
                           'granite multipliers (residual/embedding/logits/attention) [src]',
                           'granitemoeshared/_swa: optional shared_mlp added to MoE output [src]',
                           'granitemoe_swa: sinks (s_aux) + sliding layers [obs]']},
 'granitemoe_swa': {'caveats': [],
                    'quirks': ['MoE module named block_sparse_moe (router `router`) [obs]',
                               'granite multipliers (residual/embedding/logits/attention) [src]',
                               'granitemoeshared/_swa: optional shared_mlp added to MoE output [src]',
                               'granitemoe_swa: sinks (s_aux) + sliding layers [obs]']},
 'granitemoehybrid': {'caveats': [],
                      'quirks': ['mamba2 mixer in `mamba` slot or self_attn [obs]',
                                 'block_sparse_moe + always-on shared_mlp (input_linear/output_linear fused '
                                 'gated) [obs]',
                                 'granite multipliers; no rotary by default (position_embedding_type None) '
                                 '[src/obs]']},
 'granitemoeshared': {'caveats': [],
                      'quirks': ['MoE module named block_sparse_moe (router `router`) [obs]',
                                 'granite multipliers (residual/embedding/logits/attention) [src]',
                                 'granitemoeshared/_swa: optional shared_mlp added to MoE output [src]',
                                 'granitemoe_swa: sinks (s_aux) + sliding layers [obs]']},
 'hrm_text': {'caveats': ['layer indices are not depth [src]'],
              'quirks': ['layers live in model.H_module.layers and model.L_module.layers (guess picked '
                         'L_module) [obs]',
                         'each stack has its own final_norm; attention gate_proj output gate [obs]',
                         '16 kernel calls for 2+2 layers [obs]']},
 'hunyuan_v1_dense': {'caveats': [], 'quirks': ['qk-norm named query_layernorm/key_layernorm [obs]']},
 'hunyuan_v1_moe': {'caveats': [],
                    'quirks': ['qk-norm named query_layernorm/key_layernorm [obs]',
                               'shared expert named shared_mlp; default num_experts=1 [cfg]']},
 'hy_v3': {'caveats': [], 'quirks': ['qk-norm; dense first layers (mlp_layer_types) [obs]']},
 'hy_v4': {'caveats': ['residual stream has a stream dimension [src]'],
           'quirks': ['MLA + indexer + attention sinks + gate_proj output gate [obs]',
                      'layer returns (hidden, topk_indices) [obs]',
                      'hc_head before final norm [src]']},
 'hyperclovax': {'caveats': [],
                 'quirks': ['post-branch norms named post_norm1/post_norm2 [obs]',
                            'granite-style multipliers: residual_multiplier, embedding_multiplier, logits * '
                            'logits_scaling (multiply, not divide), attention_multiplier [src]']},
 'inkling2_loop_text': {'caveats': ['residual stream is not a single tensor between layers [src]'],
                        'quirks': ['layers take (hidden, block_states); attention_input/mlp_input modules '
                                   'mix block states before each sublayer [src]',
                                   'full layers: separate q/k/v input norms and inputs; relative position '
                                   'bias + learned sinks (sinks kwarg) [obs]',
                                   'gated output projection, short convs after each sublayer [obs]',
                                   'default attn implementation resolves to eager [obs]',
                                   'loop variant re-runs a layer range several times (loop_num_passes) '
                                   '[cfg]']},
 'inkling2_text': {'caveats': ['residual stream is not a single tensor between layers [src]'],
                   'quirks': ['layers take (hidden, block_states); attention_input/mlp_input modules mix '
                              'block states before each sublayer [src]',
                              'full layers: separate q/k/v input norms and inputs; relative position bias + '
                              'learned sinks (sinks kwarg) [obs]',
                              'gated output projection, short convs after each sublayer [obs]',
                              'default attn implementation resolves to eager [obs]',
                              'loop variant re-runs a layer range several times (loop_num_passes) [cfg]']},
 'inkling_text': {'caveats': ['attention_output != module output used in the add (conv applied after) [src]'],
                  'quirks': ['attn_sconv / mlp_sconv causal short convs applied to attention / MLP outputs '
                             'before the add [src]',
                             'attention: k/v short convs, r_proj, relative logits (position_bias kwarg to '
                             'kernel), qk-norm; no RoPE [obs]',
                             'NormedEmbedding; hidden / logits_mup_width_multiplier before lm_head [src]',
                             'MoE with shared experts [obs]']},
 'internlm3': {'caveats': [],
               'quirks': ['model_type alias: own config class, builds LlamaForCausalLM [obs]']},
 'iquestcoder': {'caveats': [],
                 'quirks': ['model_type alias: own config class, builds LlamaForCausalLM [obs]']},
 'jais2': {'caveats': [],
           'quirks': ['LayerNorm (with bias) everywhere [obs]',
                      'plain MLP up/down relu2; biases on q/k/v/o and MLP [obs]']},
 'jamba': {'caveats': [],
           'quirks': ['mamba (v1) mixer with dt/b/c layernorms; attention every attn_layer_period layers; '
                      'MoE every expert_layer_period [src]',
                      'attention layers have no positional encoding [src]']},
 'jetmoe': {'caveats': ['q_proj/o_proj do not exist as modules [obs]'],
            'quirks': ['self_attention.{kv_proj, experts (MoA: input_linear gives q, output_linear gives o '
                       'per expert)} [obs]',
                       'attention returns 3 values (output, weights, router logits) [src]',
                       'MLP experts are JetMoeParallelExperts, not the experts interface [obs]']},
 'kimi_linear': {'caveats': [],
                 'quirks': ['KimiDeltaAttention (KDA) in self_attn slot (no kernel) on linear layers; MLA '
                            '(q_proj, kv_a_proj_with_mqa, kv_b_proj) on full layers [obs]',
                            'full-attention (MLA) layers are NoPE: model has no rotary_emb module [obs]',
                            'MoE after first dense layer [obs]']},
 'kolibri1': {'caveats': [],
              'quirks': ['same layer forward as glm4 [obs hash]',
                         'qk-norm; sliding/full; MoE with shared_experts [obs]']},
 'laguna': {'caveats': ['attention_head_outputs (o_proj input) is gated, kernel output is pre-gate [src]'],
            'quirks': ['attention output gate: attn_out * softplus(g_proj(x)) before o_proj [src]',
                       'qk-norm; partial rotary 0.5 [obs]']},
 'lara_mini': {'caveats': [],
               'quirks': ['GatedDeltaNet + sliding + full attention layers; MoE with shared_expert [obs]',
                          'tied [obs]']},
 'lfm2': {'caveats': [],
          'quirks': ['short-conv layers (conv.{in_proj,conv,out_proj}) vs self_attn layers with '
                     'q_layernorm/k_layernorm and out_proj [obs]',
                     'MLP w1/w3/w2 (gated SwiGLU); lfm2_moe: MoE after num_dense_layers [obs]',
                     'final norm is named embedding_norm [obs]',
                     'default lfm2 config has only attention layers (full_attn_idxs=None) [obs]']},
 'lfm2_moe': {'caveats': [],
              'quirks': ['short-conv layers (conv.{in_proj,conv,out_proj}) vs self_attn layers with '
                         'q_layernorm/k_layernorm and out_proj [obs]',
                         'MLP w1/w3/w2 (gated SwiGLU); lfm2_moe: MoE after num_dense_layers [obs]',
                         'final norm is named embedding_norm [obs]',
                         'default lfm2 config has only attention layers (full_attn_idxs=None) [obs]']},
 'lfm3': {'caveats': [],
          'quirks': ['conv / full / sliding layers [obs]',
                     'attention g_proj output gate, qk-norm, proportional partial rope [obs]',
                     'final norm named embedding_norm [obs]']},
 'llama4_text': {'caveats': [],
                 'quirks': ['MLP slot named feed_forward; MoE with router + shared_expert; dense layers '
                            'possible (moe_layers) [obs]',
                            'NoPE every 4th layer; L2 qk-norm only on RoPE layers; attention temperature '
                            'tuning on NoPE layers [src]',
                            'chunked local attention layers (attention_chunk_size) [cfg]',
                            'experts not using the experts interface (own bmm forward) [src]']},
 'longcat_flash': {'caveats': ['layer_mid is ambiguous (two per layer) [src]'],
                   'quirks': ['self_attn, mlps, input_layernorm, post_attention_layernorm are ModuleLists of '
                              'length 2 inside each layer [obs]',
                              'MoE output (computed from the first sublayer) added at the end [src]',
                              'MLA attention; zero-experts in MoE [src/cfg]',
                              '4 kernel calls for 2 layers [obs]']},
 'mamba': {'caveats': ['no attention/MLP values [obs]'],
           'quirks': ['mamba v1 mixer (in_proj, conv1d, x_proj, dt_proj, out_proj) [obs]',
                      'falcon_mamba: extra weightless RMSNorms on dt/B/C [obs]',
                      'residual kept in fp32 (residual_in_fp32) [src]']},
 'mamba2': {'caveats': ['no attention/MLP values [obs]'],
            'quirks': ['mamba2 mixer (in_proj, conv1d, gated norm, out_proj) [obs]',
                       'hidden*expand must equal num_heads*head_dim (validated) [obs]']},
 'mellum': {'caveats': [], 'quirks': ['qk-norm [obs]', 'MTP layer options in config [cfg]']},
 'mimo_v2_flash': {'caveats': [],
                   'quirks': ['alternating sliding(129)/full layers; attention sinks (s_aux) on some layers; '
                              'default attn implementation resolves to eager [obs]',
                              'v_head_dim (128) != qk head_dim (192); values scaled by '
                              'attention_value_scale; partial rotary 0.334 [cfg/obs]',
                              'MoE after dense first layer, no shared expert [obs]']},
 'minicpm3': {'caveats': [],
              'quirks': ['MLA (dense) [obs]',
                         'embeddings * scale_emb (MiniCPM3ScaledWordEmbedding); residual branches * '
                         'scale_depth/sqrt(L) (residual_scale); hidden / logits_scaling before lm_head '
                         '[src]']},
 'minimax': {'caveats': ['layer_input is not on the residual path (the stream is the normed input) [src]'],
             'quirks': ['lightning (linear) attention layers (qkv_proj, output_gate, norm, out_proj) '
                        'interleaved with softmax attention [obs]',
                        'alpha/beta residual factors per branch type [src]',
                        'MoE every layer [obs]']},
 'minimax_m2': {'caveats': [], 'quirks': ['qk-norm [obs]']},
 'minimax_m3_vl_text': {'caveats': [],
                        'quirks': ['text part of a VLM; RMSNorm (1+weight); partial rotary (rotary_dim) [obs '
                                   'cfg]',
                                   'block-sparse index attention (block_indices kwarg) [obs]',
                                   'shared_experts = dense MLP; dense layers allowed via mlp_layer_types '
                                   '[src]']},
 'ministral': {'caveats': [],
               'quirks': ['all layers sliding_attention by default; sliding_window kwarg [obs]']},
 'ministral3': {'caveats': [], 'quirks': ['yarn rope by default [obs cfg]']},
 'mistral': {'caveats': [], 'quirks': ['sliding_window passed to kernel (4096 default) [obs]']},
 'mixtral': {'caveats': [],
             'quirks': ['router `gate`, experts fused [obs]',
                        'expert weights [E, out, in] (gate_up_proj [E,2I,H]) [obs]']},
 'mllama': {'caveats': [],
            'quirks': ['cross-attn layers: cross_attn with q_norm/k_norm, tanh-gated residual adds [src]',
                       'text-only forward skips cross-attention layers entirely [obs: 1 kernel call for 1 '
                       'self + 1 cross layer]',
                       'built from MllamaTextConfig [obs]']},
 'modernbert-decoder': {'caveats': [],
                        'quirks': ['names: model.embeddings.tok_embeddings (+ embeddings.norm), '
                                   'layers[i].{attn_norm (Identity on layer 0), '
                                   'attn.{q_proj,k_proj,v_proj,Wo}, mlp_norm, mlp.{Wi (fused gate+up), act, '
                                   'Wo}}, model.final_norm [obs]',
                                   'lm_head = prediction head (dense+act+norm) then `decoder` Linear [obs]',
                                   'alternating local (sliding 128) / global layers [obs]']},
 'mpt': {'caveats': ['mlp_output is not the ffn module output [src]'],
         'quirks': ['names transformer.blocks[i].{norm_1, attn.{Wqkv,out_proj}, norm_2, '
                    'ffn.{up_proj,act,down_proj}}, norm_f [obs]',
                    'ALiBi; custom attention (no interface) [obs]',
                    'ffn(x_ln, residual) returns residual + mlp(x) [src]',
                    'optional clip_qkv and qk_ln [cfg]',
                    'layer returns tuple [obs]']},
 'nanochat': {'caveats': [],
              'quirks': ['MLP named fc1/fc2 + activation_fn (relu2, non-gated) [obs]',
                         'qk-norm; final logit softcap 15 [obs cfg/src]']},
 'nemotron': {'caveats': [],
              'quirks': ['LayerNorm1P: LayerNorm with (1+weight) [src]',
                         'plain MLP up_proj/down_proj with relu2 [obs]',
                         'partial rotary 0.5 [obs cfg]']},
 'nemotron_h': {'caveats': ['layer_mid does not exist; attention and MLP live in different layer indices '
                            '[obs]'],
                'quirks': ["backbone-style block (model.layers[i].{norm, mixer}); a 'transformer layer' "
                           'spans several blocks [obs]',
                           'attention layers have no positional encoding [src]',
                           'MoE experts have no gate (has_gate=False) with optional latent projections '
                           '[src]']},
 'olmo': {'caveats': [],
          'quirks': ['OlmoLayerNorm: non-parametric LayerNorm (no weight/bias) [src]',
                     'optional clip_qkv clamps q/k/v [src]']},
 'olmo2': {'caveats': [], 'quirks': ['qk-norm over full projection width [src]']},
 'olmo3': {'caveats': [], 'quirks': ['qk-norm; 3:1 sliding/full [obs]']},
 'olmo_hybrid': {'caveats': ['post_attention_layernorm means pre-MLP norm on linear layers but '
                             'post-attention-output norm on attention layers [src]'],
                 'quirks': ['two decoder-layer classes with different norm placement [obs]',
                            'GatedDeltaNet linear_attn with q/k/v/a/b/g/o_proj [obs]']},
 'olmoe': {'caveats': [],
           'quirks': ['qk-norm over the full projection width (not per head) [src]',
                      'optional clip_qkv [src]']},
 'openai-gpt': {'caveats': ['norms sit after the residual add; layer_mid is ln_1 output [src]'],
                'quirks': ['gpt2-style names (transformer.tokens_embed/positions_embed, '
                           'h[i].{attn.{c_attn,c_proj}, ln_1, mlp, ln_2}) but no final norm [obs]',
                           'custom attention (no interface) [obs]',
                           'layer returns a list [obs]']},
 'opt': {'caveats': ['attention_queries at the kernel call are already multiplied by 1/sqrt(d) [obs]'],
         'quirks': ['queries pre-scaled in q_proj output, kernel scaling=1.0 [obs]',
                    'learned positions with offset 2 [src]',
                    '350m-style variant: project_in/project_out around the decoder, no final_layer_norm [obs '
                    'variant]',
                    'ReLU fc1/fc2 [obs]']},
 'persimmon': {'caveats': [],
               'quirks': ['fused query_key_value + per-head LayerNorm q_layernorm/k_layernorm [obs]',
                          'relu2 plain MLP dense_h_to_4h/dense_4h_to_h; partial rotary 0.5 [obs]',
                          'kernel via attention_interface [obs]']},
 'phi': {'caveats': [],
         'quirks': ['output projection named dense; final norm model.final_layernorm [obs]',
                    'partial rotary 0.5; biases everywhere; optional qk_layernorm [obs]',
                    'lm_head bias [obs]']},
 'phi3': {'caveats': [],
          'quirks': ['fused qkv_proj and gate_up_proj; activation_fn [obs]',
                     'resid_attn_dropout/resid_mlp_dropout modules [obs]']},
 'phimoe': {'caveats': [],
            'quirks': ['LayerNorm (with bias) instead of RMSNorm [obs]',
                       'router named `router`; optional lm_head bias [cfg]']},
 'qwen2': {'caveats': [],
           'quirks': ['q/k/v bias, no o_proj bias [obs]',
                      'optional sliding window on top layers (use_sliding_window/max_window_layers) [src]']},
 'qwen2_moe': {'caveats': [],
               'quirks': ['shared_expert + sigmoid shared_expert_gate [obs]', 'q/k/v bias [obs]']},
 'qwen3': {'caveats': [], 'quirks': ['qk-norm q_norm/k_norm (per-head RMSNorm, before RoPE) [src]']},
 'qwen3_5_moe_text': {'caveats': [],
                      'quirks': ['GatedDeltaNet with separate in_proj_qkv/in_proj_z/in_proj_b/in_proj_a '
                                 '[obs]',
                                 'gated full attention as qwen3_next; RMSNorm (1+w); partial rotary 0.25 '
                                 '[obs]',
                                 '_moe: MoE with shared_expert gate [obs]',
                                 'text towers of multimodal qwen3.5 [src]']},
 'qwen3_5_text': {'caveats': [],
                  'quirks': ['GatedDeltaNet with separate in_proj_qkv/in_proj_z/in_proj_b/in_proj_a [obs]',
                             'gated full attention as qwen3_next; RMSNorm (1+w); partial rotary 0.25 [obs]',
                             '_moe: MoE with shared_expert gate [obs]',
                             'text towers of multimodal qwen3.5 [src]']},
 'qwen3_moe': {'caveats': [], 'quirks': ['qk-norm [obs]']},
 'qwen3_next': {'caveats': ['attention_head_outputs gated [src]'],
                'quirks': ['3:1 GatedDeltaNet (linear_attn.{in_proj_qkvz,in_proj_ba,conv1d,norm,out_proj}) / '
                           'full attention [obs]',
                           'full attention: q_proj emits query+gate, output * sigmoid(gate) before o_proj; '
                           'qk-norm; partial rotary 0.25 [src/obs]',
                           'RMSNorm (1+w) [src]',
                           'MoE with shared_expert + shared_expert_gate [obs]']},
 'qwen4_exp_text': {'caveats': ['layer_input/output are multi-stream [src]'],
                    'quirks': ['attn_hyper_connection / mlp_hyper_connection (hc_norm + low-rank mix '
                               'weights) [obs]',
                               'GatedDeltaNet + indexed (QSA) attention layers; optional n-gram per-layer '
                               'embeddings (PLE) [obs/cfg]',
                               'no model.norm; hyper_connection_mixer collapses streams at the end [obs]',
                               'needs indexer_* config fields set for indexed layers [obs]']},
 'recurrent_gemma': {'caveats': [],
                     'quirks': ['temporal_block is an RG-LRU recurrent block or local attention (MQA, '
                                'partial rotary 0.5) [obs]',
                                'embeddings * sqrt(hidden); logits soft-cap 30; RMSNorm (1+w) [src]',
                                'biases in MLP and recurrent block [obs]']},
 'reformer': {'caveats': ['no single residual stream [src]'],
              'quirks': ['LSH / local chunked attention, axial position embeddings [src]',
                         'attention and FFN blocks contain their own LayerNorm [obs]',
                         'needs is_decoder=True; custom attention [obs]',
                         'decoder layer returns ReformerOutput[4] [obs]']},
 'rwkv': {'caveats': ['no softmax attention [src]'],
          'quirks': ['names rwkv.embeddings / rwkv.blocks[i].{pre_ln, ln1, attention (time-mix: '
                     'key,value,receptance,output), ln2, feed_forward (channel-mix: key,receptance,value)} / '
                     'ln_out / head [obs]',
                     'rescale_every halves hidden states every N layers at inference [src]',
                     'layer returns (hidden, state, attn) [obs]']},
 'sarvam_mla': {'caveats': [],
                'quirks': ['model_type alias building DeepseekV3ForCausalLM; q_lora_rank None -> q_proj '
                           '[obs]']},
 'sarvam_moe': {'caveats': [],
                'quirks': ['partial rotary 0.5; optional qk-norm (use_qk_norm) [obs cfg]',
                           'sarvam_moe: model_type alias building Glm4MoeForCausalLM with use_qk_norm=True '
                           '[obs]']},
 'seed_oss': {'caveats': [], 'quirks': ['q/k/v bias (attention_out_bias default False) [obs]']},
 'smollm3': {'caveats': [],
             'quirks': ['NoPE on every 4th layer (no_rope_layers) [src/cfg]',
                        'tied embeddings by default [obs]']},
 'solar_open': {'caveats': [], 'quirks': ['shared_experts [obs]']},
 'stablelm': {'caveats': [],
              'quirks': ['LayerNorm with bias [obs]',
                         'partial rotary 0.25 [obs cfg]',
                         'use_parallel_residual=True drops post_attention_layernorm -> parallel single-norm '
                         'block; qk_layernorm adds per-head LayerNorm q_layernorm/k_layernorm [obs '
                         'variant]']},
 'starcoder2': {'caveats': [],
                'quirks': ['MLP c_fc/c_proj + act (GELU-tanh, non-gated) [obs]',
                           'LayerNorm with bias; biases on all projections [obs]',
                           'tied embeddings [obs]']},
 'vaultgemma': {'caveats': [],
                'quirks': ['pre-MLP norm named pre_feedforward_layernorm (no post_attention_layernorm) [obs]',
                           'attention logit softcap 50 and final logit softcap 30 [obs]',
                           'embed * sqrt(hidden); RMSNorm (1+w); query_pre_attn_scalar scaling [src/obs]',
                           'default attn implementation resolves to eager [obs]']},
 'xglm': {'caveats': ['attention values only observable by patching torch ops [obs]'],
          'quirks': ['custom inline attention (bmm + softmax; no interface) [obs: 0 calls]',
                     'sinusoidal positions; embed scaled by sqrt(d) [src]',
                     'final norm model.layer_norm [obs]']},
 'xlstm': {'caveats': ['no softmax attention [src]'],
           'quirks': ['names backbone.embeddings / backbone.blocks[i].{norm_mlstm, '
                      'mlstm_layer.{q,k,v,igate/fgate/ogate_preact, multihead_norm, out_proj}, norm_ffn, '
                      'ffn.{proj_up_gate,proj_up,proj_down,act_fn}} / out_norm [obs]',
                      'logits soft-cap (output_logit_soft_cap 30) [src]',
                      'layer returns (hidden, state) [obs]']},
 'youtu': {'caveats': [], 'quirks': ['dense MLA model (no MoE) [obs]; tied [obs]']},
 'zamba': {'caveats': ['one attention module object is called at several depths [src]'],
           'quirks': ['shared_transf(ormer) parameters are shared (tied) across hybrid layers; attention '
                      'input = concat(hidden, original embeddings) -> 2*hidden width [src]',
                      'zamba2: optional LoRA adapters per shared-block use; mamba2 mixers [cfg/src]',
                      'tiny zamba needs >=2 hybrid layers (tie-weights regex) [obs]']},
 'zamba2': {'caveats': ['one attention module object is called at several depths [src]'],
            'quirks': ['shared_transf(ormer) parameters are shared (tied) across hybrid layers; attention '
                       'input = concat(hidden, original embeddings) -> 2*hidden width [src]',
                       'zamba2: optional LoRA adapters per shared-block use; mamba2 mixers [cfg/src]',
                       'tiny zamba needs >=2 hybrid layers (tie-weights regex) [obs]']},
 'zaya': {'caveats': ['layer returns tuple [obs]'],
          'quirks': ['CCA attention: qkv_proj is a conv-augmented projection module (ZayaCCAProjection), '
                     'qk_norm module [obs]',
                     'MoE router is an MLP (router_mlp) fed with previous layer router state; layer returns '
                     '(hidden, prev_router_hidden_states) [obs]',
                     'tied [obs]',
                     'partial rotary ([0.5]) [obs cfg]']}}

#: model_type -> {variant: {"note": what the variant switches, "quirks": [...], "caveats": [...]}}
VARIANTS = {'bloom': {'post_ln_residual': {'caveats': [],
                                'note': 'apply_residual_connection_post_layernorm=True: residual taken from '
                                        'normed input [obs]',
                                'quirks': ['apply_residual_connection_post_layernorm=True: residual taken '
                                           'from normed input [obs]',
                                           'decoder layer returns tuple[2] [obs]']}},
 'cohere': {'qk_norm': {'caveats': [],
                        'note': 'use_qk_norm=True adds q_norm/k_norm [obs]',
                        'quirks': ['use_qk_norm=True adds q_norm/k_norm [obs]']}},
 'deepseek_v2': {'lite_no_q_lora': {'caveats': [],
                                    'note': 'q_lora_rank=None: q_proj instead of q_a_proj/q_b_proj [obs]',
                                    'quirks': ['q_lora_rank=None: q_proj instead of q_a_proj/q_b_proj '
                                               '[obs]']}},
 'doge': {'moe': {'caveats': [],
                  'note': 'is_moe=True: CDMoE MLP [obs]',
                  'quirks': ['is_moe=True: CDMoE MLP [obs]']}},
 'falcon': {'new_decoder_architecture': {'caveats': [],
                                         'note': 'falcon 40B/180B style: ln_attn + ln_mlp, parallel [obs]',
                                         'quirks': ['falcon 40B/180B style: ln_attn + ln_mlp, parallel [obs]',
                                                    'decoder layer returns tuple[2] [obs]']},
            'rw_alibi_sequential': {'caveats': [],
                                    'note': 'falcon-rw style: ALiBi, sequential, biases [obs]',
                                    'quirks': ['falcon-rw style: ALiBi, sequential, biases [obs]',
                                               'decoder layer returns tuple[2] [obs]']}},
 'gemma4_text': {'moe': {'caveats': [],
                         'note': 'enable_moe_block=True: router/experts as layer children summed with dense '
                                 'mlp [obs]',
                         'quirks': ['enable_moe_block=True: router/experts as layer children summed with '
                                    'dense mlp [obs]',
                                    'partial rotary ([0.25]) [obs cfg]']}},
 'gpt_bigcode': {'mha': {'caveats': [],
                         'note': 'multi_query=False: c_attn out = 3H [obs]',
                         'quirks': ['multi_query=False: c_attn out = 3H [obs]']}},
 'gpt_neox': {'sequential': {'caveats': [],
                             'note': 'use_parallel_residual=False -> sequential pre-norm [obs]',
                             'quirks': ['use_parallel_residual=False -> sequential pre-norm [obs]',
                                        'partial rotary ([0.25]) [obs cfg]']}},
 'opt': {'post_ln_proj': {'caveats': [],
                          'note': 'do_layer_norm_before=False + word_embed_proj_dim (opt-350m): post-LN, '
                                  'project_in/out, no final norm [obs]',
                          'quirks': ['do_layer_norm_before=False + word_embed_proj_dim (opt-350m): post-LN, '
                                     'project_in/out, no final norm [obs]']}},
 'phi': {'qk_layernorm': {'caveats': [],
                          'note': 'qk_layernorm=True adds q_layernorm/k_layernorm [obs]',
                          'quirks': ['qk_layernorm=True adds q_layernorm/k_layernorm [obs]',
                                     'partial rotary ([0.5]) [obs cfg]']}},
 'stablelm': {'parallel_qknorm': {'caveats': [],
                                  'note': 'use_parallel_residual=True + qk_layernorm -> parallel single '
                                          'norm, per-head LayerNorm q/k [obs]',
                                  'quirks': ['use_parallel_residual=True + qk_layernorm -> parallel single '
                                             'norm, per-head LayerNorm q/k [obs]',
                                             'partial rotary ([0.25]) [obs cfg]']}}}
