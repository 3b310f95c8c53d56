// Decode attention for short queries, the subgroups streaming on their own: each subgroup (a
// "team" of TEAM lanes, the adapter's fixed subgroup size) takes its own blocks of keys through
// scores, softmax and P V with its own running max, exchanging values only by subgroup shuffles;
// the workgroup meets at a barrier once after the queries are staged and once before the teams'
// results are merged. (wgsl/vector.wgsl, the portable decode kernel, has every thread of the
// workgroup pass two barriers a tile: each one drains the workgroup's loads in flight, and on the
// H200 its loop streamed at ~3.6 TB/s where a kernel that only reads reached 4.5.)
//
// One workgroup handles RG <= 4 query vectors (query heads h of one KV head times query rows i,
// numbered r = (h % group) * q_len + i from `qv0`, wgsl/decode_query.wgsl) against one split of
// the keys, [split * split_len, (split + 1) * split_len). Team w takes the blocks of KB = TEAM /
// LPK keys at key_begin + (w + n * TEAMS) * KB, so that the workgroup reads TEAMS * KB
// consecutive keys at a time. Per block, lane l of a team:
//   1. scores: reads chunks u, u + LPK, ... (u = l % LPK, at most 4, wgsl/decode_chunks.wgsl) of
//      key l / LPK straight from storage, dots them with the 4 query vectors (staged in
//      workgroup memory, f32; chains of FMAs), and adds the LPK lanes of the key by shuffles:
//      every lane of a key holds its 4 scores; scale and mask (`masked_score`, wgsl/mask.wgsl);
//   2. softmax: P = exp2(s - m) against the team's running max m (the same in every lane). The
//      max is raised lazily: only in a block where some score passes m + RESCALE_LOG2 (P stays
//      below 2^32 in f32), to the block's max (shuffles), the team's state rescaled; the first
//      block with a visible key always does. Every lane adds its key's P to a sum of its own
//      (the team's sum is LPK times theirs: 4 adds a block where the P V lanes took 12);
//   3. P V: lane l owns the 8 output columns of chunk c = l % VL for the 4 query vectors and
//      the keys kh, kh + KH, ... of the block (kh = l / VL, KH = TEAM / VL key slices; VL is
//      V_HEAD_DIM / 8 rounded up to a power of two, and lanes with c past the row's chunks load
//      and write nothing); it reads its V chunks straight from storage and each key's P from a
//      lane of that key (a shuffle), and adds P V to its output.
// LPK is a power of two of at least HEAD_DIM / 32 (a lane's chunks past the K row load zeros).
// With SCAT (the host's choice: 4 query vectors of f16, LPK >= 4) the lanes of a key split its 4
// scores in step 1 instead of each adding all 4 (`scatter_scores`: 3 shuffles where 8 were), and
// steps 2-3 take one score a lane: one mask, one exp2 and one add to the sum where there were 4;
// step 3 gathers each key's 4 P from 4 lanes (`probs1_of`, the same 4 shuffles). With KL as
// well (d128, 8 keys a block: `full_lines`) step 1 takes 8 lanes a K row over the block's two
// halves, so that each K load instruction reads whole 128-byte lines, as V's do.
// A lane's code asks for a block's K and V loads together at its start (`stream_blocks`), then
// takes its scores and softmax (`block_scores`) and its P V (`block_pv`); the other teams overlap
// their latency (on the H200, loading the next block during this one took 176 registers, one
// workgroup an SM, and was slower: BENCHMARKS.md, thirteenth session; a block's P V done after
// the next block's K loads were asked for, 128 registers, was 4% slower, and the next block's V
// loads staged in workgroup memory through this block's work 7-10%: twenty-fifth). There the
// driver issues the V loads once K's have arrived, and that was faster than V's issued with K's or
// after the scores (twenty-third session); anywhere else in the loop, or the first block's before
// the queries' barrier, was slower still (twenty-fourth). With PF (f16, the host's choice at
// d128 for splits of more than 8 strides) each block's loads are asked for a block ahead
// (`stream_blocks_ahead`): 128 registers, two workgroups an SM still, and 2.4-4.4% faster from
// 32768 keys with 32/8 heads there (thirty-second session; slower for short splits, d64, d256
// and f32). With VC (the host's choice for short splits with KL) V's rows past `key_end` are
// read as the last key's (their P is 0) rather than as zeros under a predicate: the same loads,
// compiled to faster code there. With QH (f16, the host's choice at d128 for splits of at most
// 4 strides) the queries are staged as f16, not f32: half the workgroup memory and a shorter
// staging before the loop, one conversion a query element in each block's scores. After its
// last block each team adds its KH key slices (shuffles) and
// writes its output, max and sum to workgroup memory; the workgroup then merges the teams
// (rescaling each to the largest max) and writes the output (one split) or the split's
// unnormalised output, max and sum (several), which wgsl/vector_reduce.wgsl merges, or the last
// of the splits to finish (wgsl/split_merge_in_pass.wgsl).

