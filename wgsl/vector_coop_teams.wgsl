// Decode attention on cooperative matrices (f16, 16x16 fragments with f32 accumulators: NVIDIA's
// tensor cores), the subgroups streaming on their own as in wgsl/vector_subgroup.wgsl: each
// subgroup (a "team" of 32 lanes) takes its own blocks of KB = 16 keys through both products and
// the softmax with its own running max, passing values between its lanes only through its own
// slots of workgroup memory (`subgroupBarrier`, which src/spirv.rs makes order workgroup memory);
// the workgroup meets at a barrier once after the queries are staged and at the merge of the
// teams. wgsl/vector_subgroup.wgsl does both products in f32 on every lane: on the H200 its
// arithmetic, not its loads, set the time of 8 query vectors a KV head (BENCHMARKS.md,
// thirty-third session: with every K/V load a cache hit the 64/8-head call took 207 us against
// 212 with its loads). wgsl/vector_coop.wgsl stages each tile of K and V in workgroup memory
// behind four workgroup barriers a tile, one tile of each in flight.
//
// One workgroup handles RQ <= 16 query vectors (query heads h of one KV head times query rows i,
// numbered r = (h % group) * q_len + i from `qv0`, wgsl/decode_query.wgsl), the rows of one
// 16-row fragment block (rows past RQ are zeros and excluded), against one split of the keys
// [split * split_len, (split + 1) * split_len). Team w takes the blocks at key_begin + (w + n *
// TEAMS) * KB. Per block at key kb:
//   1. K's 16 rows (rows past the split's end read as its last key's, excluded below), loaded in
//      8-byte words (at d128 each load instruction of the team reads one row's 256 bytes), go
//      whole to the team's slot of `kv_s` (its slots hold 4-element words: fragments load from
//      them with strides in words); S = Q K^T from Q's fragments (staged once, then held in
//      registers) and K^T's from the slot. (Fragments loaded straight from storage took 5.6x as
//      long on the H200, even as cache hits: BENCHMARKS.md, thirty-third session, runs
//      149-150.) V's rows take K's place in the slot once S is out. With AHEAD (the host's
//      default) each block's K and V rows are asked for a block ahead, the next block's K once
//      this one's is stored and its V once this one's is (20% faster than asking at the block's
//      start, run 152);
//   2. S to the team's slot of `s_s`; lane l takes row l / 2, keys 8 (l % 2) .. + 8: scale and
//      mask (`masked_score`, wgsl/mask.wgsl), the row's max (one shuffle), raised lazily (only
//      past m + RESCALE_LOG2, so that P stays within f16; O rescaled through the slot, row by
//      row, except in the team's first block, where O is still zero); P = exp2(s - m) rounded to
//      f16 (the sum adds P as P V sees it) into the team's slot of `p_s`;
//   3. O += P V, the O_FRAGS accumulators in registers.
// After its last block each team leaves its rows' max and sum in `m_s` / `l_s`; then, one O
// fragment at a time, the teams store it to their score slots and the workgroup adds them (each
// rescaled to the rows' largest max) into the output (one split) or the split's unnormalised
// output, max and sum (several; the reduce pass, wgsl/vector_reduce.wgsl, merges them).
// On the H200 (d128) 212 registers; the host takes as many teams a workgroup as fit (7 there,
// 48256 bytes: one workgroup an SM) and one workgroup an SM (BENCHMARKS.md, thirty-fourth
// session: 140.1 us at 131072 keys with 64/8 heads, against 182.7 with 4 teams and two).

override RQ: u32 = 8u;          // query vectors per workgroup, at most FRAG
override HEAD_DIM: u32 = 128u;  // Q_FRAGS * FRAG (the header's Q_FRAGS)
override V_HEAD_DIM: u32 = 128u; // O_FRAGS * FRAG
override TEAMS: u32 = 8u;       // subgroups of 32 per workgroup
override KVD: u32 = 128u;       // max(HEAD_DIM, V_HEAD_DIM)
override AHEAD: u32 = 0u;       // 1: each block's K and V rows asked for a block ahead
// Profiling only (wrong results): 128 every block reads the first KB keys (cache hits); 1024 no
// softmax (P as left in the slot); 2048 O never rescaled.
override ABLATE: u32 = 0u;
const KB: u32 = 16u;            // keys per team block: one key fragment
const PAD: u32 = 8u;            // f16 elements of padding per staged query row (16 bytes)
// The teams' slots hold 4-element words (vec4), stored whole; fragments are loaded from them
// with strides in words.
override KW: u32 = KVD / 4u + 2u; // words per row of a team's K/V slot (16 bytes of padding)
const SW: u32 = 4u;             // words (vec4<f32>) per row of a team's score slot (unpadded:
                                // padded to 5, 6 teams took as long on the H200, run 156)
