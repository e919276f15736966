"""How `amplora explain` scores on the real-world corpus (tests/doctor/corpus/world.jsonl, issue 19 §1).

The rules are written from the seen texts (dev, heldout, heldout3 to heldout7, heldout9 and heldout13, each read while
writing rules):
all of them must stay right, with no diagnosis of any of their non-precision errors. Each held-out collection was
committed before it was scored, and scored once; the level measured then is kept below as a floor, so that a
regression fails. The goal (issue 19) is >= 90 % of held-out faults right and 0 false diagnoses.

- heldout2: 31/36 faults right (86 %), 16/16 rejects rejected; its misses were fixed afterwards.
- heldout3 (w284-w343): 17/41 right (41 %), 5 partly, 19 unrecognised; 2 false diagnoses of 19 rejects; its misses
  were read for the rules afterwards (now all right: part of `seen`).
- heldout4 (w344-w410): gathered while the rules were changed by someone who never saw it, then scored once on
  them: 24/45 right (53 %), 7 partly, 14 unrecognised; 21/22 rejects rejected, 1 false diagnosis; read for the
  rules afterwards (now all right: part of `seen`).
- heldout5 (w411-w451): gathered after that round's rules by their writer, with search queries fixed in advance and
  results taken in rank order, committed before it was scored once: 28/31 right (90 %), 2 partly, 1 unrecognised;
  10/10 rejects rejected. Mostly common messages, so an easier and weaker test than heldout4; its misses were read
  for the rules afterwards (now all right: part of `seen`).
- heldout6 (w452-w518): gathered by someone who neither saw the rules nor ran the doctor, committed before it was
  scored once: 33/47 right (70 %), 4 partly, 10 unrecognised; 20/20 rejects rejected; its misses were read for the
  rules afterwards (now all right: part of `seen`).
- heldout7 (w800-w859): gathered like heldout6, committed before it was scored once: 34/44 right (77 %), 5 partly,
  5 unrecognised; 15/15 rejects rejected; its misses were read for the rules afterwards (now all right).
- heldout8 (w900-w959): gathered like heldout6, committed before it was scored once: 28/45 right (62 %), 3 partly,
  14 unrecognised; 14/15 rejects rejected, 1 false diagnosis. Read for the rules afterwards; it keeps its own floor
  rather than joining the seen texts, because what is left is not in the texts: w918 names no dtype, w920 is a
  TensorRT segmentation fault, w941 does not show the 8-bit base its cause names, and the reject w951 is an MPS NaN
  report that itself suspects half precision.
- heldout9 (w1000-w1139, two collectors): gathered like heldout6, committed before it was scored once: 39/53 right
  (74 %), 10 partly, 4 unrecognised; 19/19 rejects rejected; its misses were read for the rules afterwards (now all
  right: part of `seen`).
- heldout10 (w1200-w1231): gathered like heldout6, committed before it was scored once, on the rules written from
  heldout9's misses: 16/23 right (70 %), 3 partly, 4 unrecognised; 8/9 rejects rejected, 1 false diagnosis. Read for
  the rules afterwards; it keeps its own floor, because its false diagnosis (w1227, "value cannot be converted to
  type at::Half without overflow") had a corrupted checkpoint behind a message that is a half-precision overflow.
- heldout11 (w1300-w1328, w1400-w1455, two collectors): gathered like heldout6, committed before it was scored once:
  43/62 right (69 %), 16 partly, 3 unrecognised; 22/23 rejects rejected, 1 false diagnosis (a NaN found by a
  distribution's argument check in a buggy fp32 script). Read for the rules afterwards: 58/62 and 23/23; it keeps a
  floor, because four faults carry their cause only in the thread (a GPU without fp16, an app's "Use FP16" toggle, an
  out-of-memory error behind which bf16 on a V100 was found, a rasterizer extension named only in the cause).
- heldout12 (w1500-w1541, w1600-w1629, two collectors; a few TensorFlow, JAX and Marian texts among them): gathered
  like heldout6, committed before it was scored once: 31/52 right (60 %), 15 partly, 6 unrecognised; 19/20 rejects
  rejected, 1 false diagnosis. Read for the rules afterwards: 50/52 and 19/20; it keeps a floor: its false
  diagnosis (w1504, "Precision '16-mixed' is invalid" on Lightning 1.x) is a message heldout6 labelled a fault
  (w476), and two faults carry their cause only in the thread.
- heldout13 (w1700-w1740, w1800-w1839, two collectors: one took search results in rank order for 18 queries fixed
  in advance, the other the long tail): committed before it was scored once: 51/56 right (91 %), 5 unrecognised;
  25/25 rejects rejected, 0 false diagnoses (the rank-order half 27/28, the long tail 24/28). Read for the rules
  afterwards (now all right: part of `seen`).
- heldout14 (w1900-w1961, w2000-w2035, two collectors: one the diverse way, one 16 fixed queries in rank order):
  committed before it was scored once: 46/71 right (65 %), 6 partly, 19 unrecognised; 24/25 rejects rejected, 1
  false diagnosis (a GradScaler warning logged above an unrelated TypeError). Read for the rules afterwards: 65/71
  and 25/25; it keeps a floor: those left do not show their cause (a device-side assert, null embeddings, FP8 amax
  groups, R torch's bf16 check, a bitsandbytes CPU segfault).
- heldout15 (w2100-w2136, w2200-w2233, two collectors: one recent fine-tuning and inference threads, half the common
  messages in proportion; one projects outside the LLM libraries): committed before it was scored once: 41/50 right
  (82 %), 4 partly, 5 unrecognised; 20/20 rejects rejected, 0 false diagnoses. Read for the rules afterwards: 48/50
  and 20/20; it keeps a floor: of the two left, one device-side assert does not show its cause (fp16 in a
  regression head) and one needs an OAK device's compiled input precision.
- heldout16 (w2300-w2327, w2400-w2443, two collectors: 18 queries fixed in advance in rank order; the long tail):
  committed before it was scored once: 37/52 right (71 %), 8 partly, 7 unrecognised; 19/20 rejects rejected, 1
  false diagnosis (the rank-order half 15/20 and 7/8, the long tail 22/32 and 12/12). Read for the rules
  afterwards: 51/52 and 19/20; it keeps a floor: its false diagnosis (w2327, bitsandbytes' "only supports 16/32-bit
  floats, but got torch.uint8" from a version mismatch) is a message heldout14 labelled a fault (w1918), and w2407
  does not name the VAE or the tool.
- heldout17 (w2500-w2542, w2600-w2629, two collectors: 18 other queries fixed in advance in rank order; threads of
  the Chinese, Japanese and Korean ecosystems): committed before it was scored once: 33/50 right (66 %), 6 partly,
  11 unrecognised; 23/23 rejects rejected, 0 false diagnoses (the rank-order half 19/30, the other 14/20). Read for
  the rules afterwards: 48/50 and 23/23; it keeps a floor: w2527 (an XPU's TF32 accumulation for bf16, in Chinese)
  and w2629 (a demo's fallback without flash-attn) do not show their cause.
- heldout18 (w2700-w2743, w2800-w2838, two collectors: 18 more queries fixed in advance in rank order; the newest
  threads): committed before it was scored once: 34/53 right (64 %), 8 partly, 11 unrecognised; 28/30 rejects
  rejected, 2 false diagnoses (the rank-order half 16/26 and 16/18, the newest 18/27 and 12/12). Read for the rules
  afterwards: 50/53 and 29/30; it keeps a floor: "module 'torch' has no attribute 'float8_e4m3fn'" is two faults
  here (w2700, w2707) and a reject in w2836 and heldout14's w1958, Whisper's "FP16 is not supported on CPU" is a
  reject in w2730 and a fault in w2729 and w2731, and w2714 does not show its multi-GPU launch.
- heldout19 (w2900-w2938, w3000-w3033, two collectors: 18 more queries fixed in advance in rank order; libraries a
  layer away from model code): committed before it was scored once: 36/50 right (72 %), 6 partly, 8 unrecognised;
  20/22 rejects rejected, 2 false diagnoses (the rank-order half 17/26 and 10/12, the other 19/24 and 10/10). Read
  for the rules afterwards: 49/50 and 20/22; it keeps a floor: its two false diagnoses are GradScaler messages
  labelled faults elsewhere ("No inf checks were recorded" in w2912, "Gradient overflow. Skipping step" in w2133),
  and w2922's answer does not name the bias.
- heldout20 (w3100-w3136, w3200-w3245, two collectors: 15 queries fixed in advance in rank order; end-user apps and
  local-inference tools with whole console logs): committed before it was scored once: 31/58 right (53 %), 13 partly,
  14 unrecognised; 22/22 rejects rejected, 0 false diagnoses (the rank-order half 15/26 and 8/8, the apps 16/32 and
  14/14). Read for the rules afterwards: 46/58 and 22/22; it keeps a floor: most of the twelve left show a symptom
  but not its cause (a black or distorted image without a half-precision word, an app's VAD model on another GPU, an
  IPEX version on an Intel Arc the text does not name), one is "Torch not compiled with CUDA enabled" (a reject in
  w1623 and w1921), and a bitsandbytes offload notice and its install message are rejects among the seen texts.
- heldout21 (w3300-w3304, w3400-w3411, w3450-w3487, three collectors: web pages (blogs, Q&A) from 18 queries fixed in
  advance in rank order and by area; GitHub threads of the classes forum users hit: MPS, quantized backends, meta
  tensors, device placement, NaN reports): w3405 and w3408 were dropped before scoring (word for word texts of
  world.jsonl); committed before it was scored once: 30/36 right (83 %), 2 partly, 4 unrecognised; 16/17 rejects
  rejected, 1 false diagnosis (the two web-page collectors 9/12 and 3/3, the GitHub one 21/24 and 13/14). Read for the rules
  afterwards: 33/36 and 16/17; it keeps a floor: three faults show no evidence of their cause (a SyncBN hang under
  fp16, an AWQ kernel behind a bare mat1/mat2 message, a NaN at a low learning rate), and a missing MPS op is a
  reject here and a fault elsewhere.
- heldout22 (w3500-w3540, w3600-w3641, two collectors: fine-tuning libraries' threads from 18 queries fixed in advance
  in rank order; failures that surface late: NaN without an exception, meta tensors, device faults in autograd, the
  optimizer, loading and workers): committed before it was scored once: 36/57 right (63 %), 8 partly, 13
  unrecognised; 17/26 rejects rejected, 9 false diagnoses (the rank-order half 19/30 and 10/11, the late failures
  17/27 and 7/15). Read for the rules afterwards: 55/57 and 21/26; it keeps a floor: four rejects are NaN reports whose
  non-precision cause (a learning rate, bad data, a torch.cat bug) the text does not show, one a device error caused
  by an input's size, and PEFT's "Cannot merge ... 8-bit mode" is a fault here and a reject among the seen texts.
- heldout23 (w3700-w3735, w3800-w3839, two collectors: 18 more queries fixed in advance in rank order; the classes of
  faults the doctor issue names, two to four threads each): committed before it was scored once: 54/60 right (90 %),
  3 partly, 3 unrecognised; 13/16 rejects rejected, 3 false diagnoses (the rank-order half 29/31 and 4/5, the named
  classes 25/29 and 9/11). Read for the rules afterwards: 59/60 and 15/16; it keeps a floor: w3735's device error
  came from an empty checkpoint file the text does not show, and w3804's answer does not name the monkey-patch.
- heldout24 (w3900-w3934, w4000-w4036, two collectors: 18 more queries fixed in advance in rank order; recent
  (2025-2026) fine-tuning and serving threads across 27 projects): committed before it was scored once (on 3dc3b4a,
  after heldout21-23 were read): 36/49 right (73 %), 5 partly, 8 unrecognised; 21/23 rejects rejected, 2 false diagnoses (the rank-order half
  18/25 and 8/10, the recent threads 18/24 and 13/13). Read for the rules afterwards: 44/49 and 21/23; it keeps a
  floor: its false diagnoses are a grad_norm NaN from a ZeRO-2 bug that reads like a precision report and
  GradScaler's "No inf checks were recorded" (a fault elsewhere), and the faults left name neither the app's fp16
  switch, the kernel's GPU split nor the block-swap patch behind them.
- heldout25 (w4100-w4140, w4200-w4230, two collectors: 18 more queries fixed in advance in rank order; threads of
  the newest models and stacks: gpt-oss MXFP4, Qwen3, Gemma 3, DeepSeek fp8, transformers v5, Blackwell GPUs,
  NPUs): committed before it was scored once (on e2ab257, after heldout21-24 were read): 43/56 right (77 %), 1
  partly, 12 unrecognised; 15/16 rejects rejected, 1 false diagnosis (the rank-order half 26/36 and 4/5, the newest
  stacks 17/20 and 11/11). Read for the rules afterwards: 55/56 and 16/16; it keeps a floor: w4122's text was cut
  before its exception.
- heldout26 (w4300-w4334, w4400-w4432, two collectors: 18 more queries fixed in advance in rank order; resolved
  threads whose error looks like a precision or device problem, labelled by the cause the thread states, about half
  rejects): committed before it was scored once (on 6b4ad1a, after heldout21-25 were read): 39/45 right (87 %), 3
  partly, 3 unrecognised; 14/23 rejects rejected, 9 false diagnoses (the rank-order half 25/28 and 5/7, the
  resolved threads 14/17 and 9/16). Read for the rules afterwards: 44/45 and 17/23; it keeps a floor: three NaN
  reports whose learning rate or nightly build the text does not show, a bare "expected scalar type Float but found
  Half" that uninstalling apex fixed, an int cast from outdated library code and GradScaler's "No inf checks" from a
  torch version read as the precision faults they are elsewhere; w4400's must_say asks for a loss the text does not
  name.
- heldout27 (w4500-w4533, w4600-w4633, two collectors: 18 more queries fixed in advance in rank order; torch's own
  APIs beyond nn layers: collectives, FFT, linalg, sparse, export and jit, quantization, generators, index ops):
  committed before it was scored once (on dd50842, after heldout21-26 were read): 37/46 right (80 %), 3 partly, 6
  unrecognised; 18/21 rejects rejected, 3 false diagnoses (the rank-order half 16/22 and 9/11, torch's APIs 21/24
  and 9/10). Read for the rules afterwards: 46/46 and 19/21; it keeps a floor: garbage text from a DeepSpeed
  kernel-injection bug under fp16, and a bf16 run's NaN grad_norm that uninstalling xformers fixed.
- heldout28 (w4700-w4734, w4800-w4837, two collectors: 18 more queries fixed in advance in rank order; the long tail
  of small projects: paper code, course projects, personal tools): committed before it was scored once (on
  20c04b9, after heldout21-27 were read): 40/48 right (83 %), 4 partly, 4 unrecognised; 20/24 rejects rejected, 4
  false diagnoses (the rank-order half 19/26 and 7/9, the small projects 21/22 and 13/15). Read for the rules
  afterwards: 47/48 and 22/24; it keeps a floor: a bf16/fp16 clash told only in words, a meta no-op warning verl
  expects and a NaN report without precision in the text.
- heldout29 (w4900-w4933, w5000-w5031, two collectors: 18 more queries fixed in advance in rank order; threads from
  fields beyond language models: vision, 3D, audio, diffusion, graphs, RL): committed before it was scored once (on
  9a9bcf7, after heldout21-28 were read): 38/46 right (83 %), 2 partly, 6 unrecognised; 14/19 rejects rejected, 5
  false diagnoses (the rank-order half 21/25 and 3/8, the other fields 17/21 and 11/11). Read for the rules
  afterwards: 45/46 and 14/19; it keeps a floor: a sparse op missing on MPS labelled both ways, and five rejects
  whose GAN loss, torch version, allocator assert, library bug or resume bug the text does not show.
- heldout30 (w5100-w5135, w5200-w5235, two collectors: 18 more queries fixed in advance in rank order; training
  frameworks and engines beyond the Hugging Face libraries: Lightning, DeepSpeed, Megatron, NeMo, detectron2, apex,
  Composer, torchtitan): committed before it was scored once (on a8dfec2, after heldout21-29 were read): 33/48
  right (69 %), 4 partly, 11 unrecognised; 20/22 rejects rejected, 2 false diagnoses (the rank-order half 18/26 and
  7/8, the frameworks 15/22 and 13/14). Read for the rules afterwards: 47/48 and 20/22; it keeps a floor: a
  library's fp16 crash told in words beside an illegal memory access, and two rejects whose model bug or learning
  rate the text does not show.
- heldout31 (w5300-w5334, w5400-w5434, two collectors: 18 more queries fixed in advance in rank order; NaN, inf and
  silently wrong numbers labelled by the cause their thread states, about half rejects): committed before it was
  scored once (on bd38d92, after heldout21-30 were read): 33/50 right (66 %), 5 partly, 12 unrecognised; 10/19
  rejects rejected, 9 false diagnoses (the rank-order half 20/30 and 3/4, the numerical symptoms 13/20 and 7/15),
  seven of them NaN reports with no precision in the text. Read for the rules afterwards: a training loss or
  gradient norm gone NaN with nothing in the text pointing to precision is no longer diagnosed (kb.NAN_ADVICE),
  which took 14 such faults and 10 such rejects across the corpus the other way; 39/50 and 17/19, with a floor.
- heldout32 (w5500-w5532, w5600-w5634, two collectors: 18 more queries fixed in advance in rank order; hardware
  beyond NVIDIA datacenter GPUs: Apple MPS, ROCm, Ascend NPU, TPUs, older and consumer NVIDIA cards): committed
  before it was scored once (on 56f1d5c, after heldout21-31 were read): 42/49 right (86 %), 2 partly, 5
  unrecognised; 12/18 rejects rejected, 6 false diagnoses (the rank-order half 21/27 and 3/6, the hardware 21/22 and
  9/12). Read for the rules afterwards: an op missing on MPS and loss-scale skips at a high scale are left
  unrecognised with their own advice (kb/others.py); 49/49 and 17/18, with a floor. w5613 (autocast refused for
  'mps' inside transformers' rotary embedding, labelled a reject) gets the MPS autocast story that later collections
  label a fault (w26003, w46710, w46804): a label conflict, so 16/18.
- heldout33 (w5700-w5727, w5800-w5836, two collectors: 18 more queries fixed in advance in rank order; quantization
  toolkits and quantized training): committed before it was scored once (on 864237e, after heldout21-32 were
  read): 33/46 right (72 %), 8 partly, 5 unrecognised; 16/18 rejects rejected, 2 false diagnoses (the rank-order
  half 18/23 and 3/4, the quantization toolkits 15/23 and 13/14). Read for the rules afterwards: a quantized model
  offloaded to the CPU or disk is left unrecognised with its own advice (kb/others.py); 44/46 and 16/18, with a
  floor.
- heldout34 (w5900-w5932, w6000-w6038, two collectors: 18 more queries fixed in advance in rank order; inference and
  serving engines and export runtimes: vLLM, TGI, TensorRT, ONNX Runtime, OpenVINO, Core ML, Triton, MLC):
  committed before it was scored once (on a0432e3, after heldout21-33 were read): 37/52 right (71 %), 0 partly, 15
  unrecognised; 20/20 rejects rejected, 0 false diagnoses (the rank-order half 24/27 and 6/6, the runtimes 13/25
  and 14/14). Read for the rules afterwards: 50/52 and 20/20, with a floor.
- heldout35 (w6100-w6137, w6200-w6234, two collectors: 18 more queries fixed in advance in rank order; multimodal
  and vision-language models): committed before it was scored once (on a4baeed, after heldout21-34 were read): 43/50
  right (86 %), 2 partly, 5 unrecognised; 17/21 rejects rejected, 4 false diagnoses (the rank-order half 23/27 and
  7/10, the multimodal models 20/23 and 10/11). Read for the rules afterwards: the AMP API's deprecation warning is
  left unrecognised with its own advice (kb/others.py), which took heldout27's three such faults the other way;
  50/50 and 21/21, with a floor.
- heldout36 (w6300-w6331, w6400-w6419, two collectors: 18 more queries fixed in advance in rank order;
  post-training and reinforcement learning): committed before it was scored once (on 058a770, after heldout21-35
  were read): 25/38 right (66 %), 5 partly, 8 unrecognised; 12/14 rejects rejected, 2 false diagnoses (the
  rank-order half 18/26 and 6/6, the post-training threads 7/12 and 6/8). Read for the rules afterwards: 34/38 and
  13/14, with a floor.
- heldout37 (w6500-w6532, w6600-w6637, two collectors: 18 more queries fixed in advance in rank order; image and
  video generation): committed before it was scored once (on 5e94254, after heldout21-36 were read): 42/55 right
  (76 %), 3 partly, 10 unrecognised; 12/16 rejects rejected, 4 false diagnoses (the rank-order half 22/31 and 0/2,
  the image and video tools 20/24 and 12/14). Read for the rules afterwards: 54/55 and 13/16, with a floor.
- heldout38 (w6700-w6727, w6800-w6838, two collectors: 18 more queries fixed in advance in rank order; speech and
  audio): committed before it was scored once (on 5e94254, with heldout37): 35/46 right (76 %), 1 partly, 10
  unrecognised; 17/20 rejects rejected, 3 false diagnoses (the rank-order half 10/20 and 5/7, the speech and audio
  threads 25/26 and 12/13); w6715, the thread of w6504 taken at the same time by heldout37's collector, was dropped
  after that score. Read for the rules afterwards: 44/46 and 19/20, with a floor.
- heldout39 (w6900-w6929, w7000-w7034, two collectors: 18 more queries fixed in advance in rank order; LLM
  fine-tuning frameworks): committed before it was scored once (on 45c2fc2, after heldout21-38 were read): 39/49
  right (80 %), 5 partly, 5 unrecognised; 16/16 rejects rejected, 0 false diagnoses (the rank-order half 21/27 and
  3/3, the frameworks 18/22 and 13/13). Read for the rules afterwards: 47/49 and 16/16, with a floor.
- heldout40 (w7100-w7136, w7200-w7234, two collectors: 18 more queries fixed in advance in rank order; distributed
  and multi-GPU training): committed before it was scored once (on 45c2fc2, with heldout39): 34/53 right (64 %), 7
  partly, 12 unrecognised; 15/16 rejects rejected, 1 false diagnosis (the rank-order half 21/31 and 3/3, the
  distributed threads 13/22 and 12/13); w7106, w7107 and w7134, threads heldout39 took at the same time, were dropped
  before it. Read for the rules afterwards: 52/53 and 15/16, with a floor.
- heldout41 (w7300-w7333, w7400-w7439, two collectors: 18 more queries fixed in advance in rank order; computer
  vision frameworks): committed before it was scored once (on 4833c6e, after heldout21-40 were read): 34/55 right
  (62 %), 3 partly, 18 unrecognised; 18/19 rejects rejected, 1 false diagnosis (the rank-order half 18/30 and 3/4,
  the vision frameworks 16/25 and 15/15). Read for the rules afterwards: 48/55 and 18/19, with a floor.
- heldout42 (w7500-w7534, w7600-w7635, two collectors: 18 more queries fixed in advance in rank order;
  Chinese-language LLM projects): committed before it was scored once (on 4833c6e, with heldout41): 32/46 right
  (70 %), 5 partly, 9 unrecognised; 22/23 rejects rejected, 1 false diagnosis (the rank-order half 15/24 and 9/9,
  the Chinese-language projects 17/22 and 13/14); w7525 (word for word a text already in world.jsonl) and w7515
  (the thread of w7318) were dropped before it. Read for the rules afterwards: 45/46 and 23/23, with a floor.
- heldout43 (w7701-w7725, w7800-w7834, two collectors: 18 more queries fixed in advance in rank order; embeddings,
  retrieval and rerankers): committed before it was scored once (on 527199e, after heldout21-42 were read): 41/45
  right (91 %), 0 partly, 4 unrecognised; 15/15 rejects rejected, 0 false diagnoses (the rank-order half 19/22 and
  3/3, the embedding and retrieval threads 22/23 and 12/12); w7700 (word for word a text already in world.jsonl) was
  dropped before it. Read for the rules afterwards: 45/45 and 15/15, with a floor.
- heldout44 (w7900-w7922, w8000-w8034, two collectors: 18 more queries fixed in advance in rank order; graphs,
  recommenders, time series and tabular frameworks): committed before it was scored once (on c93bece, after
  heldout21-43 were read): 33/41 right (80 %), 2 partly, 6 unrecognised; 12/14 rejects rejected, 2 false diagnoses
  (the rank-order half 16/19 and 0/1, the frameworks 17/22 and 12/13); w7901, w7903 and w7914 (word for word texts
  already in world.jsonl) were dropped before it. Read for the rules afterwards: 38/41 and 13/14, with a floor.
- heldout45 to heldout48 (w8100-w8129 and w8200-w8233, w8300-w8334 and w8400-w8436, w8500-w8526 and w8600-w8635,
  w8700-w8723 and w8800-w8841; two collectors each: 18 more queries fixed in advance in rank order, and local LLM
  runtimes, reinforcement learning and robotics, science and medicine, beginners' Q&A pages and issues): committed
  before they were scored once (on 4681202, after heldout21-44 were read): heldout45 24/40 right (60 %), 4 partly, 12
  unrecognised, 21/24 rejects (3 false); heldout46 38/50 (76 %), 7, 5, 19/20 (1); heldout47 33/42 (79 %), 2, 7, 19/20
  (1); heldout48 22/38 (58 %), 3, 13, 20/25 (5); the rank-order halves 13/20, 17/26, 14/19 and 5/14. Dropped before
  scoring: w8322, w8434 and w8505 (word for word texts already in world.jsonl), w8706, w8806 and w8807 (threads
  another collector of the round took). Read for the rules afterwards: 38/40 and 22/24, 47/50 and 19/20, 41/42 and
  19/20, 34/38 and 22/25, with floors.
- heldout49 to heldout52 (w8900-w8929 and w9000-w9029, w9100-w9121 and w9200-w9229, w9300-w9322 and w9400-w9440,
  w9500-w9517 and w9601-w9633; two collectors each: 18 more queries fixed in advance in rank order, and 3D vision,
  LLM applications and evaluation harnesses, courses and tutorials, pretraining and research codebases): committed
  before they were scored once (on 17d0180, after heldout21-48 were read): heldout49 32/40 right (80 %), 2 partly, 6
  unrecognised, 17/18 rejects (1 false); heldout50 25/36 (69 %), 2, 9, 15/15 (0); heldout51 33/41 (80 %), 0, 8,
  22/23 (1); heldout52 22/31 (71 %), 0, 9, 16/19 (3); the rank-order halves 16/23, 11/18, 10/16 and 10/14. Dropped
  before scoring: w8911, w8928 and w9627 (word for word texts already in world.jsonl), w9600 (a thread another
  collector of the round took) and w9226 (reformatted by its collector, so not verbatim). Read for the rules
  afterwards: 38/40 and 18/18, 34/36 and 15/15, 37/41 and 23/23, 27/31 and 17/19, with floors.
- heldout53 to heldout56 (w9700-w9732 and w9800-w9833, w9900-w9921 and w10000-w10038, w10100-w10122 and
  w10200-w10240, w10300-w10315 and w10400-w10434; two collectors each: 18 more queries fixed in advance in rank
  order, and classic NLP and translation frameworks, edge devices and embedded boards, code models and agents,
  tuning and experiment tooling): committed before they were scored once (on 8451b97, after heldout21-52 were
  read): heldout53 33/47 right (70 %), 5 partly, 9 unrecognised, 18/20 rejects (2 false); heldout54 21/38 (55 %), 2,
  15, 22/22 (0); heldout55 34/42 (81 %), 6, 2, 20/21 (1); heldout56 26/35 (74 %), 4, 5, 14/15 (1); the rank-order
  halves 15/26, 10/14, 14/17 and 12/13. Dropped before scoring: w9905 (word for word a text already in world.jsonl),
  w9834 (miscopied by its collector), w10116 and w10306 (threads another collector of the round took). Read for
  the rules afterwards: 37/47 and 18/20, 32/38 and 22/22, 36/42 and 20/21, 27/35 and 14/15, with floors.
- heldout57 to heldout60 (w10500-w10521 and w10600-w10623, w10700-w10733 and w10800-w10827, w10900-w10933 and
  w11000-w11039, w11100-w11123 and w11200-w11236; two collectors each: 18 more queries fixed in advance in rank
  order, and attention kernels and mixture-of-experts, compilers and graph capture, checkpoint conversion and
  merging, custom CUDA and C++ extensions): committed before they were scored once (on d29c384, after heldout21-56
  were read): heldout57 22/23 right (96 %), 1 partly, 0 unrecognised, 17/20 rejects (3 false); heldout58 22/37
  (59 %), 6, 9, 18/23 (5); heldout59 37/46 (80 %), 3, 6, 25/27 (2); heldout60 21/33 (64 %), 3, 9, 21/23 (2); the
  rank-order halves 11/11, 15/21, 17/24 and 11/15. Dropped before scoring: w10509, w10615, w10620, w10703 and
  w10705 (shortened or joined by their collectors, so not verbatim), w11021, w11204, w11223, w11232, w11233 and
  w11235 (threads another collector of the round took). Read for the rules afterwards: 23/23 and 17/20, 36/37 and
  20/23, 46/46 and 27/27, 32/33 and 21/23, with floors.
- heldout61 (w11300-w11320 and w11400-w11434; two collectors: 18 more queries fixed in advance in rank order, and
  optimizers and low-precision training utilities): committed before it was scored once (on 13e1c06, after
  heldout21-60 were read): 20/31 right (65 %), 5 partly, 6 unrecognised, 19/22 rejects (3 false); the rank-order half
  8/14. Dropped before scoring: w11416 (text extended by its collector) and w11409 (a thread the other collector
  took). Read for the rules afterwards: 27/31 and 19/22, with a floor.
- heldout62 to heldout64 (w11500-w11524 and w11601-w11641, w11700-w11725 and w11800-w11823, w11900-w11919 and
  w12000-w12037; two collectors each: 18 more queries fixed in advance in rank order, and data loading and
  preprocessing, offloading and big-model inference, probabilistic and numerical libraries): committed before they
  were scored once (heldout63 and heldout64 on 502b80a, heldout62 on the commit after it, each after heldout21-61
  were read): heldout62 23/37 right (62 %), 3 partly, 11 unrecognised, 23/28 rejects (5 false); heldout63 20/27
  (74 %), 5, 2, 19/21 (2); heldout64 30/35 (86 %), 1, 4, 16/16 (0); the rank-order halves 7/12, 12/15 and 15/15.
  Dropped before scoring: w11519, w11801 and w11914 (cut or joined by their collectors), w11920 and w11921
  (TensorFlow dtype faults labelled rejects by their scope, not their cause), w12012 (a thread already in the
  corpus), w11600, w11820, w12001, w12005, w12015, w12022, w12032 and w12038 (threads another collector of the
  round took). Read for the rules afterwards: 29/37 and 23/28, 23/27 and 19/21, 31/35 and 16/16, with floors.
- heldout65 to heldout67 (w12100-w12121 and w12200-w12234, w12300-w12320 and w12401-w12434, w12500-w12535 and
  w12600-w12625; two collectors each: 18 more queries fixed in advance in rank order, and text generation internals,
  parameter-efficient and model-surgery methods beyond LoRA, hosted platforms and cloud notebooks): each half
  committed before it was scored once, on the commit that added it (heldout66 and heldout67's theme halves on
  b71e7df, heldout65's on a91cfde, heldout66 and heldout67's rank-order halves on 5b972ff, heldout65's on 0a05de1),
  after heldout21-64 and the halves scored before it were read: heldout65 23/30 right (77 %), 4 partly, 3
  unrecognised, 23/25 rejects (2 false); heldout66 16/26 (62 %), 3, 7, 26/27 (1); heldout67 27/29 (93 %), 0, 2,
  21/25 (4); the rank-order halves 10/12, 7/10 and 15/16. Dropped before scoring: w12217 (a title its collector saw
  shortened), w12122 (a corpus text re-added with a lead-in line), w12318 (cut by its collector), w12509-w12511,
  w12518, w12519, w12522 and w12534 (dtype errors of TensorFlow, ND4J, dfdx, Theano and MXNet labelled rejects by
  their scope); w12221, w12400, w12404, w12415 and w12601 (threads another collector of the round took) were left
  out after the score, which is given without them. Read for the rules afterwards: 28/30 and 23/25, 24/26 and
  26/27, 29/29 and 22/25, with floors.
- heldout68 to heldout72 (w12700-w12730 and w12800-w12824, w12900-w12927 and w13000-w13029, w13100-w13123 and
  w13200-w13234, w13300-w13319 and w13400-w13424, w13500-w13515 and w13600-w13628; 18 more queries fixed in advance
  in rank order each, and Intel GPUs, Gaudi, DirectML, oneDNN and OpenVINO; encoder and encoder-decoder
  transformers; NumPy, pandas and scikit-learn meeting torch; federated learning and differential privacy;
  time-series forecasting): each half scored once before the rules were changed for it (heldout69's two halves and
  heldout70's rank-order half on b1509ed, heldout68's on 5d9b325, heldout70's theme half on 5e65efe, heldout71's
  on 51bc6b9 and ff24b14, heldout72's rank-order half on c2ba447, heldout68 and heldout72's theme halves on
  4f72a7e), after heldout21-67 and the halves scored before it were read: heldout68 12/29 right (41 %), 4 partly,
  13 unrecognised, 16/27 rejects (11 false); heldout69 30/37 (81 %), 3, 4, 13/16 (3); heldout70 26/34 (76 %), 0, 8,
  22/22 (0); heldout71 10/15 (67 %), 2, 3, 24/26 (2); heldout72 20/26 (77 %), 2, 4, 17/17 (0); the rank-order
  halves 7/14, 15/21, 9/14, 2/5 and 6/8, the theme halves 5/15, 15/16, 17/20, 8/10 and 14/18. Dropped before
  scoring: w13206 and w13605 (texts their collectors saw cut); w13001, w13013, w13213, w13218, w13401, w13404 and
  w13407 (threads the other collector of the round took) were left out. Read for the rules afterwards: 27/29 and
  22/27, 37/37 and 14/16, 33/34 and 22/22, 15/15 and 24/26, 24/26 and 17/17, with floors.
- heldout73 (w13700-w13719 and w13802-w13828; 18 more queries fixed in advance in rank order, and GANs, VAEs and
  other classic generative models): both halves scored once on 42975a6, after heldout21-72 were read: 20/26 right
  (77 %), 2 partly, 4 unrecognised, 18/20 rejects (2 false); the rank-order half 10/13 (1 false in 7), the theme
  half 10/13 (1 false in 13). w13800, w13801 and w13805 (threads the other collector took) were left out before
  the score. Read for the rules afterwards: 25/26 and 19/20, with floors.
- heldout74 (w13900-w13907 and w14000-w14035; 18 more queries fixed in advance in rank order, and biology and
  chemistry models): both halves scored once on 09b177a, after heldout21-73 were read: 19/22 right (86 %), 0 partly,
  3 unrecognised, 19/20 rejects (1 false); the rank-order half 3/4 (0 false in 4: its queries found few threads),
  the theme half 16/18 (1 false in 16). w14029 and w14033 (threads the other collector took) were left out before
  the score. Read for the rules afterwards: 21/22 and 19/20, with floors.
- heldout75 (w14100-w14111 and w14200-w14227; 18 more queries fixed in advance in rank order, and self-supervised
  and representation learning): both halves scored once on 3a40692, after heldout21-74 were read: 17/20 right
  (85 %), 0 partly, 3 unrecognised, 14/16 rejects (2 false); the rank-order half 7/9 (2 false in 3), the theme
  half 10/11 (0 false in 13). w14203, w14205, w14206 and w14219 (threads the other collector took) were left out
  before the score. Read for the rules afterwards: no rule came of them (the three faults missed are bare
  'Loss is nan' lines whose threads alone name fp16; the two false diagnoses a NaN from an unnormalised head, told
  as a NaN without half precision, and an fp16 throughput report), with floors.
- heldout76 (w14300-w14312 and w14400-w14419; 18 more queries fixed in advance in rank order, and autonomous
  driving and 3D perception): both halves scored once on 8b6afec, after heldout21-75 were read: 16/17 right
  (94 %), 0 partly, 1 unrecognised, 13/13 rejects (0 false), the first collection to meet the goal on its
  first score, on few texts; the rank-order half 6/7 (0 false in 4), the theme half 10/10 (0 false in 9).
  w14308 and w14311 (texts their collector saw cut) were dropped and w14405 (the thread of w14305) left out
  before the score. Read for the rules afterwards: 17/17 and 13/13, with floors.
- heldout77 (w14500-w14505 and w14600-w14631; 18 more queries fixed in advance in rank order, and interpretability,
  attribution and adversarial robustness): both halves scored once on 3178861, after heldout21-76 were read: 23/24
  right (96 %), 0 partly, 1 unrecognised, 14/14 rejects (0 false); the rank-order half 4/4 (0 false in 2), the theme
  half 19/20 (0 false in 12). Nothing was dropped before the score. Read for the rules afterwards: 24/24 and 14/14,
  with floors.
- heldout78 (w14700-w14702 and w14800-w14818; 18 more queries fixed in advance in rank order, and video
  understanding, tracking and pose): both halves scored once on 3178861, after heldout21-76 were read: 7/10 right
  (70 %), 0 partly, 3 unrecognised, 11/12 rejects (1 false); the rank-order half 0/1 (0 false in 2; its queries
  found few threads), the theme half 7/9 (1 false in 10). Nothing was dropped before the score. Read for the rules
  afterwards: 10/10 and 11/12 (the one false diagnosis a meta-tensor copy whose thread's fix was pinning
  transformers), with floors.
- heldout79 (w14900-w14918 and w15000-w15027; 18 more queries fixed in advance in rank order, and semantic
  segmentation and remote sensing): both halves scored once on 0491c76, after heldout21-77 were read: 21/26 right
  (81 %), 3 partly, 2 unrecognised, 17/19 rejects (2 false); the rank-order half 9/10 (2 false in 9), the theme half
  12/16 (0 false in 10). w15002 and w15025 (threads the other collector took) were left out before the score. Read
  for the rules afterwards: 25/26 and 17/19 (the partly right one asks for an op its text does not name; the false
  diagnoses a SparseConvNet Long/Float check fixed by a version downgrade and an IPEX bf16 kernel bug behind a BCE
  range check), with floors.
- heldout80 (w15100-w15117 and w15200-w15234; 18 more queries fixed in advance in rank order, and unusual numerics:
  spiking, complex-valued and quantum models): both halves scored once on 5b7c5e3, after heldout21-79 were read:
  24/35 right (69 %), 2 partly, 9 unrecognised, 15/15 rejects (0 false); the rank-order half 10/13 (0 false in 5),
  the theme half 14/22 (0 false in 10). w15208, w15210 and w15221 (threads the other collector took) were left out
  before the score. Read for the rules afterwards: 32/35 and 15/15 (a CuPy kernel's bare NotImplementedError on the
  CPU stays unrecognised; the partly right ones ask for a Tenstorrent block-float dtype and a spiking neuron's state
  by name), with floors.
- heldout81 (w15300-w15316 and w15400-w15431; 18 more queries fixed in advance in rank order, and OCR and document
  AI): both halves scored once on 5b7c5e3, after heldout21-79 were read: 19/21 right (90 %), 1 partly, 1
  unrecognised, 25/26 rejects (1 false); the rank-order half 4/5 (0 false in 12), the theme half 15/16 (1 false in
  14). w15402 and w15414 (threads the other collector took) were left out before the score. Read for the rules
  afterwards: 21/21 and 26/26, with floors.
- heldout82 (w15500-w15507 and w15600-w15621; 18 more queries fixed in advance in rank order, and meta-learning,
  continual and few-shot learning): both halves scored once on 0177ca9, after heldout21-81 were read: 12/13 right
  (92 %), 1 partly, 0 unrecognised, 15/17 rejects (2 false); the rank-order half 2/2 (2 false in 6), the theme half
  10/11 (0 false in 11). w15622 (the thread of w15502) was left out before the score. Read for the rules afterwards:
  13/13 and 15/17 (the false diagnoses a Mamba2 NaN under bf16 that a Triton kernel made and a Keras int64 times
  float32 loss its collector counted out of scope), with floors.
- heldout83 (w15700-w15709 and w15800-w15815; 18 more queries fixed in advance in rank order, and image anomaly
  detection and visual inspection): both halves scored once on 0177ca9, after heldout21-81 were read: 9/10 right
  (90 %), 0 partly, 1 unrecognised, 13/14 rejects (1 false); the rank-order half 0/1 (1 false in 9; its queries found
  few faults), the theme half 9/9 (0 false in 5). w15811 (a text its collector saw cut) was dropped before the
  score. Read for the rules afterwards: 10/10 and 14/14, with floors.
- heldout84 (w15900-w15919 and w16000-w16038; 18 more queries fixed in advance in rank order, and image restoration,
  super-resolution and learned compression): both halves scored once on 965b2bb, after heldout21-83 were read: 19/24
  right (79 %), 0 partly, 5 unrecognised, 28/30 rejects (2 false); the rank-order half 4/6 (0 false in 13), the
  theme half 15/18 (2 false in 17). w15911, w16019 and w16036 (texts their collectors saw cut) were dropped and
  w16002, w16005 and w16039 (threads the other collector took) left out before the score. Read for the rules
  afterwards: 22/24 and 28/30 (the false diagnoses a TensorRT half/float element-type error fixed by a TensorRT
  downgrade and an entropy bitstream decoded on another machine), with floors.
- heldout85 (w16100-w16103 and w16200-w16207; 18 more queries fixed in advance in rank order, and knowledge editing
  and machine unlearning): both halves scored once on 965b2bb, after heldout21-83 were read: 5/5 right (100 %), 0
  partly, 0 unrecognised, 6/6 rejects (0 false); the rank-order half 2/2 (0 false in 2), the theme half 3/3 (0 false
  in 4). w16206 (the thread of w16101) was left out before the score. Read for the rules afterwards: 5/5 and 6/6;
  too few texts to weigh on their own, with floors.
- heldout86 (w16301-w16315 and w16400-w16431; 18 more queries fixed in advance in rank order, and face swapping,
  talking heads and portrait animation): both halves scored once on 0ddd2b3, after heldout21-85 were read: 11/17
  right (65 %), 1 partly, 5 unrecognised, 26/28 rejects (2 false); the rank-order half 7/8 (1 false in 7), the theme
  half 4/9 (1 false in 21). w16300 (a text its collector saw cut) was dropped and w16409 and w16426 (threads the
  other collector took) left out before the score. Read for the rules afterwards: 14/17 and 26/28 (the false
  diagnoses an fp16 inswapper the maintainer blamed on CUDA 12 builds and a device mismatch from picking one
  checkpoint in two fields), with floors.
- heldout87 (w16500-w16515 and w16602-w16633; 18 more queries fixed in advance in rank order, and video and 3D
  generation): both halves scored once on 0ddd2b3, after heldout21-85 were read: 19/23 right (83 %), 1 partly, 3
  unrecognised, 17/21 rejects (4 false); the rank-order half 4/6 (3 false in 9), the theme half 15/17 (1 false in
  12). w16510, w16618 and w16626 (texts their collectors saw cut or joined) were dropped and w16600, w16601, w16605
  and w16634 (threads the other collector took) left out before the score. Read for the rules afterwards: 22/23 and
  20/21 (the false diagnosis a black fp16 Wan output its reporter traced to the resolution), with floors.
- heldout88 (w16700-w16715 and w16800-w16828; 18 more queries fixed in advance in rank order, and model compression,
  quantization-aware training and pruning): both halves scored once on 0ddd2b3, after heldout21-85 were read: 11/19
  right (58 %), 5 partly, 3 unrecognised, 22/23 rejects (1 false); the rank-order half 4/5 (1 false in 11), the
  theme half 7/14 (0 false in 12). w16826 (key lines its collector took apart) was dropped and w16803 and w16821
  (threads the other collector took) left out before the score. Read for the rules afterwards: 16/19 and 22/23 (the
  false diagnosis a distillation NaN its reporter traced to SyncBatchNorm state), with floors.
- heldout89 (w16900-w16907 and w17000-w17036; 18 more queries fixed in advance in rank order, and speech synthesis
  and voice conversion): both halves scored once on 32cafa2, after heldout21-88 were read: 19/24 right (79 %), 1
  partly, 4 unrecognised, 16/18 rejects (2 false); the rank-order half 1/2 (0 false in 5), the theme half 18/22 (2
  false in 13). w16901 (lines its collector took apart) was dropped and w17005 and w17006 (threads the other
  collector took) left out before the score. Read for the rules afterwards: 23/24 and 17/18 (the false diagnosis
  garbled fp16 audio its reporter traced to transformers 5), with floors.
- heldout90 (w17100-w17103 and w17200-w17227; 18 more queries fixed in advance in rank order, and diffusion-model
  trainers): both halves scored once on 32cafa2, after heldout21-88 were read: 15/19 right (79 %), 1 partly, 3
  unrecognised, 8/10 rejects (2 false); the rank-order half 2/2 (0 false in 2), the theme half 13/17 (2 false in 8).
  w17201, w17207 and w17208 (threads the other collector took) were left out before the score. Read for the rules
  afterwards: 18/19 and 8/10 (the false diagnoses GradScaler's 'No inf checks were recorded' from a broken loading
  hook and 'fp16 mixed precision requires a GPU' on an AMD card), with floors.
- heldout91 (w17300-w17316 and w17400-w17436; 18 more queries fixed in advance in rank order, and object detection
  and instance segmentation): both halves scored once on 32cafa2, after heldout21-88 were read: 22/30 right (73 %),
  2 partly, 6 unrecognised, 16/19 rejects (3 false); the rank-order half 5/10 (1 false in 6), the theme half 17/20
  (2 false in 13). w17310 and w17434 (texts their collectors saw cut or joined) were dropped and w17404, w17406 and
  w17413 (threads the other collector took) left out before the score. Read for the rules afterwards: 27/30 and
  17/19 (the false diagnoses torchvision's NMS refusing Float from a mismatched torchvision build and a device
  mismatch from a clashing ComfyUI extension), with floors.
- heldout92 (w17500-w17517 and w17601-w17623; 18 more queries fixed in advance in rank order, and diffusion
  inference accelerators): both halves scored once on ab5c351, after heldout21-91 were read: 18/22 right (82 %), 0
  partly, 4 unrecognised, 18/19 rejects (1 false); the rank-order half 6/7 (0 false in 11), the theme half 12/15 (1
  false in 8). w17600 (the thread the other collector took) was left out before the score. Read for the rules
  afterwards: 21/22 and 19/19, with floors.
- heldout93 (w17700-w17702 and w17800-w17834; 18 more queries fixed in advance in rank order, and music and audio
  generation and source separation): both halves scored once on ab5c351, after heldout21-91 were read: 16/22 right
  (73 %), 0 partly, 6 unrecognised, 13/16 rejects (3 false); the rank-order half no fault (0 false in 3), the theme
  half 16/22 (3 false in 13). none were dropped. Read for the rules afterwards: 17/22 and 15/16 (the false diagnosis
  MusicGen's NaN probabilities from a padding-mask bug in SDPA), with floors.
- heldout94 (w17900-w17911 and w18000-w18035; 18 more queries fixed in advance in rank order, and speech recognition
  and diarization): both halves scored once on ab5c351, after heldout21-91 were read: 26/27 right (96 %), 0 partly,
  1 unrecognised, 17/19 rejects (2 false); the rank-order half 8/8 (1 false in 4), the theme half 18/19 (1 false in
  15). w18004 (the thread the other collector took) was left out before the score. Read for the rules afterwards:
  27/27 and 18/19 (the false diagnosis SpeechBrain passing 'cuda:0' to autocast, a library regression told as the
  API rule it breaks), with floors.
- heldout95 (w18100-w18103 and w18201-w18211; 18 more queries fixed in advance in rank order, and LLM serving
  engines): both halves scored once on 7438fe9, after heldout21-94 were read: 7/12 right (58 %), 1 partly, 4
  unrecognised, 3/3 rejects (0 false); the rank-order half 2/4 (no reject), the theme half 5/8 (0 false in 3).
  w18104 (a thread outside the fixed queries' results) and w18200 (lines its collector took apart) were dropped
  before the score. Read for the rules afterwards: 11/12 and 3/3, with floors.
- heldout96 (w18300-w18304 and w18400-w18412; 18 more queries fixed in advance in rank order, and reinforcement
  learning for reasoning): both halves scored once on 7438fe9, after heldout21-94 were read: 6/7 right (86 %), 0
  partly, 1 unrecognised, 11/11 rejects (0 false); the rank-order half no fault (0 false in 5), the theme half 6/7
  (0 false in 6). none were dropped. Read for the rules afterwards: 7/7 and 11/11, with floors.
- heldout97 (w18500-w18505 and w18600-w18630; 18 more queries fixed in advance in rank order, and robot learning):
  both halves scored once on 67efd6b, after heldout21-96 were read: 15/18 right (83 %), 0 partly, 3 unrecognised,
  17/19 rejects (2 false); the rank-order half 0/2 (1 false in 4), the theme half 15/16 (1 false in 15). w18710 (a
  thread the rank-order half of heldout98 took as well) was dropped before the score. Read for the rules afterwards:
  17/18 and 17/19, with floors.
- heldout98 (w18700-w18714 and w18801-w18821; 18 more queries fixed in advance in rank order, and vision-language
  models): both halves scored once on 67efd6b, after heldout21-96 were read: 17/21 right (81 %), 1 partly, 3
  unrecognised, 12/13 rejects (1 false); the rank-order half 6/8 (0 false in 6), the theme half 11/13 (1 false in
  7). w18810 (a title joined to the tail of its body), w18800 and w18822 (threads the rank-order half took as well)
  were dropped before the score. Read for the rules afterwards: 21/21 and 13/13, with floors.
- heldout99 (w18900-w18913 and w19000-w19015; 18 more queries fixed in advance in rank order, and medical imaging):
  both halves scored once on 67efd6b, after heldout21-96 were read: 9/11 right (82 %), 1 partly, 1 unrecognised,
  17/19 rejects (2 false); the rank-order half 3/3 (2 false in 11), the theme half 6/8 (0 false in 8). none were
  dropped. Read for the rules afterwards: 11/11 and 18/19, with floors.
- heldout100 (w19100-w19112 and w19200-w19220; 18 more queries fixed in advance in rank order, and speech and omni
  models): both halves scored once on e5ca1ab, after heldout21-99 were read: 17/20 right (85 %), 2 partly, 1
  unrecognised, 14/14 rejects (0 false); the rank-order half 7/8 (0 false in 5), the theme half 10/12 (0 false in
  9). none were dropped. Read for the rules afterwards: 19/20 and 14/14, with floors.
- heldout101 (w19300-w19313 and w19400-w19433; 18 more queries fixed in advance in rank order, and Lightning and
  torchmetrics): both halves scored once on e5ca1ab, after heldout21-99 were read: 17/28 right (61 %), 3 partly, 8
  unrecognised, 12/15 rejects (3 false); the rank-order half 5/8 (2 false in 4), the theme half 12/20 (1 false in
  11). w19305 and w19306 (lines left out inside their pastes), w19418 (a title joined to a line from the middle of a
  log), w19407 and w19410 (threads the rank-order half took as well) were dropped before the score. Read for the
  rules afterwards: 27/28 and 14/15, with floors.
- heldout102 (w19500-w19508 and w19600-w19622; 18 more queries fixed in advance in rank order, and state-space
  models): both halves scored once on e5ca1ab, after heldout21-99 were read: 10/15 right (67 %), 2 partly, 3
  unrecognised, 15/16 rejects (1 false); the rank-order half 2/4 (1 false in 5), the theme half 8/11 (0 false in
  11). w19606 (a thread the rank-order half took as well) was dropped before the score. Read for the rules
  afterwards: 15/15 and 16/16, with floors.
- heldout103 (w19700-w19709 and w19800-w19827; 18 more queries fixed in advance in rank order, and image diffusion
  transformers): both halves scored once on 2180efd, after heldout21-102 were read: 20/23 right (87 %), 3 partly, 0
  unrecognised, 13/14 rejects (1 false); the rank-order half 6/6 (0 false in 4), the theme half 14/17 (1 false in
  10). none were dropped. Read for the rules afterwards: 23/23 and 13/14, with floors.
- heldout104 (w19900-w19900 and w20000-w20031; 18 more queries fixed in advance in rank order, and depth
  estimation): both halves scored once on 2180efd, after heldout21-102 were read: 14/17 right (82 %), 0 partly, 3
  unrecognised, 15/16 rejects (1 false); the rank-order half no fault (0 false in 1), the theme half 14/17 (1 false
  in 15). none were dropped. Read for the rules afterwards: 15/17 and 16/16, with floors.
- heldout105 (w20100-w20109 and w20200-w20235; 18 more queries fixed in advance in rank order, and background
  removal and image editing): both halves scored once on 2180efd, after heldout21-102 were read: 16/20 right (80 %),
  3 partly, 1 unrecognised, 20/22 rejects (2 false); the rank-order half 2/3 (2 false in 7), the theme half 14/17 (0
  false in 15). w20212 (part of a line its collector cut), w20225 (a title joined to a log line), w20209, w20233 and
  w20236 (threads the rank-order half took as well) were dropped before the score. Read for the rules afterwards:
  18/20 and 20/22, with floors.
- heldout106 (w20300-w20309 and w20400-w20433; 18 more queries fixed in advance in rank order, and controllable
  image generation): both halves scored once on 94535f7, after heldout21-105 were read: 18/24 right (75 %), 2
  partly, 4 unrecognised, 16/17 rejects (1 false); the rank-order half 5/6 (0 false in 4), the theme half 13/18 (1
  false in 13). w20429 (a traceback whose last line its collector could not see) and w20401 (a thread the rank-order
  half took as well) were dropped before the score. Read for the rules afterwards: 24/24 and 16/17, with floors.
- heldout107 (w20500-w20509 and w20600-w20635; 18 more queries fixed in advance in rank order, and pretraining and
  fp8 training stacks): both halves scored once on 94535f7, after heldout21-105 were read: 16/21 right (76 %), 3
  partly, 2 unrecognised, 16/20 rejects (4 false); the rank-order half 2/4 (2 false in 6), the theme half 14/17 (2
  false in 14). w20624 (log lines its collector selected) and w20603 (a thread the rank-order half took as well)
  were dropped before the score. Read for the rules afterwards: 20/21 and 17/20, with floors.
- heldout108 (w20700-w20703 and w20800-w20827; 18 more queries fixed in advance in rank order, and speculative
  decoding and long context): both halves scored once on 94535f7, after heldout21-105 were read: 7/14 right (50 %),
  3 partly, 4 unrecognised, 15/15 rejects (0 false); the rank-order half 2/2 (0 false in 2), the theme half 5/12 (0
  false in 13). w20802 and w20803 (threads the rank-order half took as well) were dropped before the score. Read for
  the rules afterwards: 14/14 and 15/15, with floors.
- heldout109 (w20900-w20905 and w21001-w21019; 18 more queries fixed in advance in rank order, and model serving):
  both halves scored once on e179042, after heldout21-108 were read: 9/15 right (60 %), 2 partly, 4 unrecognised,
  7/10 rejects (3 false); the rank-order half 3/3 (0 false in 3), the theme half 6/12 (3 false in 7). w21000 (a
  thread the rank-order half took as well) was dropped before the score. Read for the rules afterwards: 14/15 and
  7/10, with floors.
- heldout110 (w21100-w21109 and w21200-w21223; 18 more queries fixed in advance in rank order, and human motion and
  body models): both halves scored once on e179042, after heldout21-108 were read: 10/13 right (77 %), 0 partly, 3
  unrecognised, 20/21 rejects (1 false); the rank-order half 3/5 (0 false in 5), the theme half 7/8 (1 false in 16).
  none were dropped. Read for the rules afterwards: 12/13 and 20/21, with floors.
- heldout111 (w21300-w21312 and w21400-w21412; 18 more queries fixed in advance in rank order, and training wrappers
  and AutoML): both halves scored once on e179042, after heldout21-108 were read: 15/17 right (88 %), 1 partly, 1
  unrecognised, 9/9 rejects (0 false); the rank-order half 7/8 (0 false in 5), the theme half 8/9 (0 false in 4).
  none were dropped. Read for the rules afterwards: 17/17 and 9/9, with floors.
- heldout112 (w21500-w21502 and w21600-w21620; 18 more queries fixed in advance in rank order, and open-vocabulary
  detection and segmentation): both halves scored once on 80a8a12, after heldout21-111 were read: 14/14 right
  (100 %), 0 partly, 0 unrecognised, 8/8 rejects (0 false); the rank-order half 3/3 (no rejects), the theme half
  11/11 (0 false in 8). w21608 (a title joined to lines from the middle of a log) and w21604 (a thread the rank-order half
  took as well) were dropped before the score. Read for the rules afterwards: 14/14 and 8/8, with floors.
- heldout113 (w21700-w21708 and w21800-w21819; 18 more queries fixed in advance in rank order, and captioning and
  tagging): both halves scored once on 80a8a12, after heldout21-111 were read: 11/11 right (100 %), 0 partly, 0
  unrecognised, 13/14 rejects (1 false); the rank-order half 2/2 (0 false in 6), the theme half 9/9 (1 false in 8).
  w21704 (a title joined to the last line of a log), w21803, w21804 and w21817 (threads the rank-order half took as
  well) were dropped before the score. Read for the rules afterwards: 11/11 and 13/14, with floors.
- heldout114 (w21900-w21907 and w22000-w22023; 18 more queries fixed in advance in rank order, and translation and
  seq2seq serving): both halves scored once on 80a8a12, after heldout21-111 were read: 9/17 right (53 %), 2 partly,
  6 unrecognised, 13/13 rejects (0 false); the rank-order half 2/3 (0 false in 4), the theme half 7/14 (0 false in
  9). w21906 (a line its collector rebuilt) was dropped before the score. Read for the rules afterwards: 16/17 and
  13/13, with floors.
- heldout115 (w22100, w22300 and w22500, and w22200-w22621; 18 more queries fixed in advance in rank order for each
  of three themes, and quantized inference, audio classification and weather models; small: the search budget ran
  out): scored once on 2587a27, after heldout21-114 were read: 20/31 right (65 %), 0 partly, 11 unrecognised, 9/11
  rejects (2 false); the rank-order halves 0/2 (0 false in 1), the theme halves 20/29 (2 false in 10). w22613 (a
  traceback whose collector saw a line skipped) was dropped before the score. Read for the rules afterwards: 27/31
  and 9/11, with floors.
- heldout116 (w22700-w22708 and w22800-w22825; 18 more queries fixed in advance in rank order, and sparse autoencoders
  and interpretability tooling): both halves scored once on 924ec31, after heldout21-115 were read: 9/13 right (69 %),
  2 partly, 2 unrecognised, 19/20 rejects (1 false); the rank-order half 3/4 (0 false in 3), the theme half 6/9 (1
  false in 17). w22701 and w22706 (texts already in the corpus from other threads) were dropped. Read for the rules
  afterwards: 13/13 and 20/20, with floors.
- heldout117 (w22900-w22913 and w23000-w23020; 18 more queries fixed in advance in rank order, and local feature
  matching and visual localization): both halves scored once on 8b7c2bb, after heldout21-116 were read: 6/10 right
  (60 %), 0 partly, 4 unrecognised, 22/24 rejects (2 false); the rank-order half 2/3 (2 false in 10), the theme half
  4/7 (0 false in 14). w22905 (a text already in the corpus from another thread) was dropped. Read for the rules
  afterwards: 9/10 and 22/24, with floors.
- heldout118 (w23100-w23115 and w23200-w23219; 18 more queries fixed in advance in rank order, and neural codecs and
  discrete tokenizers): both halves scored once on 8b7c2bb, after heldout21-116 were read: 5/13 right (38 %), 3
  partly, 5 unrecognised, 23/23 rejects (0 false); the rank-order half 3/7 (0 false in 9), the theme half 2/6 (0 false
  in 14). w23116 (a text already in the corpus from another thread) was dropped. Read for the rules afterwards: 11/13
  and 23/23, with floors.
- heldout119 (w23300-w23315 and w23400-w23428; 18 more queries fixed in advance in rank order, and frame interpolation
  and video upscaling): both halves scored once on eff1bb9, after heldout21-118 were read: 20/27 right (74 %), 0
  partly, 7 unrecognised, 18/18 rejects (0 false); the rank-order half 9/13 (0 false in 3), the theme half 11/14 (0
  false in 15). None were dropped. Read for the rules afterwards: 25/27 and 18/18, with floors.
- heldout120 (w23500-w23516 and w23600-w23629; 18 more queries fixed in advance in rank order, and face recognition
  and person re-identification): both halves scored once on eff1bb9, after heldout21-118 were read: 16/23 right
  (70 %), 2 partly, 5 unrecognised, 24/24 rejects (0 false); the rank-order half 7/8 (0 false in 9), the theme half
  9/15 (0 false in 15). None were dropped. Read for the rules afterwards: 22/23 and 24/24, with floors.
- heldout121 (w23700-w23717 and w23800-w23811; 18 more queries fixed in advance in rank order, and world models and
  video prediction): both halves scored once on eff1bb9, after heldout21-118 were read: 14/18 right (78 %), 3 partly,
  1 unrecognised, 12/12 rejects (0 false); the rank-order half 11/14 (0 false in 4), the theme half 3/4 (0 false in
  8). None were dropped. Read for the rules afterwards: 15/18 and 12/12, with floors.
- heldout122 (w23900-w23925 and w24000-w24019; 18 more queries fixed in advance in rank order, and board-game engines
  and game-playing agents): both halves scored once on 9f77127, after heldout21-121 were read: 19/22 right (86 %), 0
  partly, 3 unrecognised, 23/24 rejects (1 false); the rank-order half 15/17 (0 false in 9), the theme half 4/5 (1
  false in 15). None were dropped. Read for the rules afterwards: 22/22 and 24/24, with floors.
- heldout123 (w24100-w24116 and w24200-w24220; 18 more queries fixed in advance in rank order, and NLP pipelines and
  information extraction): both halves scored once on 9f77127, after heldout21-121 were read: 9/17 right (53 %), 0
  partly, 8 unrecognised, 20/21 rejects (1 false); the rank-order half 4/6 (0 false in 11), the theme half 5/11 (1
  false in 10). None were dropped. Read for the rules afterwards: 15/17 and 20/21, with floors.
- heldout124 (w24300-w24313 and w24400-w24421; 18 more queries fixed in advance in rank order, and differentiable
  simulation and rendering): both halves scored once on 9f77127, after heldout21-121 were read: 8/17 right (47 %), 2
  partly, 7 unrecognised, 18/19 rejects (1 false); the rank-order half 5/6 (0 false in 8), the theme half 3/11 (1
  false in 11). None were dropped. Read for the rules afterwards: 17/17 and 19/19, with floors.
- heldout125 (w24500-w24517 and w24600-w24619; 18 more queries fixed in advance in rank order, and brain and
  physiological signals): both halves scored once on 5315a53, after heldout21-124 were read: 8/14 right (57 %), 2
  partly, 4 unrecognised, 23/23 rejects (0 false); the rank-order half 3/7 (0 false in 10), the theme half 5/7 (0
  false in 13). One text identical to a text already in the corpus (from another thread) was dropped. Read for the
  rules afterwards: 11/14 and 23/23, with floors.
- heldout126 (w24700-w24714 and w24800-w24829; 18 more queries fixed in advance in rank order, and machine learning in
  the browser and in mobile apps): both halves scored once on 5315a53, after heldout21-124 were read: 8/24 right (33
  %), 5 partly, 11 unrecognised, 19/21 rejects (2 false); the rank-order half 4/7 (1 false in 8), the theme half 4/17
  (1 false in 13). None were dropped. Read for the rules afterwards: 21/24 and 19/21, with floors.
- heldout127 (w24900-w24925 and w25000-w25021; 18 more queries fixed in advance in rank order, and scientific imaging
  and microscopy): both halves scored once on 5315a53, after heldout21-124 were read: 15/21 right (71 %), 1 partly, 5
  unrecognised, 25/26 rejects (1 false); the rank-order half 12/15 (0 false in 10), the theme half 3/6 (1 false in
  16). One text identical to a text already in the corpus (from another thread) was dropped. Read for the rules
  afterwards: 18/21 and 25/26, with floors.
- heldout128 (w25100-w25121 and w25200-w25224; 18 more queries fixed in advance in rank order, and equivariant
  networks and interatomic potentials): both halves scored once on 073fd86, after heldout21-127 were read: 14/22 right
  (64 %), 4 partly, 4 unrecognised, 23/25 rejects (2 false); the rank-order half 9/12 (0 false in 10), the theme half
  5/10 (2 false in 15). None were dropped. Read for the rules afterwards: 21/22 and 25/25, with floors.
- heldout129 (w25302-w25322 and w25400-w25420; 18 more queries fixed in advance in rank order, and weather and climate
  models): both halves scored once on 073fd86, after heldout21-127 were read: 5/11 right (45 %), 0 partly, 6
  unrecognised, 27/31 rejects (4 false); the rank-order half 4/8 (3 false in 13), the theme half 1/3 (1 false in 18).
  Two texts identical to a text already in the corpus (from other threads) were dropped. Read for the rules
  afterwards: 9/11 and 30/31, with floors.
- heldout130 (w25500-w25513 and w25600-w25619; 18 more queries fixed in advance in rank order, and unified multimodal
  generation models): both halves scored once on 073fd86, after heldout21-127 were read: 6/10 right (60 %), 4 partly,
  0 unrecognised, 22/24 rejects (2 false); the rank-order half 2/3 (2 false in 11), the theme half 4/7 (0 false in
  13). None were dropped. Read for the rules afterwards: 9/10 and 24/24, with floors.
- heldout131 (w25700-w25706 and w25800-w25810; 18 more queries fixed in advance in rank order, and LLM safety
  classifiers and red-teaming): both halves scored once on ae8ba67, after heldout21-130 were read: 4/5 right (80 %), 1
  partly, 0 unrecognised, 11/13 rejects (2 false); the rank-order half 3/4 (1 false in 3), the theme half 1/1 (1 false
  in 10). None were dropped. Read for the rules afterwards: 5/5 and 11/13, with floors.
- heldout132 (w25900-w25914 and w26000-w26020; 18 more queries fixed in advance in rank order, and small language
  models trained from scratch): both halves scored once on ae8ba67, after heldout21-130 were read: 6/10 right (60 %),
  0 partly, 4 unrecognised, 24/24 rejects (0 false); the rank-order half 3/6 (0 false in 9), the theme half 3/4 (0
  false in 15). One text identical to a corpus text from another thread, and one from a thread the other collector had
  taken, were dropped. Read for the rules afterwards: 9/10 and 24/24, with floors.
- heldout133 (w26100-w26118 and w26200-w26222; 18 more queries fixed in advance in rank order, and drug discovery and
  cheminformatics): both halves scored once on ae8ba67, after heldout21-130 were read: 8/13 right (62 %), 1 partly, 4
  unrecognised, 27/27 rejects (0 false); the rank-order half 5/6 (0 false in 13), the theme half 3/7 (0 false in 14).
  Two texts from threads the other collector had already taken were dropped. Read for the rules afterwards: 12/13 and
  27/27, with floors.
- heldout134 (w26300-w26311 and w26400-w26416; 18 more queries fixed in advance in rank order, and protein structure
  prediction and design): both halves scored once on 0f665b2, after heldout21-133 were read: 5/7 right (71 %), 0
  partly, 2 unrecognised, 22/22 rejects (0 false); the rank-order half 2/2 (0 false in 10), the theme half 3/5 (0
  false in 12). None were dropped. Read for the rules afterwards: 5/7 and 22/22, with floors.
- heldout135 (w26501-w26509 and w26600-w26620; 18 more queries fixed in advance in rank order, and genomics and
  single-cell foundation models): both halves scored once on 3b1b7b6, after heldout21-134 were read: 9/10 right
  (90 %), 1 partly, 0 unrecognised, 18/19 rejects (1 false); the rank-order half 1/1 (0 false in 7), the theme half 8/9
  (1 false in 12). w26500 (its text already in the corpus) and w26506 (its source already in the corpus) were dropped.
  Read for the rules afterwards: 10/10 and 19/19, with floors.
- heldout136 (w26700-w26709 and w26800-w26814; 18 more queries fixed in advance in rank order, and time-series and
  tabular foundation models): both halves scored once on 3b1b7b6, after heldout21-134 were read: 9/10 right (90 %), 0
  partly, 1 unrecognised, 14/15 rejects (1 false); the rank-order half 6/6 (0 false in 4), the theme half 3/4 (1 false
  in 11). None were dropped. Read for the rules afterwards: 10/10 and 14/15, with floors.
- heldout137 (w26900-w26910 and w27000-w27022; 18 more queries fixed in advance in rank order, and music and audio
  generation): both halves scored once on ad5d0b3, after heldout21-136 were read: 7/11 right (64 %), 1 partly, 3
  unrecognised, 23/23 rejects (0 false); the rank-order half 0/1 (0 false in 10), the theme half 7/10 (0 false in 13).
  None were dropped. Read for the rules afterwards: 10/11 and 23/23, with floors.
- heldout138 (w27100-w27110 and w27200-w27219; 18 more queries fixed in advance in rank order, and robot learning and
  vision-language-action policies): both halves scored once on ea6bad3, after heldout21-137 were read: 7/14 right
  (50 %), 0 partly, 7 unrecognised, 15/17 rejects (2 false); the rank-order half 5/7 (1 false in 4), the theme half 2/7
  (1 false in 13). None were dropped (w27103's group was renamed: its collector had reused a fault group's name for a
  reject). Read for the rules afterwards: 12/14 and 15/17, with floors.
- heldout139 (w27300-w27319 and w27400-w27420; 18 more queries fixed in advance in rank order, and speech language
  models and text-to-speech): both halves scored once on ce6cf87, after heldout21-138 were read: 13/22 right (59 %), 4
  partly, 5 unrecognised, 17/18 rejects (1 false); the rank-order half 8/13 (0 false in 7), the theme half 5/9 (1
  false in 11). w27407 was dropped (its text already in the corpus); w27417's group was renamed (its collector had
  reused a fault group's name for a reject). Read for the rules afterwards: 16/22 and 17/18, with floors.
- heldout140 (w27500-w27519 and w27600-w27628; 18 more queries fixed in advance in rank order, and open video
  generation models): both halves scored once on ce6cf87, after heldout21-138 were read: 15/24 right (62 %), 4 partly,
  5 unrecognised, 24/25 rejects (1 false); the rank-order half 8/13 (0 false in 7), the theme half 7/11 (1 false in
  18). None were dropped. Read for the rules afterwards: 17/24 and 24/25, with floors.
- heldout141 (w27700-w27715 and w27800-w27820; 18 more queries fixed in advance in rank order, and OCR and document
  understanding models): both halves scored once on 2b13e76, after heldout21-140 were read: 12/19 right (63 %), 2
  partly, 5 unrecognised, 15/16 rejects (1 false); the rank-order half 5/10 (1 false in 6), the theme half 7/9 (0
  false in 10). w27801 and w27802 were dropped (their threads already taken by the other half); w27820's group was
  renamed (its collector had reused a fault group's name for a reject). Read for the rules afterwards: 16/19 and
  15/16, with floors.
- heldout142 (w27900-w27912 and w28000-w28024; 18 more queries fixed in advance in rank order, and text-embedding,
  retrieval and reranking models): both halves scored once on 2b13e76, after heldout21-140 were read: 11/18 right
  (61 %), 0 partly, 7 unrecognised, 16/18 rejects (2 false); the rank-order half 3/7 (2 false in 6), the theme half
  8/11 (0 false in 12). w28003 and w28020 were dropped (their threads already taken by the other half); w27901's and
  w27902's groups were renamed (their collector had reused fault groups' names for rejects). Read for the rules
  afterwards: 17/18 and 16/18, with floors.
- heldout143 (w28100-w28112 and w28200-w28223; 18 more queries fixed in advance in rank order, and 3D generation,
  reconstruction and neural rendering): both halves scored once on 8ed5f62, after heldout21-142 were read: 11/14 right
  (79 %), 1 partly, 2 unrecognised, 19/21 rejects (2 false); the rank-order half 4/4 (1 false in 9), the theme half
  7/10 (1 false in 12). w28202 (its thread already taken by the other half) and w28203 (its text already in the
  corpus) were dropped; w28210's group was renamed (its collector had reused a fault group's name for a reject). Read
  for the rules afterwards: 13/14 and 19/21, with floors.
- heldout144 (w28300-w28303 and w28400-w28422; 18 more queries fixed in advance in rank order, and
  reinforcement-learning post-training of language models): both halves scored once on 8ed5f62, after heldout21-142
  were read: 6/11 right (55 %), 3 partly, 2 unrecognised, 16/16 rejects (0 false); the rank-order half 1/1 (0 false in
  3), the theme half 5/10 (0 false in 13). None were dropped. Read for the rules afterwards: 8/11 and 16/16, with
  floors.
- heldout145 (w28500-w28507 and w28600-w28620; 18 more queries fixed in advance in rank order, and medical imaging and
  clinical foundation models): both halves scored once on 963ac4f, after heldout21-144 were read: 4/8 right (50 %), 1
  partly, 3 unrecognised, 20/21 rejects (1 false); the rank-order half 0/2 (0 false in 6), the theme half 4/6 (1 false
  in 15). None were dropped; w28620's group was renamed (its collector had reused a fault group's name for a reject).
  Read for the rules afterwards: 6/8 and 20/21, with floors.
- heldout146 (w28700-w28705 and w28800-w28819; 18 more queries fixed in advance in rank order, and diffusion
  fine-tuning and LoRA trainers): both halves scored once on 963ac4f, after heldout21-144 were read: 11/15 right
  (73 %), 3 partly, 1 unrecognised, 10/10 rejects (0 false); the rank-order half 1/3 (0 false in 3), the theme half
  10/12 (0 false in 7). w28800 was dropped (its thread already taken by the other half). Read for the rules
  afterwards: 12/15 and 10/10, with floors.
- heldout147 (w28900-w28912 and w29000-w29027; 18 more queries fixed in advance in rank order, and graph neural
  networks): both halves scored once on d9dbbd6, after heldout21-146 were read: 13/19 right (68 %), 3 partly, 3
  unrecognised, 17/21 rejects (4 false); the rank-order half 7/7 (2 false in 6), the theme half 6/12 (2 false in 15).
  w29024 was dropped (its thread already taken by the other half); w29020's group was renamed (its collector had used
  a fault group's name for a reject). Read for the rules afterwards: 17/19 and 17/21, with floors.
- heldout148 (w29100-w29106 and w29200-w29219; 18 more queries fixed in advance in rank order, and image
  classification backbones and their fine-tuning): both halves scored once on 0e5bc1b, after heldout21-147 were read:
  9/15 right (60 %), 1 partly, 5 unrecognised, 12/12 rejects (0 false); the rank-order half 3/5 (0 false in 2), the
  theme half 6/10 (0 false in 10). None were dropped. Read for the rules afterwards: 14/15 and 12/12, with floors.
- heldout149 (w29300-w29314; one collector's 18 more queries fixed in advance in rank order, about JAX, Flax and
  TensorFlow / Keras code in low precision): the one half scored once on 19c1291, after heldout21-148 were read: 5/9
  right (56 %), 1 partly, 3 unrecognised, 6/6 rejects (0 false). None were dropped. Read for the rules afterwards: 9/9
  and 6/6, with floors.
- heldout150 (w29500-w29516; one collector gathering by theme, without fixed queries, about JAX, Flax and TensorFlow /
  Keras code in low precision): the one half scored once on 4fd754f, after heldout21-149 were read: 7/10 right (70 %), 2
  partly, 1 unrecognised, 7/7 rejects (0 false). None were dropped. Read for the rules afterwards: 10/10 and 7/7, with
  floors.
- heldout151 (w29700-w29714; one collector's 18 more queries fixed in advance in rank order, about memory-efficient
  fine-tuning and training methods): the one half scored once on 1cc77d6, after heldout21-150 were read: 5/7 right
  (71 %), 1 partly, 1 unrecognised, 7/8 rejects (1 false). None were dropped. Read for the rules afterwards: 7/7 and
  8/8, with floors.
- heldout152 (w29900-w29917; one collector's 18 more queries fixed in advance in rank order, about optical flow, point
  tracking, video object segmentation and multi-object tracking): the one half scored once on 9c61a99, after
  heldout21-151 were read: 4/10 right (40 %), 3 partly, 3 unrecognised, 8/8 rejects (0 false). None were dropped. Read
  for the rules afterwards: 8/10 and 8/8, with floors.
- heldout153 (w30100-w30113; one collector gathering by theme, without fixed queries, about optical flow, point
  tracking, video object segmentation and multi-object tracking): the one half scored once on e7e6ae6, after
  heldout21-152 were read: 4/5 right (80 %), 1 partly, 0 unrecognised, 9/9 rejects (0 false). None were dropped. Read
  for the rules afterwards: 5/5 and 9/9, with floors.
- heldout154 (w30300-w30314; one collector gathering by theme, without fixed queries, about memory-efficient fine-tuning
  and training methods): the one half scored once on 6c54a5d, after heldout21-153 were read: 6/8 right (75 %), 1 partly,
  1 unrecognised, 6/7 rejects (1 false). None were dropped. Read for the rules afterwards: 8/8 and 6/7, with floors.
- heldout155 (w30500-w30504 and w30600-w30617; 18 more queries fixed in advance in rank order, and speech recognition,
  speech and audio models): both halves scored once on be86c31 (the rank-order half) and deaaf57 (the theme half, after
  heldout156 was read), after heldout21-154 were read: 6/12 right (50 %), 0 partly, 6 unrecognised, 10/11 rejects (1
  false); the rank-order half 1/2 (0 false in 3), the theme half 5/10 (1 false in 8). None were dropped. Read for the
  rules afterwards: 11/12 and 10/11, with floors.
- heldout156 (w30700-w30705 and w30800-w30816; 18 more queries fixed in advance in rank order, and point clouds and 3D
  perception): both halves scored once on be86c31, after heldout21-154 were read: 7/12 right (58 %), 1 partly, 4
  unrecognised, 10/10 rejects (0 false); the rank-order half 3/4 (0 false in 2), the theme half 4/8 (0 false in 8).
  w30808 was dropped (the thread of w30700, taken by both collectors). Read for the rules afterwards: 12/12 and 10/10,
  with floors.
- heldout157 (w30900-w30917 and w31000-w31017; 18 more queries fixed in advance in rank order, and local LLM inference
  runtimes and quantized formats): both halves scored once on deaaf57 (the rank-order half) and 39a3680 (the theme
  half), after heldout21-156 were read: 8/18 right (44 %), 2 partly, 8 unrecognised, 17/17 rejects (0 false); the
  rank-order half 3/9 (0 false in 8), the theme half 5/9 (0 false in 9). w30908 was dropped (a thread read while rules
  were written, listed in READ_SOURCES.txt). w30910's group was renamed: it shared its message group with the fault
  w30907, and a group holds one kind. Read for the rules afterwards: 17/18 and 17/17, with floors.
- heldout158 (w31100-w31111 and w31200-w31215; 18 more queries fixed in advance in rank order, and weather, climate and
  scientific machine learning): both halves scored once on b74eaf6 (the rank-order half) and 528361a (the theme half),
  after heldout21-157 were read: 8/14 right (57 %), 2 partly, 4 unrecognised, 14/14 rejects (0 false); the rank-order
  half 3/6 (0 false in 6), the theme half 5/8 (0 false in 8). None were dropped. Read for the rules afterwards: 12/14
  and 14/14, with floors.
- heldout159 (w31300-w31306 and w31400-w31408; 18 more queries fixed in advance in rank order, and federated learning
  and differentially private training): both halves scored once on 8aee0bb, after heldout21-158 were read: 7/8 right
  (88 %), 0 partly, 1 unrecognised, 5/6 rejects (1 false); the rank-order half 4/5 (0 false in 2), the theme half 3/3 (1
  false in 4). w31403 and w31405 and w31409 were dropped (threads the rank-order half took too). Read for the rules
  afterwards: 8/8 and 5/6, with floors.
- heldout160 (w31500-w31510 and w31600-w31614; 18 more queries fixed in advance in rank order, and recommendation
  systems and embedding tables): both halves scored once on 9455723, after heldout21-159 were read: 11/15 right (73 %),
  1 partly, 3 unrecognised, 11/11 rejects (0 false); the rank-order half 6/8 (0 false in 3), the theme half 5/7 (0 false
  in 8). None were dropped. Read for the rules afterwards: 15/15 and 11/11, with floors.
- heldout161 (w31700-w31715 and w31800-w31815; 18 more queries fixed in advance in rank order, and web and mobile
  inference runtimes): both halves scored once on 9455723, after heldout21-160 were read: 9/19 right (47 %), 1 partly, 9
  unrecognised, 13/13 rejects (0 false); the rank-order half 6/11 (0 false in 5), the theme half 3/8 (0 false in 8).
  None were dropped. w31700's group was renamed: it shared its message group with the reject w24822, and a group holds
  one kind. Read for the rules afterwards: 19/19 and 13/13, with floors.
- heldout162 (w31900-w31917 and w32000-w32021; 18 more queries fixed in advance in rank order, and classical computer
  vision and image-processing libraries): both halves scored once on 9455723, after heldout21-161 were read: 12/23 right
  (52 %), 1 partly, 10 unrecognised, 16/16 rejects (0 false); the rank-order half 7/12 (0 false in 5), the theme half
  5/11 (0 false in 11). w31903 was dropped (a thread the 161st collection took too). Read for the rules afterwards:
  23/23 and 16/16, with floors.
- heldout163 (w32100-w32110 and w32200-w32213; 18 more queries fixed in advance in rank order, and time series and
  forecasting): both halves scored once on 9455723, after heldout21-162 were read: 6/10 right (60 %), 0 partly, 4
  unrecognised, 15/15 rejects (0 false); the rank-order half 3/5 (0 false in 6), the theme half 3/5 (0 false in 9). None
  were dropped. Read for the rules afterwards: 10/10 and 15/15, with floors.
- heldout164 (w32300-w32309 and w32400-w32414; 18 more queries fixed in advance in rank order, and video understanding,
  tracking and video I/O): both halves scored once on 1f0dcf0, after heldout21-163 were read: 8/10 right (80 %), 1
  partly, 1 unrecognised, 13/15 rejects (2 false); the rank-order half 2/3 (1 false in 7), the theme half 6/7 (1 false
  in 8). None were dropped. Read for the rules afterwards: 10/10 and 14/15, with floors.
- heldout165 (w32500-w32515 and w32600-w32614; 18 more queries fixed in advance in rank order, and medical imaging):
  both halves scored once on 1f0dcf0, after heldout21-164 were read: 6/13 right (46 %), 0 partly, 7 unrecognised, 13/14
  rejects (1 false); the rank-order half 3/7 (1 false in 8), the theme half 3/6 (0 false in 6). w32508 and w32602 and
  w32604 and w32605 were dropped (threads the rank-order half took too, and w32508, whose text is w11714's word for
  word). Read for the rules afterwards: 12/13 and 13/14, with floors.
- heldout166 (w32700-w32711 and w32800-w32810; 18 more queries fixed in advance in rank order, and remote sensing and
  geospatial deep learning): both halves scored once on 1f0dcf0, after heldout21-165 were read: 9/12 right (75 %), 0
  partly, 3 unrecognised, 11/11 rejects (0 false); the rank-order half 4/7 (0 false in 5), the theme half 5/5 (0 false
  in 6). None were dropped. Read for the rules afterwards: 12/12 and 11/11, with floors.
- heldout167 (w32900-w32915 and w33000-w33019; 18 more queries fixed in advance in rank order, and the JAX ecosystem):
  both halves scored once on 1f0dcf0, after heldout21-166 were read: 6/19 right (32 %), 3 partly, 10 unrecognised, 14/15
  rejects (1 false); the rank-order half 3/10 (1 false in 6), the theme half 3/9 (0 false in 9). w33008 and w33010 were
  dropped (threads the rank-order half took too). Read for the rules afterwards: 19/19 and 15/15, with floors.
- heldout168 (w33100-w33113; one collector's 18 more queries fixed in advance in rank order, about physics simulation
  and differentiable simulators): the one half scored once on 6460a96, after heldout21-167 were read: 2/9 right (22 %),
  1 partly, 6 unrecognised, 5/5 rejects (0 false). None were dropped. Read for the rules afterwards: 9/9 and 5/5, with
  floors.
- heldout169 (w33300-w33302 and w33400-w33420; 18 more queries fixed in advance in rank order, and quantum machine
  learning and quantum simulators): both halves scored once on 86b8bb4, after heldout21-168 were read: 4/13 right
  (31 %), 0 partly, 9 unrecognised, 11/11 rejects (0 false); the rank-order half 1/2 (0 false in 1), the theme half 3/11
  (0 false in 10). None were dropped. Read for the rules afterwards: 11/13 and 11/11, with floors.
- heldout170 (w33500-w33506; one collector's 18 more queries fixed in advance in rank order, about spiking neural
  networks and neural signal decoding): the one half scored once on 6460a96, after heldout21-169 were read: 1/3 right
  (33 %), 0 partly, 2 unrecognised, 4/4 rejects (0 false). None were dropped. Read for the rules afterwards: 2/3 and
  4/4, with floors.
- heldout171 (w33700-w33708 and w33800-w33814; 18 more queries fixed in advance in rank order, and model
  interpretability and explainability): both halves scored once on 86b8bb4, after heldout21-170 were read: 8/11 right
  (73 %), 0 partly, 3 unrecognised, 13/13 rejects (0 false); the rank-order half 2/4 (0 false in 5), the theme half 6/7
  (0 false in 8). None were dropped. Read for the rules afterwards: 11/11 and 13/13, with floors.
- heldout172 (w33900-w33915 and w34000-w34015; 18 more queries fixed in advance in rank order, and GPU dataframes and
  classical machine learning next to torch): both halves scored once on da508db, after heldout21-171 were read: 9/18
  right (50 %), 1 partly, 8 unrecognised, 14/14 rejects (0 false); the rank-order half 6/9 (0 false in 7), the theme
  half 3/9 (0 false in 7). None were dropped. Read for the rules afterwards: 16/18 and 14/14, with floors.
- heldout173 (w34100-w34112 and w34200-w34216; 18 more queries fixed in advance in rank order, and probabilistic
  programming, Gaussian processes and Bayesian optimization): both halves scored once on da508db, after heldout21-171
  were read: 6/16 right (38 %), 0 partly, 10 unrecognised, 14/14 rejects (0 false); the rank-order half 4/7 (0 false in
  6), the theme half 2/9 (0 false in 8); 3 of the rank-order half's 13 texts came from its collector's follow-up
  searches. None were dropped. Read for the rules afterwards: 10/16 and 14/14, with floors.
- heldout174 (w34300-w34305 and w34400-w34414; 18 more queries fixed in advance in rank order, and promptable and
  open-vocabulary segmentation and detection): both halves scored once on da508db, after heldout21-171 were read: 6/9
  right (67 %), 0 partly, 3 unrecognised, 10/11 rejects (1 false); the rank-order half 3/4 (0 false in 2), the theme
  half 3/5 (1 false in 9). w34401 was dropped (its text repeats one already in the corpus). Read for the rules
  afterwards: 9/9 and 10/11, with floors.
- heldout175 (w34500-w34508 and w34600-w34613; 18 more queries fixed in advance in rank order, and model serving
  frameworks): both halves scored once on da508db, after heldout21-171 were read: 9/14 right (64 %), 4 partly, 1
  unrecognised, 9/9 rejects (0 false); the rank-order half 4/7 (0 false in 2), the theme half 5/7 (0 false in 7). None
  were dropped. Read for the rules afterwards: 14/14 and 9/9, with floors.
- heldout176 (w34700-w34719 and w34800-w34815; 18 more queries fixed in advance in rank order, and graph compilers and
  graph capture in low precision): both halves scored once on da508db, after heldout21-171 were read: 12/24 right
  (50 %), 4 partly, 8 unrecognised, 12/12 rejects (0 false); the rank-order half 6/15 (0 false in 5), the theme half 6/9
  (0 false in 7). None were dropped. Read for the rules afterwards: 24/24 and 12/12, with floors.
- heldout177 (w34900-w34909 and w35000-w35014; 18 more queries fixed in advance in rank order, and non-NVIDIA
  accelerators): both halves scored once on da508db, after heldout21-171 were read: 6/14 right (43 %), 4 partly, 4
  unrecognised, 11/11 rejects (0 false); the rank-order half 3/7 (0 false in 3), the theme half 3/7 (0 false in 8). None
  were dropped. Read for the rules afterwards: 14/14 and 11/11, with floors.
- heldout178 (w35100-w35108 and w35200-w35218; 18 more queries fixed in advance in rank order, and deep-learning
  frameworks other than PyTorch): both halves scored once on da508db, after heldout21-171 were read: 6/16 right (38 %),
  2 partly, 8 unrecognised, 12/12 rejects (0 false); the rank-order half 2/6 (0 false in 3), the theme half 4/10 (0
  false in 9). None were dropped. Read for the rules afterwards: 16/16 and 12/12, with floors.
- heldout179 (w35300-w35318 and w35400-w35414; 18 more queries fixed in advance in rank order, and classic NLP and
  sequence-to-sequence toolkits): both halves scored once on da508db, after heldout21-171 were read: 12/17 right (71 %),
  1 partly, 4 unrecognised, 16/16 rejects (0 false); the rank-order half 9/9 (0 false in 9), the theme half 3/8 (0 false
  in 7); 13 of the rank-order half's 19 texts came from its collector's own searches on the theme, the fixed queries
  having given 6. w35314 was dropped (its text repeats one already in the corpus). Read for the rules afterwards: 16/17
  and 16/16, with floors.
- heldout180 (w35500-w35515 and w35600-w35618; 18 more queries fixed in advance in rank order, and TensorFlow 2 and
  Keras mixed precision): both halves scored once on a830419, after heldout21-179 were read: 8/18 right (44 %), 3
  partly, 7 unrecognised, 14/17 rejects (3 false); the rank-order half 5/8 (2 false in 8), the theme half 3/10 (1 false
  in 9); 7 of the rank-order half's 16 texts came from its collector's follow-up searches. None were dropped. Read for
  the rules afterwards: 17/18 and 17/17, with floors.
- heldout181 (w35700-w35713 and w35800-w35813; 18 more queries fixed in advance in rank order, and audio source
  separation and speech enhancement): both halves scored once on a830419, after heldout21-179 were read: 8/14 right
  (57 %), 1 partly, 5 unrecognised, 14/14 rejects (0 false); the rank-order half 4/7 (0 false in 7), the theme half 4/7
  (0 false in 7); 3 of the rank-order half's 14 texts came from its collector's follow-up searches. None were dropped.
  w35806's group was renamed: it shared its message group with the reject w27000, and
  a group holds one kind. Read for the rules afterwards: 10/14 and 14/14, with floors.
- heldout182 (w35900-w35917 and w36000-w36014; 18 more queries fixed in advance in rank order, and state-space and
  linear-attention models): both halves scored once on a830419, after heldout21-179 were read: 10/16 right (62 %), 0
  partly, 6 unrecognised, 14/17 rejects (3 false); the rank-order half 6/9 (1 false in 9), the theme half 4/7 (2 false
  in 8); 8 of the rank-order half's 18 texts came from its collector's follow-up searches. None were dropped. Read for
  the rules afterwards: 15/16 and 17/17, with floors.
- heldout183 (w36100-w36116 and w36200-w36218; 18 more queries fixed in advance in rank order, and data pipelines
  feeding torch): both halves scored once on a830419, after heldout21-179 were read: 11/17 right (65 %), 3 partly, 3
  unrecognised, 19/19 rejects (0 false); the rank-order half 6/8 (0 false in 9), the theme half 5/9 (0 false in 10).
  5 of the rank-order half's 17 texts came from its collector's own searches on the theme. None were dropped. Read for
  the rules afterwards: 17/17 and 19/19, with floors.
- heldout184 (w36300-w36303 and w36400-w36414; 18 more queries fixed in advance in rank order, and human pose estimation
  and body models): both halves scored once on 66d6032, after heldout21-183 were read: 7/7 right (100 %), 0 partly, 0
  unrecognised, 12/12 rejects (0 false); the rank-order half 1/1 (0 false in 3), the theme half 6/6 (0 false in 9). None
  were dropped. Read for the rules afterwards: 7/7 and 12/12, with floors.
- heldout185 (w36500-w36514 and w36600-w36611; 18 more queries fixed in advance in rank order, and classic reinforcement
  learning libraries): both halves scored once on 66d6032, after heldout21-183 were read: 8/13 right (62 %), 0 partly, 5
  unrecognised, 12/14 rejects (2 false); the rank-order half 4/7 (1 false in 8), the theme half 4/6 (1 false in 6); 5 of
  the rank-order half's 15 texts came from its collector's follow-up searches. None were dropped. Read for the rules
  afterwards: 12/13 and 12/14, with floors; the two false diagnoses stay: torch 1.12.0's `state_steps` regression,
  labelled a fault three times before, and a Double/Float `mat2` message that a reinstall of torch cleared.
- heldout186 (w36700-w36715 and w36800-w36814; 18 more queries fixed in advance in rank order, and GAN training and
  StyleGAN-family code): both halves scored once on aa6d6fb, after heldout21-185 were read: 10/14 right (71 %), 1
  partly, 3 unrecognised, 16/17 rejects (1 false); the rank-order half 6/8 (1 false in 8), the theme half 4/6 (0 false
  in 9). None were dropped. Read for the rules afterwards: 13/14 and 16/17, with floors. 5 of the rank-order half's 16
  texts came from its collector's follow-up searches; the false diagnosis stays (a discriminator's NaN from a gradient
  penalty's square root, told without precision: the hedged NaN answer), and w36710, MPS's fallback warning labelled a
  fault, stays unexplained with its own advice.
- heldout187 (w36900-w36917 and w37000-w37019; 18 more queries fixed in advance in rank order, and FFTs, complex numbers
  and signal processing): both halves scored once on aa6d6fb, after heldout21-185 were read: 15/22 right (68 %), 2
  partly, 5 unrecognised, 16/16 rejects (0 false); the rank-order half 7/10 (0 false in 8), the theme half 8/12 (0 false
  in 8). None were dropped. Read for the rules afterwards: 21/22 and 16/16, with floors. 10 of the rank-order half's 18
  texts came from its collector's follow-up searches; w36907, a missing MPS FFT operator labelled a fault (eleven such
  texts are rejects), stays unexplained with its own advice.
- heldout188 (w37100-w37102 and w37200-w37215; 18 more queries fixed in advance in rank order, and differential privacy,
  federated learning and encrypted computation): both halves scored once on aa6d6fb, after heldout21-185 were read: 5/8
  right (62 %), 0 partly, 3 unrecognised, 11/11 rejects (0 false); the rank-order half 0/1 (0 false in 2), the theme
  half 5/7 (0 false in 9). None were dropped. Read for the rules afterwards: 8/8 and 11/11, with floors.
- heldout189 (w37300-w37317 and w37400-w37419; 18 more queries fixed in advance in rank order, and custom C++ / CUDA
  extensions): both halves scored once on aa6d6fb, after heldout21-185 were read: 14/19 right (74 %), 1 partly, 4
  unrecognised, 18/18 rejects (0 false); the rank-order half 8/9 (0 false in 9), the theme half 6/10 (0 false in 9).
  w37407 was dropped (its text word for word is w27613's). Read for the rules afterwards: 18/19 and 18/18, with floors.
  most of the rank-order half's texts came from its collector's follow-up searches; w37403, CUDA 9's `__half` operator
  clash at build time labelled a fault (two texts with the same build error are rejects), stays unrecognised.
- heldout190 (w37500-w37512 and w37600-w37614; 18 more queries fixed in advance in rank order, and remote sensing,
  geospatial and raster data): both halves scored once on aa6d6fb, after heldout21-185 were read: 7/14 right (50 %), 0
  partly, 7 unrecognised, 14/14 rejects (0 false); the rank-order half 2/7 (0 false in 6), the theme half 5/7 (0 false
  in 8). None were dropped. Read for the rules afterwards: 13/14 and 14/14, with floors. 7 of the rank-order half's 13
  texts came from its collector's follow-up searches; w37603, a rotated-IoU kernel's CUDA result told without a
  precision word, stays unrecognised.
- heldout191 (w37700-w37714 and w37800-w37814; 18 more queries fixed in advance in rank order, and pruning, sparsity and
  compression): both halves scored once on aa6d6fb, after heldout21-185 were read: 6/14 right (43 %), 4 partly, 4
  unrecognised, 15/16 rejects (1 false); the rank-order half 3/7 (0 false in 8), the theme half 3/7 (1 false in 8). None
  were dropped. Read for the rules afterwards: 13/14 and 15/16, with floors. several of the rank-order half's texts came
  from its collector's follow-up searches; w37808 (a pruned model's worse scores, no precision word) stays unrecognised
  and the false diagnosis stays (an `aten::add_` on QuantizedCPU labelled a version problem).
- heldout192 (w37900-w37915 and w38000-w38018; 18 more queries fixed in advance in rank order, and embedded NPUs and
  edge accelerators): both halves scored once on aa6d6fb, after heldout21-185 were read: 7/20 right (35 %), 0 partly, 13
  unrecognised, 15/15 rejects (0 false); the rank-order half 4/9 (0 false in 7), the theme half 3/11 (0 false in 8).
  None were dropped. Read for the rules afterwards: 18/20 and 15/15, with floors. w38007 (a Hailo model's mAP drop from
  calibration, no precision word) and w38010 (tkDNN's fp16 check reporting "Wrong", fp16 only inside a file name) stay
  unrecognised.
- heldout193 (w38100-w38115 and w38200-w38214; 18 more queries fixed in advance in rank order, and AMD GPUs and
  DirectML): both halves scored once on aa6d6fb, after heldout21-185 were read: 9/14 right (64 %), 0 partly, 5
  unrecognised, 13/14 rejects (1 false); the rank-order half 3/8 (0 false in 7), the theme half 6/6 (1 false in 7).
  w38101 and w38201 and w38210 were dropped (w38201's text word for word is w20500's; w38101's and w38210's threads are
  listed in READ_SOURCES.txt, read when the ROCm rules were written). w38213's group was renamed (it shared one with the
  fault w38709 and older faults). Read for the rules afterwards: 12/14 and 13/14, with floors. 7 of the rank-order
  half's 15 texts (all its rejects) came from its collector's follow-up searches; w38103 (a black image on AMD Vulkan,
  no precision word) and w38105 (a bare RuntimeError, DirectML not named) stay unrecognised, and the false diagnosis
  stays (an RX 580 under ZLUDA whose Input/bias type message is labelled an unsupported card).
- heldout194 (w38300-w38312 and w38400-w38415; 18 more queries fixed in advance in rank order, and physics-informed
  networks, neural operators and quantum machine learning): both halves scored once on aa6d6fb, after heldout21-185 were
  read: 9/16 right (56 %), 2 partly, 5 unrecognised, 13/13 rejects (0 false); the rank-order half 7/8 (0 false in 5),
  the theme half 2/8 (0 false in 8). None were dropped. Read for the rules afterwards: 13/16 and 13/13, with floors. 1
  of the rank-order half's 13 texts came from its collector's follow-up searches; w38400 (complex tensors the text does
  not name) stays partly right, w38407 (JAX not named) and w38408 (an einsum error under DataParallel, complex
  parameters not named) stay unrecognised.
- heldout195 (w38500-w38517 and w38600-w38614; 18 more queries fixed in advance in rank order, and spiking networks and
  hand-written autograd): both halves scored once on aa6d6fb, after heldout21-185 were read: 11/16 right (69 %), 0
  partly, 5 unrecognised, 17/17 rejects (0 false); the rank-order half 7/9 (0 false in 9), the theme half 4/7 (0 false
  in 8). None were dropped. Read for the rules afterwards: 16/16 and 17/17, with floors. 8 of the rank-order half's 18
  texts came from its collector's follow-up searches.
- heldout196 (w38700-w38712 and w38800-w38812; 18 more queries fixed in advance in rank order, and video understanding):
  both halves scored once on aa6d6fb, after heldout21-185 were read: 6/9 right (67 %), 1 partly, 2 unrecognised, 16/17
  rejects (1 false); the rank-order half 4/6 (1 false in 7), the theme half 2/3 (0 false in 10). None were dropped. Read
  for the rules afterwards: 8/9 and 16/17, with floors. 8 of the rank-order half's 13 texts came from its collector's
  follow-up searches; w38704 (a bare RuntimeError at `loss.backward()`) stays unrecognised and the false diagnosis stays
  (NumPy's same_kind casting of a clip, labelled a reject).
- heldout197 (w38900-w38904 and w39000-w39015; 18 more queries fixed in advance in rank order, and image restoration and
  super-resolution): both halves scored once on aa6d6fb, after heldout21-185 were read: 6/8 right (75 %), 0 partly, 2
  unrecognised, 11/13 rejects (2 false); the rank-order half 1/1 (1 false in 4), the theme half 5/7 (1 false in 9). None
  were dropped. Read for the rules afterwards: 8/8 and 13/13, with floors.
- heldout198 (w39100-w39117 and w39200-w39217; 18 more queries fixed in advance in rank order, and linear algebra and
  probability distributions): both halves scored once on 6aa0e1a, after heldout21-197 were read: 5/15 right (33 %), 3
  partly, 7 unrecognised, 20/21 rejects (1 false); the rank-order half 1/7 (1 false in 11), the theme half 4/8 (0 false
  in 10). None were dropped. Read for the rules afterwards: 15/15 and 20/21, with floors. 7 of the rank-order half's 18
  texts came from its collector's follow-up searches; the false diagnosis stays (a Categorical's NaN log_prob from a
  collapsed policy, told without precision: the hedged NaN answer).
- heldout199 (w39300-w39314 and w39400-w39409; 18 more queries fixed in advance in rank order, and Keras 3 and its
  multi-backend code): both halves scored once on 6aa0e1a, after heldout21-197 were read: 10/13 right (77 %), 0 partly,
  3 unrecognised, 10/12 rejects (2 false); the rank-order half 7/8 (1 false in 7), the theme half 3/5 (1 false in 5).
  None were dropped. w39407's group was renamed (it shared one with faults). Read for the rules afterwards: 13/13 and
  11/12, with floors. 4 of the rank-order half's 15 texts came from its collector's follow-up searches; the false
  diagnosis stays (a mat1/mat2 Float/BFloat16 message that a reinstall of matching torch and flash-attn cleared).
- heldout200 (w39500-w39511 and w39600-w39614; 18 more queries fixed in advance in rank order, and optimizers and their
  state): both halves scored once on 6aa0e1a, after heldout21-197 were read: 11/14 right (79 %), 1 partly, 2
  unrecognised, 11/13 rejects (2 false); the rank-order half 5/7 (2 false in 5), the theme half 6/7 (0 false in 8). None
  were dropped. w39506's group was renamed (it shared one with the fault w39604). Read for the rules afterwards: 14/14
  and 12/13, with floors. 5 of the rank-order half's 12 texts came from its collector's follow-up searches; the false
  diagnosis stays (capturable Adam's state_steps check from a torch bug, labelled a reject; w39604 with the same message
  is a fault).
- heldout201 (w39700-w39715 and w39800-w39817; 18 more queries fixed in advance in rank order, and object detection
  frameworks): both halves scored once on 6aa0e1a, after heldout21-197 were read: 12/17 right (71 %), 1 partly, 4
  unrecognised, 17/17 rejects (0 false); the rank-order half 6/8 (0 false in 8), the theme half 6/9 (0 false in 9). None
  were dropped. Read for the rules afterwards: 15/17 and 17/17, with floors. 4 of the rank-order half's 16 texts came
  from its collector's follow-up searches; w39703 (a YOLOv8 NaN loss, AMP not named) and w39801 (a Hungarian matcher's
  invalid entries, AMP not named) stay unrecognised.
- heldout202 (w39900-w39907 and w40000-w40014; 18 more queries fixed in advance in rank order, and model merging and
  adapter merging): both halves scored once on c21c239, after heldout21-201 were read: 5/9 right (56 %), 1 partly, 3
  unrecognised, 12/14 rejects (2 false); the rank-order half 1/2 (1 false in 6), the theme half 4/7 (1 false in 8). None
  were dropped. Read for the rules afterwards: 9/9 and 12/14, with floors. Most rank-order queries gave nothing that
  qualified (8 texts); the two false diagnoses stay: w39902, a merged EBM's NaN attributes told without precision (the
  hedged NaN answer), and w40002, a broken LoRA fused into an fp16 pipeline whose black images read as the fp16 VAE's.
- heldout203 (w40100-w40112 and w40200-w40216; 18 more queries fixed in advance in rank order, and attention kernels and
  their dtype / device requirements): both halves scored once on c21c239, after heldout21-201 were read: 9/16 right
  (56 %), 4 partly, 3 unrecognised, 14/14 rejects (0 false); the rank-order half 6/8 (0 false in 5), the theme half 3/8
  (0 false in 9). None were dropped. Read for the rules afterwards: 15/16 and 14/14, with floors. w40210, MesaNet's NaN
  told without a precision word (its fp16 kernel states are in the thread only), stays unrecognised.
- heldout204 (w40300-w40311 and w40400-w40415; 18 more queries fixed in advance in rank order, and numerical overflow in
  transformer internals): both halves scored once on c21c239, after heldout21-201 were read: 10/16 right (62 %), 3
  partly, 3 unrecognised, 11/12 rejects (1 false); the rank-order half 6/8 (1 false in 4), the theme half 4/8 (0 false
  in 8). None were dropped. Read for the rules afterwards: 15/16 and 11/12, with floors. 4 of the rank-order half's 12
  texts came from its collector's follow-up searches; w40409 (FLUX.2's residual stream overflowing in bf16, whose clamp
  the answer does not name) stays partly right and the false diagnosis stays (MIOpen's fp16 softmax NaN, a
  synchronisation bug the text does not show).
- heldout205 (w40500-w40503 and w40600-w40610; 18 more queries fixed in advance in rank order, and mixture-of-experts
  models and kernels): both halves scored once on c21c239, after heldout21-201 were read: 4/9 right (44 %), 1 partly, 4
  unrecognised, 6/6 rejects (0 false); the rank-order half 1/3 (0 false in 1), the theme half 3/6 (0 false in 5). None
  were dropped. Read for the rules afterwards: 8/9 and 6/6, with floors. The rank-order half found 4 texts; w40501
  (DeepGEMM's masked GEMM given a CPU index tensor, its error a screenshot) stays unrecognised.
- heldout206 (w40700-w40712 and w40800-w40817; 18 more queries fixed in advance in rank order, and user-written Triton
  kernels): both halves scored once on c21c239, after heldout21-201 were read: 9/17 right (53 %), 3 partly, 5
  unrecognised, 12/14 rejects (2 false); the rank-order half 3/7 (0 false in 6), the theme half 6/10 (2 false in 8).
  None were dropped. Read for the rules afterwards: 17/17 and 14/14, with floors. 5 of the rank-order half's 13 texts
  came from its collector's follow-up searches.
- heldout207 (w40900-w40915 and w41000-w41019; 18 more queries fixed in advance in rank order, and torch.distributed
  collectives and dtypes): both halves scored once on c21c239, after heldout21-201 were read: 8/20 right (40 %), 3
  partly, 9 unrecognised, 15/16 rejects (1 false); the rank-order half 4/11 (1 false in 5), the theme half 4/9 (0 false
  in 11). None were dropped. Read for the rules afterwards: 20/20 and 16/16, with floors. Most of the rank-order half's
  rejects came from its collector's follow-up searches.
- heldout208 (w41100-w41108 and w41201-w41217; 18 more queries fixed in advance in rank order, and checkpoint conversion
  scripts between formats): both halves scored once on c21c239, after heldout21-201 were read: 4/12 right (33 %), 2
  partly, 6 unrecognised, 14/14 rejects (0 false); the rank-order half 1/4 (0 false in 5), the theme half 3/8 (0 false
  in 9). w41200 was dropped (word for word a text already in world.jsonl). Read for the rules afterwards: 12/12 and
  14/14, with floors. The rank-order half found 9 texts, several from its collector's follow-up searches.
- heldout209 (w41300-w41310 and w41400-w41414; 18 more queries fixed in advance in rank order, and LLM evaluation
  harnesses): both halves scored once on c21c239, after heldout21-201 were read: 8/14 right (57 %), 2 partly, 4
  unrecognised, 11/12 rejects (1 false); the rank-order half 4/6 (0 false in 5), the theme half 4/8 (1 false in 7). None
  were dropped. Read for the rules afterwards: 14/14 and 11/12, with floors. The false diagnosis stays: an eval loss NaN
  from a dataset bug, told without precision (the hedged NaN answer).
- heldout210 (w41500-w41502 and w41600-w41617; 18 more queries fixed in advance in rank order, and knowledge
  distillation and teacher / student models in different precisions): both halves scored once on c21c239, after
  heldout21-201 were read: 5/9 right (56 %), 1 partly, 3 unrecognised, 11/12 rejects (1 false); the rank-order half 1/1
  (0 false in 2), the theme half 4/8 (1 false in 10). None were dropped. Read for the rules afterwards: 9/9 and 11/12,
  with floors. The rank-order half found 3 texts; the false diagnosis stays: soft targets refused by an older
  cross_entropy as 'Expected object of scalar type Long but got scalar type Half' (read as Long targets).
- heldout211 (w41700-w41707 and w41800-w41814; 18 more queries fixed in advance in rank order, and text generation and
  sampling numerics): both halves scored once on c21c239, after heldout21-201 were read: 8/12 right (67 %), 0 partly, 4
  unrecognised, 8/11 rejects (3 false); the rank-order half 3/5 (1 false in 3), the theme half 5/7 (2 false in 8). None
  were dropped. Read for the rules afterwards: 11/12 and 10/11, with floors. w41814 (Flash Attention 2 'blows up when
  generating', a title alone) stays unrecognised and the false diagnosis stays (NaN probabilities in training that a
  lower learning rate fixed, the user suspecting float16).
- heldout212 (w41900-w41908 and w42000-w42013; 18 more queries fixed in advance in rank order, and CUDA graphs,
  torch.compile's reduce-overhead mode and static shapes): both halves scored once on c21c239, after heldout21-201 were
  read: 4/10 right (40 %), 0 partly, 6 unrecognised, 10/13 rejects (3 false); the rank-order half 2/4 (1 false in 5),
  the theme half 2/6 (2 false in 8). None were dropped. Read for the rules afterwards: 10/10 and 13/13, with floors.
  w42010's message is a reject in w10818 (a torch.compile'd function first called inside the capture): a kept label
  conflict.
- heldout213 (w42100-w42107 and w42200-w42215; 18 more queries fixed in advance in rank order, and token embeddings,
  vocabulary resizing and tied weights): both halves scored once on c21c239, after heldout21-201 were read: 8/12 right
  (67 %), 2 partly, 2 unrecognised, 12/12 rejects (0 false); the rank-order half 4/4 (0 false in 4), the theme half 4/8
  (0 false in 8). None were dropped. Read for the rules afterwards: 11/12 and 12/12, with floors. w42204 (a bare
  CUBLAS_STATUS_INTERNAL_ERROR) stays unrecognised.
- heldout214 (w42300-w42311 and w42400-w42414; 18 more queries fixed in advance in rank order, and gradient
  checkpointing and activation offloading under mixed precision): both halves scored once on c21c239, after
  heldout21-201 were read: 5/13 right (38 %), 4 partly, 4 unrecognised, 12/14 rejects (2 false); the rank-order half 3/6
  (0 false in 6), the theme half 2/7 (2 false in 8). None were dropped. Read for the rules afterwards: 13/13 and 13/14,
  with floors. The false diagnosis stays: TransformerEngine's fp8 NaN with recompute from an empty weight cache, a
  library bug the text does not show.
- heldout215 (w42500-w42514 and w42600-w42617; 18 more queries fixed in advance in rank order, and loss functions and
  metrics in low precision): both halves scored once on c21c239, after heldout21-201 were read: 10/19 right (53 %), 4
  partly, 5 unrecognised, 14/14 rejects (0 false); the rank-order half 5/10 (0 false in 5), the theme half 5/9 (0 false
  in 9). None were dropped. Read for the rules afterwards: 18/19 and 14/14, with floors. w42606 (an AUC that differs
  from sklearn's, float16 only in the thread) stays unrecognised.
- heldout216 (w42701-w42709 and w42800-w42814; 18 more queries fixed in advance in rank order, and Apple Silicon and MPS
  training and inference): both halves scored once on c21c239, after heldout21-201 were read: 5/11 right (45 %), 0
  partly, 6 unrecognised, 10/13 rejects (3 false); the rank-order half 0/4 (1 false in 5), the theme half 5/7 (2 false
  in 8). w42700 was dropped (word for word a text already in world.jsonl). Read for the rules afterwards: 11/11 and
  12/13, with floors. The false diagnosis stays: SDXL's black images on MPS from attention slicing beside CPU offload,
  told like an fp16 VAE's.
- heldout217 (w42900-w42911 and w43000-w43013; 18 more queries fixed in advance in rank order, and reward models, value
  heads and RLHF pipelines outside TRL): both halves scored once on c21c239, after heldout21-201 were read: 6/9 right
  (67 %), 0 partly, 3 unrecognised, 16/16 rejects (0 false); the rank-order half 2/4 (0 false in 7), the theme half 4/5
  (0 false in 9). w42902 was dropped (word for word a text already in world.jsonl). Read for the rules afterwards: 9/9
  and 16/16, with floors.
- heldout218 (w43100-w43109 and w43200-w43217; 18 more queries fixed in advance in rank order, and QLoRA and
  bitsandbytes 4-bit / 8-bit training): both halves scored once on ae09b58, after heldout21-217 were read: 8/14 right
  (57 %), 0 partly, 6 unrecognised, 9/13 rejects (4 false); the rank-order half 5/6 (1 false in 4), the theme half 3/8
  (3 false in 9). w43214 was dropped (word for word a text already in world.jsonl). w43107's group was renamed (it
  shared one with the fault w43106). Read for the rules afterwards: 14/14 and 12/13, with floors. The false diagnosis
  stays: accelerate's refusal to train an 8-bit model on multiple devices, which a newer accelerate lifted (the answer
  explains the refusal).
- heldout219 (w43300-w43310 and w43400-w43413; 18 more queries fixed in advance in rank order, and the Hugging Face
  Trainer's and accelerate's mixed-precision settings): both halves scored once on ae09b58, after heldout21-217 were
  read: 7/13 right (54 %), 1 partly, 5 unrecognised, 11/12 rejects (1 false); the rank-order half 4/8 (1 false in 3),
  the theme half 3/5 (0 false in 9). None were dropped. Read for the rules afterwards: 12/13 and 11/12, with floors.
  w43301 (tinygrad's TF32 tolerance failure, no dtype in the text) stays unrecognised and the false diagnosis stays
  (BART's NaN loss under amp from a wrong decoder start token).
- heldout220 (w43500-w43503 and w43600-w43609; 18 more queries fixed in advance in rank order, and PEFT methods beyond
  plain LoRA and their dtypes): both halves scored once on ae09b58, after heldout21-217 were read: 6/7 right (86 %), 0
  partly, 1 unrecognised, 7/7 rejects (0 false); the rank-order half 2/2 (0 false in 2), the theme half 4/5 (0 false in
  5). None were dropped. Read for the rules afterwards: 6/7 and 7/7, with floors. The rank-order half found 4 texts
  (most queries matched other projects named like the methods, or excluded threads); w43601 (a loss of 0 after a PEFT
  upgrade, fp16 only in the thread) stays unrecognised.
- heldout221 (w43700-w43716 and w43800-w43820; 18 more queries fixed in advance in rank order, and recurrent networks
  and packed sequences): both halves scored once on bb30633, after heldout21-220 were read: 9/18 right (50 %), 5 partly,
  4 unrecognised, 18/20 rejects (2 false); the rank-order half 4/8 (1 false in 9), the theme half 5/10 (1 false in 11).
  None were dropped. Read for the rules afterwards: 18/18 and 19/20, with floors. w43819 (an Embedding input layer
  given acoustic features, labelled a config misuse) keeps the cast-to-Long story its message tells.
- heldout222 (w43900-w43921 and w44000-w44019; 18 more queries fixed in advance in rank order, and index and integer
  tensors): both halves scored once on bb30633, after heldout21-220 were read: 13/20 right (65 %), 2 partly, 5
  unrecognised, 20/21 rejects (1 false); the rank-order half 6/11 (0 false in 11), the theme half 7/9 (1 false in 10).
  w44001 was dropped (word for word a text already in world.jsonl). Read for the rules afterwards: 20/20 and 21/21, with
  floors.
- heldout223 (w44100-w44107 and w44200-w44217; 18 more queries fixed in advance in rank order, and CPU kernels without
  half-precision support): both halves scored once on bb30633, after heldout21-220 were read: 8/14 right (57 %), 0
  partly, 6 unrecognised, 12/12 rejects (0 false); the rank-order half 2/5 (0 false in 3), the theme half 6/9 (0 false
  in 9). None were dropped. Read for the rules afterwards: 14/14 and 12/12, with floors.
- heldout224 (w44300-w44316 and w44400-w44417; 18 more queries fixed in advance in rank order, and loading checkpoints
  across devices and dtypes): both halves scored once on bb30633, after heldout21-220 were read: 11/19 right (58 %), 2
  partly, 6 unrecognised, 16/16 rejects (0 false); the rank-order half 3/9 (0 false in 8), the theme half 8/10 (0 false
  in 8). None were dropped. Read for the rules afterwards: 19/19 and 16/16, with floors.
- heldout225 (w44500-w44513 and w44600-w44612; 18 more queries fixed in advance in rank order, and DeepSpeed ZeRO and
  its precision settings): both halves scored once on bb30633, after heldout21-220 were read: 8/13 right (62 %), 2
  partly, 3 unrecognised, 13/13 rejects (0 false); the rank-order half 4/7 (0 false in 7), the theme half 4/6 (0 false
  in 6). w44609 was dropped (word for word a text already in world.jsonl). Read for the rules afterwards: 13/13 and
  13/13, with floors.
- heldout226 (w44700-w44708 and w44800-w44814; 18 more queries fixed in advance in rank order, and FSDP and FSDP2 mixed
  precision): both halves scored once on bb30633, after heldout21-220 were read: 6/13 right (46 %), 2 partly, 5
  unrecognised, 11/11 rejects (0 false); the rank-order half 3/5 (0 false in 4), the theme half 3/8 (0 false in 7). None
  were dropped. Read for the rules afterwards: 13/13 and 11/11, with floors.
- heldout227 (w44900-w44911 and w45000-w45014; 18 more queries fixed in advance in rank order, and vLLM and its dtype,
  quantization and device settings): both halves scored once on bb30633, after heldout21-220 were read: 9/15 right
  (60 %), 1 partly, 5 unrecognised, 11/12 rejects (1 false); the rank-order half 5/6 (0 false in 6), the theme half 4/9
  (1 false in 6). None were dropped. Read for the rules afterwards: 15/15 and 12/12, with floors.
- heldout228 (w45100-w45117 and w45200-w45217; 18 more queries fixed in advance in rank order, and ONNX export and ONNX
  Runtime / TensorRT in fp16): both halves scored once on bb30633, after heldout21-220 were read: 10/17 right (59 %), 3
  partly, 4 unrecognised, 18/19 rejects (1 false); the rank-order half 4/8 (0 false in 10), the theme half 6/9 (1 false
  in 9). None were dropped. Read for the rules afterwards: 17/17 and 19/19, with floors.
- heldout229 (w45300-w45308 and w45400-w45420; 18 more queries fixed in advance in rank order, and diffusers pipelines
  and their dtypes): both halves scored once on bb30633, after heldout21-220 were read: 11/16 right (69 %), 5 partly, 0
  unrecognised, 11/14 rejects (3 false); the rank-order half 4/6 (0 false in 3), the theme half 7/10 (3 false in 11).
  None were dropped. w45305's group was renamed (it shared one with a reject already in world.jsonl). Read for the rules
  afterwards: 13/16 and 13/14, with floors. Three bare messages (w45302, w45400, w45403) stay partly right: the
  component behind them (a text encoder, an offloaded ControlNet, a VAE) is in the thread, not the text; w45416 (a
  Mac without bitsandbytes, labelled an install problem) keeps the bitsandbytes-needs-a-GPU story.
- heldout230 (w45500-w45513 and w45600-w45615; 18 more queries fixed in advance in rank order, and Unsloth): both halves
  scored once on bb30633, after heldout21-220 were read: 9/11 right (82 %), 1 partly, 1 unrecognised, 18/19 rejects (1
  false); the rank-order half 4/5 (0 false in 9), the theme half 5/6 (1 false in 10). None were dropped. w45510's group
  was renamed (it shared one with a reject already in world.jsonl). Read for the rules afterwards: 11/11 and 18/19, with
  floors. w45611 (code hard-coding "cuda" on an Ascend NPU build, labelled a build problem) keeps the NPU story.
- heldout231 (w45700-w45710 and w45800-w45809; 18 more queries fixed in advance in rank order, and fine-tuning
  frameworks driven by config files and their precision keys): both halves scored once on bb30633, after heldout21-220
  were read: 5/7 right (71 %), 0 partly, 2 unrecognised, 12/13 rejects (1 false); the rank-order half 2/3 (0 false in
  8), the theme half 3/4 (1 false in 5). w45804 was dropped (word for word a text already in world.jsonl). Read for the
  rules afterwards: 5/7 and 13/13, with floors. w45704 (a Spyre compiler crash on fp32 pointwise ops) and w45806
  (garbled web-chat output told without a dtype) stay unrecognised.
- heldout232 (w45900-w45910 and w46000-w46006; 18 more queries fixed in advance in rank order, and torchao and float8 /
  int8 training and inference): both halves scored once on e1fce06, after heldout21-231 were read: 3/7 right (43 %), 0
  partly, 4 unrecognised, 10/11 rejects (1 false); the rank-order half 1/4 (1 false in 7), the theme half 2/3 (0 false
  in 4). None were dropped. Read for the rules afterwards: 7/7 and 11/11, with floors.
- heldout233 (w46100-w46112 and w46200-w46210; 18 more queries fixed in advance in rank order, and tensor parallelism
  and DTensor): both halves scored once on e1fce06, after heldout21-231 were read: 5/9 right (56 %), 1 partly, 3
  unrecognised, 14/15 rejects (1 false); the rank-order half 3/5 (0 false in 8), the theme half 2/4 (1 false in 7). None
  were dropped. w46209's group was renamed (a group shared with texts of the other kind). Read for the rules afterwards:
  8/9 and 15/15, with floors. w46103 (fp16 tensor-core kernels a tuner picks on Blackwell) stays partly right: the
  kernel choice is in the thread, not the text.
- heldout234 (w46300-w46315 and w46400-w46414; 18 more queries fixed in advance in rank order, and DataLoader workers,
  multiprocessing and CUDA): both halves scored once on e1fce06, after heldout21-231 were read: 7/15 right (47 %), 2
  partly, 6 unrecognised, 14/16 rejects (2 false); the rank-order half 4/8 (1 false in 8), the theme half 3/7 (1 false
  in 8). None were dropped. Read for the rules afterwards: 15/15 and 14/16, with floors. w46301 and w46410 (CUDA
  initialised before the DataLoader forked its workers, labelled environment problems) keep the forked-worker story
  that earlier collections label a fault: a label conflict.
- heldout235 (w46500-w46511 and w46600-w46610; 18 more queries fixed in advance in rank order, and results that differ
  between fp32 and fp16 / bf16): both halves scored once on e1fce06, after heldout21-231 were read: 0/16 right (0 %), 2
  partly, 14 unrecognised, 7/7 rejects (0 false); the rank-order half 0/10 (0 false in 2), the theme half 0/6 (0 false
  in 5). None were dropped. Read for the rules afterwards: 12/16 and 7/7, with floors. Four stay short: a bf16 exp
  (w46504) and a SYCL division (w46511) are partly right, an MNN host-pointer read of fp16 data (w46506) and a ROCm
  CTC gradient tolerance told without its dtype (w46609) unrecognised.
- heldout236 (w46700-w46711 and w46800-w46815; 18 more queries fixed in advance in rank order, and AMP API warnings and
  deprecations): both halves scored once on e1fce06, after heldout21-231 were read: 8/13 right (62 %), 1 partly, 4
  unrecognised, 10/15 rejects (5 false); the rank-order half 4/6 (3 false in 6), the theme half 4/7 (2 false in 9). None
  were dropped. w46703 and w46711 and w46800 and w46801' groups were renamed (a group shared with texts of the other
  kind). Read for the rules afterwards: 12/13 and 15/15, with floors. The scheduler-order warning (w46807) told
  without mixed precision in the text stays unrecognised: out of AMP it is the calls' own order.
- heldout237 (w46900-w46909 and w47000-w47018; 18 more queries fixed in advance in rank order, and custom autograd
  Functions and functorch under mixed precision): both halves scored once on e1fce06, after heldout21-231 were read:
  9/15 right (60 %), 2 partly, 4 unrecognised, 14/14 rejects (0 false); the rank-order half 3/6 (0 false in 4), the
  theme half 6/9 (0 false in 10). None were dropped. Read for the rules afterwards: 14/15 and 14/14, with floors.
  w46907 (setting a half tensor's .grad in torch 0.4) stays unrecognised: an earlier collection labels the same
  message a reject.
- heldout238 (w47100-w47115 and w47200-w47217; 18 more queries fixed in advance in rank order, and sparse tensors and
  scatter / segment libraries): both halves scored once on e1fce06, after heldout21-231 were read: 8/18 right (44 %), 4
  partly, 6 unrecognised, 16/16 rejects (0 false); the rank-order half 3/9 (0 false in 7), the theme half 5/9 (0 false
  in 9). None were dropped. w47108 and w47113 and w47204' groups were renamed (a group shared with texts of the other
  kind). Read for the rules afterwards: 15/18 and 16/16, with floors. Sparse tensors on MPS (w47107) keep the
  advice for a layout MPS lacks (earlier collections label it a reject), w47113 (a torch bug that put sparse
  indices on the current GPU) stays unrecognised, and CUDA.jl's Float16 sparse product (w47114) partly right.
- heldout239 (w47300-w47304; one collector's 18 more queries fixed in advance in rank order, about dtype bugs inside
  transformers' model files): the one half scored once on 3afc024, after heldout21-238 were read: 1/2 right (50 %), 1
  partly, 0 unrecognised, 3/3 rejects (0 false). None were dropped. Read for the rules afterwards: 2/2 and 3/3, with
  floors. One half only, and 5 texts: the session's search budget ran out; it measures this stop's rules on texts
  nobody had read, not much more.
- heldout240 (w47500-w47517 and w47600-w47609; 18 more queries fixed in advance in rank order, and loss functions and
  metrics and their input dtypes): both halves scored once on 78d15d9, after heldout221-239 were read: 9/14 right (64
  %), 1 partly, 4 unrecognised, 14/14 rejects (0 false); the rank-order half 6/8 (0 false in 10), the theme half 3/6 (0
  false in 4). 2 were dropped (threads already in the corpus or in the other half). Read for the rules afterwards: 14/14
  and 14/14, with floors. Queries of the rank-order half were fixed by its collector before the first search.
- heldout241 (w47700-w47722 and w47800-w47835; 18 more queries fixed in advance in rank order, and integer and bool
  tensors meeting float ops): both halves scored once on 78d15d9, after heldout221-239 were read: 23/32 right (72 %), 2
  partly, 7 unrecognised, 24/27 rejects (3 false); the rank-order half 9/13 (3 false in 10), the theme half 14/19 (0
  false in 17). 7 were dropped (threads already in the corpus or in the other half). Read for the rules afterwards:
  32/32 and 27/27, with floors. Queries of the rank-order half were fixed by its collector before the first search.
- heldout242 (w47900-w47915 and w48000-w48018; 18 more queries fixed in advance in rank order, and normalization layers
  in mixed precision): both halves scored once on 78d15d9, after heldout221-239 were read: 10/21 right (48 %), 8 partly,
  3 unrecognised, 12/14 rejects (2 false); the rank-order half 5/11 (0 false in 5), the theme half 5/10 (2 false in 9).
  3 were dropped (threads already in the corpus or in the other half). 1 group(s) renamed (a group shared with texts of
  the other kind). Read for the rules afterwards: 19/21 and 14/14, with floors. Queries of the rank-order half were
  fixed by its collector before the first search.
- heldout243 (w48100-w48109 and w48200-w48212; 18 more queries fixed in advance in rank order, and image and geometry
  ops in half / bf16): both halves scored once on 78d15d9, after heldout221-239 were read: 4/10 right (40 %), 4 partly,
  2 unrecognised, 12/13 rejects (1 false); the rank-order half 3/6 (1 false in 4), the theme half 1/4 (0 false in 9). 4
  were dropped (threads already in the corpus or in the other half). Read for the rules afterwards: 10/10 and 13/13,
  with floors. Queries of the rank-order half were fixed by its collector before the first search.
- heldout244 (w48300-w48346 and w48400-w48412; 18 more queries fixed in advance in rank order, and converting tensors
  out of torch and into other libraries): both halves scored once on 78d15d9, after heldout221-239 were read: 20/29
  right (69 %), 1 partly, 8 unrecognised, 31/31 rejects (0 false); the rank-order half 15/23 (0 false in 24), the theme
  half 5/6 (0 false in 7). 2 were dropped (threads already in the corpus or in the other half). Read for the rules
  afterwards: 27/29 and 31/31, with floors. Queries of the rank-order half were fixed by its collector before the first
  search.
- heldout245 (w48500-w48521 and w48600-w48629; 18 more queries fixed in advance in rank order, and attention masks and
  their dtypes): both halves scored once on 78d15d9, after heldout221-239 were read: 17/26 right (65 %), 4 partly, 5
  unrecognised, 23/26 rejects (3 false); the rank-order half 9/11 (3 false in 11), the theme half 8/15 (0 false in 15).
  None were dropped. 1 group(s) renamed (a group shared with texts of the other kind). Read for the rules afterwards:
  24/26 and 26/26, with floors. Queries of the rank-order half were fixed by its collector before the first search.
- heldout246 (w48700-w48715 and w48800-w48812; 18 more queries fixed in advance in rank order, and GradScaler usage
  patterns): both halves scored once on 78d15d9, after heldout221-239 were read: 7/15 right (47 %), 3 partly, 5
  unrecognised, 13/14 rejects (1 false); the rank-order half 5/8 (0 false in 8), the theme half 2/7 (1 false in 6). 1
  were dropped (threads already in the corpus or in the other half). 2 group(s) renamed (a group shared with texts of
  the other kind). Read for the rules afterwards: 13/15 and 14/14, with floors. Queries of the rank-order half were
  fixed by its collector before the first search.
- heldout247 (w48900-w48906 and w49000-w49003; 18 more queries fixed in advance in rank order, and choosing a model's
  dtype at load time): both halves scored once on 78d15d9, after heldout221-239 were read: 2/6 right (33 %), 4 partly, 0
  unrecognised, 5/5 rejects (0 false); the rank-order half 1/5 (0 false in 2), the theme half 1/1 (0 false in 3). 3 were
  dropped (threads already in the corpus or in the other half). Read for the rules afterwards: 5/6 and 5/5, with floors.
  Queries of the rank-order half were fixed by its collector before the first search.
- heldout248 (w49100-w49116 and w49200-w49210; 18 more queries fixed in advance in rank order, and PEFT adapters' dtypes
  when saving, loading and merging): both halves scored once on 78d15d9, after heldout221-239 were read: 7/16 right (44
  %), 4 partly, 5 unrecognised, 12/12 rejects (0 false); the rank-order half 4/10 (0 false in 7), the theme half 3/6 (0
  false in 5). 2 were dropped (threads already in the corpus or in the other half). Read for the rules afterwards: 13/16
  and 12/12, with floors. Queries of the rank-order half were fixed by its collector before the first search.
- heldout249 (w49300-w49309 and w49400-w49408; 18 more queries fixed in advance in rank order, and evaluation and
  prediction loops under mixed precision): both halves scored once on 78d15d9, after heldout221-239 were read: 3/8 right
  (38 %), 3 partly, 2 unrecognised, 9/11 rejects (2 false); the rank-order half 2/5 (2 false in 5), the theme half 1/3
  (0 false in 6). 4 were dropped (threads already in the corpus or in the other half). Read for the rules afterwards:
  7/8 and 9/11, with floors. Queries of the rank-order half were fixed by its collector before the first search.
- heldout250 (w49500-w49509 and w49600-w49604; 18 more queries fixed in advance in rank order, and course and book code
  hitting dtype and device errors): both halves scored once on 78d15d9, after heldout221-239 were read: 7/9 right (78
  %), 2 partly, 0 unrecognised, 5/6 rejects (1 false); the rank-order half 4/6 (1 false in 4), the theme half 3/3 (0
  false in 2). 4 were dropped (threads already in the corpus or in the other half). Read for the rules afterwards: 7/9
  and 5/6, with floors. Queries of the rank-order half were fixed by its collector before the first search.
- heldout251 (w49700-w49711 and w49800-w49813; 18 more queries fixed in advance in rank order, and device placement in
  transformers pipelines and generate): both halves scored once on 78d15d9, after heldout221-239 were read: 9/12 right
  (75 %), 2 partly, 1 unrecognised, 13/14 rejects (1 false); the rank-order half 3/4 (1 false in 8), the theme half 6/8
  (0 false in 6). 4 were dropped (threads already in the corpus or in the other half). Read for the rules afterwards:
  12/12 and 13/14, with floors. Queries of the rank-order half were fixed by its collector before the first search.
- heldout252 (w49900-w49918 and w50000-w50012; 18 more queries fixed in advance in rank order, and labels and
  problem_type in transformers heads and classification code): both halves scored once on 78d15d9, after heldout221-239
  were read: 8/15 right (53 %), 6 partly, 1 unrecognised, 17/17 rejects (0 false); the rank-order half 5/9 (0 false in
  10), the theme half 3/6 (0 false in 7). 9 were dropped (threads already in the corpus or in the other half). Read for
  the rules afterwards: 15/15 and 17/17, with floors. Queries of the rank-order half were fixed by its collector before
  the first search.
- heldout253 (w50100-w50115 and w50200-w50215; 18 more queries fixed in advance in rank order, and token-id arrays,
  memmaps and unsigned integer dtypes): both halves scored once on 78d15d9, after heldout221-239 were read: 7/14 right
  (50 %), 0 partly, 7 unrecognised, 17/18 rejects (1 false); the rank-order half 5/6 (0 false in 10), the theme half 2/8
  (1 false in 8). 4 were dropped (threads already in the corpus or in the other half). Read for the rules afterwards:
  13/14 and 17/18, with floors. Queries of the rank-order half were fixed by its collector before the first search.
- heldout254 (w50300-w50314 and w50400-w50406; 18 more queries fixed in advance in rank order, and LangChain,
  LlamaIndex, Haystack, smolagents and other wrappers around local Hugging Face models): both halves scored once on
  96fd09e, after heldout221-247 were read: 6/11 right (55 %), 1 partly, 4 unrecognised, 11/11 rejects (0 false); the
  rank-order half 5/8 (0 false in 7), the theme half 1/3 (0 false in 4). 2 were dropped (threads already in the corpus
  or in the other half). Read for the rules afterwards: 11/11 and 11/11, with floors. Queries of the rank-order half
  were fixed by its collector before the first search; a cap of 22 calls.
- heldout255 (w50500-w50513 and w50600-w50608; 18 more queries fixed in advance in rank order, and random number
  generators and sampling on devices): both halves scored once on 96fd09e, after heldout221-247 were read: 7/13 right
  (54 %), 3 partly, 3 unrecognised, 6/10 rejects (4 false); the rank-order half 4/10 (3 false in 4), the theme half 3/3
  (1 false in 6). 6 were dropped (threads already in the corpus or in the other half). Read for the rules afterwards:
  13/13 and 9/10, with floors. Queries of the rank-order half were fixed by its collector before the first search; a cap
  of 22 calls.
- heldout256 (w50700-w50720 and w50800-w50812; 18 more queries fixed in advance in rank order, and float64 / double
  tensors meeting float32 models): both halves scored once on 8916385, after heldout240-255 were read: 13/16 right (81
  %), 1 partly, 2 unrecognised, 18/18 rejects (0 false); the rank-order half 7/7 (0 false in 14), the theme half 6/9 (0
  false in 4). 4 were dropped (threads already in the corpus or in the other half). Read for the rules afterwards: 16/16
  and 18/18, with floors. Queries of the rank-order half were fixed by its collector before the first search; a cap of
  27 calls.
- heldout257 (w50900-w50916 and w51000-w51017; 18 more queries fixed in advance in rank order, and moving whole batches
  and model inputs with .to(device, dtype)): both halves scored once on 8916385, after heldout240-255 were read: 12/20
  right (60 %), 3 partly, 5 unrecognised, 14/15 rejects (1 false); the rank-order half 6/9 (1 false in 8), the theme
  half 6/11 (0 false in 7). 0 were dropped (threads already in the corpus or in the other half). Read for the rules
  afterwards: 20/20 and 14/15, with floors. Queries of the rank-order half were fixed by its collector before the first
  search; a cap of 27 calls.
- heldout258 (w51100-w51116 and w51200-w51221; 18 more queries fixed in advance in rank order, and tensors held as plain
  Python attributes, lists or dicts that model.to() / .half() / .cuda() does not move or cast): both halves scored once
  on 8916385, after heldout240-255 were read: 15/22 right (68 %), 2 partly, 5 unrecognised, 17/17 rejects (0 false); the
  rank-order half 6/8 (0 false in 9), the theme half 9/14 (0 false in 8). 3 were dropped (threads already in the corpus
  or in the other half). Read for the rules afterwards: 22/22 and 17/17, with floors. Queries of the rank-order half
  were fixed by its collector before the first search; a cap of 27 calls.
- heldout259 (w51300-w51341 and w51400-w51417; 18 more queries fixed in advance in rank order, and nn.DataParallel and
  manual model parallelism across several GPUs): both halves scored once on 8916385, after heldout240-255 were read:
  25/27 right (93 %), 1 partly, 1 unrecognised, 33/33 rejects (0 false); the rank-order half 18/19 (0 false in 23), the
  theme half 7/8 (0 false in 10). 11 were dropped (threads already in the corpus or in the other half). Read for the
  rules afterwards: 27/27 and 33/33, with floors. Queries of the rank-order half were fixed by its collector before the
  first search; a cap of 27 calls.
- heldout260 (w51500-w51507 and w51600-w51607; 18 more queries fixed in advance in rank order, and bf16 on GPUs without
  native support and fp16 fallbacks): both halves scored once on 8916385, after heldout240-255 were read: 5/6 right (83
  %), 0 partly, 1 unrecognised, 9/10 rejects (1 false); the rank-order half 2/3 (0 false in 5), the theme half 3/3 (1
  false in 5). 2 were dropped (threads already in the corpus or in the other half). Read for the rules afterwards: 5/6
  and 10/10, with floors. Queries of the rank-order half were fixed by its collector before the first search; a cap of
  27 calls.
- heldout261 (w51700-w51743 and w51800-w51819; 18 more queries fixed in advance in rank order, and TF32 and float32
  matmul precision settings): both halves scored once on 8916385, after heldout240-255 were read: 19/46 right (41 %), 4
  partly, 23 unrecognised, 13/18 rejects (5 false); the rank-order half 15/32 (3 false in 12), the theme half 4/14 (2
  false in 6). 9 were dropped (threads already in the corpus or in the other half). Read for the rules afterwards: 35/46
  and 15/18, with floors. Queries of the rank-order half were fixed by its collector before the first search; a cap of
  27 calls.
- heldout262 (w51900-w51935 and w52000-w52026; 18 more queries fixed in advance in rank order, and rotary and positional
  embeddings in low precision): both halves scored once on 8916385, after heldout240-255 were read: 14/39 right (36 %),
  10 partly, 15 unrecognised, 23/24 rejects (1 false); the rank-order half 9/23 (1 false in 13), the theme half 5/16 (0
  false in 11). 13 were dropped (threads already in the corpus or in the other half). Read for the rules afterwards:
  38/39 and 23/24, with floors. Queries of the rank-order half were fixed by its collector before the first search; a
  cap of 27 calls.
- heldout263 (w52100-w52119 and w52200-w52211; 18 more queries fixed in advance in rank order, and KV caches and their
  dtypes and devices in generation): both halves scored once on 8916385, after heldout240-255 were read: 9/17 right (53
  %), 6 partly, 2 unrecognised, 15/15 rejects (0 false); the rank-order half 7/10 (0 false in 10), the theme half 2/7 (0
  false in 5). 2 were dropped (threads already in the corpus or in the other half). Read for the rules afterwards: 17/17
  and 15/15, with floors. Queries of the rank-order half were fixed by its collector before the first search; a cap of
  27 calls.
- heldout264 (w52300-w52314 and w52400-w52409; 18 more queries fixed in advance in rank order, and EMA and weight
  averaging copies): both halves scored once on 8916385, after heldout240-255 were read: 8/10 right (80 %), 0 partly, 2
  unrecognised, 15/15 rejects (0 false); the rank-order half 6/6 (0 false in 9), the theme half 2/4 (0 false in 6). 5
  were dropped (threads already in the corpus or in the other half). Read for the rules afterwards: 9/10 and 15/15, with
  floors. Queries of the rank-order half were fixed by its collector before the first search; a cap of 27 calls.
- heldout265 (w52500-w52515 and w52600-w52622; 18 more queries fixed in advance in rank order, and parameter
  initialization in low precision and materializing models): both halves scored once on 8916385, after heldout240-255
  were read: 15/23 right (65 %), 6 partly, 2 unrecognised, 16/16 rejects (0 false); the rank-order half 8/8 (0 false in
  8), the theme half 7/15 (0 false in 8). 3 were dropped (threads already in the corpus or in the other half). Read for
  the rules afterwards: 23/23 and 16/16, with floors. Queries of the rank-order half were fixed by its collector before
  the first search; a cap of 27 calls.
- heldout266 (w52700-w52725 and w52800-w52813; 18 more queries fixed in advance in rank order, and model summary,
  profiling and FLOP-counting tools): both halves scored once on 8916385, after heldout240-255 were read: 14/16 right
  (88 %), 1 partly, 1 unrecognised, 24/24 rejects (0 false); the rank-order half 10/11 (0 false in 15), the theme half
  4/5 (0 false in 9). 1 were dropped (threads already in the corpus or in the other half). Read for the rules
  afterwards: 16/16 and 24/24, with floors. Queries of the rank-order half were fixed by its collector before the first
  search; a cap of 27 calls.
- heldout267 (w52900-w52915 and w53000-w53017; 18 more queries fixed in advance in rank order, and gradient clipping and
  gradient norms): both halves scored once on 8916385, after heldout240-255 were read: 10/16 right (62 %), 1 partly, 5
  unrecognised, 18/18 rejects (0 false); the rank-order half 6/8 (0 false in 8), the theme half 4/8 (0 false in 10). 7
  were dropped (threads already in the corpus or in the other half). Read for the rules afterwards: 15/16 and 18/18,
  with floors. Queries of the rank-order half were fixed by its collector before the first search; a cap of 27 calls.
- heldout268 (w53100-w53144 and w53200-w53226; 18 more queries fixed in advance in rank order, and reductions in low
  precision): both halves scored once on 8916385, after heldout240-255 were read: 22/44 right (50 %), 7 partly, 15
  unrecognised, 24/28 rejects (4 false); the rank-order half 16/31 (1 false in 14), the theme half 6/13 (3 false in 14).
  8 were dropped (threads already in the corpus or in the other half; one of them after the score: the thread of w53006,
  which heldout267 holds). Read for the rules afterwards: 40/44 and 27/28, with floors. Queries of the rank-order half
  were fixed by its collector before the first search; a cap of 27 calls.
- heldout269 (w53300-w53333 and w53400-w53411; 18 more queries fixed in advance in rank order, and PyTorch eager-mode
  and FX quantization): both halves scored once on 8916385, after heldout240-255 were read: 7/24 right (29 %), 1 partly,
  16 unrecognised, 22/22 rejects (0 false); the rank-order half 5/18 (0 false in 16), the theme half 2/6 (0 false in 6).
  8 were dropped (threads already in the corpus or in the other half). Read for the rules afterwards: 20/24 and 22/22,
  with floors. Queries of the rank-order half were fixed by its collector before the first search; a cap of 27 calls.
- heldout270 (w53500-w53517 and w53600-w53619; 18 more queries fixed in advance in rank order, and autocast scope and
  propagation): both halves scored once on 8916385, after heldout240-255 were read: 10/23 right (43 %), 6 partly, 7
  unrecognised, 13/15 rejects (2 false); the rank-order half 6/9 (1 false in 9), the theme half 4/14 (1 false in 6). 4
  were dropped (threads already in the corpus or in the other half). Read for the rules afterwards: 22/23 and 13/15,
  with floors. Queries of the rank-order half were fixed by its collector before the first search; a cap of 27 calls.
- heldout271 (w53700-w53711 and w53800-w53807; 18 more queries fixed in advance in rank order, and CPU autocast and bf16
  on CPUs): both halves scored once on 8916385, after heldout240-255 were read: 7/12 right (58 %), 3 partly, 2
  unrecognised, 7/8 rejects (1 false); the rank-order half 4/7 (0 false in 5), the theme half 3/5 (1 false in 3). 4 were
  dropped (threads already in the corpus or in the other half). Read for the rules afterwards: 11/12 and 7/8, with
  floors. Queries of the rank-order half were fixed by its collector before the first search; a cap of 27 calls.
- heldout272 (w53900-w53913 and w54000-w54020; 18 more queries fixed in advance in rank order, and models assembled from
  parts in different dtypes or devices): both halves scored once on d8d8e50, after heldout240-271 were read: 16/22 right
  (73 %), 3 partly, 3 unrecognised, 12/13 rejects (1 false); the rank-order half 9/10 (0 false in 4), the theme half
  7/12 (1 false in 9). 0 were dropped (threads already in the corpus or in the other half). Read for the rules
  afterwards: 18/22 and 12/13, with floors. Queries of the rank-order half were fixed by its collector before the first
  search; a cap of 25 calls.
- heldout273 (w54100-w54117 and w54200-w54223; 18 more queries fixed in advance in rank order, and module hooks, forward
  / backward hooks and monkey-patches that change a tensor's dtype or device): both halves scored once on d8d8e50, after
  heldout240-271 were read: 13/24 right (54 %), 3 partly, 8 unrecognised, 18/18 rejects (0 false); the rank-order half
  8/9 (0 false in 9), the theme half 5/15 (0 false in 9). 1 were dropped (threads already in the corpus or in the other
  half). Read for the rules afterwards: 22/24 and 18/18, with floors. Queries of the rank-order half were fixed by its
  collector before the first search; a cap of 25 calls.
"""
from __future__ import annotations

