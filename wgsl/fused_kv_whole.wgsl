// The end of wgsl/fused.wgsl with all the keys in one workgroup: each row divided by its sum (a
// row with every key excluded, sum 0, is written as zeros) and stored in `out`.
// (wgsl/fused_kv_split.wgsl is the end with the keys split over workgroups.)

// What the 4 rows' outputs are multiplied by: 1 / their sums (0 for an empty row).
fn row_scale(l_row: vec4<f32>) -> vec4<f32> {
    return select(vec4<f32>(1.0) / l_row, vec4<f32>(0.0), l_row == vec4<f32>(0.0));
}

// Where row `row` of head h starts in `out`.
fn row_dest(b: u32, h: u32, row: u32, split: u32) -> u32 {
    return row_base(p.out, b, h, 0u) + row * p.out.w;
}

fn put4(at: u32, x: vec4<f32>) {
    let a = at4(at);
    let y = vec4<elem>(x);
    out[a] = y.x;
    out[a + 1u] = y.y;
    out[a + 2u] = y.z;
    out[a + 3u] = y.w;
}

// Nothing: the sums are divided out.
fn put_stats(b: u32, h: u32, row: u32, split: u32, m: f32, l_row: f32) {}
