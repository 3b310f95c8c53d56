// Q staged in several parts (fused_coop.wgsl), when the whole block does not fit next to the
// tiles: every subgroup loads a fragment in each part and keeps its own part's by arithmetic (a
// branch per subgroup would leave the workgroup non-uniform, which fragment operations forbid).
// Vulkan only: Metal's simdgroup matrices have no arithmetic operators.
fn gather_q(qf: ptr<function, frag_a>, row: u32, dd: u32, part: u32, mine: bool) {
    let x = load_q(row, dd) * stage(select(0.0, 1.0, mine));
    if (part == 0u) {
        *qf = x;
    } else {
        *qf = *qf + x;
    }
}
