// Fused attention, portable variant: FlashAttention-2 (Dao 2023, Algorithm 1) with workgroup-
// memory tiles and f32 arithmetic for every storage dtype. Needs nothing beyond core WebGPU.
//
// One workgroup computes BQ query rows of one (batch, q head). Threads form BQ/RM row groups of
// NC = BK/CK columns; thread (tr, tc) owns query rows RM tr..RM tr+RM-1 (RM = 4, or 8: two row
// quads) for the whole kernel, keys 4tc..4tc+3 (and, with CK = 8, 4(tc+NC)..4(tc+NC)+3) of each KV
// tile in S = Q K^T, and output vec4 columns tc + s*NC (s < NS) in O += P V. Both products are
// outer products on registers: one vec4 of Q (4 rows at one head dim) times one vec4 of K (4 keys
// at that dim) is 16 FMAs for two workgroup-memory reads; with RM = 8 each K (and V) read feeds
// both row quads, 32 FMAs for three reads; with CK = 8 each Q read also feeds two key quads (4
// rows x 8 keys: 32 FMAs for three reads; 8 x 8 with RM = 8: 64 for four). The second quads'
// accumulators are separate named variables (s4.., u0.., o4..), not arrays, so they stay in
// registers; unused, they are dead code.
//
// Workgroup memory (sized by the planner to the adapter's limit, src/kernels/fused.rs), in
// `stage` (f32, or f16 when the planner stages f16 inputs as they are):
//   q_t     Q transposed, [dim][row]: the whole head (Q_ROWS = HEAD_DIM) or one DC chunk
//   kv      K transposed, [dim][key] (a DC chunk of dims), or V as is, [key][dim] (KC keys)
//           (the transposed tiles' vec4 columns XOR-swizzled by row: `swz`)
//   p_s     P, [row][key], f32, rows padded by one vec4; with PH = 2 (and CK = 8) half a tile's
//           keys at a time: the threads' first key quads (keys 0..BK/2) for the first half of
//           O += P V, then, at the barrier that stages the first V chunk of the second half,
//           their second quads (held in registers since the softmax). No barrier is added, and
//           the half-sized buffer leaves room for larger K, V and Q chunks (fewer steps).
//   row_red partial row maxima (and, at the end, row sums), [row][NC], f32
//
// Staging is software-pipelined through registers: a KV tile is staged in steps (each K chunk,
// with its Q chunk when Q is streamed, then each V chunk), and right after one step is in
// workgroup memory every thread issues the global loads of the NEXT step into up to PF vec4
// registers (`Slots`), so their latency hides behind this step's arithmetic instead of sitting
// in front of a barrier. Step elements past PF * WG per thread are loaded directly when stored.
// PF = 0 is the unpipelined kernel.

override BQ: u32 = 64u;
override BK: u32 = 64u;
override HEAD_DIM: u32 = 64u;
override V_HEAD_DIM: u32 = 64u;
override DC: u32 = 64u;        // head dims of Q and K staged at once; divides HEAD_DIM
override Q_ROWS: u32 = 64u;    // HEAD_DIM when Q stays resident for the whole kernel, else DC
override KC: u32 = 64u;        // keys of V staged at once; divides BK
override NS: u32 = 1u;         // output vec4 columns per thread and row: ceil(V_HEAD_DIM / 4 / NC) <= 4
override KV_VEC4: u32 = 1024u; // max(DC * BK, KC * V_HEAD_DIM) / 4
override RM: u32 = 4u;         // query rows per thread: 4 or 8; divides BQ
override CK: u32 = 4u;         // keys per thread and row in S: 4 or 8; 4 CK divides BK
override PH: u32 = 1u;         // parts P is staged in: 1, or 2 with CK = 8 (KC divides BK / 2)
override WG: u32 = 256u;       // BQ * BK / (CK RM)
override PF: u32 = 0u;         // vec4 registers per thread prefetching the next staging step, <= 16
override ALIGN4: u32 = 0u;     // 1: the host proved every q/k/v/out offset and stride a multiple of 4
override SWZ: u32 = 1u;        // 1: transposed tiles' vec4 columns XOR-swizzled by row (see swz)
override KVS: u32 = 0u;        // 1: the keys split over workgroups (wgsl/fused_kv_split.wgsl)
override ABLATE: u32 = 0u;     // profiling only (wrong results): 1 no Q K^T, 2 no P V, 4 no K/V/Q
                               // staging (loads and stores), 8 no exponentials (P = S)

@group(0) @binding(1) var<storage, read> q: array<elem>;
@group(0) @binding(2) var<storage, read> k: array<elem>;
@group(0) @binding(3) var<storage, read> v: array<elem>;
@group(0) @binding(4) var<storage, read_write> out: array<elem>;

var<workgroup> q_t: array<vec4<stage>, Q_ROWS * BQ / 4u>;
var<workgroup> kv: array<vec4<stage>, KV_VEC4>;
var<workgroup> p_s: array<vec4<f32>, BQ * (BK / (4u * PH) + 1u)>; // rows of p_stride()
var<workgroup> row_red: array<vec4<f32>, BQ * BK / (4u * CK)>;

