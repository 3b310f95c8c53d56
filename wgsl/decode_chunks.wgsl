// The decode kernels' K/V chunks, per-thread state and output (after wgsl/vector.wgsl or
// wgsl/vector_subgroup.wgsl, whose overrides RG, VEC, ELEM_BYTES, ABLATE, HEAD_DIM, bindings
// `q`, `k`, `v` and `out` and workgroup array `q_s` (the queries, f32) they use; `partial` and
// `row_dest` are wgsl/split_partial.wgsl's).
//
// A chunk is 8 consecutive elements of a K or V row: 16 bytes of f16 (one `vec4<u32>` load), 32
// of f32 (two). K and V are bound as `array<vec4<u32>>` whatever the dtype. With VEC = 1 the host
// has checked that every offset and stride of K and V is a multiple of 16 bytes, so a chunk is
// whole `vec4<u32>`s; with VEC = 0 (any layout) a chunk is assembled from 32-bit words, every one
// of which lies in a whole `vec4<u32>` of the binding (the host checks that K's and V's required
// bytes, rounded up to words, are a multiple of 16).

// A chunk (8 elements) as loaded: `a` holds all of it for f16, the first half for f32.
struct Raw {
    a: vec4<u32>,
    b: vec4<u32>,
}

// A chunk converted to f32.
struct Chunk {
    lo: vec4<f32>,
    hi: vec4<f32>,
}

// Query vector `r` of the workgroup whose first is `qv0` (within the KV head's group, RG a
// workgroup; wgsl/decode_query.wgsl).
fn query_vector(kv_head: u32, qv0: u32, r: u32) -> QueryVector {
    return query_vector_of(kv_head, qv0, r, RG);
}

// Stages `rows` query vectors of the workgroup whose first is `qv0` in `q_s` as f32, zeros for
// vectors past the group; thread t of `threads`.
fn stage_queries(kv_head: u32, qv0: u32, b: u32, t: u32, rows: u32, threads: u32) {
    let d4 = HEAD_DIM / 4u;
    for (var e = t; e < rows * d4; e += threads) {
        let r = e / d4;
        let d = (e % d4) * 4u;
        let qv = query_vector(kv_head, qv0, r);
        var x = vec4<f32>();
        // ABLATE 64 (profiling, wrong results): no query loads (zeros).
        if (qv.valid && (ABLATE & 64u) == 0u) {
            let at = row_base(p.q, b, qv.h, qv.i) + d;
            x = vec4<f32>(f32(q[at]), f32(q[at + 1u]), f32(q[at + 2u]), f32(q[at + 3u]));
        }
        q_s[e] = x;
    }
}

// Word `w` of K (`from_v` false) or V (true); every call passes a constant, so the branch folds.
fn word_kv(from_v: bool, w: u32) -> u32 {
    if (from_v) {
        return v[w >> 2u][w & 3u];
    }
    return k[w >> 2u][w & 3u];
}

// Vec4 `i` of K or V, as `word_kv`.
fn vec_kv(from_v: bool, i: u32) -> vec4<u32> {
    if (from_v) {
        return v[i];
    }
    return k[i];
}

// Two f16 from the 32-bit words `x` and `y` holding elements (e - 1, e) and (e + 1, e + 2).
fn shift16(x: u32, y: u32) -> u32 {
    return (x >> 16u) | (y << 16u);
}

