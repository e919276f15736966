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
labelled a fault, and bitsandbytes re-quantizing packed weights labelled a reject), and `heldout45` to the last
(w8100 on, one collection each, gathered the same way: `LATER_FROM` below says where each starts, and the corpus
README's table how each was gathered and what it holds).

    PYTHONPATH=src python tests/doctor/world_corpus.py             # seen texts (dev, heldout, heldout3-7, 9, 13)
    PYTHONPATH=src python tests/doctor/world_corpus.py -v          # ... and every miss, grouped by message group
    PYTHONPATH=src python tests/doctor/world_corpus.py --split dev # one split: dev, heldout, heldout2, ... or seen
    PYTHONPATH=src python tests/doctor/world_corpus.py --counts    # corpus make-up per project / backend (no scoring)
    PYTHONPATH=src python tests/doctor/world_corpus.py --heldout3  # the third collection (scored once, see README)
    PYTHONPATH=src python tests/doctor/world_corpus.py --heldout4  # the fourth collection (scored once, read since)
    PYTHONPATH=src python tests/doctor/world_corpus.py --heldout5  # the fifth collection (scored once, read since)
    PYTHONPATH=src python tests/doctor/world_corpus.py --split heldout5 --by-backend   # ... per backend and source kind
"""
from __future__ import annotations

import argparse
import bisect
import functools
import hashlib
import json
from collections import Counter, defaultdict
from pathlib import Path

CORPUS = Path(__file__).parent / "corpus" / "world.jsonl"

FIELDS = ("id", "split", "kind", "project", "backend", "source", "group", "text", "cause", "must_say")
KINDS = ("fault", "reject")
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
# The forty-fifth collection on (splits heldout45 to the last), each gathered like the thirteenth by two collectors
# (one ran queries it fixed before its first search and took the results in rank order, one gathered by theme),
# committed before it was scored once, all of it held out: where each starts (the corpus README's table says how each
# was gathered and what it holds). Collection k of this tuple is split heldout{45 + k}.
LATER_FROM = (8100, 8300, 8500, 8700, 8900, 9100, 9300, 9500, 9700, 9900, 10100, 10300, 10500, 10700, 10900, 11100,
              11300, 11500, 11700, 11900, 12100, 12300, 12500, 12700, 12900, 13100, 13300, 13500, 13700, 13900, 14100,
              14300, 14500, 14700, 14900, 15100, 15300, 15500, 15700, 15900, 16100, 16300, 16500, 16700, 16900, 17100,
              17300, 17500, 17700, 17900, 18100, 18300, 18500, 18700, 18900, 19100, 19300, 19500, 19700, 19900, 20100,
              20300, 20500, 20700, 20900, 21100, 21300, 21500, 21700, 21900, 22100, 22700, 22900, 23100, 23300, 23500,
              23700, 23900, 24100, 24300, 24500, 24700, 24900, 25100, 25300, 25500, 25700, 25900, 26100, 26300, 26500,
              26700, 26900, 27100, 27300, 27500, 27700, 27900, 28100, 28300, 28500, 28700, 28900, 29100, 29300, 29500,
              29700, 29900, 30100, 30300, 30500, 30700, 30900, 31100, 31300, 31500, 31700, 31900, 32100, 32300, 32500,
              32700, 32900, 33100, 33300, 33500, 33700, 33900, 34100, 34300, 34500, 34700, 34900, 35100, 35300, 35500,
              35700, 35900, 36100, 36300, 36500, 36700, 36900, 37100, 37300, 37500, 37700, 37900, 38100, 38300, 38500,
              38700, 38900, 39100, 39300, 39500, 39700, 39900, 40100, 40300, 40500, 40700, 40900, 41100, 41300, 41500,
              41700, 41900, 42100, 42300, 42500, 42700, 42900, 43100, 43300, 43500, 43700, 43900, 44100, 44300, 44500,
              44700, 44900, 45100, 45300, 45500, 45700, 45900, 46100, 46300, 46500, 46700, 46900, 47100, 47300, 47500,
              47700, 47900, 48100, 48300, 48500, 48700, 48900, 49100, 49300, 49500, 49700, 49900, 50100, 50300, 50500,
              50700, 50900, 51100, 51300, 51500, 51700, 51900, 52100, 52300, 52500, 52700, 52900, 53100, 53300, 53500,
              53700, 53900, 54100)
# the last collection's batch number and split, and every split
LAST_BATCH = 45 + len(LATER_FROM)
LAST_SPLIT = f"heldout{LAST_BATCH - 1}"
SPLITS = ("dev", "heldout", *(f"heldout{n}" for n in range(2, LAST_BATCH)))


def batch(record: dict) -> int:
    """Which collection a record belongs to, from its id: 1 for the first collection (w001-w191), 2 for the second
    (w192-w283), 3 for the third (w284-w343), 4 for the fourth (w344-w410), 5 for the fifth (w411-w451), 6 for the
    sixth (w452-w599), 7 for texts found while writing rules (w600-w799), 8 to 45 for the seventh to forty-fourth (from
    BATCH7_FROM to BATCH44_FROM), and 46 + k for collection k of LATER_FROM."""
    return 1 + bisect.bisect_right(_BOUNDS, int(record["id"][1:]))


# where each collection after the first starts, in order (batch() counts the starts at or below an id)
_BOUNDS = (BATCH2_FROM, BATCH3_FROM, BATCH4_FROM, BATCH5_FROM, BATCH6_FROM, RULE_TEXTS_FROM, BATCH7_FROM,
           BATCH8_FROM, BATCH9_FROM, BATCH10_FROM, BATCH11_FROM, BATCH12_FROM, BATCH13_FROM,
           BATCH14_FROM, BATCH15_FROM, BATCH16_FROM, BATCH17_FROM, BATCH18_FROM, BATCH19_FROM, BATCH20_FROM,
           BATCH21_FROM, BATCH22_FROM, BATCH23_FROM, BATCH24_FROM, BATCH25_FROM, BATCH26_FROM,
           BATCH27_FROM, BATCH28_FROM, BATCH29_FROM, BATCH30_FROM, BATCH31_FROM, BATCH32_FROM, BATCH33_FROM,
           BATCH34_FROM, BATCH35_FROM, BATCH36_FROM, BATCH37_FROM, BATCH38_FROM, BATCH39_FROM, BATCH40_FROM,
           BATCH41_FROM, BATCH42_FROM, BATCH43_FROM, BATCH44_FROM, *LATER_FROM)


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
    """id -> 'dev' | 'heldout' | 'heldout2' | ... | LAST_SPLIT by the split rules above."""
    first = [r for r in records if batch(r) == 1]
    second = [r for r in records if batch(r) == 2]
    return {**_split_batch(first, SALT, HELDOUT_SHARE, "heldout"),
            **_split_batch(second, SALT2, HELDOUT2_SHARE, "heldout2"),
            **{r["id"]: f"heldout{n}" for r in records if 3 <= (n := batch(r)) <= 6},
            **{r["id"]: "dev" for r in records if batch(r) == 7},
            **{r["id"]: f"heldout{n - 1}" for r in records if 8 <= (n := batch(r)) <= LAST_BATCH}}


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