// The score of one (row, key) pair, or EXCLUDED for the padding past q_len / kv_len.
fn score(qk: f32, b: u32, h: u32, qi: u32, kj: u32) -> f32 {
    if (qi < p.q_len && kj < p.kv_len) {
        return masked_score(qk, b, h, qi, kj);
    }
    return EXCLUDED;
}

// Scores of query row `qi` against keys key0..key0+3.
fn score_row(qk: vec4<f32>, b: u32, h: u32, qi: u32, key0: u32) -> vec4<f32> {
    return vec4<f32>(
        score(qk.x, b, h, qi, key0),
        score(qk.y, b, h, qi, key0 + 1u),
        score(qk.z, b, h, qi, key0 + 2u),
        score(qk.w, b, h, qi, key0 + 3u),
    );
}

// The vec4 row stride of p_s: a part of a tile's keys (BK / PH), padded by one vec4.
fn p_stride() -> u32 {
    return BK / (4u * PH) + 1u;
}

// Stores P of the four rows r0..r0+3 (one vec4 of keys each) at vec4 column `col` of p_s.
fn put_p(r0: u32, col: u32, a: vec4<f32>, b: vec4<f32>, c: vec4<f32>, d: vec4<f32>) {
    let ps = p_stride();
    p_s[r0 * ps + col] = a;
    p_s[(r0 + 1u) * ps + col] = b;
    p_s[(r0 + 2u) * ps + col] = c;
    p_s[(r0 + 3u) * ps + col] = d;
}

// P = exp2(x) (x itself when profiling with ABLATE 8).
fn pexp(x: vec4<f32>) -> vec4<f32> {
    if ((ABLATE & 8u) != 0u) {
        return x;
    }
    return exp2(x);
}

fn max4(x: vec4<f32>) -> f32 {
    return max(max(x.x, x.y), max(x.z, x.w));
}

fn sum4(x: vec4<f32>) -> f32 {
    return (x.x + x.y) + (x.z + x.w);
}

// Per-invocation constants the staging helpers share.
var<private> t_id: u32;
var<private> q_head: u32;
var<private> k_head: u32;
var<private> v_head: u32;
var<private> q_row0: u32;

// Index of the first of 4 consecutive elements. With ALIGN4 the host proved it a multiple of 4;
// saying so (the low bits cleared, a no-op then) lets a compiler merge the 4 loads into one.
fn at4(at: u32) -> u32 {
    return select(at, at & ~3u, ALIGN4 == 1u);
}

fn load4_q(at: u32) -> vec4<stage> {
    let a = at4(at);
    return vec4<stage>(vec4<elem>(q[a], q[a + 1u], q[a + 2u], q[a + 3u]));
}

fn load4_k(at: u32) -> vec4<stage> {
    let a = at4(at);
    return vec4<stage>(vec4<elem>(k[a], k[a + 1u], k[a + 2u], k[a + 3u]));
}

fn load4_v(at: u32) -> vec4<stage> {
    let a = at4(at);
    return vec4<stage>(vec4<elem>(v[a], v[a + 1u], v[a + 2u], v[a + 3u]));
}

// Vec4 elements of a streamed Q chunk (0 when Q is resident), of a K chunk and of a V chunk.
fn q_step_len() -> u32 {
    return select(BQ * DC / 4u, 0u, Q_ROWS == HEAD_DIM);
}

// The vec4 elements of one staging step: a K step (with its Q chunk first when Q is streamed)
// or a V step.
fn step_len(is_v: bool) -> u32 {
    return select(q_step_len() + BK * DC / 4u, KC * V_HEAD_DIM / 4u, is_v);
}

// Row and first dim (within the chunk) of element `e` of a chunk of DC dims: neighbouring threads
// take neighbouring dims of one row, so a warp's loads read whole row segments. (Neighbouring
// rows instead, which made the transposed writes land in neighbouring words, read 16 bytes from
// each of 32 rows a load: the H200 ran f32 d128 at 15.0 ms that way, 10.9 this way.)
fn chunk_coords(e: u32) -> vec2<u32> {
    return vec2<u32>(e / (DC / 4u), (e % (DC / 4u)) * 4u);
}

// The vec4 column that holds column `c` of row `row` of a transposed tile (q_t, or K in kv) with
// `cols` vec4 columns: XOR-swizzled by row / 4 within aligned groups of up to 8 columns, so the
// threads that write one column of rows 4 apart (chunk_coords) hit different banks, while the
// threads that read one row (S = Q K^T) still read different columns.
fn swz(c: u32, row: u32, cols: u32) -> u32 {
    if (SWZ == 0u) {
        return c;
    }
    let m = min(8u, cols & (~cols + 1u)); // the largest power of two dividing cols, at most 8
    return c ^ ((row / 4u) & (m - 1u));
}

// Element `e` of Q dims d0..d0+DC (`chunk_coords`), zeros past q_len.
fn fetch_q(e: u32, d0: u32) -> vec4<stage> {
    let rd = chunk_coords(e);
    let r = rd.x;
    let d = rd.y;
    if (q_row0 + r < p.q_len) {
        return load4_q(q_head + (q_row0 + r) * p.q.w + d0 + d);
    }
    return vec4<stage>();
}

