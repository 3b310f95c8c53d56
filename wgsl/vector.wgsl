// Decode ("vector") attention for q_len <= 8: flash-decoding with the query heads of a GQA group
// sharing every K and V load.
//
// One workgroup handles RG query vectors (query heads h of one KV head, times query rows i,
// numbered r = (h % group) * q_len + i from `qv0`) against one split of the keys,
// [split * split_len, (split + 1) * split_len). Per tile of BK keys:
//   1. K is staged in workgroup memory (coalesced; zeros past the end);
//   2. every (query vector, key) score: a dot product over the head dim, f32;
//   3. one thread per query vector updates its running max and sum (online softmax, exp2) and
//      turns the tile's scores into probabilities, recording the rescale factor alpha;
//   4. V is staged in the same memory, and every output element is rescaled by alpha and
//      accumulates P V.
// With one split the kernel writes the output; with several it writes each split's unnormalised
// output, max and sum to the scratch buffer, and wgsl/vector_reduce.wgsl combines them.
// Masks and the causal diagonal are applied through `masked_score` (wgsl/mask.wgsl).

override RG: u32 = 8u;          // query vectors per workgroup
override BK: u32 = 32u;         // keys per tile
override HEAD_DIM: u32 = 128u;
override V_HEAD_DIM: u32 = 128u;
override WG: u32 = 256u;        // threads
override KV_VEC4: u32 = 1056u;  // BK * (max(HEAD_DIM, V_HEAD_DIM) / 4 + 1)

@group(0) @binding(1) var<storage, read> q: array<elem>;
@group(0) @binding(2) var<storage, read> k: array<elem>;
@group(0) @binding(3) var<storage, read> v: array<elem>;
@group(0) @binding(4) var<storage, read_write> out: array<elem>;
// Per split and query vector: V_HEAD_DIM unnormalised outputs, then (max, sum) pairs after all
// of them. Query vector `qv` = (b * q_heads + h) * q_len + i.
@group(0) @binding(6) var<storage, read_write> partial: array<f32>;

var<workgroup> q_s: array<vec4<f32>, RG * HEAD_DIM / 4u>;
var<workgroup> kv_s: array<vec4<elem>, KV_VEC4>;
var<workgroup> p_s: array<f32, RG * BK>;
var<workgroup> alpha_s: array<f32, RG>;
var<workgroup> l_s: array<f32, RG>;

struct QueryVector {
    h: u32,       // query head
    i: u32,       // query row
    valid: bool,  // within this KV head's group and q_len
}

// Query vector `r` of the workgroup whose first is `qv0` (within the KV head's group).
fn query_vector(kv_head: u32, qv0: u32, r: u32) -> QueryVector {
    let g = qv0 + r;
    let valid = r < RG && g < p.group * p.q_len;
    return QueryVector(kv_head * p.group + g / p.q_len, g % p.q_len, valid);
}