const PW: u32 = 6u;             // words (vec4<f16>) per row of a team's P slot
const RESCALE_LOG2: f32 = 8.0;  // P <= 2^8: well within f16

@group(0) @binding(1) var<storage, read> q: array<elem>;
// K and V in 8-byte words (4 f16; the host checked every offset and row stride of both is a
// multiple of 16 bytes).
@group(0) @binding(2) var<storage, read> k: array<vec4<f16>>;
@group(0) @binding(3) var<storage, read> v: array<vec4<f16>>;
@group(0) @binding(4) var<storage, read_write> out: array<elem>;
// With several splits, each split's unnormalised outputs, max and sum go to `partial`
// (wgsl/split_partial.wgsl, after this kernel).

// Q's 16 rows [row][dim] (zeros past RQ), f16.
var<workgroup> q_s: array<stage, FRAG * (HEAD_DIM + PAD)>;
// Each team's block of K [key][dim], then of V [key][dim] (they take turns), f16 in words of 4.
var<workgroup> kv_s: array<vec4<stage>, TEAMS * KB * KW>;
// Each team's scores [row][key] (at the end, one of its O fragments), in words of 4.
var<workgroup> s_s: array<vec4<f32>, TEAMS * FRAG * SW>;
// Each team's P [row][key], f16 in words of 4.
var<workgroup> p_s: array<vec4<stage>, TEAMS * FRAG * PW>;
// Each team's rows' max and sum of P.
var<workgroup> m_s: array<f32, TEAMS * FRAG>;
var<workgroup> l_s: array<f32, TEAMS * FRAG>;

// Query vector `r` of the workgroup whose first is `qv0` (wgsl/decode_query.wgsl).
fn query_vector(kv_head: u32, qv0: u32, r: u32) -> QueryVector {
    return query_vector_of(kv_head, qv0, r, RQ);
}

// A lane's share of a block's 16 rows of K or V: 8-byte words lane + 32 n (n < dims / 8) of the
// rows' words (dims / 4 a row; d128: row n, word `lane`).
struct Rows {
    w0: vec4<f16>,
    w1: vec4<f16>,
    w2: vec4<f16>,
    w3: vec4<f16>,
    w4: vec4<f16>,
    w5: vec4<f16>,
    w6: vec4<f16>,
    w7: vec4<f16>,
    w8: vec4<f16>,
    w9: vec4<f16>,
    w10: vec4<f16>,
    w11: vec4<f16>,
    w12: vec4<f16>,
    w13: vec4<f16>,
    w14: vec4<f16>,
    w15: vec4<f16>,
}

// Word n of the lane's share (see `Rows`) of K (`from_v` false) or V, rows of `dims` from
// `head` (row stride `stride`) for keys kb ..; a key at or past `key_end` reads the split's
// last key (excluded by its score, or P 0).
fn word(from_v: bool, n: u32, lane: u32, dims: u32, head: u32, stride: u32, kb: u32,
        key_end: u32) -> vec4<f16> {
    let e = lane + 32u * n;
    let row = e / (dims / 4u);
    var key = min(kb + row, key_end - 1u);
    if ((ABLATE & 128u) != 0u) {
        key = row;
    }
    let at = (head + key * stride) / 4u + e % (dims / 4u);
    if (from_v) {
        return v[at];
    }
    return k[at];
}

