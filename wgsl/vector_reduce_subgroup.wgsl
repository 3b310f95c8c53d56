// Decode, second pass, on subgroups of one fixed size (where the split pass is
// wgsl/vector_subgroup.wgsl): combines the KV splits as wgsl/vector_reduce.wgsl does,
// out = sum_s 2^(m_s - M) O_s / sum_s 2^(m_s - M) l_s, zeros where every l_s is 0, without
// workgroup memory or a barrier.
//
// One workgroup per query vector, one subgroup (SG lanes) per 16 output columns (4 column
// quads): lane l takes splits l, l + SG, ... two at a time, their max, sum and 4 quads loaded
// together (every load of a round issued before the first is used) into an online state of its
// own. wgsl/split_partial.wgsl stores a quad's splits side by side, so each load instruction of
// the subgroup reads SG consecutive quads: whole lines. The subgroup's maximum, and its sums of
// the rescaled sums and quads, then give the result in every lane; lanes 0..3 each write a quad.
// (Sixteenth session: with the splits of a query vector stored one after another, lanes 512
// bytes apart, this pass was slower than the workgroup-memory one.)

override V_HEAD_DIM: u32 = 128u;
override SG: u32 = 32u;        // lanes per subgroup: the adapter's one size (at least 4)
override ABLATE: u32 = 0u;     // profiling only (wrong results): 2 the pass returns at once

@group(0) @binding(4) var<storage, read_write> out: array<elem>;
@group(0) @binding(6) var<storage, read> partial: array<f32>;

// One split's share of 16 columns of a query vector: its max, its sum and 4 column quads.
struct Part16 {
    m: f32,
    l: f32,
    o0: vec4<f32>,
    o1: vec4<f32>,
    o2: vec4<f32>,
    o3: vec4<f32>,
}

fn quad_at(at: u32) -> vec4<f32> {
    return vec4<f32>(partial[at], partial[at + 1u], partial[at + 2u], partial[at + 3u]);
}

// Split s's part for quads [q0, q0 + 4) of query vector qv; past the splits an empty one (split
// min(s, kv_splits - 1) loaded and dropped by a select, so the loads need no branch).
fn load_part16(qv: u32, s: u32, q0: u32, vectors: u32) -> Part16 {
    let splits = p.kv_splits;
    let sc = min(s, splits - 1u);
    let pair = vectors * splits * V_HEAD_DIM + 2u * (qv * splits + sc);
    // [qv][quad][split][4]: the next quad of the same split is `splits` quads on.
    let at = ((qv * (V_HEAD_DIM / 4u) + q0) * splits + sc) * 4u;
    let step = 4u * splits;
    let inside = s < splits;
    let z = vec4<f32>();
    return Part16(
        select(FLOOR, partial[pair], inside),
        select(0.0, partial[pair + 1u], inside),
        select(z, quad_at(at), inside),
        select(z, quad_at(at + step), inside),
        select(z, quad_at(at + 2u * step), inside),
        select(z, quad_at(at + 3u * step), inside),
    );
}

// The online merge of a state and two parts. Maxes start at FLOOR (finite): no NaN appears.
fn merge2(st: Part16, a: Part16, b: Part16) -> Part16 {
    let m = max(st.m, max(a.m, b.m));
    let w = exp2(vec3<f32>(st.m, a.m, b.m) - m);
    return Part16(
        m,
        st.l * w.x + a.l * w.y + b.l * w.z,
        st.o0 * w.x + a.o0 * w.y + b.o0 * w.z,
        st.o1 * w.x + a.o1 * w.y + b.o1 * w.z,
        st.o2 * w.x + a.o2 * w.y + b.o2 * w.z,
        st.o3 * w.x + a.o3 * w.y + b.o3 * w.z,
    );
}

@compute @workgroup_size(SG * (V_HEAD_DIM / 16u))
fn main(
    @builtin(workgroup_id) wg: vec3<u32>,
    @builtin(num_workgroups) grid: vec3<u32>,
    @builtin(local_invocation_index) t: u32,
) {
    let qv = wg.x + wg.y * grid.x; // (b * q_heads + h) * q_len + i
    let vectors = p.batch * p.q_heads * p.q_len;
    // Uniform per workgroup: the whole workgroup returns or none of it does.
    if (qv >= vectors || (ABLATE & 2u) != 0u) {
        return;
    }
    let i = qv % p.q_len;
    let h = (qv / p.q_len) % p.q_heads;
    let b = qv / (p.q_len * p.q_heads);
    let lane = t % SG;
    let q0 = (t / SG) * 4u;

    let z = vec4<f32>();
    var st = Part16(FLOOR, 0.0, z, z, z, z);
    for (var s = lane; s < p.kv_splits; s += 2u * SG) {
        st = merge2(st, load_part16(qv, s, q0, vectors), load_part16(qv, s + SG, q0, vectors));
    }
    // Every lane of the subgroup is here (the loop's exits differ, its end does not).
    let m_all = subgroupMax(st.m);
    let w = exp2(st.m - m_all);
    let denom = subgroupAdd(st.l * w);
    let o0 = subgroupAdd(st.o0 * w);
    let o1 = subgroupAdd(st.o1 * w);
    let o2 = subgroupAdd(st.o2 * w);
    let o3 = subgroupAdd(st.o3 * w);
    if (lane < 4u) {
        var o = o0;
        if (lane == 1u) {
            o = o1;
        } else if (lane == 2u) {
            o = o2;
        } else if (lane == 3u) {
            o = o3;
        }
        let x = vec4<elem>(select(o / denom, vec4<f32>(0.0), denom == 0.0));
        let at = row_base(p.out, b, h, i) + 4u * (q0 + lane);
        out[at] = x.x;
        out[at + 1u] = x.y;
        out[at + 2u] = x.z;
        out[at + 3u] = x.w;
    }
}
