"""The real-world corpus (tests/doctor/corpus/world.jsonl): error texts users pasted into issue threads, forums, Q&A
pages and blogs, scored against `amplora explain`.

A fault is *right* when `explain(text)` recognises it and the explanation (title + cause + fix, lower-cased) holds
at least one phrase of every `must_say` group; *partly* when it is recognised but a group is missing; *wrong* when
it is not recognised. A reject is *correctly rejected* when `explain(text).recognized` is False, a *false diagnosis*
otherwise.

Splits: `dev` and `heldout` are the first collection (w001-w191); `heldout` was scored once and read afterwards, so it
now counts as seen: the rules are written from `seen` = dev + heldout + heldout3-7 + heldout9 + heldout13. `heldout2`
is part of the second collection (w192-w283), fixed by its own hash rule before any rule was changed (the rest of that
collection is `dev`); it was scored once with the final rules and its misses were fixed afterwards, so it counts as
seen too. `heldout3` is the whole third collection (w284-w343), gathered after the rules were written and scored once;
its misses were read for rules, so it counts as seen now. `heldout4` is the whole fourth collection (w344-w410),
gathered while the rules were being changed by someone who never saw it, committed before it was scored, scored once
and read for rules since: seen too. `heldout5` (w411-w599) is the fifth collection, gathered after the rules of its
round by their writer with a search procedure fixed in advance (weaker than an independent collection), committed
before it was scored, scored once and read since: seen too. `heldout6` (w452-w599) is the sixth collection, gathered
by someone who neither saw the rules nor ran the doctor, committed before it was scored, scored once and read since:
seen too. Texts w600-w799 were found while writing rules (dev). `heldout7` (w800 on) is the seventh collection,
gathered like the sixth, committed before it was scored, scored once and read since: seen too. `heldout8` (w900 on),
gathered the same way and scored once, was read since, but keeps its own floor test rather than joining the seen
texts: four of its faults carry no evidence of their cause in the text and one reject reads as a half-precision
report. `heldout9` (w1000 on, two collectors) and `heldout10` (w1200 on) were gathered and scored the same way;
heldout9 has joined the seen texts, heldout10 keeps a floor test (its one false diagnosis is a corrupted checkpoint
behind a real fp16 overflow message), and so do `heldout11` (w1300 on, two collectors: four of its faults name their
cause nowhere in the text) and `heldout12` (w1500 on, two collectors: a Lightning precision value labelled a reject
here and a fault in heldout6, two faults whose cause is not in the text). `heldout13` (w1700 on) has joined the seen
texts; `heldout14` (w1900 on) keeps a floor (seven faults whose cause the text does not show or that another collector
labelled a reject), and so does `heldout15` (w2100 on: one fault whose cause the text does not show, one that needs a
device's compile option), and `heldout16` (w2300 on: one reject whose message another collector labelled a fault, one
fault whose tool the text does not name), and `heldout17` (w2500 on: two faults whose cause the text does not show),
and `heldout18` (w2700 on: a torch too old for float8 that other collectors labelled a reject, a warning labelled a
reject here and a fault beside it, a multi-GPU launch the text does not show), and `heldout19` (w2900 on: two
GradScaler messages labelled rejects here and faults elsewhere, a bias the answer does not name), and `heldout20`
(w3100 on: twelve faults whose app, model file or hardware the text does not show), and `heldout21` (w3300 on: web
pages and the classes forum users hit; three faults whose cause the text does not show, a missing MPS op labelled a
reject here and a fault elsewhere), and `heldout22` (w3500 on: fine-tuning libraries' threads and failures that
surface late; five rejects whose NaN or device error reads like a precision fault, their cause not in the text, and
PEFT's "Cannot merge ... 8-bit mode", labelled both ways by different collectors), and `heldout23` (w3700 on: the
classes named in the doctor issue and 18 more fixed queries; a device error from an empty checkpoint file, and an
answer that does not name a monkey-patch), and `heldout24` (w3900 on: 18 more fixed queries and recent fine-tuning and
serving threads; two rejects labelled faults elsewhere or showing no cause, faults whose app, kernel or patch the text
does not show), and `heldout25` (w4100 on: 18 more fixed queries and threads of the newest models and stacks; one
fault whose text was cut before its exception), and `heldout26` (w4300 on: 18 more fixed queries and resolved threads
labelled by their stated cause; six rejects whose learning rate, nightly build, apex install or library version the
text does not show), and `heldout27` (w4500 on: 18 more fixed queries and torch's own APIs beyond nn layers; two
rejects whose kernel bug the text does not show), and `heldout28` (w4700 on: 18 more fixed queries and small projects'
threads; a fault told only in words, a meta no-op warning one framework expects, a NaN report without precision in the
text), and `heldout29` (w4900 on: 18 more fixed queries and threads from fields beyond language models; a sparse op
missing on MPS labelled both ways, five rejects whose GAN loss, torch version, allocator assert, library bug or resume
bug the text does not show), and `heldout30` (w5100 on: 18 more fixed queries and training frameworks and engines
beyond the Hugging Face libraries; a library's fp16 crash told in words beside an illegal memory access, two rejects
whose model bug or learning rate the text does not show), and `heldout31` (w5300 on: 18 more fixed queries and NaN,
inf and silently wrong numbers labelled by their stated cause; training-loss NaN reports and look-alikes whose cause
the text does not show), and `heldout32` (w5500 on: 18 more fixed queries and hardware beyond NVIDIA datacenter GPUs;
an extension built for another CUDA whose error reads as Long indices), and `heldout33` (w5700 on: 18 more fixed
queries and quantization toolkits; a flashinfer dispatch error and a GPTQ kernel's NaN probabilities whose kernel bugs
the text does not show, quantized models offloaded to the CPU left unrecognised with their own advice), and
`heldout34` (w5900 on: 18 more fixed queries and inference and serving engines and export runtimes; an XNNPACK
operator that a virtual CPU cannot create, told without fp16, and an MNN input buffer relabelled bf16), and
`heldout35` (w6100 on: 18 more fixed queries and multimodal and vision-language models; the AMP API's deprecation
warning, labelled a reject here and a fault in heldout27, left unrecognised with its own advice), and `heldout36`
(w6300 on: 18 more fixed queries and post-training and reinforcement learning; DPO and GRPO runs whose fp16 setting
the text does not show, and integer ids fed to a Linear labelled a reject), and `heldout37` (w6500 on: 18 more fixed
queries and image and video generation; a reject whose Long-index error came from a mismatched extension build, and a
NaN from an Intel GPU driver), and `heldout38` (w6700 on: 18 more fixed queries and speech and audio; a merged LoRA
that answers differently with no dtype in the text, and a complex spectrogram given to a real mel filterbank labelled
a reject), and `heldout39` (w6900 on: 18 more fixed queries and LLM fine-tuning frameworks; an fp16 CPU benchmark and
a LoRA dtype in a serving backend told without an error), and `heldout40` (w7100 on: 18 more fixed queries and
distributed and multi-GPU training; a Paddle kernel's fault told without its dtype story, and an out-of-memory report
that quotes an older dtype error labelled a reject), and `heldout41` (w7300 on: 18 more fixed queries and computer
vision frameworks; DeepSpeed loss-scale skips at a high scale labelled faults, and a torch.compile divergence labelled
a reject), and `heldout42` (w7500 on: 18 more fixed queries and Chinese-language LLM projects; a nested
from_pretrained under transformers' meta context told without its error), and `heldout43` (w7700 on: 18 more fixed
queries and embeddings, retrieval and rerankers; right on all of it after its misses were read), and `heldout44`
(w7900 on: 18 more fixed queries and graphs, recommenders, time series and tabular frameworks; an op missing on MPS
labelled a fault, and bitsandbytes re-quantizing packed weights labelled a reject), `heldout45` (w8100 on: 18 more
fixed queries and local LLM runtimes on consumer GPUs; a flash-attn build for another torch whose dtype check misfires
on bf16 labelled a reject), `heldout46` (w8300 on: 18 more fixed queries and reinforcement learning and robotics;
negative indices behind a float-index message labelled a reject), `heldout47` (w8500 on: 18 more fixed queries and
science, medicine and weather models; a CUDA checkpoint loaded where torch sees no GPU labelled a reject), `heldout48`
(w8700 on: 18 more fixed queries and beginners on Colab, Kaggle, Windows and laptops; fp16 mixed precision refused
where torch sees no GPU labelled a reject), and `heldout49` to `heldout52` (w8900, w9100, w9300 and w9500 on: 18 more
fixed queries each, and 3D vision and neural rendering, LLM applications and evaluation harnesses, courses and
tutorials, pretraining and research codebases), and `heldout53` to `heldout56` (w9700, w9900, w10100 and w10300 on: 18
more fixed queries each, and classic NLP and translation frameworks, edge devices and embedded boards, code models and
agents, tuning and experiment tooling), and `heldout57` to `heldout60` (w10500, w10700, w10900 and w11100 on: 18 more
fixed queries each, and attention kernels and mixture-of-experts, compilers and graph capture, checkpoint conversion
and merging, custom CUDA and C++ extensions), and `heldout61` to `heldout64` (w11300, w11500, w11700 and w11900 on: 18
more fixed queries each, and optimizers and low-precision training utilities, data loading and preprocessing,
offloading and big-model inference, probabilistic and numerical libraries), and `heldout65` to `heldout67` (w12100,
w12300 and w12500 on: 18 more fixed queries each, and text generation internals, parameter-efficient and model-surgery
methods beyond LoRA, hosted platforms and cloud notebooks), and `heldout68` to `heldout70` (w12700, w12900 and w13100
on: 18 more fixed queries each, and Intel and other non-NVIDIA paths, encoder and encoder-decoder transformers, NumPy,
pandas and scikit-learn meeting torch), and `heldout71` and `heldout72` (w13300 and w13500 on: 18 more fixed queries
each, and federated learning and differential privacy, time-series forecasting), and `heldout73` to `heldout76`
(w13700, w13900, w14100 and w14300 on: 18 more fixed queries each, and GANs, VAEs and other classic generative models,
biology and chemistry models, self-supervised and representation learning, autonomous driving and 3D perception), and
`heldout77` to `heldout79` (w14500, w14700 and w14900 on: 18 more fixed queries each, and interpretability and
adversarial robustness, video understanding and tracking, semantic segmentation and remote sensing), and `heldout80`
and `heldout81` (w15100 and w15300 on: 18 more fixed queries each, and spiking, complex-valued and quantum models, OCR
and document AI), and `heldout82` and `heldout83` (w15500 and w15700 on: 18 more fixed queries each, and
meta-learning, continual and few-shot learning, image anomaly detection), and `heldout84` and `heldout85` (w15900 and
w16100 on: 18 more fixed queries each, and image restoration and learned compression, knowledge editing and machine
unlearning), and `heldout86` to `heldout88` (w16300, w16500 and w16700 on: 18 more fixed queries each, and face
swapping and portrait animation, video and 3D generation, model compression), and `heldout89` to `heldout91` (w16900,
w17100 and w17300 on: 18 more fixed queries each, and speech synthesis, diffusion-model trainers, object detection),
and `heldout92` to `heldout94` (w17500, w17700 and w17900 on: 18 more fixed queries each, and diffusion inference
accelerators, music and audio generation, speech recognition), and `heldout95` and `heldout96` (w18100 and w18300 on:
18 more fixed queries each, and LLM serving engines, reinforcement learning for reasoning; few texts), and `heldout97`
to `heldout99` (w18500, w18700 and w18900 on: 18 more fixed queries each, and robot learning, vision-language models,
medical imaging), and `heldout100` to `heldout102` (w19100, w19300 and w19500 on: 18 more fixed queries each, and
speech and omni models, Lightning and torchmetrics, state-space models), and `heldout103` to `heldout105` (w19700,
w19900 and w20100 on: 18 more fixed queries each, and image diffusion transformers, depth estimation, background
removal and image editing), and `heldout106` to `heldout111` (w20300 to w21300 on: 18 more fixed queries each, and
controllable image generation, pretraining and fp8 training stacks, speculative decoding and long context, model
serving, human motion and body models, training wrappers and AutoML), and `heldout112` to `heldout114` (w21500, w21700
and w21900 on: 18 more fixed queries each, and open-vocabulary detection and segmentation, captioning and tagging,
translation and seq2seq serving), and `heldout115` (w22100 on: three small collections, quantized inference libraries,
audio classification and weather models, gathered until the search budget ran out and scored as one), and `heldout116`
to `heldout118` (w22700, w22900 and w23100 on: 18 more fixed queries each, and sparse autoencoders and
interpretability tooling, local feature matching and visual localization, neural codecs and discrete tokenizers), and
`heldout119` to `heldout121` (w23300, w23500 and w23700 on: 18 more fixed queries each, and frame interpolation and
video upscaling, face recognition and person re-identification, world models and video prediction), and `heldout122`
to `heldout124` (w23900, w24100 and w24300 on: 18 more fixed queries each, and board-game engines and game-playing
agents, NLP pipelines and information extraction, differentiable simulation and rendering), and `heldout125` to
`heldout127` (w24500, w24700 and w24900 on: 18 more fixed queries each, and brain and physiological signals, machine
learning in the browser and in mobile apps, scientific imaging and microscopy), and `heldout128` to `heldout130`
(w25100, w25300 and w25500 on: 18 more fixed queries each, and equivariant networks and interatomic potentials,
weather and climate models, unified multimodal generation models), and `heldout131` to `heldout133` (w25700, w25900
and w26100 on: 18 more fixed queries each, and LLM safety classifiers and red-teaming, small language models trained
from scratch, drug discovery and cheminformatics), and `heldout134` to `heldout136` (w26300, w26500 and w26700 on: 18
more fixed queries each, and protein structure prediction and design, genomics and single-cell foundation models,
time-series and tabular foundation models), and `heldout137` and `heldout138` (w26900 and w27100 on: 18 more fixed
queries each, and music and audio generation, robot learning and vision-language-action policies), and
`heldout139` to `heldout255` (w27300, w27500, w27700, w27900, w28100, w28300, w28500, w28700, w28900, w29100, w29300,
w29500, w29700, w29900, w30100, w30300, w30500, w30700, w30900, w31100, w31300, w31500, w31700, w31900, w32100, w32300,
w32500, w32700, w32900, w33100, w33300, w33500, w33700, w33900, w34100, w34300, w34500, w34700, w34900, w35100, w35300,
w35500, w35700, w35900, w36100, w36300, w36500, w36700, w36900, w37100, w37300, w37500, w37700, w37900, w38100, w38300,
w38500, w38700, w38900, w39100, w39300, w39500, w39700, w39900, w40100, w40300, w40500, w40700, w40900, w41100, w41300,
w41500, w41700, w41900, w42100, w42300, w42500, w42700, w42900, w43100, w43300, w43500, w43700, w43900, w44100, w44300,
w44500, w44700, w44900, w45100, w45300, w45500, w45700, w45900, w46100, w46300, w46500, w46700, w46900, w47100, w47300,
w47500, w47700, w47900, w48100, w48300, w48500, w48700, w48900, w49100, w49300, w49500, w49700, w49900, w50100, w50300
and w50500 on: 18 more fixed queries each, `heldout150`, `heldout153` and `heldout154` by theme alone, and speech
language models and text-to-speech, open video generation, OCR and document understanding, text-embedding, retrieval and
reranking models, 3D generation and neural rendering, reinforcement-learning post-training of language models, medical
imaging and clinical foundation models, diffusion fine-tuning and LoRA trainers, graph neural networks, image
classification backbones, JAX, Flax and TensorFlow / Keras code in low precision (in two collections), memory-efficient
fine-tuning and training methods (in two collections), optical flow, point tracking, video object segmentation and
multi-object tracking (in two collections), speech recognition, speech and audio models, point clouds and 3D perception,
local LLM inference runtimes and quantized formats, weather, climate and scientific machine learning, federated learning
and differentially private training, recommendation systems and embedding tables, web and mobile inference runtimes,
classical computer vision and image-processing libraries, time series and forecasting, video understanding, tracking and
video I/O, medical imaging, remote sensing and geospatial deep learning, the JAX ecosystem, physics simulation and
differentiable simulators, quantum machine learning and quantum simulators, spiking neural networks and neural signal
decoding, model interpretability and explainability, GPU dataframes and classical machine learning next to torch,
probabilistic programming, Gaussian processes and Bayesian optimization, promptable and open-vocabulary segmentation and
detection, model serving frameworks, graph compilers and graph capture in low precision, non-NVIDIA accelerators,
deep-learning frameworks other than PyTorch, classic NLP and sequence-to-sequence toolkits, TensorFlow 2 and Keras mixed
precision, audio source separation and speech enhancement, state-space and linear-attention models, data pipelines
feeding torch, human pose estimation and body models, classic reinforcement learning libraries, GAN training and
StyleGAN-family code, FFTs, complex numbers and signal processing, differential privacy, federated learning and
encrypted computation, custom C++ / CUDA extensions, remote sensing, geospatial and raster data, pruning, sparsity and
compression, embedded NPUs and edge accelerators, AMD GPUs and DirectML, physics-informed networks, neural operators and
quantum machine learning, spiking networks and hand-written autograd, video understanding, image restoration and
super-resolution, linear algebra and probability distributions, Keras 3 and its multi-backend code, optimizers and their
state, object detection frameworks, model merging and adapter merging, attention kernels and their dtype / device
requirements, numerical overflow in transformer internals, mixture-of-experts models and kernels, user-written Triton
kernels, torch.distributed collectives and dtypes, checkpoint conversion scripts between formats, LLM evaluation
harnesses, knowledge distillation and teacher / student models in different precisions, text generation and sampling
numerics, CUDA graphs, torch.compile's reduce-overhead mode and static shapes, token embeddings, vocabulary resizing and
tied weights, gradient checkpointing and activation offloading under mixed precision, loss functions and metrics in low
precision, Apple Silicon and MPS training and inference, reward models, value heads and RLHF pipelines outside TRL,
QLoRA and bitsandbytes 4-bit / 8-bit training, the Hugging Face Trainer's and accelerate's mixed-precision settings,
PEFT methods beyond plain LoRA and their dtypes, recurrent networks and packed sequences, index and integer tensors, CPU
kernels without half-precision support, loading checkpoints across devices and dtypes, DeepSpeed ZeRO and its precision
settings, FSDP and FSDP2 mixed precision, vLLM and its dtype, quantization and device settings, ONNX export and ONNX
Runtime / TensorRT in fp16, diffusers pipelines and their dtypes, Unsloth, fine-tuning frameworks driven by config files
and their precision keys, torchao and float8 / int8 training and inference, tensor parallelism and DTensor, DataLoader
workers, multiprocessing and CUDA, results that differ between fp32 and fp16 / bf16, AMP API warnings and deprecations,
custom autograd Functions and functorch under mixed precision, sparse tensors and scatter / segment libraries, dtype
bugs inside transformers' model files, loss functions and metrics and their input dtypes, integer and bool tensors
meeting float ops, normalization layers in mixed precision, image and geometry ops in half / bf16, converting tensors
out of torch and into other libraries, attention masks and their dtypes, GradScaler usage patterns, choosing a model's
dtype at load time, PEFT adapters' dtypes when saving, loading and merging, evaluation and prediction loops under mixed
precision, course and book code hitting dtype and device errors, device placement in transformers pipelines and
generate, labels and problem_type in transformers heads and classification code, token-id arrays, memmaps and unsigned
integer dtypes, LangChain, LlamaIndex, Haystack, smolagents and other wrappers around local Hugging Face models, random
number generators and sampling on devices).

    PYTHONPATH=src python tests/doctor/world_corpus.py             # seen texts (dev, heldout, heldout3-7, 9, 13)
    PYTHONPATH=src python tests/doctor/world_corpus.py -v          # ... and every miss, grouped by message group
    PYTHONPATH=src python tests/doctor/world_corpus.py --split dev # one split: dev, heldout, ..., heldout255 or seen
    PYTHONPATH=src python tests/doctor/world_corpus.py --counts    # corpus make-up per project / backend (no scoring)
    PYTHONPATH=src python tests/doctor/world_corpus.py --heldout3  # the third collection (scored once, see README)
    PYTHONPATH=src python tests/doctor/world_corpus.py --heldout4  # the fourth collection (scored once, read since)
    PYTHONPATH=src python tests/doctor/world_corpus.py --heldout5  # the fifth collection (scored once, read since)
    PYTHONPATH=src python tests/doctor/world_corpus.py --split heldout5 --by-backend   # ... per backend and source kind
"""
from __future__ import annotations