fn put_q(e: u32, d0: u32, x: vec4<stage>) {
    let rd = chunk_coords(e);
    let r = rd.x;
    let qd = select(0u, d0, Q_ROWS == HEAD_DIM) + rd.y;
    let c = swz(r / 4u, qd, BQ / 4u);
    q_t[qd * (BQ / 4u) + c][r % 4u] = x.x;
    q_t[(qd + 1u) * (BQ / 4u) + c][r % 4u] = x.y;
    q_t[(qd + 2u) * (BQ / 4u) + c][r % 4u] = x.z;
    q_t[(qd + 3u) * (BQ / 4u) + c][r % 4u] = x.w;
}

// Element `e` of K keys kb..kb+BK, dims d0..d0+DC (`chunk_coords`), zeros past kv_len; stored
// transposed.
fn fetch_k(e: u32, kb: u32, d0: u32) -> vec4<stage> {
    let jd = chunk_coords(e);
    let j = jd.x;
    let d = jd.y;
    if (kb + j < p.kv_len) {
        return load4_k(k_head + (kb + j) * p.k.w + d0 + d);
    }
    return vec4<stage>();
}

fn put_k(e: u32, x: vec4<stage>) {
    let jd = chunk_coords(e);
    let j = jd.x;
    let d = jd.y;
    let c = swz(j / 4u, d, BK / 4u);
    kv[d * (BK / 4u) + c][j % 4u] = x.x;
    kv[(d + 1u) * (BK / 4u) + c][j % 4u] = x.y;
    kv[(d + 2u) * (BK / 4u) + c][j % 4u] = x.z;
    kv[(d + 3u) * (BK / 4u) + c][j % 4u] = x.w;
}

// Element `e` of V keys kb..kb+KC as they are: key e / (V_HEAD_DIM / 4), zeros past kv_len.
fn fetch_v(e: u32, kb: u32) -> vec4<stage> {
    let dv4 = V_HEAD_DIM / 4u;
    let j = e / dv4;
    if (kb + j < p.kv_len) {
        return load4_v(v_head + (kb + j) * p.v.w + (e % dv4) * 4u);
    }
    return vec4<stage>();
}

// Element `e` of a staging step. A K step of tile kb covers dims c0..c0+DC, a V step keys
// kb+c0..kb+c0+KC. Zeros past the step.
fn fetch(is_v: bool, e: u32, kb: u32, c0: u32) -> vec4<stage> {
    if (is_v) {
        if (e < KC * V_HEAD_DIM / 4u) {
            return fetch_v(e, kb + c0);
        }
    } else if (e < q_step_len()) {
        return fetch_q(e, c0);
    } else if (e < step_len(false)) {
        return fetch_k(e - q_step_len(), kb, c0);
    }
    return vec4<stage>();
}

fn put(is_v: bool, e: u32, c0: u32, x: vec4<stage>) {
    if (is_v) {
        if (e < KC * V_HEAD_DIM / 4u) {
            kv[e] = x;
        }
    } else if (e < q_step_len()) {
        put_q(e, c0, x);
    } else if (e < step_len(false)) {
        put_k(e - q_step_len(), x);
    }
}

// The prefetch registers: element t + i * WG of a step in field s<i>. Named fields, not an
// array: a function-local array indexed in a loop would live in memory on NVIDIA.
struct Slots {
    s0: vec4<stage>, s1: vec4<stage>, s2: vec4<stage>, s3: vec4<stage>,
    s4: vec4<stage>, s5: vec4<stage>, s6: vec4<stage>, s7: vec4<stage>,
    s8: vec4<stage>, s9: vec4<stage>, s10: vec4<stage>, s11: vec4<stage>,
    s12: vec4<stage>, s13: vec4<stage>, s14: vec4<stage>, s15: vec4<stage>,
}

// Issues the global loads of the first PF elements per thread of a step.
fn fetch_step(is_v: bool, kb: u32, c0: u32) -> Slots {
    var r: Slots;
    let t = t_id;
    if (PF > 0u) { r.s0 = fetch(is_v, t, kb, c0); }
    if (PF > 1u) { r.s1 = fetch(is_v, t + WG, kb, c0); }
    if (PF > 2u) { r.s2 = fetch(is_v, t + 2u * WG, kb, c0); }
    if (PF > 3u) { r.s3 = fetch(is_v, t + 3u * WG, kb, c0); }
    if (PF > 4u) { r.s4 = fetch(is_v, t + 4u * WG, kb, c0); }
    if (PF > 5u) { r.s5 = fetch(is_v, t + 5u * WG, kb, c0); }
    if (PF > 6u) { r.s6 = fetch(is_v, t + 6u * WG, kb, c0); }
    if (PF > 7u) { r.s7 = fetch(is_v, t + 7u * WG, kb, c0); }
    if (PF > 8u) { r.s8 = fetch(is_v, t + 8u * WG, kb, c0); }
    if (PF > 9u) { r.s9 = fetch(is_v, t + 9u * WG, kb, c0); }
    if (PF > 10u) { r.s10 = fetch(is_v, t + 10u * WG, kb, c0); }
    if (PF > 11u) { r.s11 = fetch(is_v, t + 11u * WG, kb, c0); }
    if (PF > 12u) { r.s12 = fetch(is_v, t + 12u * WG, kb, c0); }
    if (PF > 13u) { r.s13 = fetch(is_v, t + 13u * WG, kb, c0); }
    if (PF > 14u) { r.s14 = fetch(is_v, t + 14u * WG, kb, c0); }
    if (PF > 15u) { r.s15 = fetch(is_v, t + 15u * WG, kb, c0); }
    return r;
}