fn load_rows(from_v: bool, lane: u32, head: u32, kb: u32, key_end: u32) -> Rows {
    let dims = select(HEAD_DIM, V_HEAD_DIM, from_v);
    let st = select(p.k.w, p.v.w, from_v);
    let n = dims / 8u;
    var r = Rows();
    r.w0 = word(from_v, 0u, lane, dims, head, st, kb, key_end);
    r.w1 = word(from_v, 1u, lane, dims, head, st, kb, key_end);
    if (n > 2u) { r.w2 = word(from_v, 2u, lane, dims, head, st, kb, key_end); }
    if (n > 3u) { r.w3 = word(from_v, 3u, lane, dims, head, st, kb, key_end); }
    if (n > 4u) { r.w4 = word(from_v, 4u, lane, dims, head, st, kb, key_end); }
    if (n > 5u) { r.w5 = word(from_v, 5u, lane, dims, head, st, kb, key_end); }
    if (n > 6u) { r.w6 = word(from_v, 6u, lane, dims, head, st, kb, key_end); }
    if (n > 7u) { r.w7 = word(from_v, 7u, lane, dims, head, st, kb, key_end); }
    if (n > 8u) { r.w8 = word(from_v, 8u, lane, dims, head, st, kb, key_end); }
    if (n > 9u) { r.w9 = word(from_v, 9u, lane, dims, head, st, kb, key_end); }
    if (n > 10u) { r.w10 = word(from_v, 10u, lane, dims, head, st, kb, key_end); }
    if (n > 11u) { r.w11 = word(from_v, 11u, lane, dims, head, st, kb, key_end); }
    if (n > 12u) { r.w12 = word(from_v, 12u, lane, dims, head, st, kb, key_end); }
    if (n > 13u) { r.w13 = word(from_v, 13u, lane, dims, head, st, kb, key_end); }
    if (n > 14u) { r.w14 = word(from_v, 14u, lane, dims, head, st, kb, key_end); }
    if (n > 15u) { r.w15 = word(from_v, 15u, lane, dims, head, st, kb, key_end); }
    return r;
}

// Word n of the lane's share into the team's K/V slot at word `at` (rows of `dims`): one 8-byte
// store (the d128 rows' 32 lanes write 256 consecutive bytes; one f16 at a time, lanes l and
// l + 16 met in a bank).
fn put(x: vec4<f16>, n: u32, lane: u32, dims: u32, at: u32) {
    let e = lane + 32u * n;
    kv_s[at + (e / (dims / 4u)) * KW + e % (dims / 4u)] = x;
}

fn store_rows(r: Rows, from_v: bool, lane: u32, at: u32) {
    let dims = select(HEAD_DIM, V_HEAD_DIM, from_v);
    let n = dims / 8u;
    put(r.w0, 0u, lane, dims, at);
    put(r.w1, 1u, lane, dims, at);
    if (n > 2u) { put(r.w2, 2u, lane, dims, at); }
    if (n > 3u) { put(r.w3, 3u, lane, dims, at); }
    if (n > 4u) { put(r.w4, 4u, lane, dims, at); }
    if (n > 5u) { put(r.w5, 5u, lane, dims, at); }
    if (n > 6u) { put(r.w6, 6u, lane, dims, at); }
    if (n > 7u) { put(r.w7, 7u, lane, dims, at); }
    if (n > 8u) { put(r.w8, 8u, lane, dims, at); }
    if (n > 9u) { put(r.w9, 9u, lane, dims, at); }
    if (n > 10u) { put(r.w10, 10u, lane, dims, at); }
    if (n > 11u) { put(r.w11, 11u, lane, dims, at); }
    if (n > 12u) { put(r.w12, 12u, lane, dims, at); }
    if (n > 13u) { put(r.w13, 13u, lane, dims, at); }
    if (n > 14u) { put(r.w14, 14u, lane, dims, at); }
    if (n > 15u) { put(r.w15, 15u, lane, dims, at); }
}

// Q's fragment `d` (head dims d * FRAG ..), from its staged rows.
fn q_frag(d: u32) -> frag_a {
    return coopLoadT<frag_a>(&q_s[d * FRAG], HEAD_DIM + PAD);
}

// s + Q's fragment `qa` (head dims d * FRAG ..) times K^T's, from the team's K slot at word
// `at`.
fn qk(s: frag_c, qa: frag_a, d: u32, at: u32) -> frag_c {
    return coopMultiplyAdd(qa, coopLoad<frag_b>(&kv_s[at + d * (FRAG / 4u)], KW), s);
}

// o + P V for O fragment `n` (value dims n * FRAG ..), V from the team's slot at word `at`.
fn pv(o: frag_c, pf: frag_a, n: u32, at: u32) -> frag_c {
    return coopMultiplyAdd(pf, coopLoadT<frag_b>(&kv_s[at + n * (FRAG / 4u)], KW), o);
}

