// The split f32 variant's maxima (wgsl/coop_split_f32.wgsl) with the keys split over
// workgroups: after the split partial results in the one scratch binding, `partial`
// (wgsl/split_partial.wgsl and wgsl/split_maxima.wgsl, ahead of this).

fn split_max(i: u32) -> f32 {
    return partial[split_maxima_at() + i];
}