import argparse
import functools
import hashlib
import json
from collections import Counter, defaultdict
from pathlib import Path

CORPUS = Path(__file__).parent / "corpus" / "world.jsonl"

FIELDS = ("id", "split", "kind", "project", "backend", "source", "group", "text", "cause", "must_say")
KINDS = ("fault", "reject")
SPLITS = ("dev", "heldout", "heldout2", "heldout3", "heldout4", "heldout5", "heldout6", "heldout7", "heldout8",
          "heldout9", "heldout10", "heldout11", "heldout12", "heldout13",
          "heldout14", "heldout15", "heldout16", "heldout17", "heldout18", "heldout19", "heldout20",
          "heldout21", "heldout22", "heldout23", "heldout24", "heldout25", "heldout26",
          "heldout27", "heldout28", "heldout29", "heldout30", "heldout31", "heldout32", "heldout33",
          "heldout34", "heldout35", "heldout36", "heldout37", "heldout38", "heldout39", "heldout40",
          "heldout41", "heldout42", "heldout43", "heldout44", "heldout45", "heldout46", "heldout47",
          "heldout48", "heldout49", "heldout50", "heldout51", "heldout52", "heldout53", "heldout54", "heldout55",
          "heldout56", "heldout57", "heldout58", "heldout59", "heldout60", "heldout61", "heldout62",
          "heldout63", "heldout64", "heldout65", "heldout66", "heldout67",
          "heldout68", "heldout69", "heldout70", "heldout71", "heldout72",
          "heldout73", "heldout74", "heldout75", "heldout76",
          "heldout77", "heldout78", "heldout79", "heldout80", "heldout81", "heldout82", "heldout83",
          "heldout84", "heldout85", "heldout86", "heldout87", "heldout88", "heldout89", "heldout90", "heldout91",
          "heldout92", "heldout93", "heldout94", "heldout95", "heldout96", "heldout97", "heldout98",
          "heldout99", "heldout100", "heldout101", "heldout102",
          "heldout103", "heldout104", "heldout105",
          "heldout106", "heldout107", "heldout108", "heldout109", "heldout110", "heldout111",
          "heldout112", "heldout113", "heldout114", "heldout115",
          "heldout116", "heldout117", "heldout118",
          "heldout119", "heldout120", "heldout121",
          "heldout122", "heldout123", "heldout124",
          "heldout125", "heldout126", "heldout127",
          "heldout128", "heldout129", "heldout130",
          "heldout131", "heldout132", "heldout133",
          "heldout134", "heldout135", "heldout136", "heldout137", "heldout138", "heldout139", "heldout140",
          "heldout141", "heldout142", "heldout143", "heldout144", "heldout145", "heldout146", "heldout147",
          "heldout148", "heldout149", "heldout150", "heldout151", "heldout152", "heldout153", "heldout154",
          "heldout155", "heldout156", "heldout157", "heldout158", "heldout159", "heldout160", "heldout161",
          "heldout162", "heldout163", "heldout164", "heldout165", "heldout166", "heldout167", "heldout168",
          "heldout169", "heldout170", "heldout171", "heldout172", "heldout173", "heldout174", "heldout175",
          "heldout176", "heldout177", "heldout178", "heldout179", "heldout180", "heldout181", "heldout182",
          "heldout183", "heldout184", "heldout185", "heldout186", "heldout187", "heldout188", "heldout189",
          "heldout190", "heldout191", "heldout192", "heldout193", "heldout194", "heldout195", "heldout196",
          "heldout197", "heldout198", "heldout199", "heldout200", "heldout201", "heldout202", "heldout203",
          "heldout204", "heldout205", "heldout206", "heldout207", "heldout208", "heldout209", "heldout210",
          "heldout211", "heldout212", "heldout213", "heldout214", "heldout215", "heldout216", "heldout217",
          "heldout218", "heldout219", "heldout220", "heldout221", "heldout222", "heldout223", "heldout224",
          "heldout225", "heldout226", "heldout227", "heldout228", "heldout229", "heldout230", "heldout231",
          "heldout232", "heldout233", "heldout234", "heldout235", "heldout236", "heldout237", "heldout238",
          "heldout239", "heldout240", "heldout241", "heldout242", "heldout243", "heldout244", "heldout245",
          "heldout246", "heldout247", "heldout248", "heldout249", "heldout250", "heldout251", "heldout252",
          "heldout253", "heldout254", "heldout255")
