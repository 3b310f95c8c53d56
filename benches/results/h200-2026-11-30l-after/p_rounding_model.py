# A CPU model of tests/numerics.rs additive_minus_infinity_never_gives_nan, decode f16 case, as the
# cooperative-matrix decode kernel computes it (32-key tiles, the row max raised lazily past 8 in
# log2 units, P rounded to f16 for P V): the output error with the row sums taken over the f32 P
# ("f32 l") and over the rounded P ("consistent"). python3 p_rounding_model.py
import numpy as np
class Rng:
    def __init__(s, seed): s.x = seed
    def next(s):
        x = s.x
        x ^= (x << 13) & 0xFFFFFFFFFFFFFFFF
        x ^= x >> 7
        x ^= (x << 17) & 0xFFFFFFFFFFFFFFFF
        s.x = x
        return (x >> 11) / float(1 << 53)
def r16(a): return np.asarray(a, dtype=np.float64).astype(np.float16).astype(np.float64)
b,h,lq,lk,d = 2,2,32,70,64
rng = Rng(99)
n = b*h*lq*lk
mask = np.empty(n)
for i in range(n):
    key = i % lk
    if key < 10 or rng.next() < 0.5: mask[i] = -np.inf
    else: mask[i] = r16(rng.next()*40-20)
def uni(n, lo, hi): return np.array([lo + (hi-lo)*rng.next() for _ in range(n)])
q = r16(uni(b*h*lq*d, -2, 2)).reshape(b,h,lq,d)
k = r16(uni(b*h*lk*d, -2, 2)).reshape(b,h,lk,d)
v = r16(uni(b*h*lk*d, 0, 1)).reshape(b,h,lk,d)
mask = mask.reshape(b,h,lq,lk)
scale = 1/np.sqrt(d)
s = np.einsum('bhid,bhjd->bhij', q, k)*scale + mask
ref = np.exp(s - s.max(-1, keepdims=True)); ref = ref/ref.sum(-1, keepdims=True)
ref = np.einsum('bhij,bhjd->bhid', ref, v)
# kernel sim: log2 units, tiles of 32, lazy max 8, P f16
LOG2E = 1.4426950408889634
sl = (np.einsum('bhid,bhjd->bhij', q, k).astype(np.float32)*np.float32(scale*LOG2E)).astype(np.float64) + mask*LOG2E
out = np.zeros_like(ref); out32 = np.zeros_like(ref)
for bb in range(b):
  for hh in range(h):
    for i in range(lq):
      m = -1e30; l = 0.0; o = np.zeros(d); l2=0.0; o2=np.zeros(d)
      for t0 in range(0, lk, 32):
        x = sl[bb,hh,i,t0:t0+32]
        mt = np.max(x) if len(x) else -np.inf
        if mt > m + 8:
            a = 2.0**(m-mt); m = mt; l*=a; o*=a; l2*=a; o2*=a
        p = 2.0**(x - m)
        ph = r16(p)
        l += ph.sum(); o += ph @ v[bb,hh,t0:t0+32]
        l2 += p.sum(); o2 += ph @ v[bb,hh,t0:t0+32]
      out[bb,hh,i] = r16(o/l); out32[bb,hh,i] = r16(o2/l2)
flat_ref = ref.reshape(-1); 
for name, o in [("consistent", out), ("f32 l", out32)]:
    f = o.reshape(-1); diff = np.abs(f-flat_ref); ex = diff - 3e-4*np.abs(flat_ref)
    print(name, "max diff", diff.max(), "worst excess", ex.max(), "at", ex.argmax(), "diff@7245", diff[7245], "ref", flat_ref[7245])
fr = r16(ref).reshape(-1); print("just rounding ref to f16: max excess", (np.abs(fr-flat_ref)-3e-4*np.abs(flat_ref)).max())