override RG: u32 = 4u;          // query vectors per workgroup (at most 4)
override HEAD_DIM: u32 = 128u;
override V_HEAD_DIM: u32 = 128u;
override TEAM: u32 = 32u;       // lanes per team: the subgroup size
override TEAMS: u32 = 8u;       // teams per workgroup
override LPK: u32 = 4u;         // lanes per K row: ceil(HEAD_DIM / 8 / 4) to a power of two
override VL: u32 = 16u;         // lanes per V row: V_HEAD_DIM / 8 to a power of two, <= TEAM
override VEC: u32 = 1u;         // 1: chunks are whole vec4<u32> loads; 0: assembled from words
override ELEM_BYTES: u32 = 2u;  // size of `elem`
override SCAT: u32 = 0u;        // 1 (LPK >= 4): one score a lane (`scattered`; the host decides)
override OS_PARTS: u32 = 1u;     // 1 or 2: the teams' outputs merged in that many parts of columns
// Of wgsl/split_merge_in_pass.wgsl, declared here: naga 30 panicked on an override declared in
// that piece after the kernel. MERGE_ABLATE is for profiling only (wrong results): 1 no merge,
// 2 no count either, 4 workgroup barriers for the fences, 8 nothing, 32 the first 8 splits
// merged only, 64 every round of the merge loading its first group again, 256 no combine of
// the threads sharing a column quad, 512 no output stores, 1024 (and 2048) the arrivals timed
// (`record_arrivals`).
override MERGE_ABLATE: u32 = 0u;
// ABLATE is for profiling only (wrong results): 32 no K/V loads, 64 no Q loads, 128 K/V loads
// from their first 2 KiB (cache hits), 256 no P V (nor V loads).
override ABLATE: u32 = 0u;
override KL: u32 = 0u;          // 1: K's rows read in whole 128-byte lines (`full_lines`)
override VC: u32 = 0u;          // 1: V rows past `key_end` read the last key's (P is 0 there)
override QH: u32 = 0u;          // 1 (f16, the host's choice): the queries staged as f16 (`qh_s`)
override PF: u32 = 0u;          // 1 (the host's choice): each block's loads asked for a block ahead
const RESCALE_LOG2: f32 = 32.0; // the running max rises only past m + this (P < 2^32, f32)

@group(0) @binding(1) var<storage, read> q: array<elem>;
@group(0) @binding(2) var<storage, read> k: array<vec4<u32>>;
@group(0) @binding(3) var<storage, read> v: array<vec4<u32>>;
@group(0) @binding(4) var<storage, read_write> out: array<elem>;
// With several splits, each split's unnormalised outputs, max and sum go to `partial`
// (wgsl/split_partial.wgsl, after this kernel).

// The 4 query vectors (zeros past RG), f32; one unused vec4 with QH.
var<workgroup> q_s: array<vec4<f32>, HEAD_DIM * (1u - QH) + QH>;
// The teams' outputs [team][query vector][column quad of the part], then their maxima and sums.
var<workgroup> o_s: array<vec4<f32>, TEAMS * V_HEAD_DIM / OS_PARTS>;
var<workgroup> m_s: array<vec4<f32>, TEAMS>;
// With QH, in place of `q_s`: the 4 query vectors as f16 ([query vector][chunk], 8 elements a
// vec4<u32>); one unused vec4 otherwise.
var<workgroup> qh_s: array<vec4<u32>, 1u + QH * (HEAD_DIM / 2u - 1u)>;
var<workgroup> l_s: array<vec4<f32>, TEAMS>;

// A lane's K loads for one block: its 4 K chunks (step 1).
struct KBlock {
    k0: Raw,
    k1: Raw,
    k2: Raw,
    k3: Raw,
}

// A lane's V loads for one block: its 4 V chunks (step 3).
struct VBlock {
    v0: Raw,
    v1: Raw,
    v2: Raw,
    v3: Raw,
}