// The 4 scores `s` of keys key0 .. key0 + 3, masked: EXCLUDED for an invalid row and keys
// outside [kb, key_end).
fn masked4(s: vec4<f32>, qv: QueryVector, b: u32, key0: u32, kb: u32, key_end: u32) -> vec4<f32> {
    var x = vec4<f32>(EXCLUDED);
    for (var c = 0u; c < 4u; c++) {
        let key = key0 + c;
        if (qv.valid && key >= kb && key < key_end) {
            x[c] = masked_score(s[c], b, qv.h, qv.i, key);
        }
    }
    return x;
}

// An O fragment with each row multiplied by its lanes' `alpha`, through the team's slot at word
// `at` (lane: row `sr`, columns sc .. sc + 7).
fn rescaled(o: frag_c, at: u32, sr: u32, sc: u32, alpha: f32) -> frag_c {
    subgroupBarrier(); // every lane's scores read
    coopStoreT(o, &s_s[at], SW);
    subgroupBarrier();
    let w = at + sr * SW + sc / 4u;
    s_s[w] *= alpha;
    s_s[w + 1u] *= alpha;
    subgroupBarrier();
    let r = coopLoadT<frag_c>(&s_s[at], SW);
    subgroupBarrier();
    return r;
}

// The teams' O fragment `n` (each stored to its slot by the caller) merged into the output
// columns n * FRAG ..: thread t of the workgroup takes elements t, t + 32 TEAMS, ... of the 16 x
// 16 (rows past RQ skipped); with several splits the rows' max and sum go out with fragment 0.
fn merge_frag(n: u32, t: u32, kv_head: u32, qv0: u32, b: u32, split: u32) {
    for (var e = t; e < FRAG * FRAG; e += 32u * TEAMS) {
        let row = e / FRAG;
        let col = e % FRAG;
        let qv = query_vector(kv_head, qv0, row);
        if (!qv.valid) {
            continue;
        }
        var m_all = FLOOR;
        for (var w = 0u; w < TEAMS; w++) {
            m_all = max(m_all, m_s[w * FRAG + row]);
        }
        var l_all = 0.0;
        var o = 0.0;
        for (var w = 0u; w < TEAMS; w++) {
            let a = exp2(m_s[w * FRAG + row] - m_all);
            l_all += a * l_s[w * FRAG + row];
            o += a * s_s[(w * FRAG + row) * SW + col / 4u][col % 4u];
        }
        let c = n * FRAG + col;
        if (p.kv_splits == 1u) {
            // A query vector with every key excluded has l == 0 and is written as zeros.
            out[row_base(p.out, b, qv.h, qv.i) + c] = elem(select(o / l_all, 0.0, l_all == 0.0));
        } else {
            partial[row_dest(b, qv.h, qv.i, split) + c] = o;
            if (c == 0u) {
                put_stats(b, qv.h, qv.i, split, m_all, l_all);
            }
        }
    }
}

// The team's fragment `o` (O fragment `n`) stored to its slot at `at`, then merged with the
// other teams' (`merge_frag`; workgroup barriers around it).
fn merge_o(o: frag_c, n: u32, at: u32, t: u32, kv_head: u32, qv0: u32, b: u32, split: u32) {
    coopStoreT(o, &s_s[at], SW);
    workgroupBarrier();
    merge_frag(n, t, kv_head, qv0, b, split);
    workgroupBarrier();
}

