// Where the split f32 variant's partial maxima (written by wgsl/split_scales.wgsl, read by
// wgsl/coop_split_f32.wgsl) start in the scratch buffer: at 0, or, with the keys split over
// workgroups too, after the split partial results (wgsl/partial_layout.wgsl: per query vector,
// kv_splits rows of V_HEAD_DIM outputs and kv_splits rounded up to even (max, sum) pairs:
// `pair_splits()` there, counted again here because the split scales pass, which writes the
// maxima, has no partial results and so no piece of their layout).
fn split_maxima_at() -> u32 {
    if (p.kv_splits > 1u) {
        let pairs = p.kv_splits + (p.kv_splits & 1u);
        return p.batch * p.q_heads * p.q_len * (p.kv_splits * p.v_head_dim + 2u * pairs);
    }
    return 0u;
}
