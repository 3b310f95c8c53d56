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

// Writes output slot `slot` (vec4 column tc + slot * NC) of the thread's 4 rows, unnormalised.
fn store_partial_slot(o: mat4x4<f32>, slot: u32, b: u32, h: u32, row0: u32, tc: u32, split: u32) {
    let col4 = tc + slot * (BK / CK);
    if (slot >= NS || col4 >= V_HEAD_DIM / 4u) {
        return;
    }
    for (var i = 0u; i < 4u; i++) {
        let row = row0 + i;
        if (row < p.q_len) {
            let at = partial_slot(b, h, row, split) * V_HEAD_DIM + col4 * 4u;
            partial[at] = o[i].x;
            partial[at + 1u] = o[i].y;
            partial[at + 2u] = o[i].z;
            partial[at + 3u] = o[i].w;
        }
    }
}

// Rows row0..row0+3 of head h: outputs o0..o3 (the thread's slots), max m and sums l_row (the
// same in every thread of the row group; its first thread writes them).
fn finish_rows(o0: mat4x4<f32>, o1: mat4x4<f32>, o2: mat4x4<f32>, o3: mat4x4<f32>, m: vec4<f32>, l_row: vec4<f32>, b: u32, h: u32, row0: u32, tc: u32, split: u32) {
    store_partial_slot(o0, 0u, b, h, row0, tc, split);
    store_partial_slot(o1, 1u, b, h, row0, tc, split);
    store_partial_slot(o2, 2u, b, h, row0, tc, split);
    store_partial_slot(o3, 3u, b, h, row0, tc, split);
    if (tc == 0u) {
        let pairs = p.batch * p.q_heads * p.q_len * p.kv_splits * V_HEAD_DIM;
        for (var i = 0u; i < 4u; i++) {
            let row = row0 + i;
            if (row < p.q_len) {
                let at = pairs + 2u * partial_slot(b, h, row, split);
                partial[at] = m[i];
                partial[at + 1u] = l_row[i];
            }
        }
    }
}
