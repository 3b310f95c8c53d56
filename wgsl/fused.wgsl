// Fused attention, portable variant: FlashAttention-2 (Dao 2023, Algorithm 1) with workgroup-
// memory tiles and f32 arithmetic for every storage dtype. Needs nothing beyond core WebGPU.
//
// One workgroup computes BQ query rows of one (batch, q head). Threads form BQ/4 row groups of
// BK/4 columns: thread (tr, tc) owns query rows 4tr..4tr+3 for the whole kernel, the keys
// tc + j*BK/4 (j < 4) of each KV tile in the S = Q K^T step, and the output vec4 columns
// tc + s*BK/4 (s < NS) in the O += P V step. Keys and columns are interleaved rather than blocked
// so that neighbouring threads read neighbouring rows of the padded tiles (no bank conflicts).
//
// Workgroup memory (sized by the planner to the adapter's limit, src/planner.rs):
//   q_tile   BQ x HEAD_DIM, rows padded by one vec4        (storage dtype)
//   kv_tile  a K chunk (BK keys x DC dims) or a V chunk (KC keys x V_HEAD_DIM), padded rows
//   p_tile   BQ x BK probabilities, f32, padded rows
//   row_red  BQ x BK/4 partial row maxima (and, at the end, partial row sums)

override BQ: u32 = 32u;
override BK: u32 = 32u;
override HEAD_DIM: u32 = 64u;
override V_HEAD_DIM: u32 = 64u;
override DC: u32 = 64u;        // head dims of K staged at once; divides HEAD_DIM
override KC: u32 = 32u;        // keys of V staged at once; divides BK
override NS: u32 = 1u;         // output vec4 columns per thread and row, ceil(V_HEAD_DIM / BK) <= 4
override KV_VEC4: u32 = 1088u; // max(BK * (DC / 4 + 1), KC * (V_HEAD_DIM / 4 + 1))
override WG: u32 = 64u;        // BQ * BK / 16

@group(0) @binding(1) var<storage, read> q: array<elem>;
@group(0) @binding(2) var<storage, read> k: array<elem>;
@group(0) @binding(3) var<storage, read> v: array<elem>;
@group(0) @binding(4) var<storage, read_write> out: array<elem>;

var<workgroup> q_tile: array<vec4<elem>, BQ * (HEAD_DIM / 4u + 1u)>;
var<workgroup> kv_tile: array<vec4<elem>, KV_VEC4>;
var<workgroup> p_tile: array<vec4<f32>, BQ * (BK / 4u + 1u)>;
var<workgroup> row_red: array<f32, BQ * (BK / 4u)>;

// The score of one (row, key) pair, or EXCLUDED for padding past q_len / kv_len.
fn score(qk: f32, b: u32, h: u32, qi: u32, kj: u32) -> f32 {
    if (qi < p.q_len && kj < p.kv_len) {
        return masked_score(qk, b, h, qi, kj);
    }
    return EXCLUDED;
}

// Scores of one query row against this thread's 4 keys key0 + j * BK / 4.
fn score_row(qk: vec4<f32>, b: u32, h: u32, qi: u32, key0: u32) -> vec4<f32> {
    let nc = BK / 4u;
    return vec4<f32>(
        score(qk.x, b, h, qi, key0),
        score(qk.y, b, h, qi, key0 + nc),
        score(qk.z, b, h, qi, key0 + 2u * nc),
        score(qk.w, b, h, qi, key0 + 3u * nc),
    );
}

fn max4(x: vec4<f32>) -> f32 {
    return max(max(x.x, x.y), max(x.z, x.w));
}

fn sum4(x: vec4<f32>) -> f32 {
    return (x.x + x.y) + (x.z + x.w);
}

// o += pc ⊗ v: one key's probabilities for the thread's 4 rows times 4 columns of that key's V.
fn outer_acc(o: mat4x4<f32>, pc: vec4<f32>, v: vec4<f32>) -> mat4x4<f32> {
    return mat4x4<f32>(o[0] + pc.x * v, o[1] + pc.y * v, o[2] + pc.z * v, o[3] + pc.w * v);
}

