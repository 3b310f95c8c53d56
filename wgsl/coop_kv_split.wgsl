// The end of wgsl/fused_coop.wgsl with the keys split over workgroups (x = query block times
// p.kv_splits; split s takes keys [s * split_len, (s + 1) * split_len)): each row's unnormalised
// output, its max m (log2 units, the kernel's lazily raised one: the outputs and the sum are
// relative to it) and its sum go to `partial` in wgsl/vector_reduce.wgsl's layout (per query
// vector (b * q_heads + h) * q_len + i and split: V_HEAD_DIM outputs; the (max, sum) pairs after
// all of them), and the reduce pass combines the splits. f16 fragments only (the split f32
// variant's scratch holds its maxima), so the factors are 1 but for fac_out, kept for form.

@group(0) @binding(6) var<storage, read_write> partial: array<f32>;

// O fragment `n` of the subgroup's rows, times `scale`, to the split's partial rows at `at`
// (row `row` of the query).
fn store_partial(o: frag_c, n: u32, row0: u32, my_row: u32, lane: u32, scale: f32, row: u32, at: u32) {
    let ss = BK + 4u;
    let sa = row0 * ss;
    workgroupBarrier(); // s_s is free
    coopStoreT(o, &s_s[sa], ss);
    workgroupBarrier();
    if (row < p.q_len) {
        for (var c = lane % (SG / FRAG); c < FRAG; c += SG / FRAG) {
            partial[at + n * FRAG + c] = s_s[my_row * ss + c] * scale;
        }
    }
}

fn finish(o0: frag_c, o1: frag_c, o2: frag_c, o3: frag_c, o4: frag_c, o5: frag_c, o6: frag_c, o7: frag_c, l: f32, m: f32, row0: u32, my_row: u32, lane: u32, fac_out: f32, q0: u32, b: u32, h: u32, split: u32) {
    let l_row = row_lanes_sum(l);
    let row = q0 + my_row;
    let slot = ((b * p.q_heads + h) * p.q_len + row) * p.kv_splits + split;
    let at = slot * V_HEAD_DIM;
    store_partial(o0, 0u, row0, my_row, lane, fac_out, row, at);
    if (O_FRAGS > 1u) { store_partial(o1, 1u, row0, my_row, lane, fac_out, row, at); }
    if (O_FRAGS > 2u) { store_partial(o2, 2u, row0, my_row, lane, fac_out, row, at); }
    if (O_FRAGS > 3u) { store_partial(o3, 3u, row0, my_row, lane, fac_out, row, at); }
    if (O_FRAGS > 4u) { store_partial(o4, 4u, row0, my_row, lane, fac_out, row, at); }
    if (O_FRAGS > 5u) { store_partial(o5, 5u, row0, my_row, lane, fac_out, row, at); }
    if (O_FRAGS > 6u) { store_partial(o6, 6u, row0, my_row, lane, fac_out, row, at); }
    if (O_FRAGS > 7u) { store_partial(o7, 7u, row0, my_row, lane, fac_out, row, at); }
    if (row < p.q_len && lane % (SG / FRAG) == 0u) {
        let pairs = p.batch * p.q_heads * p.q_len * p.kv_splits * V_HEAD_DIM;
        partial[pairs + 2u * slot] = m;
        partial[pairs + 2u * slot + 1u] = l_row;
    }
}
