"""Gradient-boosted trees and GPU dataframes beside torch (XGBoost, LightGBM, Treelite): the devices their boosters
and data sit on, the array dtypes they read, and the single precision their GPU and compiled paths compute in."""
from __future__ import annotations

from amplora.doctor.kb.entry import make as _e
from amplora.doctor.kb.patterns import EXCEPTION_NAMED

TABULAR = (
    _e("xgboost-data-device", "device", "an XGBoost booster on the GPU given data on the host",
       r"Falling back to prediction using DMatrix due to mismatched devices|"
       r"\bXGBoost is running on: ?\S+, while the input data is on: ?\S+",
       "The booster was trained or set on one device (`device='cuda'`: cuda:0) and `predict` / `inplace_predict` "
       "got data on a different device (a NumPy array or pandas frame on the CPU host), so XGBoost copies it into "
       "a DMatrix first: the prediction is right, but slower and with more memory, and each call warns.",
       "Give the booster data on its own device (a CuPy array or cuDF frame for a CUDA booster), or move the "
       "booster to the data's device before predicting (`model.set_params(device='cpu')` / "
       "`booster.set_param({'device': 'cpu'})`)."),
    _e("xgboost-float16-input", "numpy", "float16 data that XGBoost's array reader does not take",
       r"\bFloating point-2 is not supported\b",
       "XGBoost reads arrays through the array interface and names a float by its size in bytes: "
       "'Floating point-2' is a 2-byte float, float16, which its data path (the NumPy one in these releases) does "
       "not support; float32 and float64 are read.",
       "Cast the features before building the DMatrix or calling `fit` / `predict`: `X.astype(np.float32)` (or "
       "`df.astype('float32')`); newer XGBoost releases read float16 from CuPy arrays."),
    _e("treelite-float32-thresholds", "overflow", "a Treelite-compiled model predicting unlike its trainer",
       r"\A(?=.*\btreelite\b)(?=.*(\b(different|differ\w*|mismatch\w*|inconsisten\w*)\b[^.\n]{0,60}\b(predict\w*|"
       r"scores?|results?|outputs?)\b|\b(predict\w*|scores?|results?|outputs?)\b[^.\n]{0,40}\b(differ\w*|mismatch\w*|"
       r"(are |is )?not (the )?same)\b))",
       unless=EXCEPTION_NAMED,
       cause="Treelite stores a model's split thresholds, and reads the inputs, in single precision (float32) unless "
       "told otherwise, while LightGBM and XGBoost keep double-precision (float64) thresholds: an input close to a "
       "threshold goes down the other branch, so some compiled predictions differ from the trainer's.",
       fix="Compile with float64 thresholds and inputs (newer Treelite releases: the model's `threshold_type` "
       "float64, or load it through `treelite.frontend` with double precision and pass float64 data), or compare "
       "with a tolerance and accept the rare flipped split."),
    _e("lightgbm-gpu-single-precision", "overflow", "LightGBM's GPU learner, which sums histograms in single precision",
       r"\A(?=.*\b(LightGBM|lgbm|lgb)\b)(?=.*\bGPU\b)(?=.*(\b(non-?reproducible|not reproducible|"
       r"non-?deterministic|not deterministic)\b|\b(slightly |very )?different (results?|predictions?|scores?|models?|"
       r"AUC|loss)\b|\bdiffer\w* (from|than) (the )?CPU\b))",
       unless=EXCEPTION_NAMED + r"|No OpenCL device|out of memory",
       cause="LightGBM's GPU (OpenCL / CUDA) learner builds its gradient histograms in single precision "
       "(`gpu_use_dp=false` by default) and adds them in an order the GPU's threads decide, so float32 rounding "
       "makes runs differ from each other and from the CPU learner, which sums in double precision.",
       fix="Set `gpu_use_dp=True` for double-precision histograms on the GPU (slower; a build with "
       "`SCORE_T_USE_DOUBLE` for full double), with `deterministic=True` and a fixed `seed`, or train on the CPU "
       "where results must repeat exactly."),
)
