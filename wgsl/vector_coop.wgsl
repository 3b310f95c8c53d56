// Decode on cooperative matrices (f16, 16x16 fragments with f32 accumulators: NVIDIA's tensor
// cores): wgsl/vector.wgsl's work (the query heads of a GQA group sharing every K and V load,
// the keys split over workgroups) with both products on fragments. wgsl/vector.wgsl does them
// in f32 on every thread: 4 query vectors x 64 keys x 2 products is 256 FMAs a thread and tile,
// with the f16 conversions ~640 instructions. Here the RQ query vectors (h % group) * q_len + i
// of the workgroup are the first RQ rows of one 16-row fragment block (see kv_s for the rest).
// On the H200 it is 13-19% faster than wgsl/vector.wgsl up to 4096 keys and slower from 8192
// (BENCHMARKS.md, eleventh session): the planner takes it up to 4096.
//
// NW subgroups of 32, one per O fragment (V_HEAD_DIM = 16 NW); tiles of BK = WG / 4 keys (NKB
// = NW / 2 key fragments). K and V of a tile take turns in one buffer (kv_s), which keeps the
// workgroup within 31 KB at d128 (on the H200 a workgroup of more than 32 KB ran alone on its
// SM). Per tile:
//   1. S = Q K^T: subgroup w takes key fragment w % NKB and half w / NKB of the head dims (Q's
//      fragments reloaded from kv_s), stored to s_s per half;
//   2. after a barrier (K is read): the tile's V goes into kv_s (fetched into registers a tile
//      earlier, 16-byte words) and the next tile's V is fetched; the softmax: 16 threads a
//      row, 4 keys each, sum the halves, scale and mask (`masked_score`, wgsl/mask.wgsl), and
//      raise the row max lazily as wgsl/fused_coop.wgsl does (only past RESCALE_LOG2, so P
//      stays within f16); P = exp2(S - m) to p_s in f16;
//   3. after a barrier: O += P V for subgroup w's O fragment, all 16 rows, rescaled first
//      (through its slot of s_s) where a row's max rose;
//   4. after a barrier (V is read): the next tile's K goes into kv_s and the one after it is
//      fetched; a barrier.
// Every load has a tile of work to arrive in, and a tile of K and one of V are in flight at
// every step: on the H200 the bandwidth followed the bytes in flight per SM.
// At the end each subgroup writes its O fragment's rows: normalised into `out` with one split,
// unnormalised into the split's part of the scratch with several (max and sum after them,
// wgsl/split_partial.wgsl), which wgsl/vector_reduce.wgsl combines.
//
// The planner takes this kernel where the adapter lists 16x16x16 f16 fragments with f32
// accumulators, subgroups are 32 wide, K and V lie in 16-byte words, and the head dims fit
// (src/kernels/vector/matrix.rs: head dims 64, 96 or 128, value head dims 64 or 128 and no
// larger; the kernel itself takes any head dim a multiple of 32 up to 128).

override RQ: u32 = 4u;          // query vectors per workgroup, at most FRAG
override HEAD_DIM: u32 = 128u;
override V_HEAD_DIM: u32 = 128u;
override NW: u32 = 8u;          // subgroups of 32 (the host checked the size): V_HEAD_DIM / FRAG
override WG: u32 = 256u;        // threads: 32 NW
override BK: u32 = 64u;         // keys per tile: WG / 4 (16 softmax threads a row, 4 keys each)
override NKB: u32 = 4u;         // key fragments per tile: BK / FRAG
override KVE: u32 = 9792u;      // f16 elements of kv_s: KVO + BK * (max(HEAD_DIM, V_HEAD_DIM) + PAD)
override QR: u32 = 8u;          // rows of Q kept at the start of kv_s: 8 (RQ <= 8) or 16
override KVO: u32 = 1088u;      // where the K/V tile starts in kv_s: QR * (HEAD_DIM + PAD)
override SB: u32 = 2176u;       // floats of s_s: max(2 * FRAG * (BK + SPAD), NW * FRAG * FRAG)
override ABLATE: u32 = 0u;      // profiling only (wrong results): 4 no KV tiles, 32 no K/V loads (zeros staged)
const PAD: u32 = 8u;            // f16 elements of padding per staged row (16 bytes)
const SPAD: u32 = 4u;           // f32 elements of padding per row of s_s
const RESCALE_LOG2: f32 = 8.0;

@group(0) @binding(1) var<storage, read> q: array<elem>;
@group(0) @binding(2) var<storage, read> k: array<vec4<u32>>;
@group(0) @binding(3) var<storage, read> v: array<vec4<u32>>;
@group(0) @binding(4) var<storage, read_write> out: array<elem>;

