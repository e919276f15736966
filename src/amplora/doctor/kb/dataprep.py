"""Data on its way to the model: image libraries (OpenCV, albumentations, imgaug, PIL, DALI, torchvision's image
utilities), DataLoader collation and numba kernels. Each takes arrays only in the dtypes it lists, and NumPy hands
out float64 and Python numbers without being asked."""
from __future__ import annotations

from amplora.doctor.kb.entry import make as _e

_IMAGE_FIX = ("Convert before the call: `(img * 255).clip(0, 255).astype(np.uint8)` for an image in [0, 1] (`img."
              "astype(np.uint8)` for 0-255 values), or `img.astype(np.float32)` where float32 is accepted; ")

DATAPREP = (
    _e("opencv-unsupported-depth", "numpy", "an OpenCV function given an image depth it does not support",
       r"Unsupported depth of input image|\bdepth(\(\))? == CV_(8U|8S|16U|16S|32S|32F|64F)\b",
       "The image's depth (OpenCV's name for its dtype: CV_8U uint8, CV_16U uint16, CV_32F float32, CV_64F "
       "float64) is not supported by this function: color conversions (behind `cvtColor` and `imshow`), CLAHE, "
       "Otsu thresholds and `equalizeHist` take uint8 (some also uint16 or float32), and NumPy arithmetic or a "
       "model's output turns an image into float64 without notice.",
       _IMAGE_FIX + "the `Set<...>` in the message lists the depths accepted (0 = CV_8U, 2 = CV_16U, 5 = CV_32F, "
       "6 = CV_64F)."),
    _e("image-library-dtype", "numpy", "an image-augmentation library given an image dtype it does not support",
       r"MAX_VALUES_BY_DTYPE\[|\b\w+ supports only (uint8|float32)( and (uint8|float32))? (inputs?|images?)\b|"
       r"Got dtype '\w+', which is a forbidden dtype",
       "An image-augmentation library (albumentations, imgaug, ...) takes images only in the dtypes it lists, uint8 "
       "above all (float32 in [0, 1] for many albumentations transforms; uint8 only for CLAHE, equalize or JPEG "
       "compression), and this image's dtype is not supported there: a float64 array from NumPy arithmetic or "
       "`/ 255`, a float32 image where a transform takes uint8, an int or uint16 image from a 16-bit file.",
       _IMAGE_FIX + "where a loader or iterator builds the arrays, give it the dtype (`dtype='uint8'`)."),
    _e("dali-type-assert", "numpy", "a DALI operator given an argument of another type",
       r"\btype\(\)(\.id\(\))? == DALI_\w+",
       "A DALI operator checks its input's type (DALI_FLOAT is float32, DALI_UINT8 uint8) and got another: a "
       "NumPy array passed as an argument or an external source (an affine matrix, a mean or std, coordinates) is "
       "float64 by default.",
       "Give the operator the type it asserts: `np.asarray(matrix, dtype=np.float32)` for arguments and external-"
       "source data, or `fn.cast(x, dtype=types.FLOAT)` inside the pipeline."),
    _e("pil-mode-dtype", "numpy", "a PIL mode that does not match the array's dtype",
       r"Incorrect mode \((F|I|I;16|L|RGB|RGBA)\) supplied for input type",
       "torchvision's `to_pil_image` picks the PIL mode from the dtype, and releases before the fix first scaled a "
       "single-channel float tensor by 255 and cast it to uint8 (mode 'L'), so a float mode ('F', float32) was "
       "refused; the mode asked for must match the array (L = uint8, I;16 = uint16, I = int32, F = float32).",
       "Build the image from the float32 array: `Image.fromarray(x.squeeze().numpy().astype(np.float32), "
       "mode='F')`, or upgrade torchvision (a one-channel float tensor maps to mode 'F'); for an 8-bit image scale "
       "to uint8 first."),
    _e("save-image-uint8", "numpy", "torchvision's save_image given a uint8 tensor",
       r"\b(save_image|make_grid)\b.{0,400}\b(uint8|unit8|ByteTensor)\b|\b(uint8|unit8|ByteTensor)\b.{0,400}"
       r"\b(save_image|make_grid)\b",
       "torchvision's `save_image` (and `make_grid`) takes float tensors with values in [0, 1]: it multiplies by "
       "255, rounds, clamps and casts to uint8, so a uint8 tensor of 0-255 values wraps around into a wrong image, "
       "and older releases did it in place, changing the tensor passed in.",
       "Pass `x.float() / 255` (or `convert_image_dtype(x, torch.float)`), or write a uint8 tensor as it is with "
       "`torchvision.io.write_png(x, path)` or `Image.fromarray(x.permute(1, 2, 0).numpy())`.",
       context=r"\b(abnormal|wrong|strange|weird|changes?|changed|black|white|noise|garbage|incorrect)\b"),
    _e("int-division-sigfpe", "mismatch", "an integer division by zero (a 'floating point exception')",
       r"Floating point (exception|error)",
       "A 'Floating point exception' that kills the process (SIGFPE) is, on CPUs, an integer division by zero: a "
       "float division gives inf or NaN instead; here an integer tensor (a uint8 image, Long values) was divided "
       "by zero in integer arithmetic, such as `Normalize` on a uint8 image whose std is 0.",
       "Convert to float before dividing: `img.float() / 255` (or `ToTensor`, `convert_image_dtype`) before "
       "`Normalize`, and guard zero denominators (`std.clamp_min(1e-6)`).",
       context=r"\bnormaliz\w*|\bstd\b|\bdivi(de|sion|ding)\b|\binteger\b|\buint8\b|ByteTensor"),
    _e("index-dtype-kernel", "mismatch", "indices of a narrower integer dtype than a custom kernel reads",
       r"\A(?=.*\b\w*(ind|idx|index|indices|ids)\b.{0,120}dtype=torch\.(int8|int16)\b)"
       r"(?=.*\b(all )?(zeros?|garbage|wrong|incorrect)\b)",
       "The index tensor handed to a custom kernel (RoIAlign's box index, a gather or scatter extension) has a "
       "narrower integer dtype than the kernel reads: CUDA extensions read the raw buffer as int32 (`IntTensor`) "
       "or int64 without checking, so int8 or int16 indices are misread and results come out zero or from the "
       "wrong rows.",
       "Create the indices in the dtype the kernel expects: `dtype=torch.int` (int32) or `.long()` (int64) as "
       "its signature or README says, or `.to(torch.int32)` before the call."),
    _e("collate-float64", "mismatch", "a DataLoader that hands out float64 batches",
       r"\b(DataLoader|data ?loader|collate\w*|batch(es)?)\b[^\n]{0,60}\b(auto-?)?(convert|turn|cast|change|become|"
       r"return|give|yield|produce|output)\w*\b[^\n]{0,30}\b(Double|DoubleTensor|float64)\b",
       "PyTorch's default collate builds a batch from what `__getitem__` returns: Python floats and NumPy float64 "
       "scalars or arrays become float64 (double) tensors, so a dataset that indexes a 1-D target (getting a "
       "Python number) or keeps NumPy float64 data yields double batches even when the source was cast with "
       "`.float()`.",
       "Return float32 tensors from `__getitem__` (`torch.tensor(y, dtype=torch.float32)`; keep the target 2-D so "
       "indexing returns a tensor; convert NumPy data once with `.astype(np.float32)`), or cast each batch "
       "(`x.float()`) or in a custom `collate_fn`."),
    _e("numba-signature-dtype", "numpy", "a numba kernel compiled for other dtypes than the array has",
       r"No matching definition for argument type\(s\)[^\n]*\barray\((float|int|uint)\d+",
       "A numba-compiled function (`@njit` with explicit signatures, a `@guvectorize` kernel, as in sktime's and "
       "MiniRocket's transforms) exists only for the dtypes its signatures list, and this array's dtype is not one "
       "of them: float32 input to a kernel compiled for float64 (or the reverse), or ints where floats are listed.",
       "Cast the input to a dtype its signatures list, usually `X.astype(np.float64)` (`np.float32` for a "
       "float32-only kernel), C-contiguous (`np.ascontiguousarray`); a library that does not cast for you may do "
       "so in a later release."),
)
