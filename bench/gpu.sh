#!/usr/bin/env bash
# What amplora checks on a GPU, in one go (a borrowed GPU's time is short). Each part writes its log to OUT_DIR.
#
#   bench/gpu.sh OUT_DIR [PART ...]      PART: preflight tests smoke bench bench-1b bench-graphs bench-large train
#                                        (default: all)
#
#   preflight  `amplora doctor`: versions, devices, probed kernels, what precision=auto resolves to
#   tests      the device-aware tests with AMPLORA_TEST_DEVICE=cuda: the precision matrix (LoRA/DoRA x dense/NF4 x
#              fp32/fp16/bf16 base x 4 presets x 6 phases, against fp32 PEFT on the same GPU), the fused kernel's
#              fp64 gradchecks and dtype matrix, and the five reported failures (S000-S004)
#   smoke      `amplora train --model tiny` on cuda under every preset, LoRA/DoRA/QLoRA, and with --compile, 6 steps each
#   bench      bench/speed.py --device cuda (bf16) at 4x256, as on the CPU; bench-large: at 8x2048
#   bench-1b   the same at 8x1024 on Llama-3.2-1B's shapes (random weights)
#   bench-graphs  4x256, each decoder layer compiled with mode="reduce-overhead": its kernels replayed as CUDA graphs
#   train      `amplora train` with its embedded defaults on cuda (the README's main job)
#
# $PY (default .venv/bin/python) must import amplora, its deps and peft; CUDA must be available.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${1:?usage: bench/gpu.sh OUT_DIR [preflight tests smoke bench bench-1b bench-graphs bench-large train]}
shift
PARTS=${*:-preflight tests smoke bench bench-1b bench-graphs bench-large train}
PY=${PY:-.venv/bin/python}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1 HF_HUB_OFFLINE=1
status=0

part() {  # name, command...: run it, keep its log, say how it ended
    local name=$1 t0=$SECONDS rc
    shift
    "$@" >"$OUT/$name.log" 2>&1
    rc=$?
    echo "== $name: exit $rc in $((SECONDS - t0)) s"
    tail -n "${TAIL:-6}" "$OUT/$name.log"
    [ $rc -eq 0 ] || status=1
}

for p in $PARTS; do
    case $p in
    preflight) part preflight "$PY" -m amplora doctor ;;
    tests) TAIL=12 part tests env AMPLORA_TEST_DEVICE=cuda "$PY" -m pytest -q -p no:cacheprovider \
        tests/adapters/test_matrix.py tests/adapters/fast/test_node.py tests/adapters/test_regressions.py ;;
    smoke)
        for cfg in "lora fp32" "lora bf16-true" "dora bf16-mixed" "dora fp16-mixed" "lora-nf4 bf16-true" \
                   "dora-nf4 bf16-mixed"; do
            set -- $cfg
            method=${1%-nf4}
            quant=$([ "$1" != "$method" ] && echo nf4 || echo none)
            TAIL=3 part "smoke-$1-$2" "$PY" -m amplora train --model tiny --device cuda --method "$method" \
                --quantize "$quant" --precision "$2" --max-steps 6 --eval-every 3 --output "$OUT/runs/smoke-$1-$2"
        done
        TAIL=3 part smoke-compile "$PY" -m amplora train --model tiny --device cuda --compile --precision bf16-true \
            --max-steps 6 --eval-every 3 --output "$OUT/runs/smoke-compile" ;;
    bench)
        TAIL=14 part bench "$PY" bench/speed.py --device cuda --steps 10 --warmup 3 \
            --json "$OUT/bench-4x256.json" ${BENCH_ARGS:-} ;;
    bench-1b)
        TAIL=14 part bench-1b "$PY" bench/speed.py --device cuda --model llama-3.2-1b --batch 8 --seq 1024 \
            --steps 10 --warmup 3 --json "$OUT/bench-1b-8x1024.json" ${BENCH_ARGS:-} ;;
    bench-graphs)  # CUDA graphs record on the third call: more warmup steps
        TAIL=20 part bench-graphs "$PY" bench/speed.py --device cuda --compile-mode reduce-overhead --compile-regions \
            --steps 20 --warmup 4 --configs floor,amplora-lora,amplora-dora,peft-lora,peft-dora \
            --json "$OUT/bench-graphs-4x256.json" ${BENCH_ARGS:-} ;;
    bench-large)  # an H100 is launch-bound up to 8x1024 (63-72 ms a floor step) and GPU-bound at 16x2048 (195 ms),
        # where PEFT DoRA runs out of 80 GB: 16k tokens
        TAIL=14 part bench-8x2048 "$PY" bench/speed.py --device cuda --batch 8 --seq 2048 --steps 10 --warmup 3 \
            --json "$OUT/bench-8x2048.json" ${BENCH_ARGS:-} ;;
    train) TAIL=25 part train "$PY" -m amplora train --device cuda --output "$OUT/runs/default" ;;
    *) echo "unknown part $p"; status=2 ;;
    esac
done
exit $status
