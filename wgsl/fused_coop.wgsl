// Fused attention, cooperative-matrix variant: FlashAttention-2 (Dao 2023, Algorithm 1) with
// S = Q K^T and O += P V on matrix fragments (tensor cores on NVIDIA through
// VK_KHR_cooperative_matrix, simdgroup matrices on Apple), the softmax in f32 on workgroup memory.
//
// The generated header defines FRAG (the fragment size, 16 or 8), the fragment types frag_a,
// frag_b, frag_c (inputs in `elem`, accumulators in f32), Q_FRAGS = HEAD_DIM / FRAG and
// O_FRAGS = V_HEAD_DIM / FRAG. The planner uses only a configuration the adapter lists.
//
// Each subgroup ("warp", SG invocations) owns FRAG query rows of the block: its Q fragments and
// its O accumulators stay in registers for the whole kernel. Per KV tile:
//   1. K and V tiles are staged in workgroup memory (zeros past kv_len);
//   2. S = Q K^T, one FRAG x FRAG fragment at a time, stored to s_s as f32;
//   3. each row's SG / FRAG lanes apply scale and mask (mask.wgsl), take the row max, and write
//      P = exp2(S - m) to p_s in `elem`;
//   4. O += P V on fragments.
// O cannot be scaled row by row inside a fragment, so the running max m is raised lazily: only
// when a tile's max exceeds m by more than RESCALE_LOG2 does the workgroup store O, rescale it
// and load it back (rare after the first tiles). Until then P <= 2^RESCALE_LOG2, well inside f16.
//
// Every index and stride of a fragment load or store is a `let` of its own: naga 30's SPIR-V
// writer panics ("expression is not cached") on an index computed inside the pointer expression.

override BQ: u32 = 64u;        // query rows per workgroup: FRAG per subgroup
override BK: u32 = 32u;        // keys per KV tile, a multiple of FRAG
override HEAD_DIM: u32 = 128u;
override V_HEAD_DIM: u32 = 128u;
override SG: u32 = 32u;        // subgroup size
override WG: u32 = 128u;       // BQ / FRAG * SG
override KV_ELEMS: u32 = 8704u; // max(BK * (HEAD_DIM + PAD) + BK * (V_HEAD_DIM + PAD), BQ * (HEAD_DIM + PAD))

const RESCALE_LOG2: f32 = 8.0;
const PAD: u32 = 8u;           // elements of padding per staged row (16 bytes of f16)

@group(0) @binding(1) var<storage, read> q: array<elem>;
@group(0) @binding(2) var<storage, read> k: array<elem>;
@group(0) @binding(3) var<storage, read> v: array<elem>;
@group(0) @binding(4) var<storage, read_write> out: array<elem>;

// K tile [key][dim] then V tile [key][dim], padded rows; Q is staged here once at the start.
var<workgroup> kv_s: array<elem, KV_ELEMS>;
// Scores, f32, [row][key] (each subgroup's FRAG rows also serve as its scratch for O).
var<workgroup> s_s: array<f32, BQ * (BK + 4u)>;
// Probabilities in the fragments' input type, [row][key].
var<workgroup> p_s: array<elem, BQ * (BK + PAD)>;
// Set when some row's max rose past the threshold in this tile.
var<workgroup> rescale_any: atomic<u32>;
var<workgroup> rescale_flag: u32;

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

