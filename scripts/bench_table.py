#!/usr/bin/env python3
"""Merges one device run's `sdpa bench --json` output with `torch_sdpa_bench.py`'s printed rows
into the markdown tables of BENCHMARKS.md (the files `scripts/h200_bench.sh` writes).

    python3 scripts/bench_table.py benches/results/h200-2026-11-29             # main table
    python3 scripts/bench_table.py benches/results/h200-2026-11-29 --portable  # portable f16 (f32)
    python3 scripts/bench_table.py benches/results/h200-2026-11-29 --decode    # decode sweep
    python3 scripts/bench_table.py DIR --decode decode-1.json   # another run's file in DIR
    python3 scripts/bench_table.py DIR --short   # short queries against long caches
"""
import json
import os
import sys


def torch_lines(path):
    """The fields of each row `torch_sdpa_bench.py` printed."""
    for line in open(path):
        parts = [p.strip() for p in line.split(",")]
        if len(parts) == 13 and parts[0].isdigit():
            yield parts


def torch_rows(path):
    rows = {}
    for parts in torch_lines(path):
        b, qsl, ksl, hdim, nqh, nkvh, _tpose, dtype, mask, tu, tf, _diff, tflops = parts
        dtype = {"float16": "f16", "float32": "f32"}[dtype]
        rows[(dtype, int(hdim), int(qsl), int(nqh), int(nkvh), mask)] = (float(tu), float(tf), float(tflops))
    return rows


def bench_rows(path):
    """The rows of `sdpa bench`'s printed table (no --json), as dicts by column name."""
    rows, header = [], None
    for line in open(path):
        parts = [p.strip() for p in line.split(",")]
        if parts[0] == "B":
            header = parts
        elif header and parts[0].isdigit():
            rows.append(dict(zip(header, parts[:len(header) - 1] + [", ".join(parts[len(header) - 1:])])))
    return rows


def portable(folder):
    print("| dtype | hdim | L | heads | mask | unfused ms | portable fused ms | fused vs unfused | fused TFLOP/s |")
    print("|---|---|---|---|---|---|---|---|---|")
    files = [f"{folder}/{n}" for n in ("portable.txt", "portable-f32.txt")]
    for r in (r for path in files if os.path.exists(path) for r in bench_rows(path)):
        u, f = float(r["t_unfs"]), float(r["t_fuse"])
        print(
            f"| {r['dtype']} | {r['hdim']} | {r['qsl']} | {r['n_qh']}/{r['n_kvh']} | {r['mask']} | "
            f"{u:.3f} | {f:.3f} | {u / f:.2f}x | {float(r['fuse_TFLOPs']):.2f} |"
        )