// Writes a whole step into workgroup memory: the prefetched elements from `r`, the rest (past
// PF * WG) loaded now.
fn put_step(is_v: bool, kb: u32, c0: u32, r: Slots) {
    if ((ABLATE & 4u) != 0u) {
        return;
    }
    let t = t_id;
    if (PF > 0u) { put(is_v, t, c0, r.s0); }
    if (PF > 1u) { put(is_v, t + WG, c0, r.s1); }
    if (PF > 2u) { put(is_v, t + 2u * WG, c0, r.s2); }
    if (PF > 3u) { put(is_v, t + 3u * WG, c0, r.s3); }
    if (PF > 4u) { put(is_v, t + 4u * WG, c0, r.s4); }
    if (PF > 5u) { put(is_v, t + 5u * WG, c0, r.s5); }
    if (PF > 6u) { put(is_v, t + 6u * WG, c0, r.s6); }
    if (PF > 7u) { put(is_v, t + 7u * WG, c0, r.s7); }
    if (PF > 8u) { put(is_v, t + 8u * WG, c0, r.s8); }
    if (PF > 9u) { put(is_v, t + 9u * WG, c0, r.s9); }
    if (PF > 10u) { put(is_v, t + 10u * WG, c0, r.s10); }
    if (PF > 11u) { put(is_v, t + 11u * WG, c0, r.s11); }
    if (PF > 12u) { put(is_v, t + 12u * WG, c0, r.s12); }
    if (PF > 13u) { put(is_v, t + 13u * WG, c0, r.s13); }
    if (PF > 14u) { put(is_v, t + 14u * WG, c0, r.s14); }
    if (PF > 15u) { put(is_v, t + 15u * WG, c0, r.s15); }
    for (var e = t + PF * WG; e < step_len(is_v); e += WG) {
        put(is_v, e, c0, fetch(is_v, e, kb, c0));
    }
}

// o += pc ⊗ v: one key's probabilities for the thread's 4 rows times 4 columns of that key's V.
fn outer_acc(o: mat4x4<f32>, pc: vec4<f32>, v: vec4<f32>) -> mat4x4<f32> {
    return mat4x4<f32>(o[0] + pc.x * v, o[1] + pc.y * v, o[2] + pc.z * v, o[3] + pc.w * v);
}

// Adds staged V row `j` (the key's probabilities for the 4 rows in `pc`) to the output slots.
fn pv_key(
    o0: ptr<function, mat4x4<f32>>,
    o1: ptr<function, mat4x4<f32>>,
    o2: ptr<function, mat4x4<f32>>,
    o3: ptr<function, mat4x4<f32>>,
    j: u32,
    pc: vec4<f32>,
    tc: u32,
) {
    let nc = BK / CK;
    let dv4 = V_HEAD_DIM / 4u;
    let row = j * dv4;
    if (tc < dv4) {
        *o0 = outer_acc(*o0, pc, vec4<f32>(kv[row + tc]));
    }
    if (NS > 1u && tc + nc < dv4) {
        *o1 = outer_acc(*o1, pc, vec4<f32>(kv[row + tc + nc]));
    }
    if (NS > 2u && tc + 2u * nc < dv4) {
        *o2 = outer_acc(*o2, pc, vec4<f32>(kv[row + tc + 2u * nc]));
    }
    if (NS > 3u && tc + 3u * nc < dv4) {
        *o3 = outer_acc(*o3, pc, vec4<f32>(kv[row + tc + 3u * nc]));
    }
}

// Writes output slot `slot` (vec4 column tc + slot * NC) of the thread's 4 rows from row0 of
// head h, times their `scale`, where wgsl/fused_kv_whole.wgsl (the output) or
// wgsl/fused_kv_split.wgsl (the split's partial rows) says (`row_dest`, `put4`).
fn store_slot(o: mat4x4<f32>, slot: u32, scale: vec4<f32>, b: u32, h: u32, row0: u32, tc: u32, split: u32) {
    let col4 = tc + slot * (BK / CK);
    if (slot >= NS || col4 >= V_HEAD_DIM / 4u) {
        return;
    }
    for (var i = 0u; i < 4u; i++) {
        let row = row0 + i;
        if (row < p.q_len) {
            put4(row_dest(b, h, row, split) + col4 * 4u, o[i] * scale[i]);
        }
    }
}