// Elements [e0, e0 + 8) of K (`from_v` false) or V (true), or zeros where `ok` is false.
fn load_chunk(from_v: bool, e0: u32, ok: bool) -> Raw {
    var r = Raw();
    if (!ok || (ABLATE & 32u) != 0u) {
        return r;
    }
    // ABLATE 128 (profiling, wrong results): every load from the first 2 KiB of K or V, so that
    // they hit the caches while the arithmetic on them stays.
    var e = e0;
    if ((ABLATE & 128u) != 0u) {
        e = e0 & 1023u;
    }
    if (VEC == 1u) {
        if (ELEM_BYTES == 2u) {
            r.a = vec_kv(from_v, e >> 3u);
        } else {
            r.a = vec_kv(from_v, e >> 2u);
            r.b = vec_kv(from_v, (e >> 2u) + 1u);
        }
    } else if (ELEM_BYTES == 2u) {
        let w = e >> 1u;
        let x = vec4<u32>(word_kv(from_v, w), word_kv(from_v, w + 1u), word_kv(from_v, w + 2u),
                          word_kv(from_v, w + 3u));
        r.a = x;
        if ((e & 1u) == 1u) {
            let x4 = word_kv(from_v, w + 4u);
            r.a = vec4<u32>(shift16(x.x, x.y), shift16(x.y, x.z), shift16(x.z, x.w), shift16(x.w, x4));
        }
    } else {
        r.a = vec4<u32>(word_kv(from_v, e), word_kv(from_v, e + 1u), word_kv(from_v, e + 2u),
                        word_kv(from_v, e + 3u));
        r.b = vec4<u32>(word_kv(from_v, e + 4u), word_kv(from_v, e + 5u), word_kv(from_v, e + 6u),
                        word_kv(from_v, e + 7u));
    }
    return r;
}

fn unpack_chunk(r: Raw) -> Chunk {
    if (ELEM_BYTES == 2u) {
        return Chunk(
            vec4<f32>(unpack2x16float(r.a.x), unpack2x16float(r.a.y)),
            vec4<f32>(unpack2x16float(r.a.z), unpack2x16float(r.a.w)),
        );
    }
    return Chunk(bitcast<vec4<f32>>(r.a), bitcast<vec4<f32>>(r.b));
}

// acc + a · b as a chain of FMAs (dot() takes a multiply and an add more).
fn fma_dot(acc: f32, a: vec4<f32>, b: vec4<f32>) -> f32 {
    return fma(a.w, b.w, fma(a.z, b.z, fma(a.y, b.y, fma(a.x, b.x, acc))));
}

// s + q · k over chunk c of query vectors 0 .. 3, as chains of FMAs.
fn add_dots4(s: vec4<f32>, c: u32, x: Chunk) -> vec4<f32> {
    let d4 = HEAD_DIM / 4u;
    return vec4<f32>(
        fma_dot(fma_dot(s.x, q_s[2u * c], x.lo), q_s[2u * c + 1u], x.hi),
        fma_dot(fma_dot(s.y, q_s[d4 + 2u * c], x.lo), q_s[d4 + 2u * c + 1u], x.hi),
        fma_dot(fma_dot(s.z, q_s[2u * d4 + 2u * c], x.lo), q_s[2u * d4 + 2u * c + 1u], x.hi),
        fma_dot(fma_dot(s.w, q_s[3u * d4 + 2u * c], x.lo), q_s[3u * d4 + 2u * c + 1u], x.hi),
    );
}

// q · k of query vector r over the chunks c0 .. c3 (x0 .. x3), one chain of FMAs.
fn dot_chunks(r: u32, c: vec4<u32>, x0: Chunk, x1: Chunk, x2: Chunk, x3: Chunk) -> f32 {
    let at = r * (HEAD_DIM / 4u) + 2u * c;
    var s = fma_dot(0.0, q_s[at.x], x0.lo);
    s = fma_dot(s, q_s[at.x + 1u], x0.hi);
    s = fma_dot(s, q_s[at.y], x1.lo);
    s = fma_dot(s, q_s[at.y + 1u], x1.hi);
    s = fma_dot(s, q_s[at.z], x2.lo);
    s = fma_dot(s, q_s[at.z + 1u], x2.hi);
    s = fma_dot(s, q_s[at.w], x3.lo);
    return fma_dot(s, q_s[at.w + 1u], x3.hi);
}

// Thread state of step 3: 4 query vectors' outputs and sums over one key group's keys, relative
// to the workgroup's running max.
struct State {
    l: vec4<f32>,   // sum of P per query vector
    o0l: vec4<f32>, // output columns [8c, 8c + 4) and [8c + 4, 8c + 8) of the 4 query vectors
    o0h: vec4<f32>,
    o1l: vec4<f32>,
    o1h: vec4<f32>,
    o2l: vec4<f32>,
    o2h: vec4<f32>,
    o3l: vec4<f32>,
    o3h: vec4<f32>,
}

