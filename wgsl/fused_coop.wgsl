// Fused attention, cooperative-matrix variant: FlashAttention-2 (Dao 2023, Algorithm 1) with
// S = Q K^T and O += P V on matrix fragments (tensor cores on NVIDIA through
// VK_KHR_cooperative_matrix, simdgroup matrices on Apple), the softmax in f32 on workgroup memory.
//
// The generated header defines FRAG (the fragment size, 16 or 8), the fragment types frag_a,
// frag_b, frag_c (inputs in `stage`, accumulators in f32), Q_FRAGS = HEAD_DIM / FRAG and
// O_FRAGS = V_HEAD_DIM / FRAG. The planner uses only a configuration the adapter lists.
// Tensors are `elem`; fragments and the tiles they load are `stage`: the same type, or f32
// tensors on f16 fragments ("split", wgsl/coop_split_f32.wgsl, SPLIT = 1): each f32 value, times
// a power of two per head that takes the head's largest magnitude to [2^14, 2^15), is staged as
// hi = its 11 leading significant bits (exact in f16, `split_part`) and lo = f16(x - hi) (22
// significant bits of 24), and each product takes three
// fragment products, a_hi b_hi + a_hi b_lo + a_lo b_hi, accumulated in f32 (the dropped
// a_lo b_lo is 2^-22 of the product). The scale comes back out of the scores and the output
// exactly. wgsl/coop_split_none.wgsl is the plain kernel's SPLIT = 0 (all factors 1).
//
// Each subgroup ("warp", SG invocations) owns FRAG query rows of the block: its Q fragments and
// its O accumulators stay in registers for the whole kernel, as up to 8 named fragments each
// (qf0..qf7, o0..o7; unused ones are folded away by the Q_FRAGS / O_FRAGS constants), not arrays
// indexed in loops, so nothing depends on a driver promoting such an array to registers. Per KV
// tile:
//   1. K and V tiles are staged in workgroup memory (zeros past kv_len): in 16-byte words
//      fetched into registers one tile ahead (wgsl/coop_stage_vec.wgsl) where offsets and
//      strides allow, else element by element (wgsl/coop_stage_scalar.wgsl);
//   2. S = Q K^T, one FRAG x FRAG fragment at a time, stored to s_s as f32;
//   3. each row's SG / FRAG lanes read their scores once into registers (vec4 chunks), apply
//      scale and mask (mask.wgsl), take the row max, and write P = exp2(S - m) to p_s in `elem`;
//   4. O += P V on fragments.
// Measured on the H200 (BENCHMARKS.md): staging was half the kernel's time with scalar loads,
// the softmax through workgroup memory a quarter; the fragment products themselves are small.
// O cannot be scaled row by row inside a fragment, so the running max m is raised lazily: only
// when a tile's max exceeds m by more than RESCALE_LOG2 does the subgroup (the workgroup, in the
// pipelined loop) store O, rescale it and load it back (rare after the first tiles). Until then
// P <= 2^RESCALE_LOG2, well inside f16. Steps 2-4 touch only the subgroup's own rows of s_s and
// p_s: the one-tile-at-a-time loop separates them with subgroup barriers, the workgroup
// synchronising only around the staging (H200, f16, L = 4096: d64 1.41 -> 1.33 ms, d80 2.11 ->
// 1.81, d128 2.13 -> 2.06, where the pipelined loop had been faster from d80 on).
//
// Every index and stride of a fragment load or store is a `let` of its own: naga 30's SPIR-V
// writer panics ("expression is not cached") on an index computed inside the pointer expression.

override BQ: u32 = 64u;        // query rows per workgroup: FRAG per subgroup
override BK: u32 = 32u;        // keys per KV tile, a multiple of FRAG
override HEAD_DIM: u32 = 128u;
override V_HEAD_DIM: u32 = 128u;
override SG: u32 = 32u;        // subgroup size
override WG: u32 = 128u;       // BQ / FRAG * SG
override KV_ELEMS: u32 = 8704u; // max(BK * (HEAD_DIM + PAD) + BK * (V_HEAD_DIM + PAD), BQ * (HEAD_DIM / Q_PARTS + PAD))
override Q_PARTS: u32 = 1u;    // parts of the head dims Q is staged in, dividing Q_FRAGS (1 unless the block does not fit)
override KV_LO: u32 = 0u;      // split: elements from a staged hi element of K or V to its lo part

override REVERSE: u32 = 1u;    // 1: causal blocks in reverse order (the longest first)
override PIPE: u32 = 1u;       // 1: tiles software-pipelined (BK / FRAG <= 4), else one at a time
override NCH: u32 = 4u;        // vec4 chunks of keys per lane in the softmax: BK / (SG / FRAG) / 4 <= 8
override KVS: u32 = 0u;        // 1: the keys split over workgroups (wgsl/coop_kv_split.wgsl)
override ABLATE: u32 = 0u;     // profiling only (wrong results): 1 no staging, 2 no softmax,
                               // 4 no Q K^T, 8 no P V, 16 no barriers in the KV loop,
                               // 32 no K/V loads (word staging: zeros written instead)

override RFLAG: u32 = 1u;      // 1: softmax_tile flags a rescale in rescale_any (read by the pipelined loop)
override FIRST: u32 = 0u;      // 1: the first K/V tile's loads issued before Q is staged
override ENDSG: u32 = 0u;      // 1: the output's pass through s_s (the subgroup's own rows) synchronised per subgroup
override PLAIN: u32 = 0u;      // 1: the one-tile-at-a-time loop skips the per-key checks on plain tiles too
override ZCONST: u32 = 0u;     // 1: the zero accumulator is a constant (OpConstantNull), else loaded from zeroed memory
const RESCALE_LOG2: f32 = 8.0;
override PAD: u32 = 8u;        // elements of padding per staged row: 16 bytes of f16
override SPAD: u32 = 4u;       // f32 elements of padding per row of s_s, a multiple of 4

@group(0) @binding(1) var<storage, read> q: array<elem>;
// K and V (bindings 2 and 3) and the staging of their tiles come from wgsl/coop_stage_*.wgsl.
@group(0) @binding(4) var<storage, read_write> out: array<elem>;