# texts rules may be written from: the first held-out split has been read since it was scored, and so are heldout3
# to heldout7, heldout9 and heldout13 (their misses were read for rules after their one score)
SEEN = ("dev", "heldout", "heldout3", "heldout4", "heldout5", "heldout6", "heldout7", "heldout9", "heldout13")
BACKENDS = ("cuda", "cpu", "mps", "bnb", "awq", "gptq", "onnx", "tensorrt", "xpu", "rocm", "openvino", "coreml", "any")

# The split rule (fixed before any rule was written or any text scored): per kind, message groups are ordered by
# sha256(SALT + ":" + group); groups go to held-out in that order until held-out holds >= HELDOUT_SHARE of that kind's
# texts. Texts of one group (the same key error line) therefore never straddle the split.
SALT = "amplora-world-corpus"
HELDOUT_SHARE = 0.30
# The second collection (ids from w192) has its own rule, fixed before it was scored or any rule changed: the same
# procedure with SALT2 and HELDOUT2_SHARE, groups ordered within that collection only, split "heldout2". A group of
# the second collection may share its name with a first-collection group (a common message seen again).
BATCH2_FROM = 192
SALT2 = "amplora-world-corpus-2"
HELDOUT2_SHARE = 0.55
# The third collection (ids from w284) was gathered after every rule had been written from the first two; all of it is
# held out (split "heldout3"), so there is no hash rule: it was committed before it was scored once.
BATCH3_FROM = 284
# The fourth collection (ids from w344) was gathered while the rules were being changed from heldout3 by someone who
# never saw it; all of it is held out (split "heldout4"), no hash rule: committed before it is scored once.
BATCH4_FROM = 344
# The fifth collection (w411-w451) was gathered by the rules' writer after that round's rules, with search queries
# fixed in advance; all of it is held out (split "heldout5"), committed before it was scored.
BATCH5_FROM = 411
# The sixth collection (w452-w599) was gathered by someone who neither saw the rules nor ran the doctor, while the
# rules were being changed from the fourth; all of it is held out (split "heldout6"), committed before it was scored.
BATCH6_FROM = 452
# w600-w799: texts found while writing rules for a family of faults (split "dev"), never held out.
RULE_TEXTS_FROM = 600
# The seventh (w800-w899) and eighth (w900 on) collections were gathered by someone who neither saw the rules nor ran
# the doctor; all of each is held out (splits "heldout7", "heldout8"), committed before it was scored.
BATCH7_FROM = 800
BATCH8_FROM = 900
# The ninth (w1000-w1199, two collectors) and tenth (w1200 on) collections: the same way (splits "heldout9",
# "heldout10").
BATCH9_FROM = 1000
BATCH10_FROM = 1200
# The eleventh (w1300-w1499) and twelfth (w1500 on) collections, two collectors each, the same way (splits
# "heldout11", "heldout12").
BATCH11_FROM = 1300
BATCH12_FROM = 1500
# The thirteenth (w1700 on, two collectors: one took search results in rank order for 18 queries fixed in advance,
# common messages as often as users meet them; one the long tail), the same way (split "heldout13").
BATCH13_FROM = 1700
# The fourteenth (w1900 on, two collectors: one the diverse way, one 16 fixed queries in rank order), the same way
# (split "heldout14").
BATCH14_FROM = 1900
# The fifteenth (w2100 on, two collectors: one recent fine-tuning and inference threads, half the common messages in
# proportion; one projects outside the LLM libraries), the same way (split "heldout15").
BATCH15_FROM = 2100
# The sixteenth (w2300 on, two collectors: 18 queries fixed in advance in rank order; the long tail), the same way
# (split "heldout16").
BATCH16_FROM = 2300
# The seventeenth (w2500 on, two collectors: 18 other queries fixed in advance in rank order; threads of the Chinese,
# Japanese and Korean ecosystems), the same way (split "heldout17").
BATCH17_FROM = 2500
# The eighteenth (w2700 on, two collectors: 18 more queries fixed in advance in rank order; the newest threads), the
# same way (split "heldout18").
BATCH18_FROM = 2700
# The nineteenth (w2900 on, two collectors: 18 more queries fixed in advance in rank order; libraries a layer away
# from model code), the same way (split "heldout19").
BATCH19_FROM = 2900
# The twentieth (w3100 on, two collectors: 15 queries fixed in advance in rank order; end-user apps and local tools),
# the same way (split "heldout20").
BATCH20_FROM = 3100
# The twenty-first (w3300 on, three collectors: web pages from 18 queries fixed in advance in rank order and by area;
# GitHub threads of the classes forum users hit), the same way (split "heldout21").
BATCH21_FROM = 3300
# The twenty-second (w3500 on, two collectors: fine-tuning libraries' threads from 18 queries fixed in advance in rank
# order; failures that surface late), the same way (split "heldout22").
BATCH22_FROM = 3500
# The twenty-third (w3700 on, two collectors: 18 more queries fixed in advance in rank order; the classes of faults the
# doctor issue names), the same way (split "heldout23").
BATCH23_FROM = 3700
# The twenty-fourth (w3900 on, two collectors: 18 more queries fixed in advance in rank order; recent fine-tuning and
# serving threads across many projects), the same way (split "heldout24").
BATCH24_FROM = 3900
# The twenty-fifth (w4100 on, two collectors: 18 more queries fixed in advance in rank order; threads of the newest
# models and stacks), the same way (split "heldout25").
BATCH25_FROM = 4100
# The twenty-sixth (w4300 on, two collectors: 18 more queries fixed in advance in rank order; resolved threads whose
# error looks like a precision or device problem, labelled by the cause the thread states), the same way ("heldout26").
BATCH26_FROM = 4300
# The twenty-seventh (w4500 on, two collectors: 18 more queries fixed in advance in rank order; torch's own APIs beyond
# nn layers: collectives, FFT, linalg, sparse, export and jit, quantization, generators), the same way ("heldout27").
BATCH27_FROM = 4500
# The twenty-eighth (w4700 on, two collectors: 18 more queries fixed in advance in rank order; the long tail of small
# projects: paper code, course projects, personal tools), the same way (split "heldout28").
BATCH28_FROM = 4700
# The twenty-ninth (w4900 on, two collectors: 18 more queries fixed in advance in rank order; threads from fields
# beyond language models: vision, 3D, audio, diffusion, graphs, RL), the same way (split "heldout29").
BATCH29_FROM = 4900
# The thirtieth (w5100 on, two collectors: 18 more queries fixed in advance in rank order; training frameworks and
# engines beyond the Hugging Face libraries: Lightning, DeepSpeed, Megatron, NeMo, ...), the same way ("heldout30").
BATCH30_FROM = 5100
# The thirty-first (w5300 on, two collectors: 18 more queries fixed in advance in rank order; NaN, inf and silently
# wrong numbers, labelled by the cause their thread states), the same way (split "heldout31").
BATCH31_FROM = 5300
# The thirty-second (w5500 on, two collectors: 18 more queries fixed in advance in rank order; hardware beyond NVIDIA
# datacenter GPUs: Apple MPS, ROCm, Ascend NPU, TPUs, older and consumer NVIDIA cards), the same way ("heldout32").
BATCH32_FROM = 5500
# The thirty-third (w5700 on, two collectors: 18 more queries fixed in advance in rank order; quantization toolkits and
# quantized training: bitsandbytes, GPTQ, AWQ, HQQ, ExLlama, GGUF conversion, QLoRA), the same way ("heldout33").
BATCH33_FROM = 5700
# The thirty-fourth (w5900 on, two collectors: 18 more queries fixed in advance in rank order; inference and serving
# engines and export runtimes: vLLM, TGI, TensorRT, ONNX Runtime, OpenVINO, Core ML, Triton), the same way
# (split "heldout34").
BATCH34_FROM = 5900
# The thirty-fifth (w6100 on, two collectors: 18 more queries fixed in advance in rank order; multimodal and
# vision-language models: LLaVA, Qwen-VL, InternVL, CLIP, Whisper and audio-language models, video and OCR), the same
# way (split "heldout35").
BATCH35_FROM = 6100
# The thirty-sixth (w6300 on, two collectors: 18 more queries fixed in advance in rank order; post-training and
# reinforcement learning: TRL, OpenRLHF, verl, DeepSpeed-Chat, reward models, rollouts), the same way ("heldout36").
BATCH36_FROM = 6300
# The thirty-seventh (w6500 on, two collectors: 18 more queries fixed in advance in rank order; image and video
# generation: diffusers, ComfyUI, the web UIs, kohya and other trainers, video models), the same way ("heldout37").
BATCH37_FROM = 6500
# The thirty-eighth (w6700 on, two collectors: 18 more queries fixed in advance in rank order; speech and audio:
# Whisper and ASR, TTS and voice cloning, voice conversion, music generation, codecs, torchaudio), the same way
# ("heldout38").
BATCH38_FROM = 6700
# The thirty-ninth (w6900 on, two collectors: 18 more queries fixed in advance in rank order; LLM fine-tuning
# frameworks: LLaMA-Factory, axolotl, Unsloth, ms-swift, torchtune, litgpt and others), the same way ("heldout39").
BATCH39_FROM = 6900
# The fortieth (w7100 on, two collectors: 18 more queries fixed in advance in rank order; distributed and multi-GPU
# training: DDP, FSDP, DeepSpeed, Megatron, collectives), the same way ("heldout40").
BATCH40_FROM = 7100
# The forty-first (w7300 on, two collectors: 18 more queries fixed in advance in rank order; computer vision
# frameworks: Ultralytics, mmdetection, detectron2, timm, SAM, super-resolution, OCR), the same way ("heldout41").
BATCH41_FROM = 7300
# The forty-second (w7500 on, two collectors: 18 more queries fixed in advance in rank order; Chinese-language LLM
# projects: Qwen, ChatGLM, InternLM, Baichuan, DeepSeek, MiniCPM, ms-swift, Ascend ports), the same way
# ("heldout42").
BATCH42_FROM = 7500
# The forty-third (w7700 on, two collectors: 18 more queries fixed in advance in rank order; embeddings, retrieval
# and rerankers: sentence-transformers, BGE, ColBERT, text-embeddings-inference, FAISS pipelines), the same way
# ("heldout43").
BATCH43_FROM = 7700
# The forty-fourth (w7900 on, two collectors: 18 more queries fixed in advance in rank order; graphs, recommenders,
# time series and tabular frameworks: PyG, DGL, torchrec, RecBole, Darts, TabNet, TabPFN, molecule models), the same
# way ("heldout44").
BATCH44_FROM = 7900
# The forty-fifth to forty-eighth (two collectors each: 18 more queries fixed in advance in rank order, and one theme:
# local LLM runtimes and consumer GPUs (llama.cpp, Ollama, MLX, ExLlama, candle); reinforcement learning and robotics
# (stable-baselines3, RLlib, Isaac Lab, LeRobot, OpenVLA); science, medicine and weather models (MONAI, DeepXDE,
# MACE, OpenFold, torchdiffeq); beginners on Colab, Kaggle, Windows and laptops), the same way ("heldout45" to
# "heldout48").
BATCH45_FROM = 8100
BATCH46_FROM = 8300
BATCH47_FROM = 8500
BATCH48_FROM = 8700
# The forty-ninth to fifty-second (two collectors each: 18 more queries fixed in advance in rank order, and one theme:
# 3D vision, graphics and neural rendering (nerfstudio, Gaussian splatting, pytorch3d, tiny-cuda-nn, depth models);
# LLM applications and evaluation harnesses (LangChain, LlamaIndex, outlines, lm-evaluation-harness); courses,
# tutorials and learning repositories (fast.ai, d2l, nanoGPT, LLMs-from-scratch); pretraining and research codebases
# (gpt-neox, Mamba, MegaBlocks, Megatron forks, nnsight)), the same way ("heldout49" to "heldout52").
BATCH49_FROM = 8900
BATCH50_FROM = 9100
BATCH51_FROM = 9300
BATCH52_FROM = 9500
# The fifty-third to fifty-sixth (two collectors each: 18 more queries fixed in advance in rank order, and one theme:
# classic NLP and translation frameworks (fairseq, OpenNMT, Marian, AllenNLP, flair); edge devices and embedded boards
# (Jetson, Raspberry Pi, Coral, ExecuTorch, TFLite, QNN); code models, agents and tool-use training; tuning, AutoML
# and experiment tooling (Ray, Optuna, W&B, Lightning's tuner)), the same way ("heldout53" to "heldout56").
BATCH53_FROM = 9700
BATCH54_FROM = 9900
BATCH55_FROM = 10100
BATCH56_FROM = 10300
# The fifty-seventh to sixtieth (two collectors each: 18 more queries fixed in advance in rank order, and one theme:
# attention kernels and mixture-of-experts (flash-attention, xformers, SDPA, FlexAttention, MoE routers, Mamba
# kernels); compilers and graph capture (torch.compile, Triton, TorchScript, torch.export, XLA and TPUs, CUDA graphs,
# TVM); checkpoint conversion, merging and model-hub tooling (safetensors, GGUF and other converters, mergekit, LoRA
# merges); custom CUDA/C++ extensions and hand-written ops (apex, research repositories' kernels, cpp_extension,
# custom autograd Functions, Triton kernels in projects)), the same way ("heldout57" to "heldout60").
BATCH57_FROM = 10500
BATCH58_FROM = 10700
BATCH59_FROM = 10900
BATCH60_FROM = 11100
# The sixty-first (two collectors: 18 more queries fixed in advance in rank order; optimizers and low-precision
# training utilities: 8-bit and paged optimizers, torchao, Adafactor, schedule-free, EMA, clipping, fused optimizers),
# the same way ("heldout61").
BATCH61_FROM = 11300
# The sixty-second to sixty-fourth (two collectors each: 18 more queries fixed in advance in rank order, and one
# theme: data loading and preprocessing pipelines (DataLoader workers, collate functions, transforms, datasets,
# DALI); offloading and big-model inference (accelerate's device_map and hooks, diffusers CPU offload,
# DeepSpeed-Inference, layer-by-layer loaders); probabilistic and numerical libraries (Pyro, GPyTorch, BoTorch,
# torch.distributions, torchdiffeq, linear algebra, complex and sparse tensors)), the same way ("heldout62" to
# "heldout64").
BATCH62_FROM = 11500
BATCH63_FROM = 11700
BATCH64_FROM = 11900
# The sixty-fifth to sixty-seventh (two collectors each: 18 more queries fixed in advance in rank order, and one
# theme: text generation internals (generate, KV caches, masks, rotary, samplers, speculative decoding);
# parameter-efficient and model-surgery methods beyond plain LoRA (prefix and prompt tuning, DoRA, distillation,
# pruning, merging, embedding resizing); hosted platforms and cloud notebooks (Spaces and ZeroGPU, Colab, Kaggle,
# SageMaker, cog, RunPod)), the same way ("heldout65" to "heldout67").
BATCH65_FROM = 12100
BATCH66_FROM = 12300
BATCH67_FROM = 12500
# The sixty-eighth to seventieth (two collectors each: 18 more queries fixed in advance in rank order, and one theme:
# Intel GPUs, Gaudi, DirectML, oneDNN and OpenVINO; encoder and encoder-decoder transformers fine-tuned the classic
# way; NumPy, pandas and scikit-learn meeting torch), the same way ("heldout68" to "heldout70").
BATCH68_FROM = 12700
BATCH69_FROM = 12900
BATCH70_FROM = 13100
# The seventy-first and seventy-second (two collectors each: 18 more queries fixed in advance in rank order, and one
# theme: federated learning, differential privacy and secure computation; time-series forecasting and anomaly
# detection), the same way ("heldout71" and "heldout72").
BATCH71_FROM = 13300
BATCH72_FROM = 13500
# The seventy-third (two collectors: 18 more queries fixed in advance in rank order, and GANs, VAEs and other
# classic generative models), the same way ("heldout73").
BATCH73_FROM = 13700
# The seventy-fourth (two collectors: 18 more queries fixed in advance in rank order, and biology and chemistry
# models: protein, genomics and molecular models), the same way ("heldout74").
BATCH74_FROM = 13900
# The seventy-fifth (two collectors: 18 more queries fixed in advance in rank order, and self-supervised and
# representation learning), the same way ("heldout75").
BATCH75_FROM = 14100
# The seventy-sixth (two collectors: 18 more queries fixed in advance in rank order, and autonomous driving and 3D
# perception), the same way ("heldout76").
BATCH76_FROM = 14300
# The seventy-seventh to seventy-ninth (two collectors each: 18 more queries fixed in advance in rank order, and
# interpretability and adversarial robustness; video understanding, tracking and pose; semantic segmentation and
# remote sensing), the same way ("heldout77" to "heldout79").
BATCH77_FROM = 14500
BATCH78_FROM = 14700
BATCH79_FROM = 14900
# The eightieth and eighty-first (two collectors each: 18 more queries fixed in advance in rank order, and spiking,
# complex-valued and quantum models; OCR and document AI), the same way ("heldout80" and "heldout81").
BATCH80_FROM = 15100
BATCH81_FROM = 15300
# The eighty-second and eighty-third (two collectors each: 18 more queries fixed in advance in rank order, and
# meta-learning, continual and few-shot learning; image anomaly detection), the same way ("heldout82" and
# "heldout83").
BATCH82_FROM = 15500
BATCH83_FROM = 15700
# The eighty-fourth and eighty-fifth (two collectors each: 18 more queries fixed in advance in rank order, and image
# restoration and learned compression; knowledge editing and machine unlearning), the same way ("heldout84" and
# "heldout85").
BATCH84_FROM = 15900
BATCH85_FROM = 16100
# The eighty-sixth to eighty-eighth (two collectors each: 18 more queries fixed in advance in rank order, and face
# swapping and portrait animation; video and 3D generation; model compression), the same way ("heldout86" to
# "heldout88").
BATCH86_FROM = 16300
BATCH87_FROM = 16500
BATCH88_FROM = 16700
# The eighty-ninth to ninety-first (two collectors each: 18 more queries fixed in advance in rank order, and speech
# synthesis and voice conversion; diffusion-model trainers; object detection), the same way ("heldout89" to
# "heldout91").
BATCH89_FROM = 16900
BATCH90_FROM = 17100
BATCH91_FROM = 17300
# The ninety-second to ninety-fourth (two collectors each: 18 more queries fixed in advance in rank order, and
# diffusion inference accelerators; music and audio generation; speech recognition), the same way ("heldout92" to
# "heldout94").
BATCH92_FROM = 17500
BATCH93_FROM = 17700
BATCH94_FROM = 17900
# The ninety-fifth and ninety-sixth (two collectors each: 18 more queries fixed in advance in rank order, and LLM
# serving engines; reinforcement learning for reasoning), the same way ("heldout95" and "heldout96").
BATCH95_FROM = 18100
BATCH96_FROM = 18300
# The ninety-seventh to ninety-ninth (two collectors each: 18 more queries fixed in advance in rank order, and robot
# learning; vision-language models; medical imaging), the same way ("heldout97" to "heldout99").
BATCH97_FROM = 18500
BATCH98_FROM = 18700
BATCH99_FROM = 18900
# The hundredth to hundred-and-second (two collectors each: 18 more queries fixed in advance in rank order, and
# speech and omni models; Lightning and torchmetrics; state-space models), the same way ("heldout100" to
# "heldout102").
BATCH100_FROM = 19100
BATCH101_FROM = 19300
BATCH102_FROM = 19500
# The hundred-and-third to hundred-and-fifth (two collectors each: 18 more queries fixed in advance in rank order,
# and image diffusion transformers; depth estimation; background removal and image editing), the same way
# ("heldout103" to "heldout105").
BATCH103_FROM = 19700
BATCH104_FROM = 19900
BATCH105_FROM = 20100
# The hundred-and-sixth to hundred-and-eleventh (two collectors each: 18 more queries fixed in advance in rank
# order, and controllable image generation; pretraining and fp8 training stacks; speculative decoding and long
# context; model serving; human motion and body models; training wrappers and AutoML), the same way
# ("heldout106" to "heldout111").
BATCH106_FROM = 20300
BATCH107_FROM = 20500
BATCH108_FROM = 20700
BATCH109_FROM = 20900
BATCH110_FROM = 21100
BATCH111_FROM = 21300
# The hundred-and-twelfth to hundred-and-fourteenth (two collectors each: 18 more queries fixed in advance in rank
# order, and open-vocabulary detection and segmentation; captioning and tagging; translation and seq2seq
# serving), the same way ("heldout112" to "heldout114").
BATCH112_FROM = 21500
BATCH113_FROM = 21700
BATCH114_FROM = 21900
# The hundred-and-fifteenth: three small collections (quantized inference libraries; audio classification and
# speech enhancement; weather and climate models), each of two collectors stopped by the search budget, scored as
# one ("heldout115").
BATCH115_FROM = 22100
# The hundred-and-sixteenth to hundred-and-eighteenth (two collectors each: 18 more queries fixed in advance in rank
# order, and sparse autoencoders and interpretability tooling; local feature matching and visual localization; neural
# audio codecs and discrete tokenizers), the same way ("heldout116" to "heldout118").
BATCH116_FROM = 22700
BATCH117_FROM = 22900
BATCH118_FROM = 23100
# The hundred-and-nineteenth to hundred-and-twenty-first (two collectors each: 18 more queries fixed in advance in
# rank order, and video frame interpolation and upscaling; face recognition and person re-identification; world models
# and video prediction), the same way ("heldout119" to "heldout121").
BATCH119_FROM = 23300
BATCH120_FROM = 23500
BATCH121_FROM = 23700
# The hundred-and-twenty-second to hundred-and-twenty-fourth (two collectors each: 18 more queries fixed in advance in
# rank order, and board-game engines and game-playing agents; NLP pipelines and information extraction; differentiable
# simulation and rendering), the same way ("heldout122" to "heldout124").
BATCH122_FROM = 23900
BATCH123_FROM = 24100
BATCH124_FROM = 24300
# The hundred-and-twenty-fifth to hundred-and-twenty-seventh (two collectors each: 18 more queries fixed in advance in
# rank order, and brain and physiological signals; machine learning in the browser and in mobile apps; scientific
# imaging and microscopy), the same way ("heldout125" to "heldout127").
BATCH125_FROM = 24500
BATCH126_FROM = 24700
BATCH127_FROM = 24900
# The hundred-and-twenty-eighth to hundred-and-thirtieth (two collectors each: 18 more queries fixed in advance in
# rank order, and equivariant networks and interatomic potentials; weather and climate models; unified multimodal
# generation models), the same way ("heldout128" to "heldout130").
BATCH128_FROM = 25100
BATCH129_FROM = 25300
BATCH130_FROM = 25500
# The hundred-and-thirty-first to hundred-and-thirty-third (two collectors each: 18 more queries fixed in advance in
# rank order, and LLM safety classifiers and red-teaming; small language models trained from scratch; drug
# discovery and cheminformatics), the same way ("heldout131" to "heldout133").
BATCH131_FROM = 25700
BATCH132_FROM = 25900
BATCH133_FROM = 26100
# The hundred-and-thirty-fourth (two collectors: 18 more queries fixed in advance in rank order, and protein
# structure prediction and design), the same way ("heldout134").
BATCH134_FROM = 26300
# The hundred-and-thirty-fifth (two collectors: 18 more queries fixed in advance in rank order, and genomics
# and single-cell foundation models), the same way ("heldout135"); the hundred-and-thirty-sixth (time-series and
# tabular foundation models), the same way ("heldout136").
BATCH135_FROM = 26500
BATCH136_FROM = 26700
# The hundred-and-thirty-seventh (two collectors: 18 more queries fixed in advance in rank order, and music
# and audio generation), the same way ("heldout137").
BATCH137_FROM = 26900
# The hundred-and-thirty-eighth (two collectors: 18 more queries fixed in advance in rank order, and robot
# learning and vision-language-action policies), the same way ("heldout138").
BATCH138_FROM = 27100
# The hundred-and-thirty-ninth (two collectors: 18 more queries fixed in advance in rank order, and speech
# language models and modern text-to-speech), the same way ("heldout139").
BATCH139_FROM = 27300
# The hundred-and-fortieth (two collectors: 18 more queries fixed in advance in rank order, and open video
# generation models), the same way ("heldout140").
BATCH140_FROM = 27500
# The hundred-and-forty-first (two collectors: 18 more queries fixed in advance in rank order, and OCR and
# document understanding models), the same way ("heldout141").
BATCH141_FROM = 27700
# The hundred-and-forty-second (two collectors: 18 more queries fixed in advance in rank order, and
# text-embedding, retrieval and reranking models), the same way ("heldout142").
BATCH142_FROM = 27900
# The hundred-and-forty-third (two collectors: 18 more queries fixed in advance in rank order, and 3D
# generation, reconstruction and neural rendering), the same way ("heldout143").
BATCH143_FROM = 28100
# The hundred-and-forty-fourth (two collectors: 18 more queries fixed in advance in rank order, and
# reinforcement-learning post-training of language models), the same way ("heldout144").
BATCH144_FROM = 28300
# The hundred-and-forty-fifth (two collectors: 18 more queries fixed in advance in rank order, and
# medical imaging and clinical foundation models), the same way ("heldout145").
BATCH145_FROM = 28500
# The hundred-and-forty-sixth (two collectors: 18 more queries fixed in advance in rank order, and
# diffusion fine-tuning and LoRA trainers), the same way ("heldout146").
BATCH146_FROM = 28700
# The hundred-and-forty-seventh (two collectors: 18 more queries fixed in advance in rank order, and
# graph neural networks), the same way ("heldout147").
BATCH147_FROM = 28900
# The hundred-and-forty-eighth (two collectors: 18 more queries fixed in advance in rank order, and
# image classification backbones and their fine-tuning), the same way ("heldout148").
BATCH148_FROM = 29100
# The hundred-and-forty-ninth (one collector: 18 more queries fixed in advance in rank order, about JAX, Flax and
# TensorFlow / Keras code in low precision), the same way ("heldout149").
BATCH149_FROM = 29300
# The hundred-and-fiftieth (one collector gathering by theme, about JAX, Flax and TensorFlow / Keras code in low
# precision) ("heldout150").
BATCH150_FROM = 29500
# The hundred-and-fifty-first (one collector: 18 more queries fixed in advance in rank order, about memory-efficient
# fine-tuning and training methods), the same way ("heldout151").
BATCH151_FROM = 29700
# The hundred-and-fifty-second (one collector: 18 more queries fixed in advance in rank order, about optical flow,
# point tracking, video object segmentation and multi-object tracking), the same way ("heldout152").
BATCH152_FROM = 29900
# The hundred-and-fifty-third (one collector gathering by theme, about optical flow, point tracking, video object
# segmentation and multi-object tracking) ("heldout153").
BATCH153_FROM = 30100
# The hundred-and-fifty-fourth (one collector gathering by theme, about memory-efficient fine-tuning and training
# methods) ("heldout154").
BATCH154_FROM = 30300
# The hundred-and-fifty-fifth (two collectors: 18 more queries fixed in advance in rank order, and speech recognition,
# speech and audio models), the same way ("heldout155").
BATCH155_FROM = 30500
# The hundred-and-fifty-sixth (two collectors: 18 more queries fixed in advance in rank order, and point clouds and 3D
# perception), the same way ("heldout156").
BATCH156_FROM = 30700
# The hundred-and-fifty-seventh (two collectors: 18 more queries fixed in advance in rank order, and local LLM
# inference runtimes and quantized formats), the same way ("heldout157").
BATCH157_FROM = 30900
# The hundred-and-fifty-eighth (two collectors: 18 more queries fixed in advance in rank order, and weather, climate
# and scientific machine learning), the same way ("heldout158").
BATCH158_FROM = 31100
# The hundred-and-fifty-ninth (two collectors: 18 more queries fixed in advance in rank order, and federated learning
# and differentially private training), the same way ("heldout159").
BATCH159_FROM = 31300
# The hundred-and-sixtieth (two collectors: 18 more queries fixed in advance in rank order, and recommendation systems
# and embedding tables), the same way ("heldout160").
BATCH160_FROM = 31500
# The hundred-and-sixty-first (two collectors: 18 more queries fixed in advance in rank order, and web and mobile
# inference runtimes), the same way ("heldout161").
BATCH161_FROM = 31700
# The hundred-and-sixty-second (two collectors: 18 more queries fixed in advance in rank order, and classical computer
# vision and image-processing libraries), the same way ("heldout162").
BATCH162_FROM = 31900
# The hundred-and-sixty-third (two collectors: 18 more queries fixed in advance in rank order, and time series and
# forecasting), the same way ("heldout163").
BATCH163_FROM = 32100
# The hundred-and-sixty-fourth (two collectors: 18 more queries fixed in advance in rank order, and video
# understanding, tracking and video I/O), the same way ("heldout164").
BATCH164_FROM = 32300
# The hundred-and-sixty-fifth (two collectors: 18 more queries fixed in advance in rank order, and medical imaging),
# the same way ("heldout165").
BATCH165_FROM = 32500
# The hundred-and-sixty-sixth (two collectors: 18 more queries fixed in advance in rank order, and remote sensing and
# geospatial deep learning), the same way ("heldout166").
BATCH166_FROM = 32700
# The hundred-and-sixty-seventh (two collectors: 18 more queries fixed in advance in rank order, and the JAX
# ecosystem), the same way ("heldout167").
BATCH167_FROM = 32900
# The hundred-and-sixty-eighth (one collector: 18 more queries fixed in advance in rank order, about physics
# simulation and differentiable simulators), the same way ("heldout168").
BATCH168_FROM = 33100
# The hundred-and-sixty-ninth (two collectors: 18 more queries fixed in advance in rank order, and quantum machine
# learning and quantum simulators), the same way ("heldout169").
BATCH169_FROM = 33300
# The hundred-and-seventieth (one collector: 18 more queries fixed in advance in rank order, about spiking neural
# networks and neural signal decoding), the same way ("heldout170").
BATCH170_FROM = 33500
# The hundred-and-seventy-first (two collectors: 18 more queries fixed in advance in rank order, and model
# interpretability and explainability), the same way ("heldout171").
BATCH171_FROM = 33700
# The hundred-and-seventy-second (two collectors: 18 more queries fixed in advance in rank order, and GPU dataframes
# and classical machine learning next to torch), the same way ("heldout172").
BATCH172_FROM = 33900
# The hundred-and-seventy-third (two collectors: 18 more queries fixed in advance in rank order, and probabilistic
# programming, Gaussian processes and Bayesian optimization), the same way ("heldout173").
BATCH173_FROM = 34100
# The hundred-and-seventy-fourth (two collectors: 18 more queries fixed in advance in rank order, and promptable and
# open-vocabulary segmentation and detection), the same way ("heldout174").
BATCH174_FROM = 34300
# The hundred-and-seventy-fifth (two collectors: 18 more queries fixed in advance in rank order, and model serving
# frameworks), the same way ("heldout175").
BATCH175_FROM = 34500
# The hundred-and-seventy-sixth (two collectors: 18 more queries fixed in advance in rank order, and graph compilers
# and graph capture in low precision), the same way ("heldout176").
BATCH176_FROM = 34700
# The hundred-and-seventy-seventh (two collectors: 18 more queries fixed in advance in rank order, and non-NVIDIA
# accelerators), the same way ("heldout177").
BATCH177_FROM = 34900
# The hundred-and-seventy-eighth (two collectors: 18 more queries fixed in advance in rank order, and deep-learning
# frameworks other than PyTorch), the same way ("heldout178").
BATCH178_FROM = 35100
# The hundred-and-seventy-ninth (two collectors: 18 more queries fixed in advance in rank order, and classic NLP and
# sequence-to-sequence toolkits), the same way ("heldout179").
BATCH179_FROM = 35300
# The hundred-and-eightieth (two collectors: 18 more queries fixed in advance in rank order, and TensorFlow 2 and
# Keras mixed precision), the same way ("heldout180").
BATCH180_FROM = 35500
# The hundred-and-eighty-first (two collectors: 18 more queries fixed in advance in rank order, and audio source
# separation and speech enhancement), the same way ("heldout181").
BATCH181_FROM = 35700
# The hundred-and-eighty-second (two collectors: 18 more queries fixed in advance in rank order, and state-space and
# linear-attention models), the same way ("heldout182").
BATCH182_FROM = 35900
# The hundred-and-eighty-third (two collectors: 18 more queries fixed in advance in rank order, and data pipelines
# feeding torch), the same way ("heldout183").
BATCH183_FROM = 36100
# The hundred-and-eighty-fourth (two collectors: 18 more queries fixed in advance in rank order, and human pose
# estimation and body models), the same way ("heldout184").
BATCH184_FROM = 36300
# The hundred-and-eighty-fifth (two collectors: 18 more queries fixed in advance in rank order, and classic
# reinforcement learning libraries), the same way ("heldout185").
BATCH185_FROM = 36500
# The hundred-and-eighty-sixth (two collectors: 18 more queries fixed in advance in rank order, and GAN training and
# StyleGAN-family code), the same way ("heldout186").
BATCH186_FROM = 36700
# The hundred-and-eighty-seventh (two collectors: 18 more queries fixed in advance in rank order, and FFTs, complex
# numbers and signal processing), the same way ("heldout187").
BATCH187_FROM = 36900
# The hundred-and-eighty-eighth (two collectors: 18 more queries fixed in advance in rank order, and differential
# privacy, federated learning and encrypted computation), the same way ("heldout188").
BATCH188_FROM = 37100
# The hundred-and-eighty-ninth (two collectors: 18 more queries fixed in advance in rank order, and custom C++ / CUDA
# extensions), the same way ("heldout189").
BATCH189_FROM = 37300
# The hundred-and-ninetieth (two collectors: 18 more queries fixed in advance in rank order, and remote sensing,
# geospatial and raster data), the same way ("heldout190").
BATCH190_FROM = 37500
# The hundred-and-ninety-first (two collectors: 18 more queries fixed in advance in rank order, and pruning, sparsity
# and compression), the same way ("heldout191").
BATCH191_FROM = 37700
# The hundred-and-ninety-second (two collectors: 18 more queries fixed in advance in rank order, and embedded NPUs and
# edge accelerators), the same way ("heldout192").
BATCH192_FROM = 37900
# The hundred-and-ninety-third (two collectors: 18 more queries fixed in advance in rank order, and AMD GPUs and
# DirectML), the same way ("heldout193").
BATCH193_FROM = 38100
# The hundred-and-ninety-fourth (two collectors: 18 more queries fixed in advance in rank order, and physics-informed
# networks, neural operators and quantum machine learning), the same way ("heldout194").
BATCH194_FROM = 38300
# The hundred-and-ninety-fifth (two collectors: 18 more queries fixed in advance in rank order, and spiking networks
# and hand-written autograd), the same way ("heldout195").
BATCH195_FROM = 38500
# The hundred-and-ninety-sixth (two collectors: 18 more queries fixed in advance in rank order, and video
# understanding), the same way ("heldout196").
BATCH196_FROM = 38700
# The hundred-and-ninety-seventh (two collectors: 18 more queries fixed in advance in rank order, and image
# restoration and super-resolution), the same way ("heldout197").
BATCH197_FROM = 38900
# The hundred-and-ninety-eighth (two collectors: 18 more queries fixed in advance in rank order, and linear algebra
# and probability distributions), the same way ("heldout198").
BATCH198_FROM = 39100
# The hundred-and-ninety-ninth (two collectors: 18 more queries fixed in advance in rank order, and Keras 3 and its
# multi-backend code), the same way ("heldout199").
BATCH199_FROM = 39300
# The two-hundredth (two collectors: 18 more queries fixed in advance in rank order, and optimizers and their state),
# the same way ("heldout200").
BATCH200_FROM = 39500
# The two-hundred-and-first (two collectors: 18 more queries fixed in advance in rank order, and object detection
# frameworks), the same way ("heldout201").
BATCH201_FROM = 39700
# The two-hundred-and-second (two collectors: 18 more queries fixed in advance in rank order, and model merging and
# adapter merging), the same way ("heldout202").
BATCH202_FROM = 39900
# The two-hundred-and-third (two collectors: 18 more queries fixed in advance in rank order, and attention kernels and
# their dtype / device requirements), the same way ("heldout203").
BATCH203_FROM = 40100
# The two-hundred-and-fourth (two collectors: 18 more queries fixed in advance in rank order, and numerical overflow
# in transformer internals), the same way ("heldout204").
BATCH204_FROM = 40300
# The two-hundred-and-fifth (two collectors: 18 more queries fixed in advance in rank order, and mixture-of-experts
# models and kernels), the same way ("heldout205").
BATCH205_FROM = 40500
# The two-hundred-and-sixth (two collectors: 18 more queries fixed in advance in rank order, and user-written Triton
# kernels), the same way ("heldout206").
BATCH206_FROM = 40700
# The two-hundred-and-seventh (two collectors: 18 more queries fixed in advance in rank order, and torch.distributed
# collectives and dtypes), the same way ("heldout207").
BATCH207_FROM = 40900
# The two-hundred-and-eighth (two collectors: 18 more queries fixed in advance in rank order, and checkpoint
# conversion scripts between formats), the same way ("heldout208").
BATCH208_FROM = 41100
# The two-hundred-and-ninth (two collectors: 18 more queries fixed in advance in rank order, and LLM evaluation
# harnesses), the same way ("heldout209").
BATCH209_FROM = 41300
# The two-hundred-and-tenth (two collectors: 18 more queries fixed in advance in rank order, and knowledge
# distillation and teacher / student models in different precisions), the same way ("heldout210").
BATCH210_FROM = 41500
# The two-hundred-and-eleventh (two collectors: 18 more queries fixed in advance in rank order, and text generation
# and sampling numerics), the same way ("heldout211").
BATCH211_FROM = 41700
# The two-hundred-and-twelfth (two collectors: 18 more queries fixed in advance in rank order, and CUDA graphs,
# torch.compile's reduce-overhead mode and static shapes), the same way ("heldout212").
BATCH212_FROM = 41900
# The two-hundred-and-thirteenth (two collectors: 18 more queries fixed in advance in rank order, and token
# embeddings, vocabulary resizing and tied weights), the same way ("heldout213").
BATCH213_FROM = 42100
# The two-hundred-and-fourteenth (two collectors: 18 more queries fixed in advance in rank order, and gradient
# checkpointing and activation offloading under mixed precision), the same way ("heldout214").
BATCH214_FROM = 42300
# The two-hundred-and-fifteenth (two collectors: 18 more queries fixed in advance in rank order, and loss functions
# and metrics in low precision), the same way ("heldout215").
BATCH215_FROM = 42500
# The two-hundred-and-sixteenth (two collectors: 18 more queries fixed in advance in rank order, and Apple Silicon and
# MPS training and inference), the same way ("heldout216").
BATCH216_FROM = 42700
# The two-hundred-and-seventeenth (two collectors: 18 more queries fixed in advance in rank order, and reward models,
# value heads and RLHF pipelines outside TRL), the same way ("heldout217").
BATCH217_FROM = 42900
# The two-hundred-and-eighteenth (two collectors: 18 more queries fixed in advance in rank order, and QLoRA and
# bitsandbytes 4-bit / 8-bit training), the same way ("heldout218").
BATCH218_FROM = 43100
# The two-hundred-and-nineteenth (two collectors: 18 more queries fixed in advance in rank order, and the Hugging Face
# Trainer's and accelerate's mixed-precision settings), the same way ("heldout219").
BATCH219_FROM = 43300
# The two-hundred-and-twentieth (two collectors: 18 more queries fixed in advance in rank order, and PEFT methods
# beyond plain LoRA and their dtypes), the same way ("heldout220").
BATCH220_FROM = 43500
# The two-hundred-and-twenty-first (two collectors: 18 more queries fixed in advance in rank order, and recurrent
# networks and packed sequences), the same way ("heldout221").
BATCH221_FROM = 43700
# The two-hundred-and-twenty-second (two collectors: 18 more queries fixed in advance in rank order, and index and
# integer tensors), the same way ("heldout222").
BATCH222_FROM = 43900
# The two-hundred-and-twenty-third (two collectors: 18 more queries fixed in advance in rank order, and CPU kernels
# without half-precision support), the same way ("heldout223").
BATCH223_FROM = 44100
# The two-hundred-and-twenty-fourth (two collectors: 18 more queries fixed in advance in rank order, and loading
# checkpoints across devices and dtypes), the same way ("heldout224").
BATCH224_FROM = 44300
# The two-hundred-and-twenty-fifth (two collectors: 18 more queries fixed in advance in rank order, and DeepSpeed ZeRO
# and its precision settings), the same way ("heldout225").
BATCH225_FROM = 44500
# The two-hundred-and-twenty-sixth (two collectors: 18 more queries fixed in advance in rank order, and FSDP and FSDP2
# mixed precision), the same way ("heldout226").
BATCH226_FROM = 44700
# The two-hundred-and-twenty-seventh (two collectors: 18 more queries fixed in advance in rank order, and vLLM and its
# dtype, quantization and device settings), the same way ("heldout227").
BATCH227_FROM = 44900
# The two-hundred-and-twenty-eighth (two collectors: 18 more queries fixed in advance in rank order, and ONNX export
# and ONNX Runtime / TensorRT in fp16), the same way ("heldout228").
BATCH228_FROM = 45100
# The two-hundred-and-twenty-ninth (two collectors: 18 more queries fixed in advance in rank order, and diffusers
# pipelines and their dtypes), the same way ("heldout229").
BATCH229_FROM = 45300
# The two-hundred-and-thirtieth (two collectors: 18 more queries fixed in advance in rank order, and Unsloth), the
# same way ("heldout230").
BATCH230_FROM = 45500
# The two-hundred-and-thirty-first (two collectors: 18 more queries fixed in advance in rank order, and fine-tuning
# frameworks driven by config files and their precision keys), the same way ("heldout231").
BATCH231_FROM = 45700
# The two-hundred-and-thirty-second (two collectors: 18 more queries fixed in advance in rank order, and torchao and
# float8 / int8 training and inference), the same way ("heldout232").
BATCH232_FROM = 45900
# The two-hundred-and-thirty-third (two collectors: 18 more queries fixed in advance in rank order, and tensor
# parallelism and DTensor), the same way ("heldout233").
BATCH233_FROM = 46100
# The two-hundred-and-thirty-fourth (two collectors: 18 more queries fixed in advance in rank order, and DataLoader
# workers, multiprocessing and CUDA), the same way ("heldout234").
BATCH234_FROM = 46300
# The two-hundred-and-thirty-fifth (two collectors: 18 more queries fixed in advance in rank order, and results that
# differ between fp32 and fp16 / bf16), the same way ("heldout235").
BATCH235_FROM = 46500
# The two-hundred-and-thirty-sixth (two collectors: 18 more queries fixed in advance in rank order, and AMP API
# warnings and deprecations), the same way ("heldout236").
BATCH236_FROM = 46700
# The two-hundred-and-thirty-seventh (two collectors: 18 more queries fixed in advance in rank order, and custom
# autograd Functions and functorch under mixed precision), the same way ("heldout237").
BATCH237_FROM = 46900
# The two-hundred-and-thirty-eighth (two collectors: 18 more queries fixed in advance in rank order, and sparse
# tensors and scatter / segment libraries), the same way ("heldout238").
BATCH238_FROM = 47100
# The two-hundred-and-thirty-ninth (one collector: 18 more queries fixed in advance in rank order, about dtype bugs
# inside transformers' model files), the same way ("heldout239").
BATCH239_FROM = 47300
# The two-hundred-and-fortieth (two collectors: 18 more queries fixed in advance in rank order, and loss functions and
# metrics and their input dtypes), the same way ("heldout240").
BATCH240_FROM = 47500
# The two-hundred-and-forty-first (two collectors: 18 more queries fixed in advance in rank order, and integer and
# bool tensors meeting float ops), the same way ("heldout241").
BATCH241_FROM = 47700
# The two-hundred-and-forty-second (two collectors: 18 more queries fixed in advance in rank order, and normalization
# layers in mixed precision), the same way ("heldout242").
BATCH242_FROM = 47900
# The two-hundred-and-forty-third (two collectors: 18 more queries fixed in advance in rank order, and image and
# geometry ops in half / bf16), the same way ("heldout243").
BATCH243_FROM = 48100
# The two-hundred-and-forty-fourth (two collectors: 18 more queries fixed in advance in rank order, and converting
# tensors out of torch and into other libraries), the same way ("heldout244").
BATCH244_FROM = 48300
# The two-hundred-and-forty-fifth (two collectors: 18 more queries fixed in advance in rank order, and attention masks
# and their dtypes), the same way ("heldout245").
BATCH245_FROM = 48500
# The two-hundred-and-forty-sixth (two collectors: 18 more queries fixed in advance in rank order, and GradScaler
# usage patterns), the same way ("heldout246").
BATCH246_FROM = 48700
# The two-hundred-and-forty-seventh (two collectors: 18 more queries fixed in advance in rank order, and choosing a
# model's dtype at load time), the same way ("heldout247").
BATCH247_FROM = 48900
# The two-hundred-and-forty-eighth (two collectors: 18 more queries fixed in advance in rank order, and PEFT adapters'
# dtypes when saving, loading and merging), the same way ("heldout248").
BATCH248_FROM = 49100
# The two-hundred-and-forty-ninth (two collectors: 18 more queries fixed in advance in rank order, and evaluation and
# prediction loops under mixed precision), the same way ("heldout249").
BATCH249_FROM = 49300
# The two-hundred-and-fiftieth (two collectors: 18 more queries fixed in advance in rank order, and course and book
# code hitting dtype and device errors), the same way ("heldout250").
BATCH250_FROM = 49500
# The two-hundred-and-fifty-first (two collectors: 18 more queries fixed in advance in rank order, and device
# placement in transformers pipelines and generate), the same way ("heldout251").
BATCH251_FROM = 49700
# The two-hundred-and-fifty-second (two collectors: 18 more queries fixed in advance in rank order, and labels and
# problem_type in transformers heads and classification code), the same way ("heldout252").
BATCH252_FROM = 49900
# The two-hundred-and-fifty-third (two collectors: 18 more queries fixed in advance in rank order, and token-id
# arrays, memmaps and unsigned integer dtypes), the same way ("heldout253").
BATCH253_FROM = 50100
# The two-hundred-and-fifty-fourth (two collectors: 18 more queries fixed in advance in rank order, and LangChain,
# LlamaIndex, Haystack, smolagents and other wrappers around local Hugging Face models), the same way ("heldout254").
BATCH254_FROM = 50300
# The two-hundred-and-fifty-fifth (two collectors: 18 more queries fixed in advance in rank order, and random number
# generators and sampling on devices), the same way ("heldout255").
BATCH255_FROM = 50500