// The end of the kernel: the thread's 4 rows from row0 of head h with its output slots o0..o3,
// the rows' max m and sums l_row (the same in every thread of the row group).
fn finish_rows(o0: mat4x4<f32>, o1: mat4x4<f32>, o2: mat4x4<f32>, o3: mat4x4<f32>, m: vec4<f32>, l_row: vec4<f32>, b: u32, h: u32, row0: u32, tc: u32, split: u32) {
    let scale = row_scale(l_row);
    store_slot(o0, 0u, scale, b, h, row0, tc, split);
    store_slot(o1, 1u, scale, b, h, row0, tc, split);
    store_slot(o2, 2u, scale, b, h, row0, tc, split);
    store_slot(o3, 3u, scale, b, h, row0, tc, split);
    if (tc == 0u) {
        for (var i = 0u; i < 4u; i++) {
            if (row0 + i < p.q_len) {
                put_stats(b, h, row0 + i, split, m[i], l_row[i]);
            }
        }
    }
}

// The maxima (or sums) of the 4 rows r0..r0+3 over the row group's partial values in row_red.
fn row_group_max(r0: u32) -> vec4<f32> {
    let nc4 = BK / (4u * CK);
    var m = vec4<f32>(FLOOR);
    for (var c = 0u; c < nc4; c++) {
        m = max(m, vec4<f32>(
            max4(row_red[r0 * nc4 + c]),
            max4(row_red[(r0 + 1u) * nc4 + c]),
            max4(row_red[(r0 + 2u) * nc4 + c]),
            max4(row_red[(r0 + 3u) * nc4 + c]),
        ));
    }
    return m;
}

fn row_group_sum(r0: u32) -> vec4<f32> {
    let nc4 = BK / (4u * CK);
    var l = vec4<f32>(0.0);
    for (var c = 0u; c < nc4; c++) {
        l += vec4<f32>(
            sum4(row_red[r0 * nc4 + c]),
            sum4(row_red[(r0 + 1u) * nc4 + c]),
            sum4(row_red[(r0 + 2u) * nc4 + c]),
            sum4(row_red[(r0 + 3u) * nc4 + c]),
        );
    }
    return l;
}

