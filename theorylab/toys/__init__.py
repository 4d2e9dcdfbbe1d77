"""Toy proxies of mostly empirical papers (issue 35): small, labelled models on which the mathematics a paper
stands on can be checked exactly and its mechanism measured.  Every claim built on them says "toy proxy": none
reproduces the papers' tables (ImageNet, LLMs, RL benchmarks).

Modules (import from them directly or from here):

- ``theorylab.toys.ptq_transform``  paper adaqtransform: a random linear layer with low-bit weight and activation
  quantisation (nearest or AdaRound-like rounding), the per-channel affine transformation (xi, eta) fitted on
  calibration data, and its fold into the layer's step and bias or merge into the next layer
"""

from .ptq_transform import (MAX_BITS, ROUNDINGS, Layer, QuantLayer, absmax_step, apply_transform, channel_mse, fit_transform,
                            float_forward, fold_transform, int_range, layer_inputs, merge_into_next, mse_step,
                            quant_forward, quantize, quantize_layer, random_layer)

__all__ = ["MAX_BITS", "ROUNDINGS", "Layer", "QuantLayer", "absmax_step", "apply_transform", "channel_mse", "fit_transform",
           "float_forward", "fold_transform", "int_range", "layer_inputs", "merge_into_next", "mse_step",
           "quant_forward", "quantize", "quantize_layer", "random_layer"]
