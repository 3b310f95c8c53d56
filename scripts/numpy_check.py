#!/usr/bin/env python3
"""Cross-checks `sdpa run` against an attention computed independently in numpy (float64).

Writes q, k, v (and masks) with numpy + safetensors, runs the tool, reads `out` back and applies
MLX's criterion max(|out - ref| - atol*|ref|) <= atol (f32 atol 2e-5, f16 3e-4).
Fully masked rows must be zeros (the library's documented rule).

    python3 scripts/numpy_check.py target/release/sdpa
"""
import os
import subprocess
import sys
import tempfile
import zlib

import numpy as np
from safetensors.numpy import load_file, save_file

ATOL = {np.float32: 2e-5, np.float16: 3e-4}


def reference(q, k, v, scale, mask=None, causal=None):
    """softmax(scale * q k^T + mask) v in float64; keys excluded by a false boolean entry, the
    causal mask or an additive -inf are left out; rows with no key left are zeros."""
    q, k, v = (x.astype(np.float64) for x in (q, k, v))
    b, hq, lq, d = q.shape
    hkv, lk = k.shape[1], k.shape[2]
    k = np.repeat(k, hq // hkv, axis=1)
    v = np.repeat(v, hq // hkv, axis=1)
    s = scale * np.einsum("bhid,bhjd->bhij", q, k)
    keep = np.ones((b, hq, lq, lk), dtype=bool)
    if causal is not None:
        shift = lk - lq if causal == "bottom-right" else 0
        i = np.arange(lq)[:, None]
        j = np.arange(lk)[None, :]
        keep &= j <= i + shift
    if mask is not None:
        if mask.dtype == np.bool_:
            keep &= np.broadcast_to(mask, keep.shape)
        else:
            add = np.broadcast_to(mask.astype(np.float64), keep.shape)
            keep &= add != -np.inf
            s = s + np.where(np.isneginf(add), 0.0, add)
    s = np.where(keep, s, -np.inf)
    row_max = s.max(axis=-1, keepdims=True)
    row_max = np.where(np.isfinite(row_max), row_max, 0.0)
    p = np.where(keep, np.exp(s - row_max), 0.0)
    total = p.sum(axis=-1, keepdims=True)
    out = np.einsum("bhij,bhjd->bhid", p, v)
    return np.where(total > 0, out / np.where(total > 0, total, 1.0), 0.0)


def run_case(sdpa, name, dtype, shapes, mask=None, causal=None, extra=()):
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    (b, hq, hkv, lq, lk, d, dv) = shapes
    scale = 1.0 / np.sqrt(d)
    q = rng.uniform(0, 0.5, (b, hq, lq, d)).astype(dtype)
    k = rng.uniform(0, 0.5, (b, hkv, lk, d)).astype(dtype)
    v = rng.uniform(0, 1.0, (b, hkv, lk, dv)).astype(dtype)
    tensors = {"q": q, "k": k, "v": v}
    if mask is not None:
        tensors["mask"] = mask
    with tempfile.TemporaryDirectory() as tmp:
        src, dst = os.path.join(tmp, "in.safetensors"), os.path.join(tmp, "out.safetensors")
        save_file(tensors, src)
        args = [sdpa, "run", "--input", src, "--output", dst, *extra]
        if causal == "bottom-right":
            args.append("--causal")
        elif causal == "top-left":
            args.append("--causal-top-left")
        done = subprocess.run(args, capture_output=True, text=True)
        if done.returncode != 0:
            print(f"FAIL {name}: sdpa run exited {done.returncode}: {done.stderr.strip()}")
            return False
        out = load_file(dst)["out"]
    ref = reference(q, k, v, scale, mask, causal)
    if out.shape != ref.shape or out.dtype != dtype:
        print(f"FAIL {name}: out is {out.dtype}{list(out.shape)}, expected {np.dtype(dtype)}{list(ref.shape)}")
        return False
    atol = ATOL[dtype]
    excess = np.max(np.abs(out.astype(np.float64) - ref) - atol * np.abs(ref))
    ok = bool(excess <= atol) and bool(np.all(np.isfinite(out)))
    print(f"{'PASS' if ok else 'FAIL'} {name}: max|diff| {np.max(np.abs(out - ref)):.3e}, excess {excess:.3e} (atol {atol})")
    return ok


def main():
    sdpa = sys.argv[1] if len(sys.argv) > 1 else "target/release/sdpa"
    rng = np.random.default_rng(3)
    padding = rng.uniform(size=(2, 1, 1, 45)) < 0.8
    padding[0, 0, 0, :] = False  # batch 0 sees no key: zeros
    additive = np.where(rng.uniform(size=(33, 45)) < 0.1, -np.inf, rng.uniform(-2, 1, (33, 45)))
    cases = [
        ("f32 mha 40x33 d64", np.float32, (2, 4, 4, 40, 33, 64, 64), None, None),
        ("f16 gqa 8/2 64x64 d128", np.float16, (1, 8, 2, 64, 64, 128, 128), None, None),
        ("f32 causal bottom-right 33x77", np.float32, (1, 2, 1, 33, 77, 64, 64), None, "bottom-right"),
        ("f16 causal top-left 77x33", np.float16, (1, 2, 2, 77, 33, 32, 32), None, "top-left"),
        ("f32 key padding [B,1,1,Lk]", np.float32, (2, 2, 2, 33, 45, 64, 64), padding, None),
        ("f16 additive [Lq,Lk] with -inf", np.float16, (1, 2, 2, 33, 45, 64, 64), additive.astype(np.float16), None),
        ("f32 decode 1x300 dv!=d", np.float32, (1, 4, 1, 1, 300, 64, 32), None, None),
    ]
    results = [run_case(sdpa, *c) for c in cases]
    results.append(run_case(sdpa, "f32 unfused path", np.float32, (1, 2, 2, 40, 50, 64, 64), extra=("--path", "unfused")))
    print(f"{sum(results)} of {len(results)} numpy cross-checks passed")
    sys.exit(0 if all(results) else 1)


if __name__ == "__main__":
    main()
