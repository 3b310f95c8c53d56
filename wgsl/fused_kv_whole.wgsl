// The end of wgsl/fused.wgsl with all the keys in one workgroup: each of the thread's 4 rows
// divided by its sum (a row with every key excluded, l_row == 0, is written as zeros) and stored.
// (wgsl/fused_kv_split.wgsl is the end with the keys split over workgroups.)

// Writes output slot `slot` (vec4 column tc + slot * NC) of the thread's 4 rows.
fn store_slot(o: mat4x4<f32>, slot: u32, inv: vec4<f32>, out_head: u32, row0: u32, tc: u32) {
    let col4 = tc + slot * (BK / CK);
    if (slot >= NS || col4 >= V_HEAD_DIM / 4u) {
        return;
    }
    for (var i = 0u; i < 4u; i++) {
        let row = row0 + i;
        if (row < p.q_len) {
            let x = vec4<elem>(o[i] * inv[i]);
            let at = at4(out_head + row * p.out.w + col4 * 4u);
            out[at] = x.x;
            out[at + 1u] = x.y;
            out[at + 2u] = x.z;
            out[at + 3u] = x.w;
        }
    }
}

// Rows row0..row0+3 of head h: outputs o0..o3 (the thread's slots), max m (unused here) and sums
// l_row.
fn finish_rows(o0: mat4x4<f32>, o1: mat4x4<f32>, o2: mat4x4<f32>, o3: mat4x4<f32>, m: vec4<f32>, l_row: vec4<f32>, b: u32, h: u32, row0: u32, tc: u32, split: u32) {
    let inv = select(vec4<f32>(1.0) / l_row, vec4<f32>(0.0), l_row == vec4<f32>(0.0));
    let out_head = row_base(p.out, b, h, 0u);
    store_slot(o0, 0u, inv, out_head, row0, tc);
    store_slot(o1, 1u, inv, out_head, row0, tc);
    store_slot(o2, 2u, inv, out_head, row0, tc);
    store_slot(o3, 3u, inv, out_head, row0, tc);
}