// The lane's K loads of the block at key `kb`: chunks u + n * LPK of key kb + jk (with
// `full_lines` chunks u and u + 8 of keys kb + jk and kb + 4 + jk).
fn load_k(k_head: u32, kb: u32, key_end: u32, jk: u32, u: u32) -> KBlock {
    let d8 = HEAD_DIM / 8u;
    // Keys past `key_end` read the last key (their scores are excluded): no K load is skipped,
    // which on the H200 saved the zeroing and predicates around them (BENCHMARKS.md, fourteenth
    // session).
    let kr = k_head + min(kb + jk, key_end - 1u) * p.k.w + 8u * u;
    let kstep = 8u * LPK;
    // With `full_lines` (jk < 4, u < 8) key kb + 4 + jk's chunks too.
    let kr2 = k_head + min(kb + 4u + jk, key_end - 1u) * p.k.w + 8u * u;
    let fl = full_lines();
    return KBlock(
        load_chunk(false, kr, fl || u < d8),
        load_chunk(false, select(kr + kstep, kr + 64u, fl), fl || u + LPK < d8),
        load_chunk(false, select(kr + 2u * kstep, kr2, fl), fl || u + 2u * LPK < d8),
        load_chunk(false, select(kr + 3u * kstep, kr2 + 64u, fl), fl || u + 3u * LPK < d8),
    );
}

// The lane's V loads of the block at key `kb` (zeros past `key_end`, or with VC the last key's):
// chunk c of keys kb + kh + n * KH.
fn load_v(v_head: u32, kb: u32, key_end: u32, c0: u32, kh: u32) -> VBlock {
    let kh_step = TEAM / VL;
    // Lanes past the row's chunks (VL > V_HEAD_DIM / 8) load nothing, their addresses kept in
    // the row (constants where VL is the row's chunks: the check and the clamp fold).
    let whole = VL == V_HEAD_DIM / 8u;
    let c_in = whole || c0 < V_HEAD_DIM / 8u;
    let c = select(min(c0, V_HEAD_DIM / 8u - 1u), c0, whole);
    let vr = v_head + (kb + kh) * p.v.w + 8u * c;
    let kb_end = TEAM / LPK;
    let vs = kh_step * p.v.w;
    let j = kb + kh;
    let in_block = keys_in_block();
    return VBlock(
        load_chunk(true, v_at(vr, v_head, j, key_end, c),
                   c_in && (in_block || kh < kb_end) && v_in(j, key_end)),
        load_chunk(true, v_at(vr + vs, v_head, j + kh_step, key_end, c),
                   c_in && (in_block || kh + kh_step < kb_end) && v_in(j + kh_step, key_end)),
        load_chunk(true, v_at(vr + 2u * vs, v_head, j + 2u * kh_step, key_end, c),
                   c_in && (in_block || kh + 2u * kh_step < kb_end)
                       && v_in(j + 2u * kh_step, key_end)),
        load_chunk(true, v_at(vr + 3u * vs, v_head, j + 3u * kh_step, key_end, c),
                   c_in && (in_block || kh + 3u * kh_step < kb_end)
                       && v_in(j + 3u * kh_step, key_end)),
    );
}

// The vec4 index `at` of V chunk c of key j; with VC, past `key_end` the last key's (a key there
// has P 0, and the load needs no predicate).
fn v_at(at: u32, v_head: u32, j: u32, key_end: u32, c: u32) -> u32 {
    if (VC == 1u) {
        return v_head + min(j, key_end - 1u) * p.v.w + 8u * c;
    }
    return at;
}

// Whether V's row j is loaded (zeros otherwise): below `key_end`, or any row with VC.
fn v_in(j: u32, key_end: u32) -> bool {
    return VC == 1u || j < key_end;
}

// Whether every key kh + n * KH (n < 4) of step 3 lies in the block, whatever the lane: then
// `load_v` and `probs_of` need no check of it (a constant: the checks fold).
fn keys_in_block() -> bool {
    return 4u * LPK <= VL;
}

// P of the block's key `j` for the 4 query vectors, from the first lane of that key; zeros past
// the block.
fn probs_of(pr: vec4<f32>, j: u32) -> vec4<f32> {
    if (keys_in_block()) {
        return subgroupShuffle(pr, j * LPK);
    }
    let x = subgroupShuffle(pr, min(j, TEAM / LPK - 1u) * LPK);
    return select(vec4<f32>(), x, j < TEAM / LPK);
}

