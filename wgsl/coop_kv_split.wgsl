// The end of wgsl/fused_coop.wgsl with the keys split over workgroups (x = query block times
// p.kv_splits; split s takes keys [s * split_len, (s + 1) * split_len)): each row's unnormalised
// output, its max m (the kernel's lazily raised one) and its sum go to `partial`
// (wgsl/split_partial.wgsl, ahead of this), and the reduce pass combines the splits. The split
// f32 variant's rows carry its output factor fac_out = 2^-(ev + 6), which takes them back to the
// tensors' scale (its sum l excludes P's factor, so the reduce pass's division is exact); the
// f16 kernel's factors are 1.

// Unnormalised: only the factor.
fn row_scale(l_row: f32, fac_out: f32) -> f32 {
    return fac_out;
}

fn put_o(at: u32, x: f32) {
    partial[at] = x;
}
