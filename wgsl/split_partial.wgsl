// The split partial results that the decode kernel (after wgsl/vector.wgsl) and the fused
// kernels with their keys split over workgroups (before wgsl/fused_kv_split.wgsl or
// wgsl/coop_kv_split.wgsl) write and wgsl/vector_reduce.wgsl (or vector_reduce_subgroup.wgsl)
// combines: per query vector qv = (b * q_heads + h) * q_len + i, V_HEAD_DIM unnormalised
// outputs of each split, stored split-fastest by column quad ([qv][column / 4][split][column % 4],
// `partial_index`) so that a reduce pass whose neighbouring threads take neighbouring splits of
// a quad reads whole lines; after all of them, a (max, sum) pair per query vector and split
// ([qv][split]), the max in log2 units (the outputs and the sum are relative to it).

@group(0) @binding(6) var<storage, read_write> partial: array<f32>;

// The partial-result slot of row `row` of head h, split `split`.
fn partial_slot(b: u32, h: u32, row: u32, split: u32) -> u32 {
    return ((b * p.q_heads + h) * p.q_len + row) * p.kv_splits + split;
}

// The split's partial row `row` of head h as the writers address it: row-major, the row's
// column `col` at row_dest(..) + col; `partial_index` says where that is stored.
fn row_dest(b: u32, h: u32, row: u32, split: u32) -> u32 {
    return partial_slot(b, h, row, split) * V_HEAD_DIM;
}

// Where the partial output at row-major position `at` (`row_dest` + column) lies in `partial`:
// [qv][column / 4][split][column % 4].
fn partial_index(at: u32) -> u32 {
    let slot = at / V_HEAD_DIM;
    let col = at % V_HEAD_DIM;
    let qv = slot / p.kv_splits;
    let split = slot % p.kv_splits;
    return ((qv * (V_HEAD_DIM / 4u) + col / 4u) * p.kv_splits + split) * 4u + col % 4u;
}

// Stores a column quad at row-major position `at` (a multiple of 4): 4 consecutive floats.
fn put_partial_quad(at: u32, o: vec4<f32>) {
    let i = partial_index(at);
    partial[i] = o.x;
    partial[i + 1u] = o.y;
    partial[i + 2u] = o.z;
    partial[i + 3u] = o.w;
}

// The row's max and sum, after every split's rows.
fn put_stats(b: u32, h: u32, row: u32, split: u32, m: f32, l_row: f32) {
    let pairs = p.batch * p.q_heads * p.q_len * p.kv_splits * V_HEAD_DIM;
    let at = pairs + 2u * partial_slot(b, h, row, split);
    partial[at] = m;
    partial[at + 1u] = l_row;
}