import pytest

from . import world_corpus as wc

HELDOUT2_RIGHT_MIN = 31    # of 36; measured once (86 %)
# collections read since their one score that keep a floor instead of joining the seen texts: (right of faults,
# false diagnoses at most); a training loss or gradient norm gone NaN with no precision in the text, an op missing
# on MPS, an MPS device that does not exist, fp16 loss scaling that skips a step at a high scale and the AMP API's
# deprecation warning count as unrecognised there, whichever way they were
# labelled (kb.NAN_ADVICE, kb/others.py)
FLOORS = {"heldout8": (41, 1),    # of 45 after its misses were read (28 when scored once)
          "heldout10": (23, 1),   # of 23 after its misses were read (16 when scored once)
          "heldout11": (58, 1),   # of 62 after its misses were read (43 when scored once)
          "heldout12": (50, 1),   # of 52 after its misses were read (31 when scored once)
          "heldout14": (64, 0),   # of 71 after its misses were read (46 when scored once)
          "heldout15": (47, 0),   # of 50 after its misses were read (41 when scored once)
          "heldout16": (51, 1),   # of 52 after its misses were read (37 when scored once)
          "heldout17": (47, 0),   # of 50 after its misses were read (33 when scored once)
          "heldout18": (50, 0),   # of 53 after its misses were read (34 when scored once)
          "heldout19": (49, 1),   # of 50 after its misses were read (36 when scored once)
          "heldout20": (44, 0),   # of 58 after its misses were read (31 when scored once)
          "heldout21": (33, 0),   # of 36 after its misses were read (30 when scored once)
          "heldout22": (52, 3),   # of 57 after its misses were read (36 when scored once)
          "heldout23": (58, 1),   # of 60 after its misses were read (54 when scored once)
          "heldout24": (46, 1),   # of 49 after its misses were read (36 when scored once)
          "heldout25": (55, 0),   # of 56 after its misses were read (43 when scored once)
          "heldout26": (43, 4),   # of 45 after its misses were read (39 when scored once)
          "heldout27": (43, 1),   # of 46 after its misses were read (37 when scored once)
          "heldout28": (47, 1),   # of 48 after its misses were read (40 when scored once)
          "heldout29": (43, 4),   # of 46 after its misses were read (38 when scored once)
          "heldout30": (46, 1),   # of 48 after its misses were read (33 when scored once)
          "heldout31": (42, 1),   # of 50 after its misses were read (33 when scored once)
          "heldout32": (49, 2),   # of 49 after its misses were read (42 when scored once)
          "heldout33": (44, 2),   # of 46 after its misses were read (33 when scored once)
          "heldout34": (51, 0),   # of 52 after its misses were read (37 when scored once)
          "heldout35": (50, 0),   # of 50 after its misses were read (43 when scored once)
          "heldout36": (34, 1),   # of 38 after its misses were read (25 when scored once)
          "heldout37": (54, 3),   # of 55 after its misses were read (42 when scored once)
          "heldout38": (45, 1),   # of 46 after its misses were read (35 when scored once)
          "heldout39": (48, 0),   # of 49 after its misses were read (39 when scored once)
          "heldout40": (52, 1),   # of 53 after its misses were read (34 when scored once)
          "heldout41": (48, 1),   # of 55 after its misses were read (34 when scored once)
          "heldout42": (45, 0),   # of 46 after its misses were read (32 when scored once)
          "heldout43": (45, 0),   # of 45 after its misses were read (41 when scored once)
          "heldout44": (38, 1),   # of 41 after its misses were read (33 when scored once)
          "heldout45": (38, 2),   # of 40 after its misses were read (24 when scored once)
          "heldout46": (47, 1),   # of 50 after its misses were read (38 when scored once)
          "heldout47": (41, 1),   # of 42 after its misses were read (33 when scored once)
          "heldout48": (34, 3),   # of 38 after its misses were read (22 when scored once)
          "heldout49": (38, 0),   # of 40 after its misses were read (32 when scored once)
          "heldout50": (34, 0),   # of 36 after its misses were read (25 when scored once)
          "heldout51": (37, 0),   # of 41 after its misses were read (33 when scored once)
          "heldout52": (27, 2),   # of 31 after its misses were read (22 when scored once)
          "heldout53": (38, 2),   # of 47 after its misses were read (33 when scored once)
          "heldout54": (32, 0),   # of 38 after its misses were read (21 when scored once)
          "heldout55": (37, 1),   # of 42 after its misses were read (34 when scored once)
          "heldout56": (29, 0),   # of 35 after its misses were read (26 when scored once)
          "heldout57": (23, 3),   # of 23 after its misses were read (22 when scored once)
          "heldout58": (36, 4),   # of 37 after its misses were read (22 when scored once)
          "heldout59": (46, 0),   # of 46 after its misses were read (37 when scored once)
          "heldout60": (32, 2),   # of 33 after its misses were read (21 when scored once)
          "heldout61": (29, 3),   # of 31 after its misses were read (20 when scored once)
          "heldout62": (32, 5),   # of 37 after its misses were read (23 when scored once)
          "heldout63": (23, 2),   # of 27 after its misses were read (20 when scored once)
          "heldout64": (32, 0),   # of 35 after its misses were read (30 when scored once)
          "heldout65": (28, 2),   # of 30 after its misses were read (23 when scored once)
          "heldout66": (24, 1),   # of 26 after its misses were read (16 when scored once)
          "heldout67": (29, 3),   # of 29 after its misses were read (27 when scored once)
          "heldout68": (27, 5),   # of 29 after its misses were read (12 when scored once)
          "heldout69": (37, 2),   # of 37 after its misses were read (30 when scored once)
          "heldout70": (33, 0),   # of 34 after its misses were read (26 when scored once)
          "heldout71": (15, 2),   # of 15 after its misses were read (10 when scored once)
          "heldout72": (24, 0),   # of 26 after its misses were read (20 when scored once)
          "heldout73": (25, 1),   # of 26 after its misses were read (20 when scored once)
          "heldout74": (21, 1),   # of 22 after its misses were read (19 when scored once)
          "heldout75": (17, 2),   # of 20 after its misses were read (17 when scored once)
          "heldout76": (17, 0),   # of 17 after its misses were read (16 when scored once)
          "heldout77": (24, 0),   # of 24 after its misses were read (23 when scored once)
          "heldout78": (10, 1),   # of 10 after its misses were read (7 when scored once)
          "heldout79": (25, 2),   # of 26 after its misses were read (21 when scored once)
          "heldout80": (32, 0),   # of 35 after its misses were read (24 when scored once)
          "heldout81": (21, 0),   # of 21 after its misses were read (19 when scored once)
          "heldout82": (13, 2),   # of 13 after its misses were read (12 when scored once)
          "heldout83": (10, 0),   # of 10 after its misses were read (9 when scored once)
          "heldout84": (22, 2),   # of 24 after its misses were read (19 when scored once)
          "heldout85": (5, 0),   # of 5 after its misses were read (5 when scored once)
          "heldout86": (14, 2),   # of 17 after its misses were read (11 when scored once)
          "heldout87": (22, 1),   # of 23 after its misses were read (19 when scored once)
          "heldout88": (16, 1),   # of 19 after its misses were read (11 when scored once)
          "heldout89": (23, 1),   # of 24 after its misses were read (19 when scored once)
          "heldout90": (18, 2),   # of 19 after its misses were read (15 when scored once)
          "heldout91": (27, 2),   # of 30 after its misses were read (22 when scored once)
          "heldout92": (21, 0),   # of 22 after its misses were read (18 when scored once)
          "heldout93": (17, 1),   # of 22 after its misses were read (16 when scored once)
          "heldout94": (27, 1),   # of 27 after its misses were read (26 when scored once)
          "heldout95": (11, 0),   # of 12 after its misses were read (7 when scored once)
          "heldout96": (7, 0),   # of 7 after its misses were read (6 when scored once)
          "heldout97": (17, 2),   # of 18 after its misses were read (15 when scored once)
          "heldout98": (21, 0),   # of 21 after its misses were read (17 when scored once)
          "heldout99": (11, 1),   # of 11 after its misses were read (9 when scored once)
          "heldout100": (19, 0),   # of 20 after its misses were read (17 when scored once)
          "heldout101": (27, 1),   # of 28 after its misses were read (17 when scored once)
          "heldout102": (15, 0),   # of 15 after its misses were read (10 when scored once)
          "heldout103": (23, 1),   # of 23 after its misses were read (20 when scored once)
          "heldout104": (15, 0),   # of 17 after its misses were read (14 when scored once)
          "heldout105": (18, 1),   # of 20 after its misses were read (16 when scored once)
          "heldout106": (24, 1),   # of 24 after its misses were read (18 when scored once)
          "heldout107": (20, 3),   # of 21 after its misses were read (16 when scored once)
          "heldout108": (14, 0),   # of 14 after its misses were read (7 when scored once)
          # w21008 (a reject: NNC's bad dtype, "not a user mismatch") since heldout176's same message was a fault
          "heldout109": (14, 4),   # of 15 after its misses were read (9 when scored once)
          "heldout110": (12, 1),   # of 13 after its misses were read (10 when scored once)
          "heldout111": (17, 0),   # of 17 after its misses were read (15 when scored once)
          "heldout112": (14, 0),   # of 14 after its misses were read (14 when scored once)
          "heldout113": (11, 1),   # of 11 after its misses were read (11 when scored once)
          "heldout114": (16, 0),   # of 17 after its misses were read (9 when scored once)
          "heldout115": (27, 2),   # of 31 after its misses were read (20 when scored once)
          "heldout116": (13, 0),   # of 13 after its misses were read (9 when scored once)
          "heldout117": (9, 2),    # of 10 after its misses were read (6 when scored once)
          "heldout118": (11, 0),   # of 13 after its misses were read (5 when scored once)
          "heldout119": (25, 0),   # of 27 after its misses were read (20 when scored once)
          "heldout120": (22, 0),   # of 23 after its misses were read (16 when scored once)
          "heldout121": (15, 0),   # of 18 after its misses were read (14 when scored once)
          "heldout122": (22, 0),   # of 22 after its misses were read (19 when scored once)
          "heldout123": (15, 1),   # of 17 after its misses were read (9 when scored once)
          "heldout124": (17, 0),   # of 17 after its misses were read (8 when scored once)
          "heldout125": (11, 0),   # of 14 after its misses were read (8 when scored once)
          "heldout126": (21, 3),   # of 24 after its misses were read (8 when scored once); w24822 since heldout161
          "heldout127": (18, 1),   # of 21 after its misses were read (15 when scored once)
          "heldout128": (21, 0),   # of 22 after its misses were read (14 when scored once)
          "heldout129": (9, 1),    # of 11 after its misses were read (5 when scored once)
          "heldout130": (9, 0),    # of 10 after its misses were read (6 when scored once)
          "heldout131": (5, 2),    # of 5 after its misses were read (4 when scored once)
          "heldout132": (9, 0),    # of 10 after its misses were read (6 when scored once)
          "heldout133": (12, 0),   # of 13 after its misses were read (8 when scored once)
          "heldout134": (5, 0),    # of 7 after its misses were read (5 when scored once)
          "heldout135": (10, 0),   # of 10 after its misses were read (9 when scored once)
          "heldout136": (10, 1),   # of 10 after its misses were read (9 when scored once)
          "heldout137": (10, 0),   # of 11 after its misses were read (7 when scored once)
          "heldout138": (12, 2),   # of 14 after its misses were read (7 when scored once)
          "heldout139": (16, 1),   # of 22 after its misses were read (13 when scored once)
          "heldout140": (17, 1),   # of 24 after its misses were read (15 when scored once)
          "heldout141": (16, 1),   # of 19 after its misses were read (12 when scored once)
          "heldout142": (17, 2),   # of 18 after its misses were read (11 when scored once)
          "heldout143": (13, 2),   # of 14 after its misses were read (11 when scored once)
          "heldout144": (8, 0),    # of 11 after its misses were read (6 when scored once)
          "heldout145": (6, 1),    # of 8 after its misses were read (4 when scored once)
          "heldout146": (12, 0),   # of 15 after its misses were read (11 when scored once)
          "heldout147": (17, 4),   # of 19 after its misses were read (13 when scored once)
          "heldout148": (14, 0),   # of 15 after its misses were read (9 when scored once)
          "heldout149": (9, 0),    # of 9 after its misses were read (5 when scored once)
          "heldout150": (10, 0),   # of 10 after its misses were read (7 when scored once)
          "heldout151": (7, 0),    # of 7 after its misses were read (5 when scored once)
          "heldout152": (8, 0),    # of 10 after its misses were read (4 when scored once)
          "heldout153": (5, 0),    # of 5 after its misses were read (4 when scored once)
          "heldout154": (8, 1),    # of 8 after its misses were read (6 when scored once)
          "heldout155": (11, 1),   # of 12 after its misses were read (6 when scored once)
          "heldout156": (12, 0),   # of 12 after its misses were read (7 when scored once)
          "heldout157": (17, 0),   # of 18 after its misses were read (8 when scored once)
          "heldout158": (12, 0),   # of 14 after its misses were read (8 when scored once)
          "heldout159": (8, 1),    # of 8 after its misses were read (7 when scored once)
          "heldout160": (15, 0),   # of 15 after its misses were read (11 when scored once)
          "heldout161": (19, 0),   # of 19 after its misses were read (9 when scored once)
          "heldout162": (23, 0),   # of 23 after its misses were read (12 when scored once)
          "heldout163": (10, 0),   # of 10 after its misses were read (6 when scored once)
          "heldout164": (10, 1),   # of 10 after its misses were read (8 when scored once)
          "heldout165": (12, 1),   # of 13 after its misses were read (6 when scored once)
          "heldout166": (12, 0),   # of 12 after its misses were read (9 when scored once)
          "heldout167": (19, 0),   # of 19 after its misses were read (6 when scored once)
          "heldout168": (9, 0),    # of 9 after its misses were read (2 when scored once)
          "heldout169": (11, 0),   # of 13 after its misses were read (4 when scored once)
          "heldout170": (2, 0),    # of 3 after its misses were read (1 when scored once)
          "heldout171": (11, 0),   # of 11 after its misses were read (8 when scored once)
          "heldout172": (16, 0),   # of 18 after its misses were read (9 when scored once)
          "heldout173": (10, 0),   # of 16 after its misses were read (6 when scored once)
          "heldout174": (9, 1),    # of 9 after its misses were read (6 when scored once)
          "heldout175": (14, 0),   # of 14 after its misses were read (9 when scored once)
          "heldout176": (24, 0),   # of 24 after its misses were read (12 when scored once)
          "heldout177": (14, 0),   # of 14 after its misses were read (6 when scored once)
          "heldout178": (16, 0),   # of 16 after its misses were read (6 when scored once)
          "heldout179": (16, 0),   # of 17 after its misses were read (12 when scored once)
          "heldout180": (17, 0),   # of 18 after its misses were read (8 when scored once)
          "heldout181": (10, 0),   # of 14 after its misses were read (8 when scored once)
          "heldout182": (15, 0),   # of 16 after its misses were read (10 when scored once)
          "heldout183": (17, 0),   # of 17 after its misses were read (11 when scored once)
          "heldout184": (7, 0),    # of 7 after its misses were read (7 when scored once)
          "heldout185": (12, 2),   # of 13 after its misses were read (8 when scored once)
          "heldout186": (13, 1),   # of 14 after its misses were read (10 when scored once)
          "heldout187": (21, 0),   # of 22 after its misses were read (15 when scored once)
          "heldout188": (8, 0),    # of 8 after its misses were read (5 when scored once)
          "heldout189": (18, 0),   # of 19 after its misses were read (14 when scored once)
          "heldout190": (13, 0),   # of 14 after its misses were read (7 when scored once)
          "heldout191": (13, 1),   # of 14 after its misses were read (6 when scored once)
          "heldout192": (18, 0),   # of 20 after its misses were read (7 when scored once)
          "heldout193": (12, 1),   # of 14 after its misses were read (9 when scored once)
          "heldout194": (13, 0),   # of 16 after its misses were read (9 when scored once)
          "heldout195": (16, 0),   # of 16 after its misses were read (11 when scored once)
          "heldout196": (8, 1),    # of 9 after its misses were read (6 when scored once)
          "heldout197": (8, 0),    # of 8 after its misses were read (6 when scored once)
          "heldout198": (15, 1),   # of 15 after its misses were read (5 when scored once)
          "heldout199": (13, 1),   # of 13 after its misses were read (10 when scored once)
          "heldout200": (14, 1),   # of 14 after its misses were read (11 when scored once)
          "heldout201": (15, 0),   # of 17 after its misses were read (12 when scored once)
          "heldout202": (9, 2),    # of 9 after its misses were read (5 when scored once)
          "heldout203": (15, 0),   # of 16 after its misses were read (9 when scored once)
          "heldout204": (15, 1),   # of 16 after its misses were read (10 when scored once)
          "heldout205": (8, 0),    # of 9 after its misses were read (4 when scored once)
          "heldout206": (17, 0),   # of 17 after its misses were read (9 when scored once)
          "heldout207": (20, 0),   # of 20 after its misses were read (8 when scored once)
          "heldout208": (12, 0),   # of 12 after its misses were read (4 when scored once)
          "heldout209": (14, 1),   # of 14 after its misses were read (8 when scored once)
          "heldout210": (9, 1),    # of 9 after its misses were read (5 when scored once)
          "heldout211": (11, 1),   # of 12 after its misses were read (8 when scored once)
          "heldout212": (10, 0),   # of 10 after its misses were read (4 when scored once)
          "heldout213": (11, 0),   # of 12 after its misses were read (8 when scored once)
          "heldout214": (13, 1),   # of 13 after its misses were read (5 when scored once)
          "heldout215": (18, 0),   # of 19 after its misses were read (10 when scored once)
          "heldout216": (11, 1),   # of 11 after its misses were read (5 when scored once)
          "heldout217": (9, 0),    # of 9 after its misses were read (6 when scored once)
          "heldout218": (14, 1),   # of 14 after its misses were read (8 when scored once)
          "heldout219": (12, 1),   # of 13 after its misses were read (7 when scored once)
          "heldout220": (6, 0),    # of 7 after its misses were read (6 when scored once)
          "heldout221": (18, 1),   # of 18 after its misses were read (9 when scored once)
          "heldout222": (20, 0),   # of 20 after its misses were read (13 when scored once)
          "heldout223": (14, 0),   # of 14 after its misses were read (8 when scored once)
          "heldout224": (19, 0),   # of 19 after its misses were read (11 when scored once)
          "heldout225": (13, 0),   # of 13 after its misses were read (8 when scored once)
          "heldout226": (13, 0),   # of 13 after its misses were read (6 when scored once)
          "heldout227": (15, 0),   # of 15 after its misses were read (9 when scored once)
          "heldout228": (17, 0),   # of 17 after its misses were read (10 when scored once)
          "heldout229": (13, 1),   # of 16 after its misses were read (11 when scored once)
          "heldout230": (11, 1),   # of 11 after its misses were read (9 when scored once)
          "heldout231": (5, 0),    # of 7 after its misses were read (5 when scored once)
          "heldout232": (7, 0),    # of 7 after its misses were read (3 when scored once)
          "heldout233": (8, 0),    # of 9 after its misses were read (5 when scored once)
          "heldout234": (15, 2),   # of 15 after its misses were read (7 when scored once)
          "heldout235": (12, 0),   # of 16 after its misses were read (0 when scored once)
          "heldout236": (12, 0),   # of 13 after its misses were read (8 when scored once)
          "heldout237": (14, 0),   # of 15 after its misses were read (9 when scored once)
          "heldout238": (15, 0),   # of 18 after its misses were read (8 when scored once)
          "heldout239": (2, 0),    # of 2 after its misses were read (1 when scored once)
          "heldout240": (14, 0),   # of 14 after its misses were read (9 when scored once)
          "heldout241": (32, 0),   # of 32 after its misses were read (23 when scored once)
          "heldout242": (19, 0),   # of 21 after its misses were read (10 when scored once)
          "heldout243": (10, 0),   # of 10 after its misses were read (4 when scored once)
          "heldout244": (27, 0),   # of 29 after its misses were read (20 when scored once)
          "heldout245": (24, 0),   # of 26 after its misses were read (17 when scored once)
          "heldout246": (13, 0),   # of 15 after its misses were read (7 when scored once)
          "heldout247": (5, 0),    # of 6 after its misses were read (2 when scored once)
          "heldout248": (13, 0),   # of 16 after its misses were read (7 when scored once)
          "heldout249": (7, 2),    # of 8 after its misses were read (3 when scored once)
          "heldout250": (7, 1),    # of 9 after its misses were read (7 when scored once)
          "heldout251": (12, 1),   # of 12 after its misses were read (9 when scored once)
          "heldout252": (15, 0),   # of 15 after its misses were read (8 when scored once)
          "heldout253": (13, 1),   # of 14 after its misses were read (7 when scored once)
          "heldout254": (11, 0),   # of 11 after its misses were read (6 when scored once)
          "heldout255": (13, 1),   # of 13 after its misses were read (7 when scored once)
          "heldout256": (16, 0),     # of 16 after its misses were read (13 when scored once)
          "heldout257": (20, 1),     # of 20 after its misses were read (12 when scored once)
          "heldout258": (22, 0),     # of 22 after its misses were read (15 when scored once)
          "heldout259": (27, 0),     # of 27 after its misses were read (25 when scored once)
          "heldout260": (5, 0),      # of 6 after its misses were read (5 when scored once)
          "heldout261": (35, 3),     # of 46 after its misses were read (19 when scored once)
          "heldout262": (38, 1),     # of 39 after its misses were read (14 when scored once)
          "heldout263": (17, 0),     # of 17 after its misses were read (9 when scored once)
          "heldout264": (9, 0),      # of 10 after its misses were read (8 when scored once)
          "heldout265": (23, 0),     # of 23 after its misses were read (15 when scored once)
          "heldout266": (16, 0),     # of 16 after its misses were read (14 when scored once)
          "heldout267": (15, 0),     # of 16 after its misses were read (10 when scored once)
          "heldout268": (40, 1),     # of 44 after its misses were read (22 when scored once)
          "heldout269": (20, 0),     # of 24 after its misses were read (7 when scored once)
          "heldout270": (22, 2),     # of 23 after its misses were read (10 when scored once)
          "heldout271": (11, 1),     # of 12 after its misses were read (7 when scored once)
          "heldout272": (18, 1),     # of 22 after its misses were read (16 when scored once)
          "heldout273": (22, 0)}     # of 24 after its misses were read (13 when scored once)