// The state with each query vector's output and sum multiplied by its `alpha`.
fn rescale(st: State, alpha: vec4<f32>) -> State {
    var n = rescale_outputs(st, alpha);
    n.l = st.l * alpha;
    return n;
}

// `rescale` but for the sums (kernels that add P elsewhere).
fn rescale_outputs(st: State, alpha: vec4<f32>) -> State {
    return State(st.l, st.o0l * alpha.x, st.o0h * alpha.x, st.o1l * alpha.y, st.o1h * alpha.y,
                 st.o2l * alpha.z, st.o2h * alpha.z, st.o3l * alpha.w, st.o3h * alpha.w);
}

// Adds keys j0..j3 (P p0..p3 per query vector, values x0..x3) to the state.
fn update(st: State, p0: vec4<f32>, p1: vec4<f32>, p2: vec4<f32>, p3: vec4<f32>,
          x0: Chunk, x1: Chunk, x2: Chunk, x3: Chunk) -> State {
    var n = update_outputs(st, p0, p1, p2, p3, x0, x1, x2, x3);
    n.l = st.l + ((p0 + p1) + (p2 + p3));
    return n;
}

// `update` but for the sums (kernels that add P elsewhere).
fn update_outputs(st: State, p0: vec4<f32>, p1: vec4<f32>, p2: vec4<f32>, p3: vec4<f32>,
                  x0: Chunk, x1: Chunk, x2: Chunk, x3: Chunk) -> State {
    var n = st;
    n.o0l = st.o0l + p0.x * x0.lo + p1.x * x1.lo + p2.x * x2.lo + p3.x * x3.lo;
    n.o0h = st.o0h + p0.x * x0.hi + p1.x * x1.hi + p2.x * x2.hi + p3.x * x3.hi;
    n.o1l = st.o1l + p0.y * x0.lo + p1.y * x1.lo + p2.y * x2.lo + p3.y * x3.lo;
    n.o1h = st.o1h + p0.y * x0.hi + p1.y * x1.hi + p2.y * x2.hi + p3.y * x3.hi;
    n.o2l = st.o2l + p0.z * x0.lo + p1.z * x1.lo + p2.z * x2.lo + p3.z * x3.lo;
    n.o2h = st.o2h + p0.z * x0.hi + p1.z * x1.hi + p2.z * x2.hi + p3.z * x3.hi;
    n.o3l = st.o3l + p0.w * x0.lo + p1.w * x1.lo + p2.w * x2.lo + p3.w * x3.lo;
    n.o3h = st.o3h + p0.w * x0.hi + p1.w * x1.hi + p2.w * x2.hi + p3.w * x3.hi;
    return n;
}

// Output vec4 `step` of the state: columns [8c, 8c + 4) (even steps) or [8c + 4, 8c + 8) (odd) of
// query vector rb * 4 + step / 2.
fn output_vec4(st: State, step: u32) -> vec4<f32> {
    switch step {
        case 0u: { return st.o0l; }
        case 1u: { return st.o0h; }
        case 2u: { return st.o1l; }
        case 3u: { return st.o1h; }
        case 4u: { return st.o2l; }
        case 5u: { return st.o2h; }
        case 6u: { return st.o3l; }
        default: { return st.o3h; }
    }
}

// Writes output columns [col, col + 4) of query vector r (sum of P `l`): normalised into `out`
// with one split, unnormalised into the split's part of the scratch with several.
fn store(kv_head: u32, qv0: u32, r: u32, col: u32, o: vec4<f32>, l: f32, b: u32, split: u32) {
    let qv = query_vector(kv_head, qv0, r);
    if (!qv.valid) {
        return;
    }
    if (p.kv_splits == 1u) {
        // A query vector with every key excluded has l == 0 and is written as zeros.
        let x = vec4<elem>(select(o / l, vec4<f32>(0.0), l == 0.0));
        let at = row_base(p.out, b, qv.h, qv.i) + col;
        out[at] = x.x;
        out[at + 1u] = x.y;
        out[at + 2u] = x.z;
        out[at + 3u] = x.w;
    } else {
        put_quad(row_dest(b, qv.h, qv.i, split) + col, o);
    }
}
