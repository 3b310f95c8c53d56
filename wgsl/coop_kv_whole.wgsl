// The end of wgsl/fused_coop.wgsl with all the keys in one workgroup: each row divided by its
// sum (a row with every key excluded is written as zeros) and stored, one O fragment at a time
// through s_s. (wgsl/coop_kv_split.wgsl is the end with the keys split over workgroups.)

fn finish(o0: frag_c, o1: frag_c, o2: frag_c, o3: frag_c, o4: frag_c, o5: frag_c, o6: frag_c, o7: frag_c, l: f32, m: f32, row0: u32, my_row: u32, lane: u32, fac_out: f32, q0: u32, b: u32, h: u32, split: u32) {
    let l_row = row_lanes_sum(l);
    let inv = select(1.0 / l_row, 0.0, l_row == 0.0) * fac_out;
    let out_row = q0 + my_row;
    let out_at = row_base(p.out, b, h, 0u) + out_row * p.out.w;
    store_o(o0, 0u, row0, my_row, lane, inv, out_row, out_at);
    if (O_FRAGS > 1u) { store_o(o1, 1u, row0, my_row, lane, inv, out_row, out_at); }
    if (O_FRAGS > 2u) { store_o(o2, 2u, row0, my_row, lane, inv, out_row, out_at); }
    if (O_FRAGS > 3u) { store_o(o3, 3u, row0, my_row, lane, inv, out_row, out_at); }
    if (O_FRAGS > 4u) { store_o(o4, 4u, row0, my_row, lane, inv, out_row, out_at); }
    if (O_FRAGS > 5u) { store_o(o5, 5u, row0, my_row, lane, inv, out_row, out_at); }
    if (O_FRAGS > 6u) { store_o(o6, 6u, row0, my_row, lane, inv, out_row, out_at); }
    if (O_FRAGS > 7u) { store_o(o7, 7u, row0, my_row, lane, inv, out_row, out_at); }
}