def batch(record: dict) -> int:
    """1 for the first collection (w001-w191), 2 for the second (w192-w283), 3 for the third (w284-w343), 4 for the
    fourth (w344-w410), 5 for the fifth (w411-w451), 6 for the sixth (w452-w599), 7 for texts found while writing
    rules (w600-w799), 8 for the seventh collection (w800-w899), 9 for the eighth (w900-w999), 10 for the ninth
    (w1000-w1199), 11 for the tenth (w1200-w1299), 12 for the eleventh (w1300-w1499), 13 for the twelfth (w1500-w1699), 14
    for the thirteenth (w1700-w1899), 15 for the fourteenth (w1900-w2099), 16 for the fifteenth (w2100-w2299), 17 for
    the sixteenth (w2300-w2499), 18 for the seventeenth (w2500-w2699), 19 for the
    eighteenth (w2700-w2899), 20 for the nineteenth (w2900-w3099), 21
    for the twentieth (w3100-w3299), 22 for the twenty-first (w3300-w3499), 23 for the twenty-second (w3500-w3699), 24 for the twenty-third (w3700-w3899), 25 for the twenty-fourth (w3900-w4099), 26 for the
    twenty-fifth (w4100-w4299), 27 for the twenty-sixth (w4300-w4499), 28 for the twenty-seventh (w4500-w4699), 29 for the
    twenty-eighth (w4700-w4899), 30 for the twenty-ninth (w4900-w5099), 31 for the thirtieth (w5100-w5299), 32 for the thirty-first (w5300-w5499), 33 for the
    thirty-second (w5500-w5699), 34 for the thirty-third (w5700-w5899), 35 for the thirty-fourth (w5900-w6099), 36 for the
    thirty-fifth (w6100-w6299), 37 for the thirty-sixth (w6300-w6499), 38 for the thirty-seventh (w6500-w6699), 39 for
    the thirty-eighth (w6700-w6899), 40 for the thirty-ninth (w6900-w7099), 41 for the fortieth (w7100-w7299), 42 for the forty-first
    (w7300-w7499), 43 for the forty-second (w7500-w7699), 44 for the
    forty-third (w7700-w7899), 45 for the forty-fourth (w7900-w8099), 46 to 49 for the forty-fifth to forty-eighth
    (w8100-w8299, w8300-w8499, w8500-w8699, w8700-w8899), 50 to 53 for the forty-ninth to fifty-second
    (w8900-w9099, w9100-w9299, w9300-w9499, w9500-w9699), 54 to 57 for the fifty-third to fifty-sixth
    (w9700-w9899, w9900-w10099, w10100-w10299, w10300-w10499), 58 to 61 for the fifty-seventh to sixtieth
    (w10500-w10699, w10700-w10899, w10900-w11099, w11100-w11299), 62 to 65 for the sixty-first to
    sixty-fourth (w11300-w11499, w11500-w11699, w11700-w11899, w11900-w12099), 66 to 68 for the sixty-fifth to
    sixty-seventh (w12100-w12299, w12300-w12499, w12500-w12699), 69 to 71 for the sixty-eighth to seventieth
    (w12700-w12899, w12900-w13099, w13100-w13299), 72 and 73 for the seventy-first and seventy-second
    (w13300-w13499, w13500-w13699), 74 to 77 for the seventy-third to seventy-sixth
    (w13700-w13899, w13900-w14099, w14100-w14299, w14300-w14499), 78 to 80 for the seventy-seventh to
    seventy-ninth (w14500-w14699, w14700-w14899, w14900-w15099), 81 and 82 for the eightieth and eighty-first
    (w15100-w15299, w15300-w15499), 83 and 84 for the eighty-second and eighty-third (w15500-w15699,
    w15700-w15899), 85 and 86 for the eighty-fourth and eighty-fifth (w15900-w16099, w16100-w16299), 87 to 89
    for the eighty-sixth to eighty-eighth (w16300-w16499, w16500-w16699, w16700-w16899), 90 to 92 for the
    eighty-ninth to ninety-first (w16900-w17099, w17100-w17299, w17300-w17499), 93 to 95 for the ninety-second
    to ninety-fourth (w17500-w17699, w17700-w17899, w17900-w18099), 96 and 97 for the ninety-fifth and ninety-sixth
    (w18100-w18299, w18300-w18499), 98 to 100 for the ninety-seventh to ninety-ninth (w18500-w18699, w18700-w18899,
    w18900-w19099), 101 to 103 for the hundredth to hundred-and-second (w19100-w19299, w19300-w19499,
    w19500-w19699), 104 to 106 for the hundred-and-third to hundred-and-fifth (w19700-w19899, w19900-w20099,
    w20100-w20299), 107 to 112 for the hundred-and-sixth to hundred-and-eleventh (w20300-w20499 and so on in steps of
    200, w21300-w21499), 113 to 115 for the hundred-and-twelfth to hundred-and-fourteenth (w21500-w21699,
    w21700-w21899, w21900-w22099), 116 for the hundred-and-fifteenth (w22100-w22699), 117 to 119 for the
    hundred-and-sixteenth to hundred-and-eighteenth (w22700-w22899, w22900-w23099, w23100-w23299), 120 to 122 for the
    hundred-and-nineteenth to hundred-and-twenty-first (w23300-w23499, w23500-w23699, w23700-w23899), 123 to 125
    for the hundred-and-twenty-second to hundred-and-twenty-fourth (w23900-w24099, w24100-w24299, w24300-w24499),
    126 to 128 for the hundred-and-twenty-fifth to hundred-and-twenty-seventh (w24500-w24699, w24700-w24899,
    w24900-w25099), 129 to 131 for the hundred-and-twenty-eighth to hundred-and-thirtieth (w25100-w25299,
    w25300-w25499, w25500-w25699), 132 to 134 for the hundred-and-thirty-first to hundred-and-thirty-third
    (w25700-w25899, w25900-w26099, w26100-w26299), 135 for the hundred-and-thirty-fourth (w26300 on)."""
    n = int(record["id"][1:])
    bounds = (BATCH2_FROM, BATCH3_FROM, BATCH4_FROM, BATCH5_FROM, BATCH6_FROM, RULE_TEXTS_FROM, BATCH7_FROM,
              BATCH8_FROM, BATCH9_FROM, BATCH10_FROM, BATCH11_FROM, BATCH12_FROM, BATCH13_FROM,
              BATCH14_FROM, BATCH15_FROM, BATCH16_FROM, BATCH17_FROM, BATCH18_FROM, BATCH19_FROM, BATCH20_FROM,
              BATCH21_FROM, BATCH22_FROM, BATCH23_FROM, BATCH24_FROM, BATCH25_FROM, BATCH26_FROM,
              BATCH27_FROM, BATCH28_FROM, BATCH29_FROM, BATCH30_FROM, BATCH31_FROM, BATCH32_FROM, BATCH33_FROM,
              BATCH34_FROM, BATCH35_FROM, BATCH36_FROM, BATCH37_FROM, BATCH38_FROM, BATCH39_FROM, BATCH40_FROM,
              BATCH41_FROM, BATCH42_FROM, BATCH43_FROM, BATCH44_FROM, BATCH45_FROM, BATCH46_FROM, BATCH47_FROM,
              BATCH48_FROM, BATCH49_FROM, BATCH50_FROM, BATCH51_FROM, BATCH52_FROM, BATCH53_FROM, BATCH54_FROM,
              BATCH55_FROM, BATCH56_FROM, BATCH57_FROM, BATCH58_FROM, BATCH59_FROM, BATCH60_FROM, BATCH61_FROM,
              BATCH62_FROM, BATCH63_FROM, BATCH64_FROM, BATCH65_FROM, BATCH66_FROM, BATCH67_FROM,
              BATCH68_FROM, BATCH69_FROM, BATCH70_FROM, BATCH71_FROM, BATCH72_FROM,
              BATCH73_FROM, BATCH74_FROM, BATCH75_FROM, BATCH76_FROM,
              BATCH77_FROM, BATCH78_FROM, BATCH79_FROM, BATCH80_FROM, BATCH81_FROM, BATCH82_FROM,
              BATCH83_FROM, BATCH84_FROM, BATCH85_FROM, BATCH86_FROM, BATCH87_FROM, BATCH88_FROM,
              BATCH89_FROM, BATCH90_FROM, BATCH91_FROM, BATCH92_FROM, BATCH93_FROM, BATCH94_FROM,
              BATCH95_FROM, BATCH96_FROM, BATCH97_FROM, BATCH98_FROM, BATCH99_FROM,
              BATCH100_FROM, BATCH101_FROM, BATCH102_FROM, BATCH103_FROM, BATCH104_FROM, BATCH105_FROM,
              BATCH106_FROM, BATCH107_FROM, BATCH108_FROM, BATCH109_FROM, BATCH110_FROM, BATCH111_FROM,
              BATCH112_FROM, BATCH113_FROM, BATCH114_FROM, BATCH115_FROM,
              BATCH116_FROM, BATCH117_FROM, BATCH118_FROM,
              BATCH119_FROM, BATCH120_FROM, BATCH121_FROM,
              BATCH122_FROM, BATCH123_FROM, BATCH124_FROM,
              BATCH125_FROM, BATCH126_FROM, BATCH127_FROM,
              BATCH128_FROM, BATCH129_FROM, BATCH130_FROM,
              BATCH131_FROM, BATCH132_FROM, BATCH133_FROM,
              BATCH134_FROM, BATCH135_FROM, BATCH136_FROM, BATCH137_FROM, BATCH138_FROM, BATCH139_FROM, BATCH140_FROM,
              BATCH141_FROM, BATCH142_FROM, BATCH143_FROM, BATCH144_FROM, BATCH145_FROM, BATCH146_FROM, BATCH147_FROM,
              BATCH148_FROM, BATCH149_FROM, BATCH150_FROM, BATCH151_FROM, BATCH152_FROM, BATCH153_FROM, BATCH154_FROM,
              BATCH155_FROM, BATCH156_FROM, BATCH157_FROM, BATCH158_FROM, BATCH159_FROM, BATCH160_FROM, BATCH161_FROM,
              BATCH162_FROM, BATCH163_FROM, BATCH164_FROM, BATCH165_FROM, BATCH166_FROM, BATCH167_FROM, BATCH168_FROM,
              BATCH169_FROM, BATCH170_FROM, BATCH171_FROM, BATCH172_FROM, BATCH173_FROM, BATCH174_FROM, BATCH175_FROM,
              BATCH176_FROM, BATCH177_FROM, BATCH178_FROM, BATCH179_FROM, BATCH180_FROM, BATCH181_FROM, BATCH182_FROM,
              BATCH183_FROM, BATCH184_FROM, BATCH185_FROM, BATCH186_FROM, BATCH187_FROM, BATCH188_FROM, BATCH189_FROM,
              BATCH190_FROM, BATCH191_FROM, BATCH192_FROM, BATCH193_FROM, BATCH194_FROM, BATCH195_FROM, BATCH196_FROM,
              BATCH197_FROM, BATCH198_FROM, BATCH199_FROM, BATCH200_FROM, BATCH201_FROM, BATCH202_FROM, BATCH203_FROM,
              BATCH204_FROM, BATCH205_FROM, BATCH206_FROM, BATCH207_FROM, BATCH208_FROM, BATCH209_FROM, BATCH210_FROM,
              BATCH211_FROM, BATCH212_FROM, BATCH213_FROM, BATCH214_FROM, BATCH215_FROM, BATCH216_FROM, BATCH217_FROM,
              BATCH218_FROM, BATCH219_FROM, BATCH220_FROM, BATCH221_FROM, BATCH222_FROM, BATCH223_FROM, BATCH224_FROM,
              BATCH225_FROM, BATCH226_FROM, BATCH227_FROM, BATCH228_FROM, BATCH229_FROM, BATCH230_FROM, BATCH231_FROM,
              BATCH232_FROM, BATCH233_FROM, BATCH234_FROM, BATCH235_FROM, BATCH236_FROM, BATCH237_FROM, BATCH238_FROM,
              BATCH239_FROM, BATCH240_FROM, BATCH241_FROM, BATCH242_FROM, BATCH243_FROM, BATCH244_FROM, BATCH245_FROM,
              BATCH246_FROM, BATCH247_FROM, BATCH248_FROM, BATCH249_FROM, BATCH250_FROM, BATCH251_FROM, BATCH252_FROM,
              BATCH253_FROM, BATCH254_FROM, BATCH255_FROM)
    return 1 + sum(n >= b for b in bounds)