// Output vec4 column `c` of query vector r: the thread's accumulator slot.
fn accumulate(o: vec4<f32>, r: u32, c: u32, alpha: f32, key_count: u32) -> vec4<f32> {
    var acc = o * alpha;
    let vs = V_HEAD_DIM / 4u + 1u;
    for (var j = 0u; j < key_count; j++) {
        acc += p_s[r * BK + j] * vec4<f32>(kv_s[j * vs + c]);
    }
    return acc;
}

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) t: u32) {
    let split = wg.x;
    let groups_per_head = (p.group * p.q_len + RG - 1u) / RG;
    let kv_head = wg.y / groups_per_head;
    let qv0 = (wg.y % groups_per_head) * RG;
    let b = wg.z;
    let d4 = HEAD_DIM / 4u;
    let dv4 = V_HEAD_DIM / 4u;
    let ks = d4 + 1u;    // vec4 row strides of the staged K and V tiles
    let vs = dv4 + 1u;
    let k_head = row_base(p.k, b, kv_head, 0u);
    let v_head = row_base(p.v, b, kv_head, 0u);

    // The queries, f32, zeros for vectors past the group.
    for (var e = t; e < RG * d4; e += WG) {
        let r = e / d4;
        let d = (e % d4) * 4u;
        let qv = query_vector(kv_head, qv0, r);
        var x = vec4<f32>();
        if (qv.valid) {
            let at = row_base(p.q, b, qv.h, qv.i) + d;
            x = vec4<f32>(f32(q[at]), f32(q[at + 1u]), f32(q[at + 2u]), f32(q[at + 3u]));
        }
        q_s[e] = x;
    }

    // This split's keys, cut short where a causal mask hides the rest from every query row.
    let key_begin = split * p.split_len;
    var key_end = min(key_begin + p.split_len, p.kv_len);
    if (MASK_KIND == 1u) {
        let visible = i32(p.q_len - 1u) + p.causal_shift + 1;
        key_end = min(key_end, u32(clamp(visible, 0, i32(p.kv_len))));
    }

    // Thread t < RG keeps the running max and sum of query vector t.
    var m = FLOOR;
    var l = 0.0;
    // Output slots: vec4 column c = t % dv4 of query vectors r = t / dv4 + n * (WG / dv4), n < 4,
    // for the first (WG / dv4) * dv4 threads (the planner keeps RG <= 4 * (WG / dv4)).
    let c = t % dv4;
    let r_step = WG / dv4;
    let r0 = select(RG, t / dv4, t < r_step * dv4);
    var o0 = vec4<f32>();
    var o1 = vec4<f32>();
    var o2 = vec4<f32>();
    var o3 = vec4<f32>();

    for (var kb = key_begin; kb < key_end; kb += BK) {
        let n_keys = min(BK, key_end - kb);
        workgroupBarrier(); // the previous tile's readers of kv_s and p_s are done
        // 1. K tile.
        for (var e = t; e < BK * d4; e += WG) {
            let j = e / d4;
            let d = (e % d4) * 4u;
            var x = vec4<elem>();
            if (j < n_keys) {
                let at = k_head + (kb + j) * p.k.w + d;
                x = vec4<elem>(k[at], k[at + 1u], k[at + 2u], k[at + 3u]);
            }
            kv_s[j * ks + d / 4u] = x;
        }
        workgroupBarrier();
        // 2. Scores of every (query vector, key) pair of the tile.
        for (var e = t; e < RG * BK; e += WG) {
            let r = e / BK;
            let j = e % BK;
            let qv = query_vector(kv_head, qv0, r);
            var s = EXCLUDED;
            if (qv.valid && j < n_keys) {
                var dot_qk = 0.0;
                for (var d = 0u; d < d4; d++) {
                    dot_qk += dot(q_s[r * d4 + d], vec4<f32>(kv_s[j * ks + d]));
                }
                s = masked_score(dot_qk, b, qv.h, qv.i, kb + j);
            }
            p_s[e] = s;
        }
        workgroupBarrier();
        // 3. Online softmax, one thread per query vector.
        if (t < RG) {
            var m_tile = FLOOR;
            for (var j = 0u; j < n_keys; j++) {
                m_tile = max(m_tile, p_s[t * BK + j]);
            }
            let m_new = max(m, m_tile);
            let alpha = exp2(m - m_new);
            var sum = 0.0;
            for (var j = 0u; j < BK; j++) {
                let pj = exp2(p_s[t * BK + j] - m_new);
                p_s[t * BK + j] = pj;
                sum += pj;
            }
            l = l * alpha + sum;
            m = m_new;
            alpha_s[t] = alpha;
        }
        // 4. V tile (K is no longer read), then O = alpha O + P V.
        for (var e = t; e < BK * dv4; e += WG) {
            let j = e / dv4;
            let d = (e % dv4) * 4u;
            var x = vec4<elem>();
            if (j < n_keys) {
                let at = v_head + (kb + j) * p.v.w + d;
                x = vec4<elem>(v[at], v[at + 1u], v[at + 2u], v[at + 3u]);
            }
            kv_s[j * vs + d / 4u] = x;
        }
        workgroupBarrier();
        if (r0 < RG) {
            o0 = accumulate(o0, r0, c, alpha_s[r0], n_keys);
        }
        if (r0 + r_step < RG) {
            o1 = accumulate(o1, r0 + r_step, c, alpha_s[r0 + r_step], n_keys);
        }
        if (r0 + 2u * r_step < RG) {
            o2 = accumulate(o2, r0 + 2u * r_step, c, alpha_s[r0 + 2u * r_step], n_keys);
        }
        if (r0 + 3u * r_step < RG) {
            o3 = accumulate(o3, r0 + 3u * r_step, c, alpha_s[r0 + 3u * r_step], n_keys);
        }
    }

    // The sums go from their threads to the output slots; partial (max, sum) to the scratch.
    workgroupBarrier();
    if (t < RG) {
        l_s[t] = l;
        let qv = query_vector(kv_head, qv0, t);
        if (qv.valid && p.kv_splits > 1u) {
            let at = ((b * p.q_heads + qv.h) * p.q_len + qv.i) * p.kv_splits + split;
            let ml = p.batch * p.q_heads * p.q_len * p.kv_splits * V_HEAD_DIM;
            partial[ml + 2u * at] = m;
            partial[ml + 2u * at + 1u] = l;
        }
    }
    workgroupBarrier();
    store(kv_head, qv0, r0, c, o0, b, split);
    store(kv_head, qv0, r0 + r_step, c, o1, b, split);
    store(kv_head, qv0, r0 + 2u * r_step, c, o2, b, split);
    store(kv_head, qv0, r0 + 3u * r_step, c, o3, b, split);
}

// Writes output slot (query vector r, vec4 column c): normalised into `out` with one split,
// unnormalised into the split's part of the scratch with several.
fn store(kv_head: u32, qv0: u32, r: u32, c: u32, o: vec4<f32>, b: u32, split: u32) {
    let qv = query_vector(kv_head, qv0, r);
    if (!qv.valid) {
        return;
    }
    if (p.kv_splits == 1u) {
        let l = l_s[r];
        // A query vector with every key excluded has l == 0 and is written as zeros.
        let x = vec4<elem>(select(o / l, vec4<f32>(0.0), l == 0.0));
        let at = row_base(p.out, b, qv.h, qv.i) + c * 4u;
        out[at] = x.x;
        out[at + 1u] = x.y;
        out[at + 2u] = x.z;
        out[at + 3u] = x.w;
    } else {
        let at = (((b * p.q_heads + qv.h) * p.q_len + qv.i) * p.kv_splits + split) * V_HEAD_DIM + c * 4u;
        partial[at] = o.x;
        partial[at + 1u] = o.y;
        partial[at + 2u] = o.z;
        partial[at + 3u] = o.w;
    }
}
