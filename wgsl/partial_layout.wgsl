// Where the split partial results (wgsl/split_partial.wgsl) lie in `partial`: per query vector
// qv = (b * q_heads + h) * q_len + i and split, V_HEAD_DIM unnormalised outputs (row `row_dest`);
// after all of them the (max, sum) pairs, `pair_splits()` a query vector: kv_splits rounded up
// to even, so that each vector's pairs start on a 16-byte quad and one quad load takes two
// consecutive splits' pairs (wgsl/split_combine.wgsl). The split f32 variant's maxima follow
// (wgsl/split_maxima.wgsl); src/kernels/vector/splits.rs (`partial_bytes`) sizes the whole.

fn pair_splits() -> u32 {
    return p.kv_splits + (p.kv_splits & 1u);
}

// The pair of query vector qv, split `split` (its first float).
fn pair_at(qv: u32, split: u32) -> u32 {
    return p.batch * p.q_heads * p.q_len * p.kv_splits * V_HEAD_DIM
        + 2u * (qv * pair_splits() + split);
}