// K tile [key][dim] then V tile [key][dim], padded rows; Q is staged here at the start.
// Split: the lo parts follow at KV_LO.
var<workgroup> kv_s: array<stage, KV_ELEMS>;
// Scores, f32, [row][key] (each subgroup's FRAG rows also serve as its scratch for O). Rows of
// BK + SPAD floats: the host pads by 8 where that keeps a fragment store's and the softmax's
// 16-byte reads free of bank conflicts and was measured to pay (`scores_pad` in
// src/kernels/fused_coop.rs), else by 4.
var<workgroup> s_s: array<f32, BQ * (BK + SPAD)>;
// Probabilities in the fragments' input type, [row][key]; split: the lo parts follow.
var<workgroup> p_s: array<stage, BQ * (BK + PAD) * (1u + SPLIT)>;
// Set when some row's max rose past the threshold in this tile. Both are 16 bytes, like every
// other workgroup array here: the driver places workgroup variables in an order of its own, and
// a 4-byte variable ahead of a tile left the tile 8 bytes off the 16-byte alignment fragment
// loads need (seen on the H200: the first 4 halves of every staged row read as zeros, while the
// same loads from an aligned array, in `sdpa info`'s probe, were exact).
var<workgroup> rescale_any: array<atomic<u32>, 4>;
// Keys from here on are fetched as zeros (wgsl/coop_stage_vec.wgsl): the end of the
// workgroup's keys.
var<private> fetch_end: u32;
var<workgroup> rescale_flag: vec4<u32>;

// Per (batch, head) factors (wgsl/coop_split_*.wgsl: all 1 unless split): Q, K and V are multiplied
// by q, k and v while staged, the raw products by `unscale` = 1 / (q k), P by `p` (2^6: keeps its lo
// parts clear of f16 subnormals, P <= 2^(RESCALE_LOG2 + 6) = 2^14), the output by `out` = 1 / (p v).
struct Factors {
    q: f32,
    k: f32,
    v: f32,
    unscale: f32,
    p: f32,
    out: f32,
}

// The score of one (row, key) pair, or EXCLUDED for the padding past q_len / kv_len.
fn score(qk: f32, b: u32, h: u32, qi: u32, kj: u32) -> f32 {
    if (qi < p.q_len && kj < p.kv_len) {
        return masked_score(qk, b, h, qi, kj);
    }
    return EXCLUDED;
}

// Max and sum over the SG / FRAG lanes that share a row (neighbouring lanes).
fn row_lanes_max(x: f32) -> f32 {
    var m = x;
    for (var w = 1u; w < SG / FRAG; w *= 2u) {
        m = max(m, subgroupShuffleXor(m, w));
    }
    return m;
}

fn row_lanes_sum(x: f32) -> f32 {
    var s = x;
    for (var w = 1u; w < SG / FRAG; w *= 2u) {
        s += subgroupShuffleXor(s, w);
    }
    return s;
}

// Line 4 for part `part` of Q's head dims (HEAD_DIM / Q_PARTS of them; `half`: split, the hi
// (0) or lo (1) parts): the block's rows staged in kv_s, rows of HEAD_DIM / Q_PARTS + PAD.
fn stage_q(part: u32, half: u32, q0: u32, q_head: u32, fac_q: f32, t: u32) {
    let dims = HEAD_DIM / Q_PARTS;
    let qs = dims + PAD;
    workgroupBarrier(); // kv_s is free (the previous part's fragment loads are done)
    for (var e = t; e < BQ * dims / 4u; e += WG) {
        let r = e / (dims / 4u);
        let c = (e % (dims / 4u)) * 4u;
        let row = q0 + r;
        var x = vec4<f32>();
        if (row < p.q_len) {
            let at = q_head + row * p.q.w + part * dims + c;
            x = vec4<f32>(vec4<elem>(q[at], q[at + 1u], q[at + 2u], q[at + 3u])) * fac_q;
        }
        let y = split_part(x, half);
        let to = r * qs + c;
        kv_s[to] = y.x;
        kv_s[to + 1u] = y.y;
        kv_s[to + 2u] = y.z;
        kv_s[to + 3u] = y.w;
    }
    workgroupBarrier();
}

// Q fragment `dd` (head dims dd * FRAG..) of the subgroup's rows from row0 (split: the hi or lo
// parts, `half`), staging the part of Q that holds it first when it is that part's first
// fragment. Every subgroup loads every fragment it keeps, from whichever part holds it: no
// fragment is selected or combined by arithmetic, which would leave the NVIDIA compiler holding
// Q as separate halves, re-packed for every product (seen in its machine code, tenth session).
// Called with constants only, so the staging's barriers are uniform.
fn q_frag(dd: u32, half: u32, row0: u32, q0: u32, q_head: u32, fac_q: f32, t: u32) -> frag_a {
    let per_part = Q_FRAGS / Q_PARTS;
    if (dd % per_part == 0u) {
        stage_q(dd / per_part, half, q0, q_head, fac_q, t);
    }
    let qs = HEAD_DIM / Q_PARTS + PAD;
    let at = row0 * qs + (dd % per_part) * FRAG;
    return coopLoadT<frag_a>(&kv_s[at], qs);
}

// acc + Q fragment `dd` times the K^T fragment of head dims dd and keys from `key0` (K's lo
// parts when `lo`).
fn qk(acc: frag_c, qf: frag_a, key0: u32, dd: u32, lo: u32) -> frag_c {
    let ks = HEAD_DIM + PAD;
    let at = lo + key0 * ks + dd * FRAG;
    return coopMultiplyAdd(qf, coopLoad<frag_b>(&kv_s[at], ks), acc);
}

// o + P fragment times the V fragment of keys from `key0` and value dims of fragment `n` (V's
// lo parts from offset `lo`).
fn pv1(o: frag_c, pf: frag_a, key0: u32, n: u32, lo: u32) -> frag_c {
    let vs = V_HEAD_DIM + PAD;
    let at = lo + BK * (HEAD_DIM + PAD) + key0 * vs + n * FRAG;
    return coopMultiplyAdd(pf, coopLoadT<frag_b>(&kv_s[at], vs), o);
}

// The lo parts of the P fragment at `pa` in p_s, whose hi parts are `pf` (split; else `pf`).
fn p_lo(pa: u32, pf: frag_a) -> frag_a {
    if (SPLIT == 1u) {
        let ps = BK + PAD;
        let at = pa + BQ * ps;
        return coopLoadT<frag_a>(&p_s[at], ps);
    }
    return pf;
}