@compute @workgroup_size(32u * TEAMS)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) t: u32) {
    // The split, query group and keys (wgsl/decode_query.wgsl).
    let dg = decode_group(wg, RQ);
    let kv_head = dg.kv_head;
    let b = dg.b;
    let key_end = dg.key_end;
    let team = t / 32u;
    let lane = t % 32u;
    let k_head = row_base(p.k, b, kv_head, 0u);
    let v_head = row_base(p.v, b, kv_head, 0u);

    // Q's 16 rows, f16 (zeros past the group).
    for (var e = t; e < FRAG * HEAD_DIM; e += 32u * TEAMS) {
        let r = e / HEAD_DIM;
        let d = e % HEAD_DIM;
        let qv = query_vector(kv_head, dg.qv0, r);
        var x = stage(0.0);
        if (qv.valid) {
            x = stage(q[row_base(p.q, b, qv.h, qv.i) + d]);
        }
        q_s[r * (HEAD_DIM + PAD) + d] = x;
    }
    workgroupBarrier();

    // The softmax's role: row sr, keys sc .. sc + 7 of a block.
    let sr = lane / 2u;
    let sc = (lane % 2u) * 8u;
    let sqv = query_vector(kv_head, dg.qv0, sr);
    let s_at = team * FRAG * SW;
    let p_at = team * FRAG * PW;
    var m = FLOOR; // the row's running max (log2 units), raised lazily
    var l = 0.0;   // this lane's share of the row's sum
    var o0 = frag_c();
    var o1 = frag_c();
    var o2 = frag_c();
    var o3 = frag_c();
    var o4 = frag_c();
    var o5 = frag_c();
    var o6 = frag_c();
    var o7 = frag_c();
    // Q's fragments, held in registers for the whole loop (1% faster on the H200 than loading
    // them from workgroup memory for each block, BENCHMARKS.md, thirty-fourth session, runs
    // 158-159; 212 registers, still one workgroup of 7 teams an SM).
    var qa0 = q_frag(0u);
    var qa1 = frag_a();
    var qa2 = frag_a();
    var qa3 = frag_a();
    var qa4 = frag_a();
    var qa5 = frag_a();
    var qa6 = frag_a();
    var qa7 = frag_a();
    if (Q_FRAGS > 1u) { qa1 = q_frag(1u); }
    if (Q_FRAGS > 2u) { qa2 = q_frag(2u); }
    if (Q_FRAGS > 3u) { qa3 = q_frag(3u); }
    if (Q_FRAGS > 4u) { qa4 = q_frag(4u); }
    if (Q_FRAGS > 5u) { qa5 = q_frag(5u); }
    if (Q_FRAGS > 6u) { qa6 = q_frag(6u); }
    if (Q_FRAGS > 7u) { qa7 = q_frag(7u); }
    let first = dg.key_begin + team * KB;
    let kv_at = team * KB * KW;
    let stride = TEAMS * KB;
    // With AHEAD, the first block's rows asked for before the loop (none where the team has no
    // block: `key_end` may be 0).
    var kx = Rows();
    var vx = Rows();
    if (AHEAD == 1u && first < key_end) {
        kx = load_rows(false, lane, k_head, first, key_end);
        vx = load_rows(true, lane, v_head, first, key_end);
    }
    for (var kb = first; kb < key_end; kb += stride) {
        // 1. K's rows into the slot (once every lane is done with the last block's V), then V's
        // asked for (with AHEAD, the next block's K); S = Q K^T.
        if (AHEAD == 0u) {
            kx = load_rows(false, lane, k_head, kb, key_end);
        }
        subgroupBarrier();
        store_rows(kx, false, lane, kv_at);
        if (AHEAD == 1u) {
            kx = load_rows(false, lane, k_head, kb + stride, key_end);
        } else {
            vx = load_rows(true, lane, v_head, kb, key_end);
        }
        subgroupBarrier();
        var s = qk(frag_c(), qa0, 0u, kv_at);
        if (Q_FRAGS > 1u) { s = qk(s, qa1, 1u, kv_at); }
        if (Q_FRAGS > 2u) { s = qk(s, qa2, 2u, kv_at); }
        if (Q_FRAGS > 3u) { s = qk(s, qa3, 3u, kv_at); }
        if (Q_FRAGS > 4u) { s = qk(s, qa4, 4u, kv_at); }
        if (Q_FRAGS > 5u) { s = qk(s, qa5, 5u, kv_at); }
        if (Q_FRAGS > 6u) { s = qk(s, qa6, 6u, kv_at); }
        if (Q_FRAGS > 7u) { s = qk(s, qa7, 7u, kv_at); }
        coopStoreT(s, &s_s[s_at], SW);
        subgroupBarrier();
        // V's rows in K's place (every lane is past its K fragments); with AHEAD the next
        // block's asked for.
        store_rows(vx, true, lane, kv_at);
        if (AHEAD == 1u) {
            vx = load_rows(true, lane, v_head, kb + stride, key_end);
        }
        if ((ABLATE & 1024u) == 0u) {
            // 2. The softmax of the lane's 8 keys.
            let at = s_at + sr * SW + sc / 4u;
            let xa = masked4(s_s[at], sqv, b, kb + sc, kb, key_end);
            let xb = masked4(s_s[at + 1u], sqv, b, kb + sc + 4u, kb, key_end);
            let mx = max(max(max(xa.x, xa.y), max(xa.z, xa.w)),
                         max(max(xb.x, xb.y), max(xb.z, xb.w)));
            let rm = max(mx, subgroupShuffleXor(mx, 1u));
            if (subgroupAny(rm > m + RESCALE_LOG2)) {
                let m_new = max(m, rm);
                let alpha = exp2(m - m_new);
                l *= alpha;
                m = m_new;
                // O is zero before the team's first block (the same branch in every lane).
                if (kb != first && (ABLATE & 2048u) == 0u) {
                    o0 = rescaled(o0, s_at, sr, sc, alpha);
                    if (O_FRAGS > 1u) { o1 = rescaled(o1, s_at, sr, sc, alpha); }
                    if (O_FRAGS > 2u) { o2 = rescaled(o2, s_at, sr, sc, alpha); }
                    if (O_FRAGS > 3u) { o3 = rescaled(o3, s_at, sr, sc, alpha); }
                    if (O_FRAGS > 4u) { o4 = rescaled(o4, s_at, sr, sc, alpha); }
                    if (O_FRAGS > 5u) { o5 = rescaled(o5, s_at, sr, sc, alpha); }
                    if (O_FRAGS > 6u) { o6 = rescaled(o6, s_at, sr, sc, alpha); }
                    if (O_FRAGS > 7u) { o7 = rescaled(o7, s_at, sr, sc, alpha); }
                }
            }
            // P as P V sees it (f16) in the sum too: the output is then a weighted mean of V.
            let pa = round_f16(exp2(xa - m));
            let pb = round_f16(exp2(xb - m));
            l += (pa.x + pa.y) + (pa.z + pa.w) + (pb.x + pb.y) + (pb.z + pb.w);
            let pp = p_at + sr * PW + sc / 4u;
            p_s[pp] = vec4<stage>(pa);
            p_s[pp + 1u] = vec4<stage>(pb);
        }
        subgroupBarrier();
        // 3. O += P V.
        let pf = coopLoadT<frag_a>(&p_s[p_at], PW);
        o0 = pv(o0, pf, 0u, kv_at);
        if (O_FRAGS > 1u) { o1 = pv(o1, pf, 1u, kv_at); }
        if (O_FRAGS > 2u) { o2 = pv(o2, pf, 2u, kv_at); }
        if (O_FRAGS > 3u) { o3 = pv(o3, pf, 3u, kv_at); }
        if (O_FRAGS > 4u) { o4 = pv(o4, pf, 4u, kv_at); }
        if (O_FRAGS > 5u) { o5 = pv(o5, pf, 5u, kv_at); }
        if (O_FRAGS > 6u) { o6 = pv(o6, pf, 6u, kv_at); }
        if (O_FRAGS > 7u) { o7 = pv(o7, pf, 7u, kv_at); }
    }

    // The team's rows' max and sum; then, one O fragment at a time, the teams merged.
    let l_row = l + subgroupShuffleXor(l, 1u);
    if (sc == 0u) {
        m_s[team * FRAG + sr] = m;
        l_s[team * FRAG + sr] = l_row;
    }
    merge_o(o0, 0u, s_at, t, kv_head, dg.qv0, b, dg.split);
    if (O_FRAGS > 1u) { merge_o(o1, 1u, s_at, t, kv_head, dg.qv0, b, dg.split); }
    if (O_FRAGS > 2u) { merge_o(o2, 2u, s_at, t, kv_head, dg.qv0, b, dg.split); }
    if (O_FRAGS > 3u) { merge_o(o3, 3u, s_at, t, kv_head, dg.qv0, b, dg.split); }
    if (O_FRAGS > 4u) { merge_o(o4, 4u, s_at, t, kv_head, dg.qv0, b, dg.split); }
    if (O_FRAGS > 5u) { merge_o(o5, 5u, s_at, t, kv_head, dg.qv0, b, dg.split); }
    if (O_FRAGS > 6u) { merge_o(o6, 6u, s_at, t, kv_head, dg.qv0, b, dg.split); }
    if (O_FRAGS > 7u) { merge_o(o7, 7u, s_at, t, kv_head, dg.qv0, b, dg.split); }
}