// Adds one key (row `v_row` of the staged V chunk) to the thread's output slots.
fn pv_key(
    o0: ptr<function, mat4x4<f32>>,
    o1: ptr<function, mat4x4<f32>>,
    o2: ptr<function, mat4x4<f32>>,
    o3: ptr<function, mat4x4<f32>>,
    v_row: u32,
    pc: vec4<f32>,
    tc: u32,
) {
    let nc = BK / 4u;
    let dv4 = V_HEAD_DIM / 4u;
    if (tc < dv4) {
        *o0 = outer_acc(*o0, pc, vec4<f32>(kv_tile[v_row + tc]));
    }
    if (NS > 1u && tc + nc < dv4) {
        *o1 = outer_acc(*o1, pc, vec4<f32>(kv_tile[v_row + tc + nc]));
    }
    if (NS > 2u && tc + 2u * nc < dv4) {
        *o2 = outer_acc(*o2, pc, vec4<f32>(kv_tile[v_row + tc + 2u * nc]));
    }
    if (NS > 3u && tc + 3u * nc < dv4) {
        *o3 = outer_acc(*o3, pc, vec4<f32>(kv_tile[v_row + tc + 3u * nc]));
    }
}

// Writes output slot `slot` (vec4 column tc + slot * BK / 4) of the thread's 4 rows.
fn store_slot(o: mat4x4<f32>, slot: u32, inv: vec4<f32>, out_head: u32, row0: u32, tc: u32) {
    let col4 = tc + slot * (BK / 4u);
    if (slot >= NS || col4 >= V_HEAD_DIM / 4u) {
        return;
    }
    for (var i = 0u; i < 4u; i++) {
        let row = row0 + i;
        if (row < p.q_len) {
            let x = o[i] * inv[i];
            let at = out_head + row * p.out.w + col4 * 4u;
            out[at] = elem(x.x);
            out[at + 1u] = elem(x.y);
            out[at + 2u] = elem(x.z);
            out[at + 3u] = elem(x.w);
        }
    }
}

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) t: u32) {
    let nc = BK / 4u;
    let tr = t / nc;
    let tc = t % nc;
    let r0 = tr * 4u;             // first of the thread's rows within the block
    let q0 = wg.x * BQ;           // first query row of the block
    let h = wg.y;
    let b = wg.z;
    let kv_head = h / p.group;
    let q_head = row_base(p.q, b, h, 0u);
    let k_head = row_base(p.k, b, kv_head, 0u);
    let v_head = row_base(p.v, b, kv_head, 0u);
    let qs = HEAD_DIM / 4u + 1u;  // vec4 row strides of the padded tiles
    let ks = DC / 4u + 1u;
    let vs = V_HEAD_DIM / 4u + 1u;
    let ps = BK / 4u + 1u;

    // Algorithm 1, line 4: Q_i into workgroup memory, rows past q_len as zeros.
    for (var e = t; e < BQ * HEAD_DIM; e += WG) {
        let r = e / HEAD_DIM;
        let d = e % HEAD_DIM;
        var x = elem(0.0);
        if (q0 + r < p.q_len) {
            x = q[q_head + (q0 + r) * p.q.w + d];
        }
        q_tile[r * qs + d / 4u][d % 4u] = x;
    }

    // Line 5: running max (finite start, see mask.wgsl), partial row sums, output accumulators.
    var m = vec4<f32>(FLOOR);
    var l = vec4<f32>(0.0);
    var o0 = mat4x4<f32>();
    var o1 = mat4x4<f32>();
    var o2 = mat4x4<f32>();
    var o3 = mat4x4<f32>();

    // Causal: KV tiles wholly above the diagonal of this block's last row are never loaded.
    var kv_end = p.kv_len;
    if (MASK_KIND == 1u) {
        let last_row = min(q0 + BQ, p.q_len) - 1u;
        kv_end = u32(clamp(i32(last_row) + p.causal_shift + 1, 0, i32(p.kv_len)));
    }

    // Line 6: stream the KV tiles.
    for (var kb = 0u; kb < kv_end; kb += BK) {
        // Line 8: S = Q K^T, the head dim in chunks of DC staged through kv_tile.
        var s = mat4x4<f32>();
        for (var dc0 = 0u; dc0 < HEAD_DIM; dc0 += DC) {
            workgroupBarrier(); // the previous readers of kv_tile are done
            for (var e = t; e < BK * DC; e += WG) {
                let j = e / DC;
                let d = e % DC;
                var x = elem(0.0);
                if (kb + j < p.kv_len) {
                    x = k[k_head + (kb + j) * p.k.w + dc0 + d];
                }
                kv_tile[j * ks + d / 4u][d % 4u] = x;
            }
            workgroupBarrier();
            for (var d4 = 0u; d4 < DC / 4u; d4++) {
                let qa = dc0 / 4u + d4;
                let q_0 = vec4<f32>(q_tile[r0 * qs + qa]);
                let q_1 = vec4<f32>(q_tile[(r0 + 1u) * qs + qa]);
                let q_2 = vec4<f32>(q_tile[(r0 + 2u) * qs + qa]);
                let q_3 = vec4<f32>(q_tile[(r0 + 3u) * qs + qa]);
                let k_0 = vec4<f32>(kv_tile[tc * ks + d4]);
                let k_1 = vec4<f32>(kv_tile[(tc + nc) * ks + d4]);
                let k_2 = vec4<f32>(kv_tile[(tc + 2u * nc) * ks + d4]);
                let k_3 = vec4<f32>(kv_tile[(tc + 3u * nc) * ks + d4]);
                s[0] += vec4<f32>(dot(q_0, k_0), dot(q_0, k_1), dot(q_0, k_2), dot(q_0, k_3));
                s[1] += vec4<f32>(dot(q_1, k_0), dot(q_1, k_1), dot(q_1, k_2), dot(q_1, k_3));
                s[2] += vec4<f32>(dot(q_2, k_0), dot(q_2, k_1), dot(q_2, k_2), dot(q_2, k_3));
                s[3] += vec4<f32>(dot(q_3, k_0), dot(q_3, k_1), dot(q_3, k_2), dot(q_3, k_3));
            }
        }

        // Line 9: scale and mask (log2 units), then the tile's row max across the row group.
        let key0 = kb + tc;
        s[0] = score_row(s[0], b, h, q0 + r0, key0);
        s[1] = score_row(s[1], b, h, q0 + r0 + 1u, key0);
        s[2] = score_row(s[2], b, h, q0 + r0 + 2u, key0);
        s[3] = score_row(s[3], b, h, q0 + r0 + 3u, key0);
        row_red[r0 * nc + tc] = max4(s[0]);
        row_red[(r0 + 1u) * nc + tc] = max4(s[1]);
        row_red[(r0 + 2u) * nc + tc] = max4(s[2]);
        row_red[(r0 + 3u) * nc + tc] = max4(s[3]);
        workgroupBarrier();
        var m_tile = vec4<f32>(FLOOR);
        for (var c = 0u; c < nc; c++) {
            m_tile = max(m_tile, vec4<f32>(
                row_red[r0 * nc + c],
                row_red[(r0 + 1u) * nc + c],
                row_red[(r0 + 2u) * nc + c],
                row_red[(r0 + 3u) * nc + c],
            ));
        }

        // Lines 9-10: new max, P = exp2(S - m), rescale l and O by exp2(m_old - m_new).
        let m_new = max(m, m_tile);
        let alpha = exp2(m - m_new);
        m = m_new;
        let p_0 = exp2(s[0] - m_new.x);
        let p_1 = exp2(s[1] - m_new.y);
        let p_2 = exp2(s[2] - m_new.z);
        let p_3 = exp2(s[3] - m_new.w);
        l = l * alpha + vec4<f32>(sum4(p_0), sum4(p_1), sum4(p_2), sum4(p_3));
        o0 = mat4x4<f32>(o0[0] * alpha.x, o0[1] * alpha.y, o0[2] * alpha.z, o0[3] * alpha.w);
        o1 = mat4x4<f32>(o1[0] * alpha.x, o1[1] * alpha.y, o1[2] * alpha.z, o1[3] * alpha.w);
        o2 = mat4x4<f32>(o2[0] * alpha.x, o2[1] * alpha.y, o2[2] * alpha.z, o2[3] * alpha.w);
        o3 = mat4x4<f32>(o3[0] * alpha.x, o3[1] * alpha.y, o3[2] * alpha.z, o3[3] * alpha.w);
        for (var j = 0u; j < 4u; j++) {
            let key = tc + j * nc;
            let at = key / 4u;
            let lane = key % 4u;
            p_tile[r0 * ps + at][lane] = p_0[j];
            p_tile[(r0 + 1u) * ps + at][lane] = p_1[j];
            p_tile[(r0 + 2u) * ps + at][lane] = p_2[j];
            p_tile[(r0 + 3u) * ps + at][lane] = p_3[j];
        }

        // Line 10: O += P V, the tile's keys in chunks of KC staged through kv_tile.
        for (var kc0 = 0u; kc0 < BK; kc0 += KC) {
            if (kc0 > 0u) {
                workgroupBarrier(); // the previous V chunk is consumed
            }
            for (var e = t; e < KC * V_HEAD_DIM; e += WG) {
                let j = e / V_HEAD_DIM;
                let d = e % V_HEAD_DIM;
                var x = elem(0.0);
                if (kb + kc0 + j < p.kv_len) {
                    x = v[v_head + (kb + kc0 + j) * p.v.w + d];
                }
                kv_tile[j * vs + d / 4u][d % 4u] = x;
            }
            workgroupBarrier(); // V chunk and p_tile are complete
            for (var j = 0u; j < KC; j += 4u) {
                let pa = (kc0 + j) / 4u;
                let pr0 = p_tile[r0 * ps + pa];
                let pr1 = p_tile[(r0 + 1u) * ps + pa];
                let pr2 = p_tile[(r0 + 2u) * ps + pa];
                let pr3 = p_tile[(r0 + 3u) * ps + pa];
                pv_key(&o0, &o1, &o2, &o3, j * vs, vec4<f32>(pr0.x, pr1.x, pr2.x, pr3.x), tc);
                pv_key(&o0, &o1, &o2, &o3, (j + 1u) * vs, vec4<f32>(pr0.y, pr1.y, pr2.y, pr3.y), tc);
                pv_key(&o0, &o1, &o2, &o3, (j + 2u) * vs, vec4<f32>(pr0.z, pr1.z, pr2.z, pr3.z), tc);
                pv_key(&o0, &o1, &o2, &o3, (j + 3u) * vs, vec4<f32>(pr0.w, pr1.w, pr2.w, pr3.w), tc);
            }
        }
    }

    // Line 12: the row sums are spread over the row group; add them, divide, store.
    workgroupBarrier(); // row_red readers of the last tile are done
    row_red[r0 * nc + tc] = l.x;
    row_red[(r0 + 1u) * nc + tc] = l.y;
    row_red[(r0 + 2u) * nc + tc] = l.z;
    row_red[(r0 + 3u) * nc + tc] = l.w;
    workgroupBarrier();
    var l_row = vec4<f32>(0.0);
    for (var c = 0u; c < nc; c++) {
        l_row += vec4<f32>(
            row_red[r0 * nc + c],
            row_red[(r0 + 1u) * nc + c],
            row_red[(r0 + 2u) * nc + c],
            row_red[(r0 + 3u) * nc + c],
        );
    }
    // A row with every key excluded has l_row == 0 and is written as zeros.
    let inv = select(vec4<f32>(1.0) / l_row, vec4<f32>(0.0), l_row == vec4<f32>(0.0));
    let out_head = row_base(p.out, b, h, 0u);
    store_slot(o0, 0u, inv, out_head, q0 + r0, tc);
    store_slot(o1, 1u, inv, out_head, q0 + r0, tc);
    store_slot(o2, 2u, inv, out_head, q0 + r0, tc);
    store_slot(o3, 3u, inv, out_head, q0 + r0, tc);
}