def _split_batch(records: list[dict], salt: str, share: float, held_name: str) -> dict[str, str]:
    by_id: dict[str, str] = {}
    for kind in KINDS:
        sizes: Counter = Counter(r["group"] for r in records if r["kind"] == kind)
        total, taken, held = sum(sizes.values()), 0, set()
        for group in sorted(sizes, key=lambda g: hashlib.sha256(f"{salt}:{g}".encode()).hexdigest()):
            if taken >= share * total:
                break
            held.add(group)
            taken += sizes[group]
        for r in records:
            if r["kind"] == kind:
                by_id[r["id"]] = held_name if r["group"] in held else "dev"
    return by_id


def assign_splits(records: list[dict]) -> dict[str, str]:
    """id -> 'dev' | 'heldout' | 'heldout2' | ... | 'heldout255' by the split rules above."""
    first = [r for r in records if batch(r) == 1]
    second = [r for r in records if batch(r) == 2]
    return {**_split_batch(first, SALT, HELDOUT_SHARE, "heldout"),
            **_split_batch(second, SALT2, HELDOUT2_SHARE, "heldout2"),
            **{r["id"]: "heldout3" for r in records if batch(r) == 3},
            **{r["id"]: "heldout4" for r in records if batch(r) == 4},
            **{r["id"]: "heldout5" for r in records if batch(r) == 5},
            **{r["id"]: "heldout6" for r in records if batch(r) == 6},
            **{r["id"]: "dev" for r in records if batch(r) == 7},
            **{r["id"]: "heldout7" for r in records if batch(r) == 8},
            **{r["id"]: "heldout8" for r in records if batch(r) == 9},
            **{r["id"]: "heldout9" for r in records if batch(r) == 10},
            **{r["id"]: "heldout10" for r in records if batch(r) == 11},
            **{r["id"]: "heldout11" for r in records if batch(r) == 12},
            **{r["id"]: "heldout12" for r in records if batch(r) == 13},
            **{r["id"]: "heldout13" for r in records if batch(r) == 14},
            **{r["id"]: "heldout14" for r in records if batch(r) == 15},
            **{r["id"]: "heldout15" for r in records if batch(r) == 16},
            **{r["id"]: "heldout16" for r in records if batch(r) == 17},
            **{r["id"]: "heldout17" for r in records if batch(r) == 18},
            **{r["id"]: "heldout18" for r in records if batch(r) == 19},
            **{r["id"]: "heldout19" for r in records if batch(r) == 20},
            **{r["id"]: "heldout20" for r in records if batch(r) == 21},
            **{r["id"]: "heldout21" for r in records if batch(r) == 22},
            **{r["id"]: "heldout22" for r in records if batch(r) == 23},
            **{r["id"]: "heldout23" for r in records if batch(r) == 24},
            **{r["id"]: "heldout24" for r in records if batch(r) == 25},
            **{r["id"]: "heldout25" for r in records if batch(r) == 26},
            **{r["id"]: "heldout26" for r in records if batch(r) == 27},
            **{r["id"]: "heldout27" for r in records if batch(r) == 28},
            **{r["id"]: "heldout28" for r in records if batch(r) == 29},
            **{r["id"]: "heldout29" for r in records if batch(r) == 30},
            **{r["id"]: "heldout30" for r in records if batch(r) == 31},
            **{r["id"]: "heldout31" for r in records if batch(r) == 32},
            **{r["id"]: "heldout32" for r in records if batch(r) == 33},
            **{r["id"]: "heldout33" for r in records if batch(r) == 34},
            **{r["id"]: "heldout34" for r in records if batch(r) == 35},
            **{r["id"]: "heldout35" for r in records if batch(r) == 36},
            **{r["id"]: "heldout36" for r in records if batch(r) == 37},
            **{r["id"]: "heldout37" for r in records if batch(r) == 38},
            **{r["id"]: "heldout38" for r in records if batch(r) == 39},
            **{r["id"]: "heldout39" for r in records if batch(r) == 40},
            **{r["id"]: "heldout40" for r in records if batch(r) == 41},
            **{r["id"]: "heldout41" for r in records if batch(r) == 42},
            **{r["id"]: "heldout42" for r in records if batch(r) == 43},
            **{r["id"]: "heldout43" for r in records if batch(r) == 44},
            **{r["id"]: "heldout44" for r in records if batch(r) == 45},
            **{r["id"]: f"heldout{n - 1}" for r in records if 46 <= (n := batch(r)) <= 256}}