// Q's first QR rows [row][dim], then the tile's K [key][dim] or its V [key][dim], rows padded
// by PAD. A Q fragment's rows past QR read the tile: they only make S rows past RQ, which
// nothing reads (their scores are EXCLUDED, their P zeros, their O never written).
var<workgroup> kv_s: array<stage, KVE>;
// The scores of each half of the head dims [half][row][key]; also each subgroup's slot for its
// O fragment (rescale and output).
var<workgroup> s_s: array<f32, SB>;
// P [row][key], f16.
var<workgroup> p_s: array<stage, FRAG * (BK + PAD)>;
// Per row: the tile's rescale factor of O; at the end (max, sum).
var<workgroup> alpha_s: array<f32, FRAG>;
var<workgroup> stat_s: array<vec4<f32>, FRAG>;

// A thread's share of a K or V tile: words t + n * WG (n < BK * dims / 8 / WG <= 4) of 8 f16.
struct Words {
    w0: vec4<u32>,
    w1: vec4<u32>,
    w2: vec4<u32>,
    w3: vec4<u32>,
}

// Word `e` of the K (`from_v` false) or V tile from key `kb`, rows of `dims` from `head`;
// zeros past `key_end`.
fn fetch_word(from_v: bool, e: u32, dims: u32, head: u32, kb: u32, key_end: u32) -> vec4<u32> {
    let r = e / (dims / 8u);
    var w = vec4<u32>();
    if ((ABLATE & 32u) != 0u || e >= BK * dims / 8u || kb + r >= key_end) {
        return w;
    }
    if (from_v) {
        w = v[(head + (kb + r) * p.v.w + (e % (dims / 8u)) * 8u) / 8u];
    } else {
        w = k[(head + (kb + r) * p.k.w + (e % (dims / 8u)) * 8u) / 8u];
    }
    return w;
}

fn fetch_words(from_v: bool, head: u32, kb: u32, key_end: u32, t: u32) -> Words {
    let dims = select(HEAD_DIM, V_HEAD_DIM, from_v);
    var r = Words();
    let words = BK * dims / 8u;
    r.w0 = fetch_word(from_v, t, dims, head, kb, key_end);
    if (words > WG) { r.w1 = fetch_word(from_v, t + WG, dims, head, kb, key_end); }
    if (words > 2u * WG) { r.w2 = fetch_word(from_v, t + 2u * WG, dims, head, kb, key_end); }
    if (words > 3u * WG) { r.w3 = fetch_word(from_v, t + 3u * WG, dims, head, kb, key_end); }
    return r;
}

// Stores word `e` of a K or V tile (rows of `dims`) into kv_s at its place: 8 f16, exactly
// (`put_word`, wgsl/coop_word_f16.wgsl).
fn put_at(e: u32, dims: u32, w: vec4<u32>) {
    if (e >= BK * dims / 8u) {
        return;
    }
    put_word(KVO + (e / (dims / 8u)) * (dims + PAD) + (e % (dims / 8u)) * 8u, w);
}

fn put_words(to_v: bool, r: Words, t: u32) {
    let dims = select(HEAD_DIM, V_HEAD_DIM, to_v);
    let words = BK * dims / 8u;
    put_at(t, dims, r.w0);
    if (words > WG) { put_at(t + WG, dims, r.w1); }
    if (words > 2u * WG) { put_at(t + 2u * WG, dims, r.w2); }
    if (words > 3u * WG) { put_at(t + 3u * WG, dims, r.w3); }
}

// Row `r` of the workgroup whose first query vector is `qv0` (within the KV head's group). (wgsl/decode_query.wgsl)
fn query_vector(kv_head: u32, qv0: u32, r: u32) -> QueryVector {
    return query_vector_of(kv_head, qv0, r, RQ);
}

// Max and sum over the 16 neighbouring lanes of a softmax row.
fn row_max(x: f32) -> f32 {
    var m = x;
    for (var w = 1u; w < WG / FRAG; w *= 2u) {
        m = max(m, subgroupShuffleXor(m, w));
    }
    return m;
}

fn row_sum(x: f32) -> f32 {
    var s = x;
    for (var w = 1u; w < WG / FRAG; w *= 2u) {
        s += subgroupShuffleXor(s, w);
    }
    return s;
}

