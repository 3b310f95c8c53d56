// Combining split partial results (wgsl/partial_layout.wgsl's layout): one split's share of a
// query vector's column quad, and the online merge of such shares. Used by the reduce pass
// (wgsl/vector_reduce.wgsl) and by the split pass that merges its own splits
// (wgsl/split_merge_in_pass.wgsl). Reads `partial`, which the generated header declares as
// array<vec4<f32>> (src/shader.rs): a split's column quad in one 16-byte load, two splits'
// (max, sum) in another.

// One split's share of a query vector: its max, its sum and a column quad of its output.
struct Part {
    m: f32,
    l: f32,
    o: vec4<f32>,
}

// The online merge of a state and four parts. Maxes start at FLOOR (finite): no NaN appears.
fn merge4(st: Part, a: Part, b: Part, c: Part, d: Part) -> Part {
    let m = max(max(st.m, a.m), max(max(b.m, c.m), d.m));
    let w = exp2(vec4<f32>(a.m, b.m, c.m, d.m) - m);
    let ws = exp2(st.m - m);
    let l = st.l * ws + dot(w, vec4<f32>(a.l, b.l, c.l, d.l));
    let o = st.o * ws + (w.x * a.o + w.y * b.o) + (w.z * c.o + w.w * d.o);
    return Part(m, l, o);
}

// `st` merged with splits 4g .. 4g + 3 of column quad c of query vector qv (those past the
// splits empty, whatever g): their four column quads and their pairs in two quad loads (a
// vector's pairs start on a quad; the loads clamped to the vector's last split and quad). The
// loads of splits past kv_splits are clamped, not skipped: on the H200 skipping them (branches
// uniform over a subgroup) was no faster (BENCHMARKS.md, eighteenth session, run 49).
fn merge_group4(st: Part, qv: u32, g: u32, c: u32) -> Part {
    let s = 4u * g;
    let last = p.kv_splits - 1u;
    let q_last = pair_at(qv, pair_splits() - 2u) / 4u;
    let q0 = min(pair_at(qv, min(s, last)) / 4u, q_last);
    let ml0 = partial[q0];
    let ml1 = partial[min(q0 + 1u, q_last)];
    let inside = vec4<u32>(s, s + 1u, s + 2u, s + 3u) < vec4<u32>(p.kv_splits);
    let ms = select(vec4<f32>(FLOOR), vec4<f32>(ml0.x, ml0.z, ml1.x, ml1.z), inside);
    let ls = select(vec4<f32>(), vec4<f32>(ml0.y, ml0.w, ml1.y, ml1.w), inside);
    let row = qv * p.kv_splits;
    let dv4 = V_HEAD_DIM / 4u;
    let o0 = select(vec4<f32>(), partial[(row + min(s, last)) * dv4 + c], inside.x);
    let o1 = select(vec4<f32>(), partial[(row + min(s + 1u, last)) * dv4 + c], inside.y);
    let o2 = select(vec4<f32>(), partial[(row + min(s + 2u, last)) * dv4 + c], inside.z);
    let o3 = select(vec4<f32>(), partial[(row + min(s + 3u, last)) * dv4 + c], inside.w);
    return merge4(st, Part(ms.x, ls.x, o0), Part(ms.y, ls.y, o1), Part(ms.z, ls.z, o2),
                  Part(ms.w, ls.w, o3));
}
