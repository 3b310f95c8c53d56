#!/usr/bin/env python3
"""Merges one device run's `sdpa bench --json` output with `torch_sdpa_bench.py`'s printed rows
into the markdown table of BENCHMARKS.md.

    python3 scripts/bench_table.py benches/results/h200-2026-11-29
"""
import json
import sys


def torch_rows(path):
    rows = {}
    for line in open(path):
        parts = [p.strip() for p in line.split(",")]
        if len(parts) != 13 or not parts[0].isdigit():
            continue
        b, qsl, ksl, hdim, nqh, nkvh, _tpose, dtype, mask, tu, tf, _diff, tflops = parts
        dtype = {"float16": "f16", "float32": "f32"}[dtype]
        rows[(dtype, int(hdim), int(qsl), int(nqh), int(nkvh), mask)] = (float(tu), float(tf), float(tflops))
    return rows


def main():
    folder = sys.argv[1]
    ours = json.load(open(f"{folder}/bench.json"))["rows"]
    torch = torch_rows(f"{folder}/torch.txt")
    print("| dtype | hdim | L | heads | mask | ours unfused ms | ours fused ms | fused vs unfused | fused TFLOP/s | fused kernel | torch unfused ms | torch SDPA ms | torch SDPA TFLOP/s | ours / torch SDPA |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in ours:
        key = (r["dtype"], r["hdim"], r["qsl"], r["n_qh"], r["n_kvh"], r["mask"])
        u, f = r["unfused"], r["fused"]
        ratio = f"{u['ms'] / f['ms']:.2f}x" if u["ms"] and f["ms"] else "n/a"
        kernel = "coop 16x16" if f["plan"].startswith("fused-coop") else "portable"
        t = torch.get(key)
        tcols = f"{t[0]:.3f} | {t[1]:.3f} | {t[2]:.1f} | {100 * f['tflops'] / t[2]:.1f}%" if t else "| | |"
        print(
            f"| {r['dtype']} | {r['hdim']} | {r['qsl']} | {r['n_qh']}/{r['n_kvh']} | {r['mask']} | "
            f"{u['ms']:.3f} | {f['ms']:.3f} | {ratio} | {f['tflops']:.2f} | {kernel} | {tcols} |"
        )


if __name__ == "__main__":
    main()