// Whether step 1 takes 8 lanes a K row in two halves of the block (KL, the host's choice: scattered
// scores, 128 dims, 4 lanes a K row, 8 keys a block): lane l reads chunks u and u + 8 (u = l % 8)
// of keys jk and jk + 4 (jk = l / 8), so that each load instruction of the subgroup reads 4 rows'
// whole 128-byte lines where 4 lanes a row read 8 rows' halves (on the H200 K read V's way was
// 1-2.5% faster, V read K's way 5% slower: BENCHMARKS.md, twenty-third session). The 8 lanes of
// jk split the two keys' 8 scores between them (`scatter_halves`): lane l keeps query vector
// `scatter_row(l)` of key jk + 4 * ((l >> 2) & 1), one score a lane as with 4 lanes a key; the
// queries' chunks each lane reads serve both keys.
fn full_lines() -> bool {
    return KL == 1u && scattered() && LPK == 4u && HEAD_DIM == 128u && V_HEAD_DIM == 128u
        && TEAM == 32u;
}

// Whether the LPK >= 4 lanes of a key split its 4 scores between them (a reduce-scatter: lane u
// of the key keeps query vector `scatter_row(u)`), so that masking, softmax and the sums of P
// take one value a lane instead of four (the same in every lane of the key).
fn scattered() -> bool {
    return SCAT == 1u && LPK >= 4u;
}

// The query vector whose score lane `lane` keeps when `scattered`.
fn scatter_row(lane: u32) -> u32 {
    return 2u * (lane & 1u) + ((lane >> 1u) & 1u);
}

// The lane's partial scores `s` of its key summed over the key's LPK lanes, the lane keeping
// query vector `scatter_row(lane)`'s: pairs of lanes swap halves (xor 1: two values, xor 2: one),
// then lanes holding the same query vector add (xor 4 ..).
fn scatter_scores(s: vec4<f32>, lane: u32) -> f32 {
    let lo = (lane & 1u) == 0u;
    let h = select(s.zw, s.xy, lo) + subgroupShuffleXor(select(s.xy, s.zw, lo), 1u);
    let lo1 = (lane & 2u) == 0u;
    var x = select(h.y, h.x, lo1) + subgroupShuffleXor(select(h.x, h.y, lo1), 2u);
    for (var w = 4u; w < LPK; w *= 2u) {
        x += subgroupShuffleXor(x, w);
    }
    return x;
}

// With `full_lines`: the lane's partial scores of keys jk (`s`) and jk + 4 (`s2`) summed over the
// 8 lanes of jk, the lane keeping query vector `scatter_row(lane)` of key
// jk + 4 * ((lane >> 2) & 1) (lanes 4 apart swap halves, then `scatter_scores`: LPK is 4).
fn scatter_halves(s: vec4<f32>, s2: vec4<f32>, lane: u32) -> f32 {
    let hi = (lane & 4u) != 0u;
    let v = select(s, s2, hi) + subgroupShuffleXor(select(s2, s, hi), 4u);
    return scatter_scores(v, lane);
}

// A value per query vector from the lanes base .. base + 3 of a key (`scatter_row` order).
fn gather_rows(x: f32, base: u32) -> vec4<f32> {
    return vec4<f32>(subgroupShuffle(x, base), subgroupShuffle(x, base + 2u),
                     subgroupShuffle(x, base + 1u), subgroupShuffle(x, base + 3u));
}

// `probs_of` for scattered P (one query vector's a lane).
fn probs1_of(pr: f32, j: u32) -> vec4<f32> {
    if (keys_in_block()) {
        return gather_rows(pr, j * LPK);
    }
    let x = gather_rows(pr, min(j, TEAM / LPK - 1u) * LPK);
    return select(vec4<f32>(), x, j < TEAM / LPK);
}

// The teams' outputs in `o_s` for column quads part * pq .. (part + 1) * pq of the 4 query
// vectors merged against the teams' maxima and sums, stored (with the split's max and sum).
fn merge_teams(kv_head: u32, qv0: u32, b: u32, split: u32, t: u32, part: u32, pq: u32) {
    for (var e = t; e < 4u * pq; e += TEAM * TEAMS) {
        let r = e / pq;
        let col = (part * pq + e % pq) * 4u;
        var m_all = FLOOR;
        for (var w = 0u; w < TEAMS; w++) {
            m_all = max(m_all, m_s[w][r]);
        }
        var l_all = 0.0;
        var o = vec4<f32>();
        for (var w = 0u; w < TEAMS; w++) {
            let a = exp2(m_s[w][r] - m_all);
            l_all += a * l_s[w][r];
            o += a * o_s[(w * 4u + r) * pq + e % pq];
        }
        store(kv_head, qv0, r, col, o, l_all, b, split);
        let qv = query_vector(kv_head, qv0, r);
        if (qv.valid && p.kv_splits > 1u && col == 0u) {
            put_stats(b, qv.h, qv.i, split, m_all, l_all);
        }
    }
}