// o + P V for one P fragment (hi part `ph`, lo part `pl`) and V fragment `n`. Split: the three
// products (the small ones first) start from `zero` and join O in one f32 addition (add_frag):
// NVIDIA's tensor cores round toward zero as they accumulate, and O summed over a whole KV
// sequence inside the fragments drifted by 3e-4 (relative) at 66,048 keys of positive values on
// the H200 (tests/numerics.rs), where this keeps f32's rounding to nearest across tiles.
fn pv(o: frag_c, ph: frag_a, pl: frag_a, key0: u32, n: u32, zero: frag_c) -> frag_c {
    if (SPLIT == 1u) {
        let t = pv1(pv1(pv1(zero, pl, key0, n, 0u), ph, key0, n, KV_LO), ph, key0, n, 0u);
        return add_frag(o, t);
    }
    return pv1(o, ph, key0, n, 0u);
}

// Four values in `stage`; split, their hi (`part` 0) or lo (1) parts. hi keeps the 11 leading
// significant bits (f16's) by masking the f32 bits, so hi is exact in f16 and x - hi is exact in
// f32; lo = f16(x - hi). (On the H200, hi = f16(x), lo = f16(x - f32(hi)) came out with an
// f16-sized error in the check matrix: lo was lost, as if the round trip had been folded away.)
fn split_part(x: vec4<f32>, part: u32) -> vec4<stage> {
    if (SPLIT == 0u) {
        return vec4<stage>(x);
    }
    let hi = bitcast<vec4<f32>>(bitcast<vec4<u32>>(x) & vec4<u32>(0xffffe000u));
    if (part == 0u) {
        return vec4<stage>(hi);
    }
    return vec4<stage>(x - hi);
}

// Four consecutive scores of one row from s_s.
fn load4(at: u32) -> vec4<f32> {
    return vec4<f32>(s_s[at], s_s[at + 1u], s_s[at + 2u], s_s[at + 3u]);
}

// Scores (log2 units) of row `qi` for keys kj..kj+3 of raw products x.
fn score4(x: vec4<f32>, b: u32, h: u32, qi: u32, kj: u32) -> vec4<f32> {
    return vec4<f32>(
        score(x.x, b, h, qi, kj),
        score(x.y, b, h, qi, kj + 1u),
        score(x.z, b, h, qi, kj + 2u),
        score(x.w, b, h, qi, kj + 3u),
    );
}

// The smallest scale (log2 units) with which causal tiles keep raw products: EXCLUDED times it
// stays below -2^100, far under any row max.
const CAUSAL_RAW_MIN: f32 = 1.0e-6;

// Raw products x of row `qi` for keys kj..kj+3 where the causal mask shows them (within q_len
// and kv_len), EXCLUDED elsewhere.
fn visible4(x: vec4<f32>, qi: u32, kj: u32) -> vec4<f32> {
    let row = qi < p.q_len;
    let shown = vec4<bool>(
        row && kj < p.kv_len && causal_visible(qi, kj),
        row && kj + 1u < p.kv_len && causal_visible(qi, kj + 1u),
        row && kj + 2u < p.kv_len && causal_visible(qi, kj + 2u),
        row && kj + 3u < p.kv_len && causal_visible(qi, kj + 3u),
    );
    return select(vec4<f32>(EXCLUDED), x, shown);
}

fn max4(x: vec4<f32>) -> f32 {
    return max(max(x.x, x.y), max(x.z, x.w));
}

// P = exp2(x * mul - m) for four keys from `at` in p_s (split: times `pmul`, hi and lo parts);
// returns their sum (without `pmul`).
fn store_p4(x: vec4<f32>, mul: f32, m: f32, at: u32, pmul: f32) -> f32 {
    let e = exp2(fma(x, vec4<f32>(mul), vec4<f32>(-m)));
    let hi = split_part(e * pmul, 0u);
    p_s[at] = hi.x;
    p_s[at + 1u] = hi.y;
    p_s[at + 2u] = hi.z;
    p_s[at + 3u] = hi.w;
    if (SPLIT == 1u) {
        let lo = split_part(e * pmul, 1u);
        let lo_at = at + BQ * (BK + PAD);
        p_s[lo_at] = lo.x;
        p_s[lo_at + 1u] = lo.y;
        p_s[lo_at + 2u] = lo.z;
        p_s[lo_at + 3u] = lo.w;
    }
    return e.x + e.y + e.z + e.w;
}

// A workgroup barrier in the KV loop (skipped only when profiling with ABLATE 16).
fn loop_barrier() {
    if ((ABLATE & 16u) == 0u) {
        workgroupBarrier();
    }
}

// An O fragment with each row multiplied by its lanes' `alpha`, through the subgroup's rows of s_s.
fn rescaled(o: frag_c, row0: u32, my_row: u32, lane: u32, alpha: f32) -> frag_c {
    let ss = BK + SPAD;
    let at = row0 * ss;
    coopStoreT(o, &s_s[at], ss);
    workgroupBarrier();
    for (var c = lane % (SG / FRAG); c < FRAG; c += SG / FRAG) {
        s_s[my_row * ss + c] *= alpha;
    }
    workgroupBarrier();
    let r = coopLoadT<frag_c>(&s_s[at], ss);
    workgroupBarrier();
    return r;
}

// `rescaled` for the one-tile-at-a-time loop: the subgroup's own rows of s_s, synchronised within
// the subgroup (src/spirv.rs gives its barriers workgroup-memory semantics). The pipelined loop
// could take it too (it touches no other subgroup's rows either); it keeps the workgroup one,
// with which its timings were measured.
fn rescaled_own(o: frag_c, row0: u32, my_row: u32, lane: u32, alpha: f32) -> frag_c {
    let ss = BK + SPAD;
    let at = row0 * ss;
    coopStoreT(o, &s_s[at], ss);
    subgroupBarrier();
    for (var c = lane % (SG / FRAG); c < FRAG; c += SG / FRAG) {
        s_s[my_row * ss + c] *= alpha;
    }
    subgroupBarrier();
    let r = coopLoadT<frag_c>(&s_s[at], ss);
    subgroupBarrier();
    return r;
}

// o + the tile's P V for O fragment `n` of the subgroup's rows (P loaded from p_s; the driver
// loads it once for all fragments).
fn pv_frag(o: frag_c, n: u32, row0: u32, zero: frag_c) -> frag_c {
    let ps = BK + PAD;
    var r = o;
    if ((ABLATE & 8u) != 0u) {
        return r;
    }
    for (var j = 0u; j < BK / FRAG; j++) {
        let key0 = j * FRAG;
        let pa = row0 * ps + key0;
        let pf = coopLoadT<frag_a>(&p_s[pa], ps);
        r = pv(r, pf, p_lo(pa, pf), key0, n, zero);
    }
    return r;
}

