// The end of wgsl/fused_coop.wgsl with the keys split over workgroups (x = query block times
// p.kv_splits; split s takes keys [s * split_len, (s + 1) * split_len)): each row's unnormalised
// output, its max m (the kernel's lazily raised one) and its sum go to `partial`
// (wgsl/split_partial.wgsl, ahead of this), and the reduce pass combines the splits. f16
// fragments only (the split f32 variant's scratch holds its maxima), so the factors are 1 but for
// fac_out, kept for form.

// Unnormalised: only the factor.
fn row_scale(l_row: f32, fac_out: f32) -> f32 {
    return fac_out;
}

fn put_o(at: u32, x: f32) {
    partial[at] = x;
}