// With QH: stages the 4 query vectors of the workgroup whose first is `qv0` in `qh_s` as f16
// (zeros past the group; ABLATE 64, profiling: zeros), as `stage_queries` does as f32; thread t
// of `threads`.
fn stage_queries_h(kv_head: u32, qv0: u32, b: u32, t: u32, threads: u32) {
    let d8 = HEAD_DIM / 8u;
    for (var e = t; e < 4u * d8; e += threads) {
        let qv = query_vector(kv_head, qv0, e / d8);
        var x = vec4<u32>();
        if (qv.valid && (ABLATE & 64u) == 0u) {
            let at = row_base(p.q, b, qv.h, qv.i) + 8u * (e % d8);
            x = vec4<u32>(pack2x16float(vec2<f32>(f32(q[at]), f32(q[at + 1u]))),
                          pack2x16float(vec2<f32>(f32(q[at + 2u]), f32(q[at + 3u]))),
                          pack2x16float(vec2<f32>(f32(q[at + 4u]), f32(q[at + 5u]))),
                          pack2x16float(vec2<f32>(f32(q[at + 6u]), f32(q[at + 7u]))));
        }
        qh_s[e] = x;
    }
}

// s + q · k over chunk c of query vectors 0 .. 3 (`add_dots4`), with QH the queries' chunks
// from `qh_s` (converted as K's are: the same FMA chains).
fn dots4(s: vec4<f32>, c: u32, x: Chunk) -> vec4<f32> {
    if (QH == 0u) {
        return add_dots4(s, c, x);
    }
    let d8 = HEAD_DIM / 8u;
    let z = vec4<u32>();
    let a = unpack_chunk(Raw(qh_s[c], z));
    let b = unpack_chunk(Raw(qh_s[d8 + c], z));
    let e = unpack_chunk(Raw(qh_s[2u * d8 + c], z));
    let f = unpack_chunk(Raw(qh_s[3u * d8 + c], z));
    return vec4<f32>(fma_dot(fma_dot(s.x, a.lo, x.lo), a.hi, x.hi),
                     fma_dot(fma_dot(s.y, b.lo, x.lo), b.hi, x.hi),
                     fma_dot(fma_dot(s.z, e.lo, x.lo), e.hi, x.hi),
                     fma_dot(fma_dot(s.w, f.lo, x.lo), f.hi, x.hi));
}

// A lane's running state over its team's blocks.
struct Acc {
    st: State,      // its outputs (and, once the team is done, the team's sums of P)
    m: vec4<f32>,   // the team's running max per query vector
    // The lane's sum of its key's P: every lane of a key adds it, so the team's sum is LPK times
    // the sum over its keys (`update_outputs` leaves st.l alone).
    lsum: vec4<f32>,
    // Scattered: the running max and the sum of P over the lane's keys of its query vector
    // (`my_qv`).
    m1: f32,
    lsum1: f32,
    // P of the block whose scores `block_scores` took last, for its P V (`block_pv`): the lane's
    // key's for the 4 query vectors, or (scattered) its one query vector's.
    pr: vec4<f32>,
    pl: f32,
}

// What a lane's blocks share: the batch, the split's end, the lane, its key and chunks in step 1
// (`jk`, c0..c3: the query chunks its K chunks meet), its first key in step 3, and the query
// vectors (its own where scattered).
struct LaneKeys {
    b: u32,
    key_end: u32,
    lane: u32,
    jk: u32,
    kh: u32,
    c0: u32,
    c1: u32,
    c2: u32,
    c3: u32,
    my_qv: QueryVector,
    qvs: array<QueryVector, 4>,
}