// Writes O fragment `n` (value dims n*FRAG..) of the subgroup's rows, times `scale`, through s_s
// to row `row`'s destination from `at` (`put_o` of wgsl/coop_kv_whole.wgsl or coop_kv_split.wgsl).
fn store_o(o: frag_c, n: u32, row0: u32, my_row: u32, lane: u32, scale: f32, row: u32, at: u32) {
    let ss = BK + SPAD;
    let sa = row0 * ss;
    if (ENDSG == 1u) {
        subgroupBarrier(); // its rows of s_s are free
    } else {
        workgroupBarrier(); // s_s is free
    }
    coopStoreT(o, &s_s[sa], ss);
    if (ENDSG == 1u) {
        subgroupBarrier();
    } else {
        workgroupBarrier();
    }
    if (row < p.q_len) {
        for (var c = lane % (SG / FRAG); c < FRAG; c += SG / FRAG) {
            put_o(at + n * FRAG + c, s_s[my_row * ss + c] * scale);
        }
    }
}

// The end of the kernel: row `my_row` of the subgroup's rows (query row q0 + my_row) with its O
// fragments, lane sum `l` and max `m`, stored where wgsl/coop_kv_whole.wgsl (the output, divided
// by the row's sum) or wgsl/coop_kv_split.wgsl (the split's partial row, max and sum) says.
fn finish(o0: frag_c, o1: frag_c, o2: frag_c, o3: frag_c, o4: frag_c, o5: frag_c, o6: frag_c, o7: frag_c, l: f32, m: f32, row0: u32, my_row: u32, lane: u32, fac_out: f32, q0: u32, b: u32, h: u32, split: u32) {
    let l_row = row_lanes_sum(l);
    let row = q0 + my_row;
    let scale = row_scale(l_row, fac_out);
    let at = row_dest(b, h, row, split);
    store_o(o0, 0u, row0, my_row, lane, scale, row, at);
    if (O_FRAGS > 1u) { store_o(o1, 1u, row0, my_row, lane, scale, row, at); }
    if (O_FRAGS > 2u) { store_o(o2, 2u, row0, my_row, lane, scale, row, at); }
    if (O_FRAGS > 3u) { store_o(o3, 3u, row0, my_row, lane, scale, row, at); }
    if (O_FRAGS > 4u) { store_o(o4, 4u, row0, my_row, lane, scale, row, at); }
    if (O_FRAGS > 5u) { store_o(o5, 5u, row0, my_row, lane, scale, row, at); }
    if (O_FRAGS > 6u) { store_o(o6, 6u, row0, my_row, lane, scale, row, at); }
    if (O_FRAGS > 7u) { store_o(o7, 7u, row0, my_row, lane, scale, row, at); }
    if (row < p.q_len && lane % (SG / FRAG) == 0u) {
        put_stats(b, h, row, split, m, l_row);
    }
}