// Publishes one value per row of the thread (partial max or sum over its CK keys).
fn put_row_red(r0: u32, tc: u32, x: vec4<f32>) {
    let nc4 = BK / (4u * CK);
    row_red[r0 * nc4 + tc / 4u][tc % 4u] = x.x;
    row_red[(r0 + 1u) * nc4 + tc / 4u][tc % 4u] = x.y;
    row_red[(r0 + 2u) * nc4 + tc / 4u][tc % 4u] = x.z;
    row_red[(r0 + 3u) * nc4 + tc / 4u][tc % 4u] = x.w;
}

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) t: u32) {
    let nc = BK / CK;             // threads per row group
    let tr = t / nc;
    let tc = t % nc;
    let r0 = tr * RM;             // first of the thread's rows within the block
    let r4 = r0 + 4u;             // first row of the second row quad (RM == 8)
    // With the keys split (KVS, wgsl/fused_kv_split.wgsl) x is the query block times the splits.
    var split = 0u;
    var bx = wg.x;
    if (KVS == 1u) {
        split = wg.x % p.kv_splits;
        bx = wg.x / p.kv_splits;
    }
    let q0 = bx * BQ;             // first query row of the block
    let h = wg.y;
    let b = wg.z;
    let kv_head = h / p.group;
    t_id = t;
    q_row0 = q0;
    q_head = row_base(p.q, b, h, 0u);
    k_head = row_base(p.k, b, kv_head, 0u);
    v_head = row_base(p.v, b, kv_head, 0u);
    let ps = p_stride();

    // Algorithm 1, line 4: Q_i into workgroup memory, if it stays there for the whole kernel.
    if (Q_ROWS == HEAD_DIM) {
        for (var d0 = 0u; d0 < HEAD_DIM; d0 += DC) {
            for (var e = t; e < BQ * DC / 4u; e += WG) {
                put_q(e, d0, fetch_q(e, d0));
            }
        }
    }

    // Line 5: running max (finite start, see mask.wgsl), partial row sums, output accumulators.
    var m = vec4<f32>(FLOOR);
    var l = vec4<f32>(0.0);
    var o0 = mat4x4<f32>();
    var o1 = mat4x4<f32>();
    var o2 = mat4x4<f32>();
    var o3 = mat4x4<f32>();
    // The second row quad (RM == 8).
    var mb = vec4<f32>(FLOOR);
    var lb = vec4<f32>(0.0);
    var o4 = mat4x4<f32>();
    var o5 = mat4x4<f32>();
    var o6 = mat4x4<f32>();
    var o7 = mat4x4<f32>();

    // Causal: KV tiles wholly above the diagonal of the block's last row are never loaded.
    var kv_end = p.kv_len;
    if (MASK_KIND == 1u) {
        let last_row = min(q0 + BQ, p.q_len) - 1u;
        kv_end = u32(clamp(i32(last_row) + p.causal_shift + 1, 0, i32(p.kv_len)));
    }

    // This workgroup's keys: [kb0, kv_end) (a split's, in whole tiles, with KVS).
    var kb0 = 0u;
    if (KVS == 1u) {
        kb0 = split * p.split_len;
        kv_end = min(kv_end, kb0 + p.split_len);
    }

    // The first staging step (K dims 0..DC of the first tile) in flight before the loop.
    var next = Slots();
    if (PF > 0u && kv_end > kb0) {
        next = fetch_step(false, kb0, 0u);
    }

    // Line 6: stream the KV tiles.
    for (var kb = kb0; kb < kv_end; kb += BK) {
        // Line 8: S = Q K^T as outer products over the head dim, DC dims staged at a time.
        var s0 = vec4<f32>();
        var s1 = vec4<f32>();
        var s2 = vec4<f32>();
        var s3 = vec4<f32>();
        var s4 = vec4<f32>();
        var s5 = vec4<f32>();
        var s6 = vec4<f32>();
        var s7 = vec4<f32>();
        // The second key quad (CK == 8), keys 4 (tc + nc)..
        var u0 = vec4<f32>();
        var u1 = vec4<f32>();
        var u2 = vec4<f32>();
        var u3 = vec4<f32>();
        var u4 = vec4<f32>();
        var u5 = vec4<f32>();
        var u6 = vec4<f32>();
        var u7 = vec4<f32>();
        for (var d0 = 0u; d0 < HEAD_DIM; d0 += DC) {
            workgroupBarrier(); // the previous readers of kv (and q_t) are done
            put_step(false, kb, d0, next);
            workgroupBarrier();
            // Prefetch the next step: the next K chunk, or the first V chunk of this tile.
            if (PF > 0u) {
                if (d0 + DC < HEAD_DIM) {
                    next = fetch_step(false, kb, d0 + DC);
                } else {
                    next = fetch_step(true, kb, 0u);
                }
            }
            let qd0 = select(0u, d0, Q_ROWS == HEAD_DIM);
            for (var d = 0u; d < DC * u32((ABLATE & 1u) == 0u); d++) {
                let qrow = (qd0 + d) * (BQ / 4u);
                let qa = vec4<f32>(q_t[qrow + swz(r0 / 4u, qd0 + d, BQ / 4u)]);
                let kb4 = vec4<f32>(kv[d * (BK / 4u) + swz(tc, d, BK / 4u)]);
                s0 += qa.x * kb4;
                s1 += qa.y * kb4;
                s2 += qa.z * kb4;
                s3 += qa.w * kb4;
                if (CK == 8u) {
                    let kc4 = vec4<f32>(kv[d * (BK / 4u) + swz(tc + nc, d, BK / 4u)]);
                    u0 += qa.x * kc4;
                    u1 += qa.y * kc4;
                    u2 += qa.z * kc4;
                    u3 += qa.w * kc4;
                    if (RM == 8u) {
                        let qb = vec4<f32>(q_t[qrow + swz(r0 / 4u + 1u, qd0 + d, BQ / 4u)]);
                        s4 += qb.x * kb4;
                        s5 += qb.y * kb4;
                        s6 += qb.z * kb4;
                        s7 += qb.w * kb4;
                        u4 += qb.x * kc4;
                        u5 += qb.y * kc4;
                        u6 += qb.z * kc4;
                        u7 += qb.w * kc4;
                    }
                } else if (RM == 8u) {
                    let qb = vec4<f32>(q_t[qrow + swz(r0 / 4u + 1u, qd0 + d, BQ / 4u)]);
                    s4 += qb.x * kb4;
                    s5 += qb.y * kb4;
                    s6 += qb.z * kb4;
                    s7 += qb.w * kb4;
                }
            }
        }

        // Line 9: scale and mask (log2 units), then the tile's row max across the row group.
        // Tiles wholly inside both lengths, without a mask or wholly below the causal diagonal,
        // skip the per-element tests.
        let inside = q0 + BQ <= p.q_len && kb + BK <= p.kv_len;
        let unmasked = MASK_KIND == 0u
            || (MASK_KIND == 1u && i32(kb + BK - 1u) <= i32(q0) + p.causal_shift);
        if (inside && unmasked) {
            s0 = max(s0 * p.scale_log2, vec4<f32>(FLOOR));
            s1 = max(s1 * p.scale_log2, vec4<f32>(FLOOR));
            s2 = max(s2 * p.scale_log2, vec4<f32>(FLOOR));
            s3 = max(s3 * p.scale_log2, vec4<f32>(FLOOR));
            if (RM == 8u) {
                s4 = max(s4 * p.scale_log2, vec4<f32>(FLOOR));
                s5 = max(s5 * p.scale_log2, vec4<f32>(FLOOR));
                s6 = max(s6 * p.scale_log2, vec4<f32>(FLOOR));
                s7 = max(s7 * p.scale_log2, vec4<f32>(FLOOR));
            }
            if (CK == 8u) {
                u0 = max(u0 * p.scale_log2, vec4<f32>(FLOOR));
                u1 = max(u1 * p.scale_log2, vec4<f32>(FLOOR));
                u2 = max(u2 * p.scale_log2, vec4<f32>(FLOOR));
                u3 = max(u3 * p.scale_log2, vec4<f32>(FLOOR));
                if (RM == 8u) {
                    u4 = max(u4 * p.scale_log2, vec4<f32>(FLOOR));
                    u5 = max(u5 * p.scale_log2, vec4<f32>(FLOOR));
                    u6 = max(u6 * p.scale_log2, vec4<f32>(FLOOR));
                    u7 = max(u7 * p.scale_log2, vec4<f32>(FLOOR));
                }
            }
        } else {
            let key0 = kb + tc * 4u;
            s0 = score_row(s0, b, h, q0 + r0, key0);
            s1 = score_row(s1, b, h, q0 + r0 + 1u, key0);
            s2 = score_row(s2, b, h, q0 + r0 + 2u, key0);
            s3 = score_row(s3, b, h, q0 + r0 + 3u, key0);
            if (RM == 8u) {
                s4 = score_row(s4, b, h, q0 + r4, key0);
                s5 = score_row(s5, b, h, q0 + r4 + 1u, key0);
                s6 = score_row(s6, b, h, q0 + r4 + 2u, key0);
                s7 = score_row(s7, b, h, q0 + r4 + 3u, key0);
            }
            if (CK == 8u) {
                let key1 = kb + (tc + nc) * 4u;
                u0 = score_row(u0, b, h, q0 + r0, key1);
                u1 = score_row(u1, b, h, q0 + r0 + 1u, key1);
                u2 = score_row(u2, b, h, q0 + r0 + 2u, key1);
                u3 = score_row(u3, b, h, q0 + r0 + 3u, key1);
                if (RM == 8u) {
                    u4 = score_row(u4, b, h, q0 + r4, key1);
                    u5 = score_row(u5, b, h, q0 + r4 + 1u, key1);
                    u6 = score_row(u6, b, h, q0 + r4 + 2u, key1);
                    u7 = score_row(u7, b, h, q0 + r4 + 3u, key1);
                }
            }
        }
        var mx = vec4<f32>(max4(s0), max4(s1), max4(s2), max4(s3));
        var mxb = vec4<f32>(max4(s4), max4(s5), max4(s6), max4(s7));
        if (CK == 8u) {
            mx = max(mx, vec4<f32>(max4(u0), max4(u1), max4(u2), max4(u3)));
            mxb = max(mxb, vec4<f32>(max4(u4), max4(u5), max4(u6), max4(u7)));
        }
        put_row_red(r0, tc, mx);
        if (RM == 8u) {
            put_row_red(r4, tc, mxb);
        }
        workgroupBarrier(); // row_red complete; every read of kv for S is done

        // Lines 9-10: new max, P = exp2(S - m), rescale l and O by exp2(m_old - m_new). P of
        // the second key quads (CK == 8) in pu0..pu7, stored now or (PH == 2) with the second half.
        var pu0 = vec4<f32>();
        var pu1 = vec4<f32>();
        var pu2 = vec4<f32>();
        var pu3 = vec4<f32>();
        var pu4 = vec4<f32>();
        var pu5 = vec4<f32>();
        var pu6 = vec4<f32>();
        var pu7 = vec4<f32>();
        let m_new = max(m, row_group_max(r0));
        let alpha = exp2(m - m_new);
        m = m_new;
        let p0 = pexp(s0 - m_new.x);
        let p1 = pexp(s1 - m_new.y);
        let p2 = pexp(s2 - m_new.z);
        let p3 = pexp(s3 - m_new.w);
        l = l * alpha + vec4<f32>(sum4(p0), sum4(p1), sum4(p2), sum4(p3));
        o0 = mat4x4<f32>(o0[0] * alpha.x, o0[1] * alpha.y, o0[2] * alpha.z, o0[3] * alpha.w);
        o1 = mat4x4<f32>(o1[0] * alpha.x, o1[1] * alpha.y, o1[2] * alpha.z, o1[3] * alpha.w);
        o2 = mat4x4<f32>(o2[0] * alpha.x, o2[1] * alpha.y, o2[2] * alpha.z, o2[3] * alpha.w);
        o3 = mat4x4<f32>(o3[0] * alpha.x, o3[1] * alpha.y, o3[2] * alpha.z, o3[3] * alpha.w);
        put_p(r0, tc, p0, p1, p2, p3);
        if (CK == 8u) {
            pu0 = pexp(u0 - m_new.x);
            pu1 = pexp(u1 - m_new.y);
            pu2 = pexp(u2 - m_new.z);
            pu3 = pexp(u3 - m_new.w);
            l += vec4<f32>(sum4(pu0), sum4(pu1), sum4(pu2), sum4(pu3));
            if (PH == 1u) {
                put_p(r0, tc + nc, pu0, pu1, pu2, pu3);
            }
        }
        if (RM == 8u) {
            let mb_new = max(mb, row_group_max(r4));
            let beta = exp2(mb - mb_new);
            mb = mb_new;
            let p4 = pexp(s4 - mb_new.x);
            let p5 = pexp(s5 - mb_new.y);
            let p6 = pexp(s6 - mb_new.z);
            let p7 = pexp(s7 - mb_new.w);
            lb = lb * beta + vec4<f32>(sum4(p4), sum4(p5), sum4(p6), sum4(p7));
            o4 = mat4x4<f32>(o4[0] * beta.x, o4[1] * beta.y, o4[2] * beta.z, o4[3] * beta.w);
            o5 = mat4x4<f32>(o5[0] * beta.x, o5[1] * beta.y, o5[2] * beta.z, o5[3] * beta.w);
            o6 = mat4x4<f32>(o6[0] * beta.x, o6[1] * beta.y, o6[2] * beta.z, o6[3] * beta.w);
            o7 = mat4x4<f32>(o7[0] * beta.x, o7[1] * beta.y, o7[2] * beta.z, o7[3] * beta.w);
            put_p(r4, tc, p4, p5, p6, p7);
            if (CK == 8u) {
                pu4 = pexp(u4 - mb_new.x);
                pu5 = pexp(u5 - mb_new.y);
                pu6 = pexp(u6 - mb_new.z);
                pu7 = pexp(u7 - mb_new.w);
                lb += vec4<f32>(sum4(pu4), sum4(pu5), sum4(pu6), sum4(pu7));
                if (PH == 1u) {
                    put_p(r4, tc + nc, pu4, pu5, pu6, pu7);
                }
            }
        }

        // Line 10: O += P V, KC keys of V staged at a time.
        for (var kc0 = 0u; kc0 < BK; kc0 += KC) {
            if (kc0 > 0u) {
                workgroupBarrier(); // the previous V chunk (and P half) is consumed
            }
            if (PH == 2u && kc0 == BK / 2u) {
                // The second half of P: the threads' second key quads, where the first were.
                put_p(r0, tc, pu0, pu1, pu2, pu3);
                if (RM == 8u) {
                    put_p(r4, tc, pu4, pu5, pu6, pu7);
                }
            }
            put_step(true, kb, kc0, next);
            workgroupBarrier(); // the V chunk and p_s are complete
            // Prefetch the next step: the next V chunk, or the first K chunk of the next tile.
            if (PF > 0u) {
                if (kc0 + KC < BK) {
                    next = fetch_step(true, kb, kc0 + KC);
                } else if (kb + BK < kv_end) {
                    next = fetch_step(false, kb + BK, 0u);
                }
            }
            for (var j = 0u; j < KC * u32((ABLATE & 2u) == 0u); j += 4u) {
                let pa = ((kc0 + j) % (BK / PH)) / 4u;
                let pr0 = p_s[r0 * ps + pa];
                let pr1 = p_s[(r0 + 1u) * ps + pa];
                let pr2 = p_s[(r0 + 2u) * ps + pa];
                let pr3 = p_s[(r0 + 3u) * ps + pa];
                pv_key(&o0, &o1, &o2, &o3, j, vec4<f32>(pr0.x, pr1.x, pr2.x, pr3.x), tc);
                pv_key(&o0, &o1, &o2, &o3, j + 1u, vec4<f32>(pr0.y, pr1.y, pr2.y, pr3.y), tc);
                pv_key(&o0, &o1, &o2, &o3, j + 2u, vec4<f32>(pr0.z, pr1.z, pr2.z, pr3.z), tc);
                pv_key(&o0, &o1, &o2, &o3, j + 3u, vec4<f32>(pr0.w, pr1.w, pr2.w, pr3.w), tc);
                if (RM == 8u) {
                    let pr4 = p_s[r4 * ps + pa];
                    let pr5 = p_s[(r4 + 1u) * ps + pa];
                    let pr6 = p_s[(r4 + 2u) * ps + pa];
                    let pr7 = p_s[(r4 + 3u) * ps + pa];
                    pv_key(&o4, &o5, &o6, &o7, j, vec4<f32>(pr4.x, pr5.x, pr6.x, pr7.x), tc);
                    pv_key(&o4, &o5, &o6, &o7, j + 1u, vec4<f32>(pr4.y, pr5.y, pr6.y, pr7.y), tc);
                    pv_key(&o4, &o5, &o6, &o7, j + 2u, vec4<f32>(pr4.z, pr5.z, pr6.z, pr7.z), tc);
                    pv_key(&o4, &o5, &o6, &o7, j + 3u, vec4<f32>(pr4.w, pr5.w, pr6.w, pr7.w), tc);
                }
            }
        }
    }

    // Line 12: the row sums are spread over the row group; add them, then store the rows
    // (wgsl/fused_kv_whole.wgsl: divided, to `out`; wgsl/fused_kv_split.wgsl: the split's partial
    // result for the reduce pass).
    workgroupBarrier(); // row_red readers of the last tile are done
    put_row_red(r0, tc, l);
    if (RM == 8u) {
        put_row_red(r4, tc, lb);
    }
    workgroupBarrier();
    finish_rows(o0, o1, o2, o3, m, row_group_sum(r0), b, h, q0 + r0, tc, split);
    if (RM == 8u) {
        finish_rows(o4, o5, o6, o7, mb, row_group_sum(r4), b, h, q0 + r4, tc, split);
    }
}