def decode(folder, name="decode.json"):
    ours = json.load(open(f"{folder}/{name}"))["rows"]
    torch = torch_by_ksl(f"{folder}/torch-decode.txt")
    # "b2b": the calls back to back between two encoder timestamps, as torch_sdpa_bench.py times
    # a loop of calls with CUDA events; the ratio to PyTorch uses it (like with like).
    # "b2b 1 pass": the same calls recorded in one compute pass (Attention::encode_in_pass).
    print("| kv_len | ours unfused ms | ours decode ms | decode vs unfused | decode GB/s | decode b2b ms | decode b2b GB/s | decode b2b 1 pass ms | decode plan | torch unfused ms | torch SDPA ms | torch SDPA GB/s | ours (b2b) / torch SDPA |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in ours:
        u, f = r["unfused"]["ms"], r["fused"]["ms"]
        b2b = r["fused"].get("back_to_back_ms")
        plan = r["fused"]["plan"].split(":")[0].removeprefix("vector ")
        t = torch.get(r["ksl"])
        tcols = (
            f"{t[0]:.4f} | {t[1]:.4f} | {r['kv_bytes'] / t[1] / 1e6:.0f} | "
            + (f"{100 * t[1] / b2b:.0f}%" if b2b else "n/a")
            if t else "| | |"
        )
        bcols = f"{b2b:.4f} | {r['kv_bytes'] / b2b / 1e6:.0f}" if b2b else "n/a | n/a"
        one = r["fused"].get("back_to_back_one_pass_ms")
        bcols += f" | {one:.4f}" if one else " | n/a"
        print(
            f"| {r['ksl']} | {u:.3f} | {f:.4f} | {u / f:.1f}x | {r['fused_kv_gbps']:.0f} | {bcols} | {plan} | {tcols} |"
        )


def torch_by_ksl(path):
    """PyTorch's decode rows (q_len 1) by key length: (unfused ms, SDPA ms)."""
    return {int(p[2]): (float(p[9]), float(p[10])) for p in torch_lines(path)}


def short(folder):
    """Short queries against long caches: the planner's kernel (short.json), the fused kernel
    (short-fused.json, `--no-decode`) and PyTorch (torch-short.txt, torch_short_queries.py)."""
    ours = json.load(open(f"{folder}/short.json"))["rows"]
    fused = {
        (r["dtype"], r["hdim"], r["qsl"], r["ksl"]): r["fused"]
        for r in json.load(open(f"{folder}/short-fused.json"))["rows"]
    }
    torch = {
        ({"float16": "f16", "float32": "f32"}[p[7]], int(p[3]), int(p[1]), int(p[2])): float(p[10])
        for p in torch_lines(f"{folder}/torch-short.txt")
    }
    print("| dtype | hdim | q_len | kv_len | ours unfused ms | ours fused ms | planner's ms | planner's kernel | vs unfused | vs fused | planner's b2b ms | torch SDPA ms | ours (b2b) / torch SDPA |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in ours:
        key = (r["dtype"], r["hdim"], r["qsl"], r["ksl"])
        u, p = r["unfused"]["ms"], r["fused"]["ms"]
        f = fused.get(key, {}).get("ms")
        kernel = r["fused"]["plan"].split(" ")[0]
        b2b = r["fused"].get("back_to_back_ms")
        t = torch.get(key)
        print(
            f"| {r['dtype']} | {r['hdim']} | {r['qsl']} | {r['ksl']} | {u:.3f} | "
            + (f"{f:.3f}" if f else "n/a")
            + f" | {p:.3f} | {kernel} | {u / p:.2f}x | "
            + (f"{f / p:.2f}x" if f else "n/a")
            + " | "
            + (f"{b2b:.4f}" if b2b else "n/a")
            + " | "
            + (f"{t:.4f} | {100 * t / b2b:.0f}%" if t and b2b else "| ")
            + " |"
        )


def main():
    folder = sys.argv[1]
    if "--short" in sys.argv:
        return short(folder)
    if "--portable" in sys.argv:
        return portable(folder)
    if "--decode" in sys.argv:
        rest = sys.argv[sys.argv.index("--decode") + 1:]
        return decode(folder, *rest[:1])
    ours = json.load(open(f"{folder}/bench.json"))["rows"]
    torch = torch_rows(f"{folder}/torch.txt")
    print("| dtype | hdim | L | heads | mask | ours unfused ms | ours fused ms | fused vs unfused | fused TFLOP/s | fused kernel | torch unfused ms | torch SDPA ms | torch SDPA TFLOP/s | ours / torch SDPA |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in ours:
        key = (r["dtype"], r["hdim"], r["qsl"], r["n_qh"], r["n_kvh"], r["mask"])
        u, f = r["unfused"], r["fused"]
        ratio = f"{u['ms'] / f['ms']:.2f}x" if u["ms"] and f["ms"] else "n/a"
        kernel = "portable"
        if f["plan"].startswith("fused-coop"):
            kernel = "coop 16x16 split" if "split=" in f["plan"] else "coop 16x16"
        t = torch.get(key)
        tcols = f"{t[0]:.3f} | {t[1]:.3f} | {t[2]:.1f} | {100 * f['tflops'] / t[2]:.1f}%" if t else "| | |"
        print(
            f"| {r['dtype']} | {r['hdim']} | {r['qsl']} | {r['n_qh']}/{r['n_kvh']} | {r['mask']} | "
            f"{u['ms']:.3f} | {f['ms']:.3f} | {ratio} | {f['tflops']:.2f} | {kernel} | {tcols} |"
        )


if __name__ == "__main__":
    main()