// acc + the Q fragment at `qa` (reloaded every tile: held in registers, Q's fragments took the
// kernel to 132 registers, one 256-thread workgroup an SM on the H200; reloaded, 116, at the same
// speed: sweeps 12-13) times the K^T fragment of head dims dd and key fragment kf.
fn qk(acc: frag_c, qa: u32, kf: u32, dd: u32) -> frag_c {
    let qs = HEAD_DIM + PAD;
    let ka = KVO + kf * FRAG * qs + dd * FRAG;
    return coopMultiplyAdd(coopLoadT<frag_a>(&kv_s[qa], qs), coopLoad<frag_b>(&kv_s[ka], qs), acc);
}

// An O fragment with each row multiplied by alpha_s, through the subgroup's slot at `at`.
fn rescaled(o: frag_c, at: u32, lane: u32) -> frag_c {
    let st = FRAG;
    coopStoreT(o, &s_s[at], st);
    subgroupBarrier();
    let row = lane / 2u;
    let c0 = (lane % 2u) * 8u;
    let a = alpha_s[row];
    for (var c = c0; c < c0 + 8u; c++) {
        s_s[at + row * FRAG + c] *= a;
    }
    subgroupBarrier();
    let r = coopLoadT<frag_c>(&s_s[at], st);
    subgroupBarrier();
    return r;
}

