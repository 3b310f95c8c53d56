// The cooperative-matrix probe (src/coop_probe.rs): one subgroup multiplies known FRAG x FRAG
// matrices with every load and store layout and zero source, so `sdpa info` can show whether the
// adapter computes what WGSL's coopLoad / coopLoadT / coopStore / coopStoreT promise. The header
// defines FRAG, elem and the fragment types, as for the attention kernel.

@group(0) @binding(0) var<storage, read> a_in: array<elem>;
@group(0) @binding(1) var<storage, read> b_in: array<elem>;
@group(0) @binding(2) var<storage, read_write> results: array<f32>;

var<workgroup> a_w: array<elem, FRAG * FRAG>;
var<workgroup> b_w: array<elem, FRAG * FRAG>;
var<workgroup> c_w: array<f32, FRAG * FRAG>;
// Padded copies (row stride FRAG + 8, as the attention kernel stages its tiles), at an offset.
var<workgroup> a_pad: array<elem, 8u + FRAG * (FRAG + 8u)>;
var<workgroup> c_pad: array<f32, 4u + FRAG * (FRAG + 4u)>;

// A multiply-add behind a function call, with the fragments as arguments.
fn mma_call(acc: frag_c, a: frag_a) -> frag_c {
    let f = FRAG;
    return coopMultiplyAdd(a, coopLoadT<frag_b>(&b_w[0], f), acc);
}

// Copies fragment results out of workgroup memory into result slot `slot`.
fn publish(slot: u32, lane: u32) {
    workgroupBarrier();
    for (var i = lane; i < FRAG * FRAG; i += 32u) {
        results[slot * FRAG * FRAG + i] = c_w[i];
    }
    workgroupBarrier();
}

@compute @workgroup_size(32)
fn main(@builtin(local_invocation_index) lane: u32) {
    for (var i = lane; i < FRAG * FRAG; i += 32u) {
        a_w[i] = a_in[i];
        b_w[i] = b_in[i];
        c_w[i] = 0.0;
    }
    workgroupBarrier();
    let f = FRAG;
    let zero = coopLoadT<frag_c>(&c_w[0], f);
    // 0: row-major A and B from workgroup memory, loaded zero, row-major store: A B.
    let a_row = coopLoadT<frag_a>(&a_w[0], f);
    let b_row = coopLoadT<frag_b>(&b_w[0], f);
    coopStoreT(coopMultiplyAdd(a_row, b_row, zero), &c_w[0], f);
    publish(0u, lane);
    // 1: B column-major: A B^T.
    let b_col = coopLoad<frag_b>(&b_w[0], f);
    coopStoreT(coopMultiplyAdd(a_row, b_col, zero), &c_w[0], f);
    publish(1u, lane);
    // 2: A column-major: A^T B.
    let a_col = coopLoad<frag_a>(&a_w[0], f);
    coopStoreT(coopMultiplyAdd(a_col, b_row, zero), &c_w[0], f);
    publish(2u, lane);
    // 3: column-major store: (A B)^T read row-major.
    coopStore(coopMultiplyAdd(a_row, b_row, zero), &c_w[0], f);
    publish(3u, lane);
    // 4: the constructed zero `frag_c()` instead of a loaded one: A B.
    coopStoreT(coopMultiplyAdd(a_row, b_row, frag_c()), &c_w[0], f);
    publish(4u, lane);
    // 5: A and B straight from storage, row-major: A B.
    let a_dev = coopLoadT<frag_a>(&a_in[0], f);
    let b_dev = coopLoadT<frag_b>(&b_in[0], f);
    coopStoreT(coopMultiplyAdd(a_dev, b_dev, zero), &c_w[0], f);
    publish(5u, lane);
    // 6: accumulate twice into the same fragment: 2 A B.
    var acc = coopMultiplyAdd(a_row, b_row, zero);
    acc = coopMultiplyAdd(a_row, b_row, acc);
    coopStoreT(acc, &c_w[0], f);
    publish(6u, lane);
    // 7: a loop-carried accumulator, three iterations: 3 A B.
    var acc3 = zero;
    for (var i = 0u; i < 3u; i++) {
        acc3 = coopMultiplyAdd(a_row, b_row, acc3);
    }
    coopStoreT(acc3, &c_w[0], f);
    publish(7u, lane);
    // 8: through a function taking and returning fragments, twice: 2 A B.
    coopStoreT(mma_call(mma_call(zero, a_row), a_row), &c_w[0], f);
    publish(8u, lane);
    // 9: A from a padded, offset workgroup array, C stored padded and offset, copied back: A B.
    for (var i = lane; i < FRAG * FRAG; i += 32u) {
        a_pad[8u + (i / FRAG) * (FRAG + 8u) + i % FRAG] = a_in[i];
    }
    workgroupBarrier();
    let pa = 8u;
    let ps = FRAG + 8u;
    let a_padded = coopLoadT<frag_a>(&a_pad[pa], ps);
    let pc = 4u;
    let cs = FRAG + 4u;
    coopStoreT(coopMultiplyAdd(a_padded, b_row, zero), &c_pad[pc], cs);
    workgroupBarrier();
    for (var i = lane; i < FRAG * FRAG; i += 32u) {
        c_w[i] = c_pad[4u + (i / FRAG) * (FRAG + 4u) + i % FRAG];
    }
    publish(9u, lane);
    // 10: a fragment kept in a `var`, updated under constant conditions: 2 A B.
    var acc_c = zero;
    if (FRAG > 1u) {
        acc_c = coopMultiplyAdd(a_row, b_row, acc_c);
    }
    if (FRAG > 2u) {
        acc_c = coopMultiplyAdd(a_row, b_row, acc_c);
    }
    if (FRAG > 1000u) {
        acc_c = coopMultiplyAdd(a_row, b_row, acc_c);
    }
    coopStoreT(acc_c, &c_w[0], f);
    publish(10u, lane);
    // 11: B column-major from the padded array (stride FRAG + 8): A A^T.
    let b_padded_col = coopLoad<frag_b>(&a_pad[pa], ps);
    coopStoreT(coopMultiplyAdd(a_row, b_padded_col, zero), &c_w[0], f);
    publish(11u, lane);
    // 12: B column-major from an unpadded copy of A: A A^T.
    let b_col_a = coopLoad<frag_b>(&a_w[0], f);
    coopStoreT(coopMultiplyAdd(a_row, b_col_a, zero), &c_w[0], f);
    publish(12u, lane);
}
