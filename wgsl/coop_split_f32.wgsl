// wgsl/fused_coop.wgsl on f32 tensors with f16 fragments (the "split"; the kernel's header says
// how). The factors are powers of two from each head's largest magnitude, which
// wgsl/split_scales.wgsl wrote as CHUNKS partial maxima per (tensor, batch, head) just before, in
// the same pass: Q's B * q_heads slots, then K's B * kv_heads, then V's.
const SPLIT: u32 = 1u;

override CHUNKS: u32 = 16u;

// The maxima come through `split_max` (wgsl/coop_maxima_whole.wgsl: a binding of their own;
// wgsl/coop_maxima_split.wgsl: after the split partial results, keys split over workgroups).

// K's and V's factors, for `put_word` (wgsl/coop_word_split.wgsl).
var<private> kv_factors: vec2<f32>;

// P's factor, log2 (see Factors).
const P_LOG2: i32 = 6;

fn slot_max(slot: u32) -> f32 {
    var m = 0.0;
    for (var c = 0u; c < CHUNKS; c++) {
        m = max(m, split_max(slot * CHUNKS + c));
    }
    return m;
}

// The exponent e with m * 2^e in [2^14, 2^15) (the largest f16 is 65504): 0 for a head of zeros
// or a non-finite maximum. Capped at 60 (a head whose largest magnitude is below 2^-45 keeps
// fewer significant bits), never below what keeps every value finite in f16.
fn exponent_for(m: f32) -> i32 {
    if (!(m > 0.0) || !(m <= 3.4028235e38)) {
        return 0;
    }
    return min(15 - frexp(m).exp, 60);
}

fn head_factors(b: u32, h: u32, kv_head: u32) -> Factors {
    let eq = exponent_for(slot_max(b * p.q_heads + h));
    let ek = exponent_for(slot_max(p.batch * p.q_heads + b * p.kv_heads + kv_head));
    let ev = exponent_for(slot_max(p.batch * (p.q_heads + p.kv_heads) + b * p.kv_heads + kv_head));
    kv_factors = vec2<f32>(ldexp(1.0, ek), ldexp(1.0, ev));
    return Factors(
        ldexp(1.0, eq),
        kv_factors.x,
        kv_factors.y,
        ldexp(1.0, -(eq + ek)),
        ldexp(1.0, P_LOG2),
        ldexp(1.0, -(ev + P_LOG2)),
    );
}

// a + b element by element, in f32 with rounding to nearest (Vulkan's fragment arithmetic).
fn add_frag(a: frag_c, b: frag_c) -> frag_c {
    return a + b;
}