def load(split: str | None = None, path: Path = CORPUS) -> list[dict]:
    """All records, those of one split ('dev' / 'heldout' / 'heldout2' / 'heldout3' / 'heldout4'), or the seen ones
    ('seen')."""
    if split is not None and split not in (*SPLITS, "seen"):
        raise ValueError(f"split must be one of {SPLITS}, 'seen' or None, not {split!r}")
    stat = Path(path).stat()
    records = _parsed(str(path), stat.st_mtime_ns, stat.st_size)
    wanted = SEEN if split == "seen" else (split,)
    return [dict(r) for r in records if split is None or r["split"] in wanted]


@functools.lru_cache(maxsize=4)
def _parsed(path: str, mtime_ns: int, size: int) -> tuple[dict, ...]:
    """The file's records, parsed once per version of the file (callers get copies)."""
    with open(path, encoding="utf-8") as f:
        return tuple(json.loads(line) for line in f if line.strip())


def answer_text(expl) -> str:
    return " ".join((expl.title, expl.cause, expl.fix)).lower()


def judge(record: dict) -> dict:
    """One record's verdict: 'right' / 'partly' / 'wrong' for faults, 'rejected' / 'false_diagnosis' for rejects."""
    from amplora.doctor.explain import explain

    expl = explain(record["text"])
    out = dict(id=record["id"], group=record["group"], kind=record["kind"], key=expl.key, missing=[])
    if record["kind"] == "reject":
        out["verdict"] = "false_diagnosis" if expl.recognized else "rejected"
        return out
    if not expl.recognized:
        out["verdict"] = "wrong"
        return out
    said = answer_text(expl)
    out["missing"] = [g for g in record["must_say"] if not any(p.lower() in said for p in g)]
    out["verdict"] = "partly" if out["missing"] else "right"
    return out


