"""Data on its way to the model: image libraries (OpenCV, albumentations, imgaug, PIL, DALI, torchvision's image
utilities), file formats, NumPy, DataLoader collation, and code compiled for some dtypes only (numba signatures,
Cython buffers, C++ / CUDA overloads, Taichi and Warp kernels). Each takes arrays only in the dtypes it lists, and
NumPy hands out float64 and Python numbers without being asked."""
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
       r"return|give|yield|produce|output)\w*\b[^\n]{0,30}\b(Double|DoubleTensor|float64)\b|"
       # a batch printed beside its source: FloatTensor in, DoubleTensor out of the loader
       r"\A(?=.*\b(DataLoader|TensorDataset|collate\w*)\b)(?=.*\bFloatTensor\b)(?=.*\bDoubleTensor\b)",
       "PyTorch's default collate builds a batch from what `__getitem__` returns: Python floats and NumPy float64 "
       "scalars or arrays become float64 (double) tensors, so a dataset that indexes a 1-D target (getting a "
       "Python number) or keeps NumPy float64 data yields double batches even when the source was cast with "
       "`.float()`.",
       "Return float32 tensors from `__getitem__` (`torch.tensor(y, dtype=torch.float32)`; keep the target 2-D so "
       "indexing returns a tensor; convert NumPy data once with `.astype(np.float32)`), or cast each batch "
       "(`x.float()`) or in a custom `collate_fn`."),
    _e("image-io-sample-type", "numpy", "an image file format or writer without this sample type",
       r"can ?not handle images with (64|16|32)-bit (floating[- ]point )?samples|"
       r"cannot write mode (F|I|I;16\w*) as (PNG|JPEG|JPG|GIF|BMP|WEBP)\b|"
       r"PREDICTOR=2 is supported on 64 bit\s+samples",
       "The image file format or its reader / writer does not support this sample type: libtiff inside ITK or "
       "PIL cannot handle 64-bit (float64) TIFF samples, and PIL writes float32 (mode 'F') or 32-bit integer (mode "
       "'I') images only as TIFF, not PNG or JPEG; GDAL's `PREDICTOR=2` compression takes 64-bit samples only with "
       "libtiff newer than 4.3, so a float64 raster fails to write, often float32 data promoted by a float64 scalar "
       "(NumPy 2 no longer keeps float32 when a NumPy float64 scalar multiplies or divides it).",
       "Save the array in a type the format takes: `a.astype(np.float32)` for TIFF, scaled `uint8` / `uint16` for "
       "PNG (`(a * 255).astype(np.uint8)`), a plain Python `float()` for a scalar that would promote; or choose a "
       "format and reader that support float64 (NIfTI, NRRD, "
       "`.npy`, ITK's `ImageFileReader` with another ImageIO)."),
    _e("numpy-int-overflow", "overflow", "a NumPy integer scalar that overflowed and wrapped",
       r"overflow encountered in (scalar (negative|absolute)|(u?short|u?byte|u?int|u?long|u?longlong|intc)_scalars)",
       "A NumPy integer value overflowed its dtype and wrapped around: negating int16's -32768 gives -32768 again "
       "(int16 holds -32768 to 32767), `abs` of the minimum stays negative, and uint8 255 + 1 is 0; NumPy only "
       "warns, and the wrapped values (a corrupted image or volume, a wrong maximum) flow on.",
       "Do the arithmetic in a wider type: `int(x)` for a scalar, `a.astype(np.int32)` / `np.int64` or float "
       "before negating, adding or multiplying, and cast back with clipping (`np.clip(r, lo, hi).astype(np.int16)`) "
       "only at the end."),
    _e("torch-uint-limited", "cpu-kernel", "torch's uint16 / uint32 / uint64, which few ops support",
       r"not implemented for '(UInt16|UInt32|UInt64)'",
       "torch's uint16, uint32 and uint64 are storage dtypes with limited support: they exist for loading and "
       "moving data (16-bit images, DLPack, NumPy), and most ops (reductions such as min / max, arithmetic, "
       "convolutions) are not implemented for them.",
       "Cast before computing: `x.to(torch.int32)` (it holds every uint16), `x.float()` for images (divided by "
       "65535), or `uint8` for an 8-bit preview (`(x * 255 / x.max()).to(torch.uint8)` computed in float)."),
    _e("nifti-header-dtype", "numpy", "float data saved under an integer NIfTI header",
       r"\A(?=.*\b(nib\.|nibabel|Nifti1?Image|NIfTI|\.nii\b))(?=.*\bheader\b)(?=.*\b(get_fdata|float64|float32)\b)"
       r"(?=.*\b(chang\w*|differ\w*|not (the )?same|not identical|wrong|must be identical|slightly)\b)",
       "`get_fdata()` returns float64, and a header reused from an integer image (int16 on disk) makes nibabel "
       "store the floats as int16 with a scale factor (`scl_slope` / `scl_inter`), so the saved values come back "
       "rounded and rescaled.",
       "Set the header's dtype to the data's (`header.set_data_dtype(np.float32)`), or cast the array to the "
       "header's dtype before saving (`img.astype(header.get_data_dtype())`); `np.asanyarray(img.dataobj)` keeps "
       "the stored integers."),
    _e("numpy-scalar-default-dtype", "mismatch", "a NumPy float64 scalar turned into torch's default dtype",
       r"\btorch\.(tensor|as_tensor)\(\s*(np|numpy)\.float64\([^\n]{0,40}\)\s*\)(?=.{0,200}\bfloat32\b)",
       "A NumPy float64 scalar is a subclass of Python's float, and torch releases before the fix took it as a "
       "Python float, which becomes the default dtype (float32): the double precision is lost without a word.",
       "Give the dtype (`torch.tensor(x, dtype=torch.float64)`), wrap it in an array (`torch.from_numpy(np.asarray("
       "x))`), or upgrade torch, which keeps float64 for NumPy scalars."),
    _e("tensor-constructor-float32", "mismatch", "`torch.Tensor(data)`, which always makes float32",
       # told in words beside the constructor, or as a test asserting that a NumPy dtype survived
       r"\A(?=.*\btorch\.(Float)?Tensor\(\s*\w)(?=.*\b(convert\w*|cast|turn\w*|becomes?|became|changed)\b[^.\n]{0,40}"
       r"\b(Float32|float32|FloatTensor)\b)|"
       r"\A(?=.*(numpy|\bnp\b|ndarray))(?=.*\bassert torch\.float32 == torch\.(float16|bfloat16|float64|u?int\d+)\b)",
       "`torch.Tensor(x)` (like `torch.FloatTensor(x)`) is the float32 tensor type's constructor: whatever x holds "
       "(int64 ids, float16 or float64 arrays) comes back as float32 in the default dtype, so a step that rebuilds "
       "tensors with it (a serving runner, a collate function, a conversion helper) changes their dtype silently.",
       "Build tensors with the functions that keep the data's dtype: `torch.from_numpy(a)` (shares memory) or "
       "`torch.as_tensor(a)` / `torch.tensor(a)` (copies), then `.to(device)`; give `dtype=` only where a cast is "
       "meant."),
    _e("gym-box-dtype", "mismatch", "a gym Box space whose bounds or observations are float64",
       r"Box bound precision lowered by casting to \w+|\bBox autodetected dtype as\b",
       "A gym / gymnasium `Box` space has one dtype (float32 unless given), and its bounds came as NumPy float64 "
       "arrays (`np.array([...])`, `np.inf`, `np.ones(n)` default to float64): gym casts them down to the space's "
       "dtype and warns, or, with no dtype given, picks float32 itself and asks for an explicit dtype; "
       "observations built the same way then do not match the space either.",
       "Build the bounds in the space's dtype and say it: `Box(low=np.float32(-1), high=np.float32(1), shape=(n,), "
       "dtype=np.float32)` (or `.astype(np.float32)` on the arrays), and return float32 observations; declare "
       "`dtype=np.float64` instead if the environment really produces float64 (dm_control)."),
    _e("empty-tensor-default-float32", "mismatch", "an empty list turned into a float32 tensor",
       r"\A(?=.*\btensor\(\[\], size=\([\d, ]+\)\)(?!,))(?=.*\b(input_ids|token\w*|ids|indices|labels|int64|long)\b)",
       "`torch.tensor([])` (and a tokenizer or collate that builds its tensor from an empty list) has no values to "
       "infer a dtype from, so it gets the default dtype, float32 (an empty tensor printed without `dtype=` is "
       "float32): token ids of an empty input come back float32, and `torch.cat` with int64 ids then promotes "
       "them all to float.",
       "Give the dtype where the tensor is made (`torch.tensor(ids, dtype=torch.long)`, "
       "`torch.empty(1, 0, dtype=torch.long)`), skip empty inputs, or cast (`ids.long()`) before concatenating; "
       "upgrade the tokenizer library if it builds the tensor."),
    _e("swig-overload-dtype", "numpy", "a C++ library's Python binding without an overload for this array dtype",
       r"Wrong number or type of arguments for overloaded function",
       "A SWIG-wrapped C++ library (SimpleITK, ITK, GDAL and others) has one overload per pixel or sample type, "
       "and none for this array's dtype: SimpleITK has no float16 pixel type, and int64 or bool arrays miss "
       "overloads in several such libraries; the dtype is not supported, whatever the message says about arguments.",
       "Convert the array to a supported type first: `a.astype(np.float32)` for float16, `np.int32` / `np.uint8` "
       "for int64 or bool label maps; the library's docs list its pixel types (`sitk.sitkFloat32`, ...).",
       context=r"\b(float16|fp16|half|int64|bool|uint64|complex\w*|dtype)\b"),
    _e("cython-buffer-dtype", "numpy", "a Cython extension given an array of another dtype than it was compiled for",
       # (integer widths alone, npy_intp against a 32-bit Windows long, are a platform matter)
       r"Buffer dtype mismatch, expected '(float|double|DTYPE_t|\w*float\w*)' but got '[\w ]+'|"
       r"Buffer dtype mismatch, expected '[\w ]+' but got '(float|double|\w*float\w*)'",
       "A Cython extension (a typed memoryview or `np.ndarray[DTYPE_t]` argument in scikit-learn, pycocotools, "
       "a repository's NMS or matching code) was compiled for one float dtype and given another: float32 where "
       "`double` (DTYPE_t = float64) is declared, or the reverse.",
       "Convert the array to the declared dtype at the call: `np.ascontiguousarray(a, dtype=np.float64)` for "
       "`double`, `np.float32` for `float`."),
    _e("numpy-safe-cast", "numpy", "a NumPy function that needs integers (or another dtype) given floats",
       r"Cannot cast array data from dtype\('?\w+'?\) to dtype\('?\w+'?\) according to the rule 'safe'",
       "A NumPy function that takes one dtype (integers for `np.bincount`, `np.repeat` counts or indices, the "
       "dtype of an `out=` array) got an array it can only reach by an unsafe cast, usually float64 values where "
       "int64 is needed (labels or counts that became floats after arithmetic or a pandas NaN).",
       "Convert explicitly, after checking the values are whole: `a.astype(np.int64)` (round first if needed: "
       "`np.rint(a).astype(np.int64)`), or keep labels and counts integer where they are made."),
    _e("float128-unsupported", "numpy", "a NumPy float128 (long double) array, which torch and JAX do not have",
       r"Unknown NumPy type f size 16|\b(float128|longdouble|float96)\b[^\n]{0,80}\b(not supported|unsupported|can'?t "
       r"convert|cannot convert|Unknown)\b|can'?t convert np\.ndarray of type numpy\.(float128|longdouble)",
       "The array is NumPy's float128 (`np.longdouble`, 80-bit extended precision padded to 16 bytes on x86), made "
       "by `np.longdouble`, a `dtype='g'` or arithmetic with such a scalar; torch and JAX (XLA) have no such dtype, "
       "so it is not supported there.",
       "Cast before handing it over: `a.astype(np.float64)` (or float32); keep long double arithmetic, if needed at "
       "all, on the NumPy side."),
    _e("numpy-float-index", "numpy", "a NumPy float64 where an integer is needed",
       r"'numpy\.float(64|32|16)' object cannot be interpreted as an integer",
       "A NumPy float scalar reached a place that needs an integer (a size, a count, a `range` bound, an int array's "
       "fill value): `/` is true division and returns float64, `np.ceil` / `np.floor` return floats, and NumPy "
       "before 2.0 promotes uint64 combined with a signed int (`3 * np.sum(mask)`) to float64.",
       "Make it an integer where it is computed: `int(x)`, `//` instead of `/`, `np.ceil(x).astype(int)`, or "
       "`int(np.sum(mask))` before mixing it with Python ints."),
    _e("taichi-int-bound", "numpy", "a Taichi loop bound or index of a float type",
       r"Every argument of ndrange should be an integer",
       "A Taichi `ti.ndrange` (or loop) bound is a float: a kernel argument annotated `ti.f32`, or a Python "
       "float from a division, where newer Taichi releases require an integer (i32) type.",
       "Annotate the argument `ti.i32` (or pass `int(n)`), and compute bounds with `//`."),
    _e("float64-truncated", "overflow", "a float64 value that passed through float32",
       r"\b(double[- ]precision|float64|f64)\b[^\n]{0,60}\b(truncat\w*|rounded|cast|cut|downcast\w*) to "
       r"(single[- ]precision|float32|f32)\b|\b(truncat\w*|round\w*) (\w+ ){0,2}(double|float64) (\w+ ){0,2}to "
       r"(single|float32)\b|"
       # a float64 result off by float32's rounding: relative difference about 1e-8 (float32 keeps ~7 digits)
       r"\A(?=.*\b(float64|double)\b)(?=.*\bRelative difference: [1-9](\.\d+)?e-0[78]\b)|"
       # ... or a short decimal printed in float64 with float32's rounding tail: 0.2 as 0.20000000298023224
       r"\A(?=.*\b(float64|double|complex128)\b)(?=.*\b\d+\.\d{1,4}(0{5,8}|9{5,8})\d{6,}\b)",
       "A float64 value passed through float32 on its way: a constant emitted as a float32 literal in generated "
       "kernel code, a tensor made in the default dtype, or JAX without x64, so digits past the seventh "
       "(3.141592653589793 becomes 3.141592741012573) are truncated to single precision.",
       "Create the value in float64 where it is made (`wp.float64(x)` from a float64 variable, `dtype=torch.float64`, "
       "JAX's x64 flag), check the generated code or the library release (such truncation is a bug there), and "
       "compare with a float32-sized tolerance until it is fixed."),
    _e("atomicadd-double-arch", "device-capability", "CUDA's atomicAdd on double, built for a GPU older than sm_60",
       r"overloaded function \"?atomicAdd\"?.{0,200}\(double \*, double\)",
       "CUDA's `atomicAdd` for double exists only on compute capability >= 6.0 (Pascal), and the extension was "
       "compiled for an older architecture (the default arch list, or an explicit `-arch=sm_52`), so no double "
       "overload is found.",
       "Build for the GPU you have: `TORCH_CUDA_ARCH_LIST=\"6.0 7.0 7.5 8.0 8.6\"` (or the value of "
       "`torch.cuda.get_device_capability()`) before `pip install` / `setup.py`; on a GPU older than Pascal use "
       "float32 there or a compare-and-swap `atomicAdd` for double."),
    _e("kernel-overload-dtype", "backend", "a kernel library without an overload for this dtype",
       r"no operator \"?\S{1,3}\"? matches these operands|no viable overloaded '\S{1,3}'|"
       r"no instance of overloaded function",
       "The kernel library's generated C++ / CUDA code has no overload for this dtype: a float64 (double) tile or "
       "value where only float32 versions of the function exist, so its result comes back float32 and cannot be "
       "assigned to the float64 variable, and compilation fails.",
       "Use float32 for that operation (cast in and out), or upgrade to a release that adds the float64 overload "
       "(or report the missing one).",
       context=r"\b(float64|double|f64)\b"),
    _e("numba-signature-dtype", "numpy", "a numba kernel compiled for other dtypes than the array has",
       r"No matching definition for argument type\(s\)[^\n]*\barray\((float|int|uint)\d+",
       "A numba-compiled function (`@njit` with explicit signatures, a `@guvectorize` kernel, as in sktime's and "
       "MiniRocket's transforms) exists only for the dtypes its signatures list, and this array's dtype is not one "
       "of them: float32 input to a kernel compiled for float64 (or the reverse), or ints where floats are listed.",
       "Cast the input to a dtype its signatures list, usually `X.astype(np.float64)` (`np.float32` for a "
       "float32-only kernel), C-contiguous (`np.ascontiguousarray`); a library that does not cast for you may do "
       "so in a later release."),
    _e("imshow-uint16-rgb", "numpy", "Matplotlib's imshow given 16-bit RGB",
       r"\A(?=.*\bimshow\b)(?=.*\b(np\.)?uint16\b)(?=.*\b(broken|random|wrong|garbage|noise|bits|clipp\w*)\b)",
       cause="Matplotlib's `imshow` shows RGB(A) data as float in 0..1 or uint8 in 0..255 and converts other input "
       "to uint8: uint16 values (16-bit images) overflow and wrap into random bits.",
       fix="Scale to a supported range first: `plt.imshow(img / 65535.0)` (float in 0..1) or "
       "`(img >> 8).astype(np.uint8)`; single-channel uint16 data can be shown with `vmin` / `vmax`."),
    _e("cv-bridge-encoding", "numpy", "cv_bridge asked for an encoding the array's dtype does not have",
       r"encoding specified as \w+, but image has incompatible type \w+",
       cause="cv_bridge maps ROS encodings to OpenCV types (`16UC1` = uint16 one channel, `32FC1` = float32, "
       "`8UC3` / `bgr8` = uint8 three channels) and checks that the array has the encoding's type: a float32 "
       "depth or mask array cannot be sent as 16UC1 (uint16) without a conversion.",
       fix="Convert the array to the encoding's type first (float metres to uint16 millimetres: "
       "`(depth * 1000).astype(np.uint16)`, a [0, 1] image to uint8 with `* 255`), or ask for the encoding that "
       "matches the array (`32FC1`, or `passthrough`)."),
)
