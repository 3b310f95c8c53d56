// The one plain struct every kernel reads; mirrors `Params` in src/params.rs.
// Layout vectors are (offset, batch stride, head stride, seq stride) in elements; for the mask the
// last one is the query-row stride and its key stride is 1. Strides of 0 broadcast.
struct Params {
    batch: u32,
    q_heads: u32,
    kv_heads: u32,
    group: u32,          // q_heads / kv_heads
    q_len: u32,
    kv_len: u32,
    head_dim: u32,
    v_head_dim: u32,
    q: vec4<u32>,
    k: vec4<u32>,
    v: vec4<u32>,
    out: vec4<u32>,
    mask: vec4<u32>,
    scale_log2: f32,     // scale * log2(e): scores live in log2 units, softmax uses exp2
    causal_shift: i32,   // row i sees keys j <= i + causal_shift
    head_base: u32,      // first b * q_heads + h of this dispatch (unfused head chunks)
    head_count: u32,     // (b, h) pairs of this dispatch
    kv_splits: u32,      // KV splits of the decode kernel (1 elsewhere)
    split_len: u32,      // keys per split of the decode kernel (kv_len elsewhere)
    _pad0: u32,
    _pad1: u32,
}

@group(0) @binding(0) var<uniform> p: Params;

// Index of element [b, h, row, 0] of a tensor with layout `l`.
fn row_base(l: vec4<u32>, b: u32, h: u32, row: u32) -> u32 {
    return l.x + b * l.y + h * l.z + row * l.w;
}