// Stages rows row0.. of a [len, dim] tensor into kv_s at `base` (row stride dim + PAD), zeros
// for rows at or past `len`.
fn stage_rows(src_is_k: bool, head: u32, seq_stride: u32, row0: u32, rows: u32, len: u32, dim: u32, base: u32, t: u32) {
    let stride = dim + PAD;
    for (var e = t; e < rows * dim; e += WG) {
        let r = e / dim;
        let d = e % dim;
        var x = elem(0.0);
        if (row0 + r < len) {
            let at = head + (row0 + r) * seq_stride + d;
            if (src_is_k) {
                x = k[at];
            } else {
                x = v[at];
            }
        }
        kv_s[base + r * stride + d] = x;
    }
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
    let my_keys = BK / lpr;             // this lane's keys of each tile
    let key_off = (lane % lpr) * my_keys;
    let q0 = wg.x * BQ;
    let h = wg.y;
    let b = wg.z;
    let kv_head = h / p.group;
    let q_head = row_base(p.q, b, h, 0u);
    let k_head = row_base(p.k, b, kv_head, 0u);
    let v_head = row_base(p.v, b, kv_head, 0u);
    let qs = HEAD_DIM + PAD;
    let ks = HEAD_DIM + PAD;
    let vs = V_HEAD_DIM + PAD;
    let ss = BK + 4u;
    let ps = BK + PAD;
    let v_base = BK * ks;

    if (t == 0u) {
        atomicStore(&rescale_any, 0u); // workgroup memory starts undefined (not zeroed)
    }
    // Algorithm 1, line 4: Q_i through workgroup memory into each subgroup's fragments.
    for (var e = t; e < BQ * HEAD_DIM; e += WG) {
        let r = e / HEAD_DIM;
        let d = e % HEAD_DIM;
        var x = elem(0.0);
        if (q0 + r < p.q_len) {
            x = q[q_head + (q0 + r) * p.q.w + d];
        }
        kv_s[r * qs + d] = x;
    }
    workgroupBarrier();
    var qf: array<frag_a, Q_FRAGS>;
    for (var dd = 0u; dd < Q_FRAGS; dd++) {
        let at = row0 * qs + dd * FRAG;
        qf[dd] = coopLoadT<frag_a>(&kv_s[at], qs);
    }

    // Line 5: the max in use, this lane's partial row sum, O fragments.
    var m_used = FLOOR;
    var l = 0.0;
    var o: array<frag_c, O_FRAGS>;

    var kv_end = p.kv_len;
    if (MASK_KIND == 1u) {
        let last_row = min(q0 + BQ, p.q_len) - 1u;
        kv_end = u32(clamp(i32(last_row) + p.causal_shift + 1, 0, i32(p.kv_len)));
    }

    // Line 6: stream the KV tiles.
    for (var kb = 0u; kb < kv_end; kb += BK) {
        workgroupBarrier(); // the previous tile's readers of kv_s (and Q staging) are done
        stage_rows(true, k_head, p.k.w, kb, BK, p.kv_len, HEAD_DIM, 0u, t);
        stage_rows(false, v_head, p.v.w, kb, BK, p.kv_len, V_HEAD_DIM, v_base, t);
        workgroupBarrier();

        // Line 8: S = Q K^T, one fragment of keys at a time, into s_s.
        for (var j = 0u; j < BK / FRAG; j++) {
            var acc = frag_c();
            for (var dd = 0u; dd < Q_FRAGS; dd++) {
                let at = j * FRAG * ks + dd * FRAG;
                let kf = coopLoad<frag_b>(&kv_s[at], ks);
                acc = coopMultiplyAdd(qf[dd], kf, acc);
            }
            let at = row0 * ss + j * FRAG;
            coopStoreT(acc, &s_s[at], ss);
        }
        workgroupBarrier();

        // Line 9: scores (log2 units) and the tile's row max, over the lanes of each row.
        var m_tile = FLOOR;
        for (var c = 0u; c < my_keys; c++) {
            let key = key_off + c;
            let s = score(s_s[my_row * ss + key], b, h, q0 + my_row, kb + key);
            s_s[my_row * ss + key] = s;
            m_tile = max(m_tile, s);
        }
        m_tile = row_lanes_max(m_tile);
        var alpha = 1.0;
        if (m_tile > m_used + RESCALE_LOG2) {
            alpha = exp2(m_used - m_tile);
            m_used = m_tile;
            if (kb > 0u) {
                atomicOr(&rescale_any, 1u);
            }
        }
        l *= alpha;
        // Line 9: P = exp2(S - m) in the fragments' input type.
        for (var c = 0u; c < my_keys; c++) {
            let key = key_off + c;
            let pv = exp2(s_s[my_row * ss + key] - m_used);
            l += pv;
            p_s[my_row * ps + key] = elem(pv);
        }
        workgroupBarrier();
        if (t == 0u) {
            rescale_flag = atomicExchange(&rescale_any, 0u);
        }
        // Line 10, rarely: rescale O rows by alpha through the subgroup's rows of s_s.
        if (workgroupUniformLoad(&rescale_flag) != 0u) {
            for (var n = 0u; n < O_FRAGS; n++) {
                let at = row0 * ss;
                coopStoreT(o[n], &s_s[at], ss);
                workgroupBarrier();
                for (var c = lane % lpr; c < FRAG; c += lpr) {
                    s_s[my_row * ss + c] *= alpha;
                }
                workgroupBarrier();
                o[n] = coopLoadT<frag_c>(&s_s[at], ss);
                workgroupBarrier();
            }
        }

        // Line 10: O += P V.
        for (var j = 0u; j < BK / FRAG; j++) {
            let pa = row0 * ps + j * FRAG;
            let pf = coopLoadT<frag_a>(&p_s[pa], ps);
            for (var n = 0u; n < O_FRAGS; n++) {
                let va = v_base + j * FRAG * vs + n * FRAG;
                let vf = coopLoadT<frag_b>(&kv_s[va], vs);
                o[n] = coopMultiplyAdd(pf, vf, o[n]);
            }
        }
    }

    // Line 12: divide by the row sums and store, one O fragment at a time through s_s.
    let l_row = row_lanes_sum(l);
    let inv = select(1.0 / l_row, 0.0, l_row == 0.0);
    let out_row = q0 + my_row;
    let out_at = row_base(p.out, b, h, 0u) + out_row * p.out.w;
    for (var n = 0u; n < O_FRAGS; n++) {
        workgroupBarrier(); // s_s is free
        let at = row0 * ss;
        coopStoreT(o[n], &s_s[at], ss);
        workgroupBarrier();
        if (out_row < p.q_len) {
            for (var c = lane % lpr; c < FRAG; c += lpr) {
                out[out_at + n * FRAG + c] = elem(s_s[my_row * ss + c] * inv);
            }
        }
    }
}