// o + P V for O fragment `n` (value dims n * FRAG ..) over the tile's key fragments.
fn pv_frag(o: frag_c, n: u32) -> frag_c {
    let ps = BK + PAD;
    let vs = V_HEAD_DIM + PAD;
    var r = o;
    for (var j = 0u; j < NKB; j++) {
        let pa = j * FRAG;
        let pf = coopLoadT<frag_a>(&p_s[pa], ps);
        let va = KVO + j * FRAG * vs + n * FRAG;
        r = coopMultiplyAdd(pf, coopLoadT<frag_b>(&kv_s[va], vs), r);
    }
    return r;
}

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) t: u32) {
    // The split, query group and keys (wgsl/decode_query.wgsl).
    let dg = decode_group(wg, RQ);
    let kv_head = dg.kv_head;
    let b = dg.b;
    let key_end = dg.key_end;
    let warp = t / 32u;
    let lane = t % 32u;
    let k_head = row_base(p.k, b, kv_head, 0u);
    let v_head = row_base(p.v, b, kv_head, 0u);

    // The first tile's loads; Q's first QR rows staged while they are in flight.
    var kw = fetch_words(false, k_head, dg.key_begin, key_end, t);
    var vw = fetch_words(true, v_head, dg.key_begin, key_end, t);
    let qs = HEAD_DIM + PAD;
    for (var e = t; e < QR * HEAD_DIM / 4u; e += WG) {
        let r = e / (HEAD_DIM / 4u);
        let d = (e % (HEAD_DIM / 4u)) * 4u;
        let qv = query_vector(kv_head, dg.qv0, r);
        var x = vec4<f32>();
        if (qv.valid) {
            let at = row_base(p.q, b, qv.h, qv.i) + d;
            x = vec4<f32>(f32(q[at]), f32(q[at + 1u]), f32(q[at + 2u]), f32(q[at + 3u]));
        }
        let to = r * qs + d;
        kv_s[to] = stage(x.x);
        kv_s[to + 1u] = stage(x.y);
        kv_s[to + 2u] = stage(x.z);
        kv_s[to + 3u] = stage(x.w);
    }
    let kf = warp % NKB;
    let half = warp / NKB;
    let per = HEAD_DIM / FRAG / 2u; // Q fragments per half, at most 4
    let qa0 = half * per * FRAG;
    put_words(false, kw, t);
    kw = fetch_words(false, k_head, dg.key_begin + BK, key_end, t);
    workgroupBarrier(); // the first tile's K staged

    // The softmax's role: row sr, keys sc .. sc + 3.
    let sr = t / (WG / FRAG);
    let sc = (t % (WG / FRAG)) * 4u;
    let sqv = query_vector(kv_head, dg.qv0, sr);
    var m = FLOOR; // the row's running max (log2 units), raised lazily
    var l = 0.0;   // this thread's share of its running sum
    var o = frag_c();
    let slot = warp * FRAG * FRAG; // the subgroup's O slot in s_s

    let tiles_end = select(key_end, dg.key_begin, (ABLATE & 4u) != 0u);
    for (var kb = dg.key_begin; kb < tiles_end; kb += BK) {
        // 1. S = Q K^T for key fragment kf, head-dims half `half`.
        {
            var acc = qk(frag_c(), qa0, kf, half * per);
            if (per > 1u) { acc = qk(acc, qa0 + FRAG, kf, half * per + 1u); }
            if (per > 2u) { acc = qk(acc, qa0 + 2u * FRAG, kf, half * per + 2u); }
            if (per > 3u) { acc = qk(acc, qa0 + 3u * FRAG, kf, half * per + 3u); }
            let ss = BK + SPAD;
            let sa = half * FRAG * ss + kf * FRAG;
            coopStoreT(acc, &s_s[sa], ss);
        }
        workgroupBarrier(); // S complete; K read
        // 2. This tile's V, the next one's fetched (zeros past the split); the softmax.
        put_words(true, vw, t);
        vw = fetch_words(true, v_head, kb + BK, key_end, t);
        {
            let at = sr * (BK + SPAD) + sc;
            let bt = at + FRAG * (BK + SPAD);
            let raw = vec4<f32>(s_s[at], s_s[at + 1u], s_s[at + 2u], s_s[at + 3u])
                + vec4<f32>(s_s[bt], s_s[bt + 1u], s_s[bt + 2u], s_s[bt + 3u]);
            var sv = vec4<f32>(EXCLUDED);
            for (var c = 0u; c < 4u; c++) {
                let key = kb + sc + c;
                if (sqv.valid && key < key_end) {
                    sv[c] = masked_score(raw[c], b, sqv.h, sqv.i, key);
                }
            }
            let mt = row_max(max(max(sv.x, sv.y), max(sv.z, sv.w)));
            var alpha = 1.0;
            if (mt > m + RESCALE_LOG2) {
                alpha = exp2(m - mt);
                m = mt;
                l *= alpha;
            }
            // P as P V sees it (f16) in the sum too, so that the output is a weighted mean of V
            // whose weights f16 perturbed by up to 2^-12 (summing the f32 P left the numerator's
            // rounding uncorrected: H200, an additive mask of +-20, 5.3e-4 off the f64 reference,
            // over f16's tolerance). Rounded on the bits: the NVIDIA compiler took
            // f32(f16(x)) for x.
            let pr = round_f16(exp2(sv - m));
            l += (pr.x + pr.y) + (pr.z + pr.w); // this thread's share; the row's summed at the end
            let pa = sr * (BK + PAD) + sc;
            p_s[pa] = stage(pr.x);
            p_s[pa + 1u] = stage(pr.y);
            p_s[pa + 2u] = stage(pr.z);
            p_s[pa + 3u] = stage(pr.w);
            if (sc == 0u) {
                alpha_s[sr] = alpha;
            }
        }
        workgroupBarrier(); // P, alpha and V complete; S read
        // 3. O += P V, O rescaled first where some row's max rose (O is zero before the first
        // tile). Every subgroup reads the same factors, so all take the same branch.
        if (subgroupAny(alpha_s[lane % FRAG] != 1.0) && kb > dg.key_begin) {
            o = rescaled(o, slot, lane);
        }
        o = pv_frag(o, warp);
        workgroupBarrier(); // V read; the O slots of s_s free
        // 4. The next tile's K, the one after it fetched.
        put_words(false, kw, t);
        kw = fetch_words(false, k_head, kb + 2u * BK, key_end, t);
        workgroupBarrier();
    }

    // Each row's max and sum (the max the same in its 16 softmax threads, the sum theirs added).
    l = row_sum(l);
    if (sc == 0u) {
        stat_s[sr] = vec4<f32>(m, l, 0.0, 0.0);
        if (sqv.valid && p.kv_splits > 1u) {
            put_stats(b, sqv.h, sqv.i, dg.split, m, l);
        }
    }
    // The O fragment's rows through the subgroup's slot: divided by the row's sum into `out`
    // with one split, else unnormalised into the split's partial rows.
    let st = FRAG;
    coopStoreT(o, &s_s[slot], st);
    workgroupBarrier();
    let row = lane / 2u;
    let c0 = (lane % 2u) * 8u;
    let qv = query_vector(kv_head, dg.qv0, row);
    if (qv.valid) {
        let l_row = stat_s[row].y;
        for (var c = c0; c < c0 + 8u; c++) {
            let x = s_s[slot + row * FRAG + c];
            let col = warp * FRAG + c;
            if (p.kv_splits == 1u) {
                // A query vector with every key excluded has l == 0 and is written as zeros.
                out[row_base(p.out, b, qv.h, qv.i) + col] = elem(select(x / l_row, 0.0, l_row == 0.0));
            } else {
                partial[row_dest(b, qv.h, qv.i, dg.split) + col] = x;
            }
        }
    }
}
