#!/usr/bin/env python3
"""PyTorch beside `sdpa bench --len Q --kv-len K`: short queries against long caches (chunked
prefill, speculative decoding), which ../shared/gpu/torch_sdpa_bench.py (q_len = kv_len, or 1)
does not time. Same columns as that script: unfused (matmul -> softmax -> matmul, K/V heads
repeated for GQA) and F.scaled_dot_product_attention (enable_gqa), in ms per call, timed with
CUDA events around a loop of calls after a warm-up; no mask.

    python3 scripts/torch_short_queries.py --dtype float16 float32 --hdim 64 128 \\
        --heads 32 8 --q-lens 9 16 32 --kv-lens 512 2048 4096 16384
"""
import argparse
import json
import math

import torch
import torch.nn.functional as F


def time_ms(fn, iters):
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    start = torch.cuda.Event(enable_timing=True)
    end = torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(iters):
        fn()
    end.record()
    torch.cuda.synchronize()
    return start.elapsed_time(end) / iters


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dtype", nargs="+", default=["float16", "float32"])
    ap.add_argument("--hdim", nargs="+", type=int, default=[64, 128])
    ap.add_argument("--heads", nargs=2, type=int, default=[32, 8], metavar=("N_QH", "N_KVH"))
    ap.add_argument("--q-lens", nargs="+", type=int, default=[9, 16, 32])
    ap.add_argument("--kv-lens", nargs="+", type=int, default=[512, 2048, 4096, 16384])
    ap.add_argument("--batch", type=int, default=1)
    ap.add_argument("--iters", type=int, default=100)
    ap.add_argument("--json", help="also write the rows to this file")
    a = ap.parse_args()
    hq, hkv = a.heads
    group = hq // hkv
    print(f"# torch {torch.__version__} on {torch.cuda.get_device_name()}")
    print("  B,   qsl,   ksl, hdim, n_qh, n_kvh, tpose,   dtype,   mask, t_unfs_ms, t_fuse_ms,   diff%, fuse_TFLOPs")
    rows = []
    for name in a.dtype:
        dtype = getattr(torch, name)
        for d in a.hdim:
            for ql in a.q_lens:
                for kl in a.kv_lens:
                    q = torch.randn(a.batch, hq, ql, d, device="cuda", dtype=dtype)
                    k = torch.randn(a.batch, hkv, kl, d, device="cuda", dtype=dtype)
                    v = torch.randn(a.batch, hkv, kl, d, device="cuda", dtype=dtype)
                    scale = 1.0 / math.sqrt(d)

                    def unfused():
                        kk = k.repeat_interleave(group, 1) if group > 1 else k
                        vv = v.repeat_interleave(group, 1) if group > 1 else v
                        p = torch.softmax((q @ kk.transpose(-1, -2)).float() * scale, -1)
                        return p.to(dtype) @ vv

                    def fused():
                        return F.scaled_dot_product_attention(q, k, v, scale=scale, enable_gqa=group > 1)

                    tu = time_ms(unfused, a.iters)
                    tf = time_ms(fused, a.iters)
                    tflops = 4.0 * a.batch * hq * ql * kl * d / (tf * 1e-3) / 1e12
                    diff = (tu / tf - 1.0) * 100.0
                    print(f"{a.batch:3d}, {ql:5d}, {kl:5d}, {d:4d}, {hq:4d}, {hkv:5d}, {0:5d}, {name:>7}, {'none':>6}, {tu:9.4f}, {tf:9.4f}, {diff:+7.2f}%, {tflops:9.1f}")
                    rows.append(dict(B=a.batch, qsl=ql, ksl=kl, hdim=d, n_qh=hq, n_kvh=hkv, dtype=name,
                                     mask="none", t_unfs_ms=tu, t_fuse_ms=tf, fuse_tflops=tflops))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
