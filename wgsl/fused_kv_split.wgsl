// The end of wgsl/fused.wgsl with the keys split over workgroups (x = query block times
// p.kv_splits; split s takes keys [s * split_len, (s + 1) * split_len), whole tiles): each row's
// unnormalised output, its max m (log2 units; the output and the sum are relative to it) and its
// sum go to `partial` in wgsl/vector_reduce.wgsl's layout (per query vector
// (b * q_heads + h) * q_len + i and split: V_HEAD_DIM outputs; the (max, sum) pairs after all of
// them), and the reduce pass combines the splits. A split with no visible key (causal) writes
// m = FLOOR, sum 0 and zeros, which the reduce pass weighs as nothing.

@group(0) @binding(6) var<storage, read_write> partial: array<f32>;

// The partial-result slot of row `row` of head h, split `split`.
fn partial_slot(b: u32, h: u32, row: u32, split: u32) -> u32 {
    return ((b * p.q_heads + h) * p.q_len + row) * p.kv_splits + split;
}

// Unnormalised.
fn row_scale(l_row: vec4<f32>) -> vec4<f32> {
    return vec4<f32>(1.0);
}

// Where the split's partial row `row` of head h starts in `partial`.
fn row_dest(b: u32, h: u32, row: u32, split: u32) -> u32 {
    return partial_slot(b, h, row, split) * V_HEAD_DIM;
}

fn put4(at: u32, x: vec4<f32>) {
    partial[at] = x.x;
    partial[at + 1u] = x.y;
    partial[at + 2u] = x.z;
    partial[at + 3u] = x.w;
}

// The row's max and sum, after every split's rows.
fn put_stats(b: u32, h: u32, row: u32, split: u32, m: f32, l_row: f32) {
    let pairs = p.batch * p.q_heads * p.q_len * p.kv_splits * V_HEAD_DIM;
    let at = pairs + 2u * partial_slot(b, h, row, split);
    partial[at] = m;
    partial[at + 1u] = l_row;
}
