// The end of wgsl/fused.wgsl with the keys split over workgroups (x = query block times
// p.kv_splits; split s takes keys [s * split_len, (s + 1) * split_len), whole tiles): each row's
// unnormalised output, its max m and its sum go to `partial` (wgsl/split_partial.wgsl, ahead of
// this), and the reduce pass combines the splits. A split with no visible key (causal) writes
// m = FLOOR, sum 0 and zeros, which the reduce pass weighs as nothing.

// Unnormalised.
fn row_scale(l_row: vec4<f32>) -> vec4<f32> {
    return vec4<f32>(1.0);
}

fn put4(at: u32, x: vec4<f32>) {
    put_quad(at, x);
}