def score(records: list[dict]) -> dict:
    """Counts of verdicts plus the per-record verdicts."""
    results = [judge(r) for r in records]
    counts = Counter(x["verdict"] for x in results)
    faults = sum(1 for r in records if r["kind"] == "fault")
    rejects = len(records) - faults
    return dict(
        faults=faults, right=counts["right"], partly=counts["partly"], wrong=counts["wrong"],
        rejects=rejects, rejected=counts["rejected"], false_diagnoses=counts["false_diagnosis"],
        fault_accuracy=counts["right"] / faults if faults else None,
        results=results,
    )


def counts_table(records: list[dict]) -> str:
    """Markdown tables of the corpus make-up: kind x split, backends, projects."""
    lines = ["| split | faults | rejects | total |", "| --- | --- | --- | --- |"]
    for split in (*SPLITS, None):
        rs = [r for r in records if split is None or r["split"] == split]
        n_f = sum(r["kind"] == "fault" for r in rs)
        lines.append(f"| {split or 'all'} | {n_f} | {len(rs) - n_f} | {len(rs)} |")
    lines += ["", "| backend | faults | rejects | " + " | ".join(SPLITS) + " |", "| --- " * (3 + len(SPLITS)) + "|"]
    by_backend = defaultdict(list)
    for r in records:
        by_backend[r["backend"]].append(r)
    for b in sorted(by_backend, key=lambda b: -len(by_backend[b])):
        rs = by_backend[b]
        lines.append(f"| {b} | {sum(r['kind'] == 'fault' for r in rs)} | {sum(r['kind'] == 'reject' for r in rs)} | "
                     + " | ".join(str(sum(r["split"] == s for r in rs)) for s in SPLITS) + " |")
    projects = Counter(r["project"] for r in records)
    lines += ["", f"{len(projects)} projects; those with 2 or more texts:", ""]
    lines.append(", ".join(f"{p} {n}" for p, n in projects.most_common() if n > 1))
    return "\n".join(lines)