// Steps 1-2 of the block at key `kb` (its K loads `kx`): the scores, the running max raised
// where needed (the outputs rescaled), and P in `pr` / `pl` for `block_pv`.
fn block_scores(acc: Acc, kx: KBlock, kb: u32, ln: LaneKeys) -> Acc {
    var st = acc.st;
    var m = acc.m;
    var lsum = acc.lsum;
    var m1 = acc.m1;
    var lsum1 = acc.lsum1;
    let b = ln.b;
    let key_end = ln.key_end;
    let lane = ln.lane;
    let jk = ln.jk;
    let c0 = ln.c0;
    let c1 = ln.c1;
    let c2 = ln.c2;
    let c3 = ln.c3;
    let my_qv = ln.my_qv;
    let qvs = ln.qvs;
    let fl = full_lines();
    // 1. Scores of key kb + jk for the 4 query vectors (with `fl` over chunks u, u + 8).
    var s = dots4(vec4<f32>(), c0, unpack_chunk(kx.k0));
    s = dots4(s, c1, unpack_chunk(kx.k1));
    // With `fl`, key kb + 4 + jk's (over the same chunks).
    var s2 = vec4<f32>();
    if (fl) {
        s2 = dots4(s2, c0, unpack_chunk(kx.k2));
        s2 = dots4(s2, c1, unpack_chunk(kx.k3));
    } else {
        s = dots4(s, c2, unpack_chunk(kx.k2));
        s = dots4(s, c3, unpack_chunk(kx.k3));
    }
    let key = kb + jk;
    // 2. P of the lane's key (scattered: of its one query vector).
    var pr = vec4<f32>();
    var pl = 0.0;
    if (scattered()) {
        // One score a lane (every lane takes part in the shuffles: none inside a branch that
        // lanes could take apart; `fl` is a constant).
        var sc: f32;
        var my_key = key;
        if (fl) {
            sc = scatter_halves(s, s2, lane);
            my_key = key + 4u * ((lane >> 2u) & 1u);
        } else {
            sc = scatter_scores(s, lane);
        }
        var x = EXCLUDED;
        if (my_qv.valid && my_key < key_end) {
            x = masked_score(sc, b, my_qv.h, my_qv.i, my_key);
        }
        if (subgroupAny(x > m1 + RESCALE_LOG2)) {
            var bm = x;
            for (var w = LPK; w < TEAM; w *= 2u) {
                bm = max(bm, subgroupShuffleXor(bm, w));
            }
            let m_new = max(m1, bm);
            let a1 = exp2(m1 - m_new);
            st = rescale_outputs(st, gather_rows(a1, 0u));
            lsum1 *= a1;
            m1 = m_new;
        }
        pl = exp2(x - m1);
        lsum1 += pl;
    } else {
        for (var w = 1u; w < LPK; w *= 2u) {
            s += subgroupShuffleXor(s, w);
        }
        for (var r = 0u; r < 4u; r++) {
            var x = EXCLUDED;
            if (qvs[r].valid && key < key_end) {
                x = masked_score(s[r], b, qvs[r].h, qvs[r].i, key);
            }
            s[r] = x;
        }
        // The running max, raised where some score passes it by RESCALE_LOG2.
        if (subgroupAny(any(s > m + RESCALE_LOG2))) {
            var bm = s;
            for (var w = LPK; w < TEAM; w *= 2u) {
                bm = max(bm, subgroupShuffleXor(bm, w));
            }
            let m_new = max(m, bm);
            let alpha = exp2(m - m_new);
            st = rescale_outputs(st, alpha);
            lsum *= alpha;
            m = m_new;
        }
        pr = exp2(s - m);
        lsum += pr;
    }
    return Acc(st, m, lsum, m1, lsum1, pr, pl);
}

// Step 3 of the block whose P `block_scores` left in `acc` (its V loads `vx`): P V over the
// lane's keys kh + n * KH (n < 4) of the block.
fn block_pv(acc: Acc, vx: VBlock, ln: LaneKeys) -> Acc {
    let kh = ln.kh;
    let kh_n = TEAM / VL;
    // The keys' P for the 4 query vectors (variables, not an array, which a driver may place in
    // memory).
    var p0: vec4<f32>;
    var p1: vec4<f32>;
    var p2: vec4<f32>;
    var p3: vec4<f32>;
    if (scattered()) {
        if (full_lines()) {
            // Key k of the block lies in lanes 8 (k % 4) + 4 (k / 4) + 0..3.
            p0 = gather_rows(acc.pl, 8u * kh);
            p1 = gather_rows(acc.pl, 8u * (kh + 2u));
            p2 = gather_rows(acc.pl, 8u * kh + 4u);
            p3 = gather_rows(acc.pl, 8u * (kh + 2u) + 4u);
        } else {
            p0 = probs1_of(acc.pl, kh);
            p1 = probs1_of(acc.pl, kh + kh_n);
            p2 = probs1_of(acc.pl, kh + 2u * kh_n);
            p3 = probs1_of(acc.pl, kh + 3u * kh_n);
        }
    } else {
        p0 = probs_of(acc.pr, kh);
        p1 = probs_of(acc.pr, kh + kh_n);
        p2 = probs_of(acc.pr, kh + 2u * kh_n);
        p3 = probs_of(acc.pr, kh + 3u * kh_n);
    }
    var n = acc;
    n.st = update_outputs(acc.st, p0, p1, p2, p3, unpack_chunk(vx.v0), unpack_chunk(vx.v1),
                          unpack_chunk(vx.v2), unpack_chunk(vx.v3));
    return n;
}

