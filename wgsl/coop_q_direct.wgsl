// Q staged in one part (fused_coop.wgsl): each subgroup loads its fragments from the block.
fn gather_q(qf: ptr<function, frag_a>, row: u32, dd: u32, part: u32, mine: bool) {
    *qf = load_q(row, dd);
}