// Line 9 for the tile from key kb: this lane's scores (row my_row, NCH chunks of 4 keys
// interleaved with the other lanes of its row) read once from s_s into registers, scaled and
// masked; the row max raised lazily (flagging a rescale in rescale_any); P = exp2(S - m) written to
// p_s; the lane's partial sum updated. Returns the rescale factor alpha of the row's O. `fac`:
// the split's factors (unscale: of the raw products; p: of P).
fn softmax_tile(kb: u32, b: u32, h: u32, q0: u32, my_row: u32, lane: u32, fac: Factors, m: ptr<function, f32>, l: ptr<function, f32>) -> f32 {
    let ss = BK + SPAD;
    let ps = BK + PAD;
    let lpr = SG / FRAG;
    var alpha = 1.0;
    let srow = my_row * ss;
    let prow = my_row * ps;
    let lane_key = (lane % lpr) * 4u;
    let qi = q0 + my_row;
    var x0 = vec4<f32>(EXCLUDED);
    var x1 = x0;
    var x2 = x0;
    var x3 = x0;
    var x4 = x0;
    var x5 = x0;
    var x6 = x0;
    var x7 = x0;
    let c0 = lane_key;
    let step = lpr * 4u;
    // Pipelined kernel, and the other with PLAIN: a tile wholly inside q_len and kv_len that no
    // mask touches (none, or causal with every key at or below the block's first row) skips the
    // per-key checks. (The one-tile-at-a-time kernel takes it where the host measured it to pay,
    // src/kernels/fused_coop.rs: without a mask, d64 1.33 -> 1.22 ms; causal in 128-row blocks,
    // d128 1.13 -> 1.09; but not causal d64, 0.67 -> 0.72.)
    // On such a tile the raw products stay unscaled: the row max is taken on them and scaled
    // once, and P = exp2(x * sc - m) is one fused multiply-add a score (a positive scale keeps
    // the max where it was). The products of such a tile are finite (f16 inputs cannot overflow
    // f32; f32 ones, if they do, give what they gave before for -inf, P = 0, in IEEE arithmetic),
    // so they need no clamp to FLOOR: the max is clamped.
    let sc = p.scale_log2 * fac.unscale;
    let plain = (PIPE == 1u || PLAIN == 1u) && kb + BK <= p.kv_len && q0 + BQ <= p.q_len
        && sc > 0.0
        && (MASK_KIND == 0u
            || (MASK_KIND == 1u && i32(kb + BK - 1u) <= i32(q0) + p.causal_shift));
    var mul = 1.0;
    if (plain) {
        mul = sc;
        x0 = load4(srow + c0);
        if (NCH > 1u) { x1 = load4(srow + c0 + step); }
        if (NCH > 2u) { x2 = load4(srow + c0 + 2u * step); }
        if (NCH > 3u) { x3 = load4(srow + c0 + 3u * step); }
        if (NCH > 4u) { x4 = load4(srow + c0 + 4u * step); }
        if (NCH > 5u) { x5 = load4(srow + c0 + 5u * step); }
        if (NCH > 6u) { x6 = load4(srow + c0 + 6u * step); }
        if (NCH > 7u) { x7 = load4(srow + c0 + 7u * step); }
    } else if (MASK_KIND == 1u && sc >= CAUSAL_RAW_MIN && sc <= 1.0) {
        // Causal, on the other tiles: the same, each hidden key's product (and the padding's)
        // replaced by EXCLUDED, which times such a scale stays finite and far below any max
        // (P = 0 exactly), so the max needs no clamp either.
        mul = sc;
        x0 = visible4(load4(srow + c0), qi, kb + c0);
        if (NCH > 1u) { x1 = visible4(load4(srow + c0 + step), qi, kb + c0 + step); }
        if (NCH > 2u) { x2 = visible4(load4(srow + c0 + 2u * step), qi, kb + c0 + 2u * step); }
        if (NCH > 3u) { x3 = visible4(load4(srow + c0 + 3u * step), qi, kb + c0 + 3u * step); }
        if (NCH > 4u) { x4 = visible4(load4(srow + c0 + 4u * step), qi, kb + c0 + 4u * step); }
        if (NCH > 5u) { x5 = visible4(load4(srow + c0 + 5u * step), qi, kb + c0 + 5u * step); }
        if (NCH > 6u) { x6 = visible4(load4(srow + c0 + 6u * step), qi, kb + c0 + 6u * step); }
        if (NCH > 7u) { x7 = visible4(load4(srow + c0 + 7u * step), qi, kb + c0 + 7u * step); }
    } else {
        x0 = score4(load4(srow + c0) * fac.unscale, b, h, qi, kb + c0);
        if (NCH > 1u) { x1 = score4(load4(srow + c0 + step) * fac.unscale, b, h, qi, kb + c0 + step); }
        if (NCH > 2u) { x2 = score4(load4(srow + c0 + 2u * step) * fac.unscale, b, h, qi, kb + c0 + 2u * step); }
        if (NCH > 3u) { x3 = score4(load4(srow + c0 + 3u * step) * fac.unscale, b, h, qi, kb + c0 + 3u * step); }
        if (NCH > 4u) { x4 = score4(load4(srow + c0 + 4u * step) * fac.unscale, b, h, qi, kb + c0 + 4u * step); }
        if (NCH > 5u) { x5 = score4(load4(srow + c0 + 5u * step) * fac.unscale, b, h, qi, kb + c0 + 5u * step); }
        if (NCH > 6u) { x6 = score4(load4(srow + c0 + 6u * step) * fac.unscale, b, h, qi, kb + c0 + 6u * step); }
        if (NCH > 7u) { x7 = score4(load4(srow + c0 + 7u * step) * fac.unscale, b, h, qi, kb + c0 + 7u * step); }
    }
    let mx = max(max(max(x0, x1), max(x2, x3)), max(max(x4, x5), max(x6, x7)));
    let m_tile = row_lanes_max(max(FLOOR, max4(mx) * mul));
    if (m_tile > *m + RESCALE_LOG2) {
        alpha = exp2(*m - m_tile);
        *m = m_tile;
        // (Read by the pipelined loop only. The one-tile-at-a-time loop rescales per subgroup,
        // but without this rare atomic NVIDIA's compiler made its d64 kernel 7% slower: H200,
        // f16, L = 4096, 1.43 against 1.33 ms, seventh session's sweep 9; 1.41 against 1.18
        // in 128-row blocks, eighth session's sweep 10. The host drops it (RFLAG = 0) at d128,
        // where that ran 1.5% faster.)
        if (kb > 0u && RFLAG == 1u) {
            atomicOr(&rescale_any[0], 1u);
        }
    }
    *l *= alpha;
    *l += store_p4(x0, mul, *m, prow + c0, fac.p);
    if (NCH > 1u) { *l += store_p4(x1, mul, *m, prow + c0 + step, fac.p); }
    if (NCH > 2u) { *l += store_p4(x2, mul, *m, prow + c0 + 2u * step, fac.p); }
    if (NCH > 3u) { *l += store_p4(x3, mul, *m, prow + c0 + 3u * step, fac.p); }
    if (NCH > 4u) { *l += store_p4(x4, mul, *m, prow + c0 + 4u * step, fac.p); }
    if (NCH > 5u) { *l += store_p4(x5, mul, *m, prow + c0 + 5u * step, fac.p); }
    if (NCH > 6u) { *l += store_p4(x6, mul, *m, prow + c0 + 6u * step, fac.p); }
    if (NCH > 7u) { *l += store_p4(x7, mul, *m, prow + c0 + 7u * step, fac.p); }
    return alpha;
}

// acc + Q (qf0..) times the K^T fragments of keys key0.. in kv_s (K's lo parts when `lo`).
fn s_part(qf0: frag_a, qf1: frag_a, qf2: frag_a, qf3: frag_a, qf4: frag_a, qf5: frag_a, qf6: frag_a, qf7: frag_a, init: frag_c, key0: u32, lo: u32) -> frag_c {
    var acc = qk(init, qf0, key0, 0u, lo);
    if (Q_FRAGS > 1u) { acc = qk(acc, qf1, key0, 1u, lo); }
    if (Q_FRAGS > 2u) { acc = qk(acc, qf2, key0, 2u, lo); }
    if (Q_FRAGS > 3u) { acc = qk(acc, qf3, key0, 3u, lo); }
    if (Q_FRAGS > 4u) { acc = qk(acc, qf4, key0, 4u, lo); }
    if (Q_FRAGS > 5u) { acc = qk(acc, qf5, key0, 5u, lo); }
    if (Q_FRAGS > 6u) { acc = qk(acc, qf6, key0, 6u, lo); }
    if (Q_FRAGS > 7u) { acc = qk(acc, qf7, key0, 7u, lo); }
    return acc;
}

// S fragment of keys key0.. for the subgroup's rows: Q (hi parts qh0.., split: lo parts ql0..)
// times the K^T fragments in kv_s; split, the small products first.
fn s_frag(qh0: frag_a, qh1: frag_a, qh2: frag_a, qh3: frag_a, qh4: frag_a, qh5: frag_a, qh6: frag_a, qh7: frag_a, ql0: frag_a, ql1: frag_a, ql2: frag_a, ql3: frag_a, ql4: frag_a, ql5: frag_a, ql6: frag_a, ql7: frag_a, zero: frag_c, key0: u32) -> frag_c {
    if (SPLIT == 1u) {
        let a = s_part(ql0, ql1, ql2, ql3, ql4, ql5, ql6, ql7, zero, key0, 0u);
        let c = s_part(qh0, qh1, qh2, qh3, qh4, qh5, qh6, qh7, a, key0, KV_LO);
        return s_part(qh0, qh1, qh2, qh3, qh4, qh5, qh6, qh7, c, key0, 0u);
    }
    return s_part(qh0, qh1, qh2, qh3, qh4, qh5, qh6, qh7, zero, key0, 0u);
}