// The team's blocks first, first + stride, ... below `key_end`, each block's K and V loads
// asked for at its start (on the H200 a load asked for anywhere else, before the queries'
// barrier for the first block or at the end of the block before for the next, was 7-8% slower;
// BENCHMARKS.md, twenty-fourth session).
fn stream_blocks(acc0: Acc, first: u32, stride: u32, k_head: u32, v_head: u32, u: u32, c: u32,
                 ln: LaneKeys) -> Acc {
    var acc = acc0;
    if (PF == 1u) {
        return stream_blocks_ahead(acc, first, stride, k_head, v_head, u, c, ln);
    }
    for (var kb = first; kb < ln.key_end; kb += stride) {
        let kx = load_k(k_head, kb, ln.key_end, ln.jk, u);
        let vx = load_v(v_head, kb, ln.key_end, c, ln.kh);
        acc = block_scores(acc, kx, kb, ln);
        if ((ABLATE & 256u) == 0u) {
            acc = block_pv(acc, vx, ln);
        }
    }
    return acc;
}

// `stream_blocks` with PF: each block's K and V loads asked for a block ahead, before the work
// of the block before; the loads past the team's last block read the last key's rows (K; V with
// VC) or nothing (V under its predicate), and none is asked for where the team has no block
// (`key_end` may be 0). 128 registers on the H200 where `stream_blocks` took 126: still two
// workgroups an SM (BENCHMARKS.md, thirty-second session).
fn stream_blocks_ahead(acc0: Acc, first: u32, stride: u32, k_head: u32, v_head: u32, u: u32,
                       c: u32, ln: LaneKeys) -> Acc {
    var acc = acc0;
    if (first >= ln.key_end) {
        return acc;
    }
    var kx = load_k(k_head, first, ln.key_end, ln.jk, u);
    var vx = load_v(v_head, first, ln.key_end, c, ln.kh);
    for (var kb = first; kb < ln.key_end; kb += stride) {
        let kn = load_k(k_head, kb + stride, ln.key_end, ln.jk, u);
        let vn = load_v(v_head, kb + stride, ln.key_end, c, ln.kh);
        acc = block_scores(acc, kx, kb, ln);
        if ((ABLATE & 256u) == 0u) {
            acc = block_pv(acc, vx, ln);
        }
        kx = kn;
        vx = vn;
    }
    return acc;
}