@pytest.fixture(scope="module")
def seen():
    return wc.score(wc.load("seen"))


@pytest.fixture(scope="module")
def heldout2():
    return wc.score(wc.load("heldout2"))


# bare training-loss NaN lines labelled faults when the first collection was built: with no precision in the text
# they are left unrecognised, with the advice for a NaN (kb.NAN_ADVICE), like the rejects that read the same
UNRECOGNISED_BY_DESIGN = {"w131", "w132", "w243"}
# PEFT's "Cannot merge LORA layers when the model is loaded in 8-bit mode", labelled a reject here and a fault in four
# later collections (w950, w1945, w3523, w9719): the doctor explains it, so this label reads as a false diagnosis
LABEL_SPLIT_REJECTS = {"w399"}


def test_seen_faults_all_right_and_no_false_diagnosis(seen):
    missed = {x["id"] for x in seen["results"] if x["verdict"] not in ("right", "rejected")}
    assert missed <= UNRECOGNISED_BY_DESIGN | LABEL_SPLIT_REJECTS, _misses(seen)
    assert seen["right"] == seen["faults"] - len(UNRECOGNISED_BY_DESIGN), _misses(seen)
    assert seen["false_diagnoses"] == len(LABEL_SPLIT_REJECTS), _misses(seen)


def test_heldout2_faults_right_and_no_false_diagnosis(heldout2):
    assert heldout2["right"] >= HELDOUT2_RIGHT_MIN, _misses(heldout2)
    assert heldout2["false_diagnoses"] == 0, _misses(heldout2)


@pytest.mark.parametrize("split", sorted(FLOORS))
def test_collections_with_a_floor_keep_it(split):
    right, false = FLOORS[split]
    s = wc.score(wc.load(split))
    assert s["right"] >= right, _misses(s)
    assert s["false_diagnoses"] <= false, _misses(s)


def _misses(s: dict) -> list:
    return [(x["id"], x["verdict"], x["key"], x["missing"]) for x in s["results"]
            if x["verdict"] not in ("right", "rejected")]
