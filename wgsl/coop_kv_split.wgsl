// The end of wgsl/fused_coop.wgsl with the keys split over workgroups (x = query block times
// p.kv_splits; split s takes keys [s * split_len, (s + 1) * split_len)): each row's unnormalised
// output, its max m (log2 units, the kernel's lazily raised one: the outputs and the sum are
// relative to it) and its sum go to `partial` in wgsl/vector_reduce.wgsl's layout (per query
// vector (b * q_heads + h) * q_len + i and split: V_HEAD_DIM outputs; the (max, sum) pairs after
// all of them), and the reduce pass combines the splits. f16 fragments only (the split f32
// variant's scratch holds its maxima), so the factors are 1 but for fac_out, kept for form.

@group(0) @binding(6) var<storage, read_write> partial: array<f32>;

// The partial-result slot of row `row` of head h, split `split`.
fn partial_slot(b: u32, h: u32, row: u32, split: u32) -> u32 {
    return ((b * p.q_heads + h) * p.q_len + row) * p.kv_splits + split;
}

// Unnormalised: only the factor.
fn row_scale(l_row: f32, fac_out: f32) -> f32 {
    return fac_out;
}

// Where the split's partial row `row` of head h starts in `partial`.
fn row_dest(b: u32, h: u32, row: u32, split: u32) -> u32 {
    return partial_slot(b, h, row, split) * V_HEAD_DIM;
}

fn put_o(at: u32, x: f32) {
    partial[at] = x;
}

// The row's max and sum, after every split's rows.
fn put_stats(b: u32, h: u32, row: u32, split: u32, m: f32, l_row: f32) {
    let pairs = p.batch * p.q_heads * p.q_len * p.kv_splits * V_HEAD_DIM;
    let at = pairs + 2u * partial_slot(b, h, row, split);
    partial[at] = m;
    partial[at + 1u] = l_row;
}
