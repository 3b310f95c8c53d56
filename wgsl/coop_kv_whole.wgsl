// The end of wgsl/fused_coop.wgsl with all the keys in one workgroup: each row divided by its
// sum (a row with every key excluded is written as zeros) and stored in `out`. (wgsl/
// coop_kv_split.wgsl is the end with the keys split over workgroups.)

// What a row's outputs are multiplied by: 1 / its sum (0 for an empty row), times `fac_out`.
fn row_scale(l_row: f32, fac_out: f32) -> f32 {
    return select(1.0 / l_row, 0.0, l_row == 0.0) * fac_out;
}

// Where row `row` of head h starts in `out`.
fn row_dest(b: u32, h: u32, row: u32, split: u32) -> u32 {
    return row_base(p.out, b, h, 0u) + row * p.out.w;
}

fn put_o(at: u32, x: f32) {
    out[at] = elem(x);
}

// Nothing: the sum is divided out.
fn put_stats(b: u32, h: u32, row: u32, split: u32, m: f32, l_row: f32) {}