@compute @workgroup_size(TEAM * TEAMS)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) t: u32) {
    // The split, query group and keys (wgsl/decode_query.wgsl).
    let dg = decode_group(wg, RG);
    let kv_head = dg.kv_head;
    let b = dg.b;
    let key_end = dg.key_end;
    let d8 = HEAD_DIM / 8u;
    let dv8 = V_HEAD_DIM / 8u;
    let kb_n = TEAM / LPK;      // keys per block
    let k_head = row_base(p.k, b, kv_head, 0u);
    let v_head = row_base(p.v, b, kv_head, 0u);

    let team = t / TEAM;
    let lane = t % TEAM;
    let fl = full_lines();
    let jk = select(lane / LPK, lane / 8u, fl); // step 1: key of the block (and jk + 4: `fl`)
    let u = select(lane % LPK, lane % 8u, fl);  //         first chunk
    let c = lane % VL;     // step 3: chunk of V (none where c >= dv8)
    let kh = lane / VL;    //         first key
    let c0 = min(u, d8 - 1u);
    let c1 = select(min(u + LPK, d8 - 1u), u + 8u, fl);
    let c2 = min(u + 2u * LPK, d8 - 1u);
    let c3 = min(u + 3u * LPK, d8 - 1u);
    var qvs: array<QueryVector, 4>;
    for (var r = 0u; r < 4u; r++) {
        qvs[r] = query_vector(kv_head, dg.qv0, r);
    }
    let stride = TEAMS * kb_n;
    let first = dg.key_begin + team * kb_n;

    // The queries (f32, or f16 with QH), zeros for vectors past the group (4 rows, whatever RG).
    if (QH == 1u) {
        stage_queries_h(kv_head, dg.qv0, b, t, TEAM * TEAMS);
    } else {
        stage_queries(kv_head, dg.qv0, b, t, 4u, TEAM * TEAMS);
    }
    workgroupBarrier();

    // Scattered: the query vector whose scores the lane keeps.
    let my_qv = query_vector(kv_head, dg.qv0, scatter_row(lane));
    let ln = LaneKeys(b, key_end, lane, jk, kh, c0, c1, c2, c3, my_qv, qvs);
    let zero = vec4<f32>();
    var acc = Acc(State(zero, zero, zero, zero, zero, zero, zero, zero, zero), vec4<f32>(FLOOR),
                  zero, FLOOR, 0.0, zero, 0.0);
    acc = stream_blocks(acc, first, stride, k_head, v_head, u, c, ln);
    var st = acc.st;
    var m = acc.m;

    // The team's key slices added (all against the team's max) and its sums of P; then the
    // teams merged.
    for (var w = VL; w < TEAM; w *= 2u) {
        st = State(st.l, st.o0l + subgroupShuffleXor(st.o0l, w),
                   st.o0h + subgroupShuffleXor(st.o0h, w), st.o1l + subgroupShuffleXor(st.o1l, w),
                   st.o1h + subgroupShuffleXor(st.o1h, w), st.o2l + subgroupShuffleXor(st.o2l, w),
                   st.o2h + subgroupShuffleXor(st.o2h, w), st.o3l + subgroupShuffleXor(st.o3l, w),
                   st.o3h + subgroupShuffleXor(st.o3h, w));
    }
    if (scattered()) {
        // Each lane's sum over the team's keys of its query vector (lanes of a key that keep the
        // same one hold the same sum); the max is the same in every lane keeping it.
        var tl = acc.lsum1;
        for (var w = LPK; w < TEAM; w *= 2u) {
            tl += subgroupShuffleXor(tl, w);
        }
        st.l = gather_rows(tl, 0u);
        m = gather_rows(acc.m1, 0u);
    } else {
        st.l = subgroupAdd(acc.lsum) / f32(LPK);
    }
    let dv4 = V_HEAD_DIM / 4u;
    if (OS_PARTS == 1u) {
        // Every column quad at once. (Written apart from the parts' loop below: on the H200 the
        // loop with one part was 1-2% slower from 65536 keys; BENCHMARKS.md, eighteenth session.)
        if (kh == 0u && c < dv8) {
            for (var step = 0u; step < 8u; step++) {
                // Query vector step / 2, column quad 2c + step % 2.
                o_s[(team * 4u + step / 2u) * dv4 + 2u * c + step % 2u] = output_vec4(st, step);
            }
            if (c == 0u) {
                m_s[team] = m;
                l_s[team] = st.l;
            }
        }
        workgroupBarrier();
        merge_teams(kv_head, dg.qv0, b, dg.split, t, 0u, dv4);
    } else {
        if (kh == 0u && c == 0u) {
            m_s[team] = m;
            l_s[team] = st.l;
        }
        // OS_PARTS parts of pq column quads each.
        let pq = dv4 / OS_PARTS;
        for (var part = 0u; part < OS_PARTS; part++) {
            if (part > 0u) {
                workgroupBarrier(); // the previous part read
            }
            if (kh == 0u && c < dv8) {
                for (var step = 0u; step < 8u; step++) {
                    let quad = 2u * c + step % 2u;
                    if (quad / pq == part) {
                        o_s[(team * 4u + step / 2u) * pq + quad % pq] = output_vec4(st, step);
                    }
                }
            }
            workgroupBarrier();
            merge_teams(kv_head, dg.qv0, b, dg.split, t, part, pq);
        }
    }
    // With several splits: nothing more where the reduce pass follows
    // (wgsl/split_merge_by_reduce.wgsl); the last split to finish merges them all where the host
    // took wgsl/split_merge_in_pass.wgsl.
    merge_splits(kv_head, dg.qv0, b, t);
}
