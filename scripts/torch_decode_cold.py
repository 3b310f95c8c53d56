#!/usr/bin/env python3
"""PyTorch's SDPA beside `sdpa bench --decode --kv-copies N`: decode (q_len 1) calls that take N
copies of K and V in turn, so that with copies several times the GPU's last-level cache no call
finds the last call's K and V there (a model whose layers each read their own cache), and with
N = 1 the calls repeat on the same K and V, as ../shared/gpu/torch_sdpa_bench.py --decode times
them. F.scaled_dot_product_attention (enable_gqa), ms per call, CUDA events around a loop of
calls after a warm-up; no mask. With --graph the loop of calls is captured in a CUDA graph and
replayed, so that the time is the GPU's alone (without it, a call's host-side launch can take
longer than its kernels on short caches, and the loop then times the host).

    python3 scripts/torch_decode_cold.py --copies 1 4 --heads 32 8 --hdim 128 \\
        --lens 4096 16384 32768 131072

With --floor it first times the platform's floor for one call: a one-element add, as a loop of
calls and as a CUDA graph (beside read_bandwidth's back-to-back empty dispatches through wgpu).
With --profile it lists, for each length, the kernels one call runs and their GPU time
(torch.profiler, the mean of --iters calls).
"""
import argparse
import math

import torch
import torch.nn.functional as F


def time_ms(fn, iters, graph=False):
    for i in range(5):
        fn(i)
    torch.cuda.synchronize()
    if graph:
        g = torch.cuda.CUDAGraph()
        stream = torch.cuda.Stream()
        stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(stream):
            with torch.cuda.graph(g):
                for i in range(iters):
                    fn(i)
        torch.cuda.current_stream().wait_stream(stream)
        g.replay()
        torch.cuda.synchronize()
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        g.replay()
        end.record()
        torch.cuda.synchronize()
        return start.elapsed_time(end) / iters
    start = torch.cuda.Event(enable_timing=True)
    end = torch.cuda.Event(enable_timing=True)
    start.record()
    for i in range(iters):
        fn(i)
    end.record()
    torch.cuda.synchronize()
    return start.elapsed_time(end) / iters


def profile(fn, iters, L):
    """Prints the kernels `iters` calls of `fn` ran, their count a call and mean GPU us."""
    from torch.profiler import ProfilerActivity, profile as prof

    torch.cuda.synchronize()
    with prof(activities=[ProfilerActivity.CUDA]) as p:
        for i in range(iters):
            fn(i)
        torch.cuda.synchronize()
    for e in p.key_averages():
        us = getattr(e, "device_time", None)
        if us is None:
            us = e.cuda_time
        if e.count:
            print(f"# kernels at {L}: {e.count / iters:.0f} a call, {us:.2f} us, {e.key[:100]}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dtype", default="float16")
    ap.add_argument("--hdim", type=int, default=128)
    ap.add_argument("--heads", nargs=2, type=int, default=[32, 8], metavar=("N_QH", "N_KVH"))
    ap.add_argument("--lens", nargs="+", type=int, default=[4096, 16384, 32768, 131072])
    ap.add_argument("--copies", nargs="+", type=int, default=[1, 4])
    ap.add_argument("--iters", type=int, default=50)
    ap.add_argument("--graph", action="store_true", help="time a CUDA graph of the calls")
    ap.add_argument("--floor", action="store_true", help="time a one-element add first")
    ap.add_argument("--profile", action="store_true", help="list each call's kernels")
    a = ap.parse_args()
    dtype = getattr(torch, a.dtype)
    hq, hkv = a.heads
    d = a.hdim
    print(f"# torch {torch.__version__} on {torch.cuda.get_device_name()}")
    print(f"# {'a CUDA graph of' if a.graph else 'a loop of'} {a.iters} calls")
    if a.floor:
        x = torch.zeros(1, device="cuda")
        for graph in (False, True):
            ms = time_ms(lambda i: x.add_(1.0), 200, graph)
            print(f"# floor: one-element add, {'CUDA graph' if graph else 'loop'}: "
                  f"{ms * 1e3:.2f} us a call")
    print("  ksl, copies, t_fuse_ms, KV_GBps")
    for L in a.lens:
        for n in a.copies:
            q = torch.randn(1, hq, 1, d, device="cuda", dtype=dtype)
            kv = [(torch.randn(1, hkv, L, d, device="cuda", dtype=dtype),
                   torch.randn(1, hkv, L, d, device="cuda", dtype=dtype)) for _ in range(n)]
            scale = 1.0 / math.sqrt(d)

            def call(i):
                k, v = kv[i % n]
                return F.scaled_dot_product_attention(q, k, v, scale=scale, enable_gqa=hq > hkv)

            ms = time_ms(call, a.iters, a.graph)
            gbps = 2 * hkv * L * d * q.element_size() / (ms * 1e-3) / 1e9
            print(f"{L:6d}, {n:6d}, {ms:9.4f}, {gbps:8.1f}")
            if a.profile and n == a.copies[-1]:
                try:
                    profile(call, a.iters, L)
                except Exception as e:  # the profiler is an extra: never lose the timings
                    print(f"# profile at {L} failed: {e}")
            del kv
            torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