def source_kind(record: dict) -> str:
    """'github' for an issue / PR reference (owner/repo#n), 'web' for a page URL (forum, Q&A, blog)."""
    return "web" if record["source"].startswith("http") else "github"


def breakdown_table(records: list[dict], results: list[dict]) -> str:
    """Markdown table of verdicts per backend and per source kind."""
    verdict = {x["id"]: x["verdict"] for x in results}
    rows = [("backend", b, [r for r in records if r["backend"] == b]) for b in BACKENDS] + \
           [("source", k, [r for r in records if source_kind(r) == k]) for k in ("github", "web")]
    lines = ["| by | value | faults right | partly | unrecognised | rejects rejected | false diagnoses |",
             "| --- | --- | --- | --- | --- | --- | --- |"]
    for by, value, rs in rows:
        if not rs:
            continue
        c = Counter(verdict[r["id"]] for r in rs)
        n_f = sum(r["kind"] == "fault" for r in rs)
        lines.append(f"| {by} | {value} | {c['right']}/{n_f} | {c['partly']} | {c['wrong']} | "
                     f"{c['rejected']}/{len(rs) - n_f} | {c['false_diagnosis']} |")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--heldout2", action="store_true", help="score the second held-out split (seen since it was scored)")
    ap.add_argument("--heldout3", action="store_true", help="score the third collection (scored once, read since)")
    ap.add_argument("--heldout4", action="store_true", help="score the fourth collection (scored once, read since)")
    ap.add_argument("--heldout5", action="store_true", help="score the fifth collection (scored once, read since)")
    ap.add_argument("--by-backend", action="store_true", help="also break the score down per backend and source kind")
    ap.add_argument("--split", choices=(*SPLITS, "seen"), default="seen", help="the split to score (default: seen)")
    ap.add_argument("--counts", action="store_true", help="print the corpus make-up and exit (no scoring)")
    ap.add_argument("-v", "--verbose", action="store_true", help="list every miss")
    args = ap.parse_args(argv)
    if args.counts:
        print(counts_table(load()))
        return 0
    split = ("heldout5" if args.heldout5 else "heldout4" if args.heldout4 else "heldout3" if args.heldout3 else "heldout2" if args.heldout2
             else args.split)
    records = load(split)
    s = score(records)
    print(f"{split}: faults {s['right']}/{s['faults']} right, {s['partly']} partly (recognised, a must_say group "
          f"missing), {s['wrong']} unrecognised; rejects {s['rejected']}/{s['rejects']} rejected, "
          f"{s['false_diagnoses']} false diagnoses")
    if args.by_backend:
        print(breakdown_table(records, s["results"]))
    if args.verbose:
        misses = defaultdict(list)
        for x in s["results"]:
            if x["verdict"] not in ("right", "rejected"):
                misses[(x["verdict"], x["group"])].append(x)
        for (verdict, group), xs in sorted(misses.items()):
            extra = f" key={xs[0]['key']} missing={xs[0]['missing']}" if verdict == "partly" else (
                f" key={xs[0]['key']}" if verdict == "false_diagnosis" else "")
            print(f"  {verdict:15} {group:40} {' '.join(x['id'] for x in xs)}{extra}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
