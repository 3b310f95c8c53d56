// The split partial results that the decode kernel (after wgsl/vector.wgsl) and the fused
// kernels with their keys split over workgroups (before wgsl/fused_kv_split.wgsl or
// wgsl/coop_kv_split.wgsl) write and wgsl/vector_reduce.wgsl combines: per query vector
// (b * q_heads + h) * q_len + i and split, V_HEAD_DIM unnormalised outputs; after all of them, a
// (max, sum) pair each, the max in log2 units (the outputs and the sum are relative to it).

// `partial` (binding 6, read_write) is declared by the generated header (src/shader.rs):
// array<vec4<f32>> for the subgroup kernel (`@coherent` where it merges its own splits), with
// wgsl/partial_quads.wgsl's stores; array<f32> elsewhere, with wgsl/partial_words.wgsl's.

// The partial-result slot of row `row` of head h, split `split`.
fn partial_slot(b: u32, h: u32, row: u32, split: u32) -> u32 {
    return ((b * p.q_heads + h) * p.q_len + row) * p.kv_splits + split;
}

// Where the split's partial row `row` of head h starts in `partial`.
fn row_dest(b: u32, h: u32, row: u32, split: u32) -> u32 {
    return partial_slot(b, h, row, split) * V_HEAD_DIM;
}

// A split's column quad [at, at + 4) (at from `row_dest`) goes to `partial` through `put_quad`
// (wgsl/partial_quads.wgsl or wgsl/partial_words.wgsl).

// The row's max and sum, after every split's rows (wgsl/partial_layout.wgsl).
fn put_stats(b: u32, h: u32, row: u32, split: u32, m: f32, l_row: f32) {
    put_pair(pair_at((b * p.q_heads + h) * p.q_len + row, split), vec2<f32>(m, l_row));
}
