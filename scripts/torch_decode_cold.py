#!/usr/bin/env python3
"""PyTorch's SDPA beside `sdpa bench --decode --kv-copies N`: decode (q_len 1) calls that take N
copies of K and V in turn, so that with copies several times the GPU's last-level cache no call
finds the last call's K and V there (a model whose layers each read their own cache), and with
N = 1 the calls repeat on the same K and V, as ../shared/gpu/torch_sdpa_bench.py --decode times
them. F.scaled_dot_product_attention (enable_gqa), ms per call, CUDA events around a loop of
calls after a warm-up; no mask. With --graph the loop of calls is captured in a CUDA graph and
replayed, so that the time is the GPU's alone (without it, a call's host-side launch can take
longer than its kernels on short caches, and the loop then times the host). With --isolated
each call has CUDA events of its own, recorded behind a sleeping kernel so that the host's
launches wait in the queue, and the GPU idle after each (the median of --iters calls): the way
`sdpa bench` times a call by the timestamps of a compute pass of its own.

    python3 scripts/torch_decode_cold.py --copies 1 4 --heads 32 8 --hdim 128 \\
        --lens 4096 16384 32768 131072

With --floor it first times the platform's floor for one call: a one-element add, as a loop of
calls and as a CUDA graph (beside read_bandwidth's back-to-back empty dispatches through wgpu).
With --copy it first times PyTorch's device copy (`dst.copy_(src)`) of the same bytes as each
length's K and V and of 1 GiB, and a read of them alone (a sum), by all three clocks (a loop, a
CUDA graph, each call alone): the copy bandwidth issue #5's target is a share of (counted as
bytes read plus bytes written). Run 188 (BENCHMARKS.md, fortieth session) took

    python3 scripts/torch_decode_cold.py --copy --isolated --copies 1 4 \\
        --lens 16384 32768 65536 131072

With --profile it lists, for each length, the kernels one call runs and their GPU time
(torch.profiler, the mean of --iters calls).
"""
import argparse
import math

import torch
import torch.nn.functional as F


def time_isolated(fn, iters):
    """The median of `iters` calls, each between CUDA events of its own, the GPU idle before
    each: the events and the call are queued behind a sleeping kernel, so that the start event
    is not written before the host has launched the call."""
    times = []
    for i in range(iters):
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        torch.cuda._sleep(1_000_000)
        start.record()
        fn(i)
        end.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(end))
    times.sort()
    return times[len(times) // 2]


def time_ms(fn, iters, graph=False, isolated=False):
    for i in range(5):
        fn(i)
    torch.cuda.synchronize()
    if isolated:
        return time_isolated(fn, iters)
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


def copies(a, dtype, hkv, d):
    """Prints PyTorch's device copy and read bandwidth on each length's K and V bytes and on
    1 GiB, by each clock: a loop of calls, a CUDA graph of them, calls each by itself."""
    size = torch.tensor([], dtype=dtype).element_size()
    sizes = [(f"K+V at {L}", 2 * hkv * L * d) for L in a.lens] + [("1 GiB", (1 << 30) // size)]
    for label, n in sizes:
        src = [torch.randn(n, device="cuda", dtype=dtype) for _ in range(2)]
        dst = torch.empty(n, device="cuda", dtype=dtype)
        gb = n * size / 1e9
        for name, fn, moved in [
            ("copy", lambda i: dst.copy_(src[i % 2]), 2 * gb),
            ("read (sum)", lambda i: src[i % 2].sum(dtype=torch.float32), gb),
        ]:
            line = []
            for clock, graph, isolated in [("loop", False, False), ("graph", True, False),
                                           ("each alone", False, True)]:
                ms = time_ms(fn, a.iters, graph, isolated)
                line.append(f"{clock} {ms * 1e3:.1f} us {moved / (ms * 1e-3):.0f} GB/s")
            print(f"# {name} of {label} ({gb * 1e3:.1f} MB, {moved * 1e3:.1f} MB moved): "
                  + "; ".join(line))
        del src, dst
        torch.cuda.empty_cache()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dtype", default="float16")
    ap.add_argument("--hdim", type=int, default=128)
    ap.add_argument("--heads", nargs=2, type=int, default=[32, 8], metavar=("N_QH", "N_KVH"))
    ap.add_argument("--lens", nargs="+", type=int, default=[4096, 16384, 32768, 131072])
    ap.add_argument("--copies", nargs="+", type=int, default=[1, 4])
    ap.add_argument("--iters", type=int, default=50)
    ap.add_argument("--graph", action="store_true", help="time a CUDA graph of the calls")
    ap.add_argument("--isolated", action="store_true",
                    help="each call between events of its own, the GPU idle before it")
    ap.add_argument("--copy", action="store_true", help="time device copies and reads first")
    ap.add_argument("--floor", action="store_true", help="time a one-element add first")
    ap.add_argument("--profile", action="store_true", help="list each call's kernels")
    a = ap.parse_args()
    dtype = getattr(torch, a.dtype)
    hq, hkv = a.heads
    d = a.hdim
    print(f"# torch {torch.__version__} on {torch.cuda.get_device_name()}")
    clock = ("calls each between events of their own" if a.isolated
             else "a CUDA graph of calls" if a.graph else "a loop of calls")
    print(f"# {clock}, {a.iters} of them")
    if a.floor:
        x = torch.zeros(1, device="cuda")
        for graph in (False, True):
            ms = time_ms(lambda i: x.add_(1.0), 200, graph)
            print(f"# floor: one-element add, {'CUDA graph' if graph else 'loop'}: "
                  f"{ms * 1e3:.2f} us a call")
    if a.copy:
        copies(a, dtype, hkv, d)
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

            ms = time_ms(call, a.iters, a.graph, a.isolated)
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
