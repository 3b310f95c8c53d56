// Combining split partial results (wgsl/split_partial.wgsl's layout): one split's share of a
// query vector's column quad, and the online merge of such shares. Used by the reduce pass
// (wgsl/vector_reduce.wgsl) and by the split pass that merges its own splits
// (wgsl/split_merge_in_pass.wgsl). Reads `partial`, which the generated header declares as
// array<vec4<f32>> (src/shader.rs): a split's column quad in one 16-byte load, its (max, sum) in
// half of another.

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

// Split s's part for column quad c of query vector qv; past the splits an empty one. Split
// min(s, kv_splits - 1) is loaded whatever s is and the empty part picked by a select, not a
// branch, so that the loads of a round are issued together rather than one branch at a time.
fn load_part(qv: u32, s: u32, c: u32, vectors: u32) -> Part {
    let sc = min(s, p.kv_splits - 1u);
    let pair = vectors * p.kv_splits * V_HEAD_DIM + 2u * (qv * p.kv_splits + sc);
    let at = (qv * p.kv_splits + sc) * V_HEAD_DIM + 4u * c;
    let inside = s < p.kv_splits;
    let ml = partial[pair / 4u];
    let pr = select(ml.xy, ml.zw, (pair & 2u) != 0u);
    return Part(
        select(FLOOR, pr.x, inside),
        select(0.0, pr.y, inside),
        select(vec4<f32>(), partial[at / 4u], inside),
    );
}
