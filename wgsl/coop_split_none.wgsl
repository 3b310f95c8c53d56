// wgsl/fused_coop.wgsl with fragments of the tensors' own type: nothing split, every factor 1.
const SPLIT: u32 = 0u;

fn head_factors(b: u32, h: u32, kv_head: u32) -> Factors {
    return Factors(1.0, 1.0, 1.0, 1.0, 1.0, 1.0);
}

// Never called here (SPLIT = 0); Metal's simdgroup matrices have no arithmetic operators.
fn add_frag(a: frag_c, b: frag_c) -> frag_c {
    return a;
}