@compute @workgroup_size(WG)
fn main(
    @builtin(workgroup_id) wg: vec3<u32>,
    @builtin(local_invocation_index) t: u32,
) {
    let warp = t / SG;
    let lane = t % SG;
    let lpr = SG / FRAG;                // lanes per row in the softmax
    let row0 = warp * FRAG;             // the subgroup's first row within the block
    let my_row = row0 + lane / lpr;     // this lane's row in the softmax
    // Causal: workgroups start in order of their work, the blocks with the most visible keys
    // (the last rows) of every head first, so the short ones fill in at the end instead of
    // leaving a tail of long ones. The grid is (blocks, heads, batch), x fastest.
    // With the keys split (KVS, wgsl/coop_kv_split.wgsl) x is the query block times the splits.
    // (Without, none of this is in the kernel: with it, d64's kernel took 1.60 ms, not 1.47.)
    var split = 0u;
    var bx = wg.x;
    if (KVS == 1u) {
        split = wg.x % p.kv_splits;
        bx = wg.x / p.kv_splits;
    }
    var block = bx;
    var h = wg.y;
    if (MASK_KIND == 1u && REVERSE == 1u) {
        let blocks = (p.q_len + BQ - 1u) / BQ;
        let order = wg.y * blocks + bx;
        block = blocks - 1u - order / p.q_heads;
        h = order % p.q_heads;
    }
    let q0 = block * BQ;
    let b = wg.z;
    let kv_head = h / p.group;
    let q_head = row_base(p.q, b, h, 0u);
    let k_head = row_base(p.k, b, kv_head, 0u);
    let v_head = row_base(p.v, b, kv_head, 0u);
    let fac = head_factors(b, h, kv_head);
    let ss = BK + SPAD;
    let ps = BK + PAD;

    if (t == 0u) {
        atomicStore(&rescale_any[0], 0u); // workgroup memory starts undefined (not zeroed)
    }
    var kv_end = p.kv_len;
    if (MASK_KIND == 1u) {
        let last_row = min(q0 + BQ, p.q_len) - 1u;
        kv_end = u32(clamp(i32(last_row) + p.causal_shift + 1, 0, i32(p.kv_len)));
    }
    // This workgroup's keys: [kb0, kv_end) (split_len = kv_len without splits; a split's length
    // is a multiple of BK, so its tiles end at the next split's start).
    var kb0 = 0u;
    if (KVS == 1u) {
        kb0 = split * p.split_len;
        kv_end = min(kv_end, kb0 + p.split_len);
    }
    fetch_end = kv_end;

    var regs: Regs;
    if (FIRST == 1u && PIPE == 0u && kv_end > kb0) {
        fetch_tile(&regs, kb0, k_head, v_head, t);
    }
    // A zero accumulator: constructed (`frag_c()`, OpConstantNull in SPIR-V, valid for cooperative
    // matrices) with ZCONST, else loaded from zeroed workgroup memory, which the NVIDIA compiler
    // then copies into each S fragment's registers; the host picks whichever ran faster.
    for (var c = lane; c < FRAG * FRAG; c += SG) {
        s_s[(row0 + c / FRAG) * ss + c % FRAG] = 0.0;
    }
    workgroupBarrier();
    let zero_at = row0 * ss;
    var zero = coopLoadT<frag_c>(&s_s[zero_at], ss);
    if (ZCONST == 1u) {
        zero = frag_c();
    }
    // Algorithm 1, line 4: Q_i through workgroup memory into each subgroup's fragments, in
    // Q_PARTS parts of its head dims when the whole block does not fit (q_frag); split, the hi
    // parts into qf0.., then the lo parts into ql0...
    var qf0 = q_frag(0u, 0u, row0, q0, q_head, fac.q, t);
    var qf1 = qf0;
    var qf2 = qf0;
    var qf3 = qf0;
    var qf4 = qf0;
    var qf5 = qf0;
    var qf6 = qf0;
    var qf7 = qf0;
    if (Q_FRAGS > 1u) { qf1 = q_frag(1u, 0u, row0, q0, q_head, fac.q, t); }
    if (Q_FRAGS > 2u) { qf2 = q_frag(2u, 0u, row0, q0, q_head, fac.q, t); }
    if (Q_FRAGS > 3u) { qf3 = q_frag(3u, 0u, row0, q0, q_head, fac.q, t); }
    if (Q_FRAGS > 4u) { qf4 = q_frag(4u, 0u, row0, q0, q_head, fac.q, t); }
    if (Q_FRAGS > 5u) { qf5 = q_frag(5u, 0u, row0, q0, q_head, fac.q, t); }
    if (Q_FRAGS > 6u) { qf6 = q_frag(6u, 0u, row0, q0, q_head, fac.q, t); }
    if (Q_FRAGS > 7u) { qf7 = q_frag(7u, 0u, row0, q0, q_head, fac.q, t); }
    var ql0 = qf0;
    var ql1 = qf0;
    var ql2 = qf0;
    var ql3 = qf0;
    var ql4 = qf0;
    var ql5 = qf0;
    var ql6 = qf0;
    var ql7 = qf0;
    if (SPLIT == 1u) {
        ql0 = q_frag(0u, 1u, row0, q0, q_head, fac.q, t);
        if (Q_FRAGS > 1u) { ql1 = q_frag(1u, 1u, row0, q0, q_head, fac.q, t); }
        if (Q_FRAGS > 2u) { ql2 = q_frag(2u, 1u, row0, q0, q_head, fac.q, t); }
        if (Q_FRAGS > 3u) { ql3 = q_frag(3u, 1u, row0, q0, q_head, fac.q, t); }
        if (Q_FRAGS > 4u) { ql4 = q_frag(4u, 1u, row0, q0, q_head, fac.q, t); }
        if (Q_FRAGS > 5u) { ql5 = q_frag(5u, 1u, row0, q0, q_head, fac.q, t); }
        if (Q_FRAGS > 6u) { ql6 = q_frag(6u, 1u, row0, q0, q_head, fac.q, t); }
        if (Q_FRAGS > 7u) { ql7 = q_frag(7u, 1u, row0, q0, q_head, fac.q, t); }
    }

    // Line 5: the max in use, this lane's partial row sum, O fragments.
    var m_used = FLOOR;
    var l = 0.0;
    var o0 = zero;
    var o1 = zero;
    var o2 = zero;
    var o3 = zero;
    var o4 = zero;
    var o5 = zero;
    var o6 = zero;
    var o7 = zero;

    // Line 6: stream the KV tiles.
    if (PIPE == 1u) {
        // Software-pipelined across tiles: while tile i's softmax runs, K of tile i + 1 is put
        // into kv_s (its buffer is free once S_i is done) and K of tile i + 2 is in flight; then
        // S_{i+1} = Q K_{i+1}^T and O += P_i V_i are issued together (independent chains of
        // multiply-adds), S_{i+1} is stored, and V of tile i + 1 replaces V_i. Three barriers a
        // tile instead of six. (The rescale and P V blocks do what the other loop's `rescaled_own`
        // and `pv_frag` do, written out in place as this loop was measured: naga 30 rejects a
        // pointer to a fragment variable as a function argument, so a function can only return
        // a fragment, and which way the NVIDIA compiler then allocates registers is a question
        // for a device run, as it was for the other loop.)
        workgroupBarrier(); // the Q gathers are done with kv_s
        fetch_part(&regs, kb0, k_head, v_head, t, true);
        fetch_part(&regs, kb0, k_head, v_head, t, false);
        put_part(&regs, kb0, k_head, v_head, t, true);
        put_part(&regs, kb0, k_head, v_head, t, false);
        fetch_part(&regs, kb0 + BK, k_head, v_head, t, true);
        fetch_part(&regs, kb0 + BK, k_head, v_head, t, false);
        workgroupBarrier();
        let s0 = s_frag(qf0, qf1, qf2, qf3, qf4, qf5, qf6, qf7, ql0, ql1, ql2, ql3, ql4, ql5, ql6, ql7, zero, 0u);
        var s1 = zero;
        var s2 = zero;
        var s3 = zero;
        if (BK / FRAG > 1u) { s1 = s_frag(qf0, qf1, qf2, qf3, qf4, qf5, qf6, qf7, ql0, ql1, ql2, ql3, ql4, ql5, ql6, ql7, zero, FRAG); }
        if (BK / FRAG > 2u) { s2 = s_frag(qf0, qf1, qf2, qf3, qf4, qf5, qf6, qf7, ql0, ql1, ql2, ql3, ql4, ql5, ql6, ql7, zero, 2u * FRAG); }
        if (BK / FRAG > 3u) { s3 = s_frag(qf0, qf1, qf2, qf3, qf4, qf5, qf6, qf7, ql0, ql1, ql2, ql3, ql4, ql5, ql6, ql7, zero, 3u * FRAG); }
        let at0 = row0 * ss;
        coopStoreT(s0, &s_s[at0], ss);
        if (BK / FRAG > 1u) { let at = row0 * ss + FRAG; coopStoreT(s1, &s_s[at], ss); }
        if (BK / FRAG > 2u) { let at = row0 * ss + 2u * FRAG; coopStoreT(s2, &s_s[at], ss); }
        if (BK / FRAG > 3u) { let at = row0 * ss + 3u * FRAG; coopStoreT(s3, &s_s[at], ss); }
        workgroupBarrier(); // S_0 complete; every subgroup is done with K_0
        for (var kb = kb0; kb < kv_end; kb += BK) {
            let has_next = kb + BK < kv_end;
            if (has_next) {
                put_part(&regs, kb + BK, k_head, v_head, t, true);
                fetch_part(&regs, kb + 2u * BK, k_head, v_head, t, true);
            }
            let alpha = softmax_tile(kb, b, h, q0, my_row, lane, fac, &m_used, &l);
            workgroupBarrier(); // P_i and K_{i+1} complete; S_i read
            if (t == 0u) {
                rescale_flag = vec4<u32>(atomicExchange(&rescale_any[0], 0u));
            }
            if (workgroupUniformLoad(&rescale_flag).x != 0u) {
                o0 = rescaled(o0, row0, my_row, lane, alpha);
                if (O_FRAGS > 1u) { o1 = rescaled(o1, row0, my_row, lane, alpha); }
                if (O_FRAGS > 2u) { o2 = rescaled(o2, row0, my_row, lane, alpha); }
                if (O_FRAGS > 3u) { o3 = rescaled(o3, row0, my_row, lane, alpha); }
                if (O_FRAGS > 4u) { o4 = rescaled(o4, row0, my_row, lane, alpha); }
                if (O_FRAGS > 5u) { o5 = rescaled(o5, row0, my_row, lane, alpha); }
                if (O_FRAGS > 6u) { o6 = rescaled(o6, row0, my_row, lane, alpha); }
                if (O_FRAGS > 7u) { o7 = rescaled(o7, row0, my_row, lane, alpha); }
            }
            // S_{i+1} (on the last tile: a product nobody reads) and O += P_i V_i.
            let n0 = s_frag(qf0, qf1, qf2, qf3, qf4, qf5, qf6, qf7, ql0, ql1, ql2, ql3, ql4, ql5, ql6, ql7, zero, 0u);
            var n1 = zero;
            var n2 = zero;
            var n3 = zero;
            if (BK / FRAG > 1u) { n1 = s_frag(qf0, qf1, qf2, qf3, qf4, qf5, qf6, qf7, ql0, ql1, ql2, ql3, ql4, ql5, ql6, ql7, zero, FRAG); }
            if (BK / FRAG > 2u) { n2 = s_frag(qf0, qf1, qf2, qf3, qf4, qf5, qf6, qf7, ql0, ql1, ql2, ql3, ql4, ql5, ql6, ql7, zero, 2u * FRAG); }
            if (BK / FRAG > 3u) { n3 = s_frag(qf0, qf1, qf2, qf3, qf4, qf5, qf6, qf7, ql0, ql1, ql2, ql3, ql4, ql5, ql6, ql7, zero, 3u * FRAG); }
            for (var j = 0u; j < BK / FRAG; j++) {
                let key0 = j * FRAG;
                let pa = row0 * ps + key0;
                let pf = coopLoadT<frag_a>(&p_s[pa], ps);
                let pl = p_lo(pa, pf);
                o0 = pv(o0, pf, pl, key0, 0u, zero);
                if (O_FRAGS > 1u) { o1 = pv(o1, pf, pl, key0, 1u, zero); }
                if (O_FRAGS > 2u) { o2 = pv(o2, pf, pl, key0, 2u, zero); }
                if (O_FRAGS > 3u) { o3 = pv(o3, pf, pl, key0, 3u, zero); }
                if (O_FRAGS > 4u) { o4 = pv(o4, pf, pl, key0, 4u, zero); }
                if (O_FRAGS > 5u) { o5 = pv(o5, pf, pl, key0, 5u, zero); }
                if (O_FRAGS > 6u) { o6 = pv(o6, pf, pl, key0, 6u, zero); }
                if (O_FRAGS > 7u) { o7 = pv(o7, pf, pl, key0, 7u, zero); }
            }
            let an = row0 * ss;
            coopStoreT(n0, &s_s[an], ss);
            if (BK / FRAG > 1u) { let at = row0 * ss + FRAG; coopStoreT(n1, &s_s[at], ss); }
            if (BK / FRAG > 2u) { let at = row0 * ss + 2u * FRAG; coopStoreT(n2, &s_s[at], ss); }
            if (BK / FRAG > 3u) { let at = row0 * ss + 3u * FRAG; coopStoreT(n3, &s_s[at], ss); }
            workgroupBarrier(); // S_{i+1} complete; every subgroup is done with V_i and K_{i+1}
            if (has_next) {
                put_part(&regs, kb + BK, k_head, v_head, t, false);
                fetch_part(&regs, kb + 2u * BK, k_head, v_head, t, false);
            }
        }
    } else {
        // One tile at a time: the fetched tile is put into kv_s and the next tile's loads issued
        // before computing.
        if (FIRST == 0u && kv_end > kb0) {
            fetch_tile(&regs, kb0, k_head, v_head, t);
        }
        for (var kb = kb0; kb < kv_end; kb += BK) {
            loop_barrier(); // the previous tile's readers of kv_s (and the Q staging) are done
            if ((ABLATE & 1u) == 0u) {
                put_tile(&regs, kb, k_head, v_head, t);
            }
            loop_barrier();
            // Unconditionally (zeros past the workgroup's keys: `fetch_end`): fetched under a
            // condition, the words were loaded into registers of their own and copied into the
            // ones the staging reads from, 24 moves a tile at d128 (the driver's machine code).
            if ((ABLATE & 1u) == 0u) {
                fetch_tile(&regs, kb + BK, k_head, v_head, t);
            }

            // Line 8: S = Q K^T, one fragment of keys at a time, into s_s. (Two fragments at a time,
            // as two independent chains, was no faster on the H200 and slower at head dim 64.)
            if ((ABLATE & 4u) == 0u) {
                for (var j = 0u; j < BK / FRAG; j++) {
                    let key0 = j * FRAG;
                    let acc = s_frag(qf0, qf1, qf2, qf3, qf4, qf5, qf6, qf7, ql0, ql1, ql2, ql3, ql4, ql5, ql6, ql7, zero, key0);
                    let at = row0 * ss + key0;
                    coopStoreT(acc, &s_s[at], ss);
                }
            }
            // The subgroup's S rows are its own: only its lanes read them (and write its P rows),
            // so it waits for itself only, not for the workgroup (H200, f16, L = 4096: d64 1.42 ->
            // 1.31 ms, d128 2.40 -> 2.07; seventh session, sweep 7).
            subgroupBarrier();

            var alpha = 1.0;
            if ((ABLATE & 2u) == 0u) {
                alpha = softmax_tile(kb, b, h, q0, my_row, lane, fac, &m_used, &l);
            }
            // Line 10: whether the subgroup rescales O (rare: one of its row maxima rose).
            let raise = subgroupAny(alpha != 1.0) && kb > kb0;
            subgroupBarrier(); // its P rows are stored, its S rows read
            // Lines 10 and 11: O += P V, one O fragment at a time (pv_frag), each rescaled first
            // by alpha when one of the subgroup's row maxima rose (rare). Written so, both arms
            // leave O in the registers the products accumulate in; with the rescale as a branch
            // of its own ahead of one P V loop, the NVIDIA compiler copied every O fragment
            // between two sets of registers each tile (d128: 40 moves on the common path), and
            // P is loaded once all the same (H200, f16, L = 4096, with the unconditional fetch
            // above: d64 1.13 -> 1.03 ms, d128 1.95 -> 1.65; tenth session, sweep 3).
            if (raise) {
                o0 = pv_frag(rescaled_own(o0, row0, my_row, lane, alpha), 0u, row0, zero);
                if (O_FRAGS > 1u) { o1 = pv_frag(rescaled_own(o1, row0, my_row, lane, alpha), 1u, row0, zero); }
                if (O_FRAGS > 2u) { o2 = pv_frag(rescaled_own(o2, row0, my_row, lane, alpha), 2u, row0, zero); }
                if (O_FRAGS > 3u) { o3 = pv_frag(rescaled_own(o3, row0, my_row, lane, alpha), 3u, row0, zero); }
                if (O_FRAGS > 4u) { o4 = pv_frag(rescaled_own(o4, row0, my_row, lane, alpha), 4u, row0, zero); }
                if (O_FRAGS > 5u) { o5 = pv_frag(rescaled_own(o5, row0, my_row, lane, alpha), 5u, row0, zero); }
                if (O_FRAGS > 6u) { o6 = pv_frag(rescaled_own(o6, row0, my_row, lane, alpha), 6u, row0, zero); }
                if (O_FRAGS > 7u) { o7 = pv_frag(rescaled_own(o7, row0, my_row, lane, alpha), 7u, row0, zero); }
            } else {
                o0 = pv_frag(o0, 0u, row0, zero);
                if (O_FRAGS > 1u) { o1 = pv_frag(o1, 1u, row0, zero); }
                if (O_FRAGS > 2u) { o2 = pv_frag(o2, 2u, row0, zero); }
                if (O_FRAGS > 3u) { o3 = pv_frag(o3, 3u, row0, zero); }
                if (O_FRAGS > 4u) { o4 = pv_frag(o4, 4u, row0, zero); }
                if (O_FRAGS > 5u) { o5 = pv_frag(o5, 5u, row0, zero); }
                if (O_FRAGS > 6u) { o6 = pv_frag(o6, 6u, row0, zero); }
                if (O_FRAGS > 7u) { o7 = pv_frag(o7, 7u, row0, zero); }
            }
        }
    }

    // Line 12 (wgsl/coop_kv_whole.wgsl): divide by the row sums and store; with the keys split
    // (wgsl/coop_kv_split.wgsl) the split's unnormalised rows, max and sum for the reduce pass.
    finish(o0, o1, o2, o3, o4, o5, o6, o7, l, m_used, row0, my_row, lane, fac.out, q0, b, h, split);
}
