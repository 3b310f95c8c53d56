// K/V staging of wgsl/fused_coop.wgsl, element by element: for any offsets and strides.
// `fetch_tile` does nothing; `put_tile` reads the tile from device memory and writes kv_s.

@group(0) @binding(2) var<storage, read> k: array<elem>;
@group(0) @binding(3) var<storage, read> v: array<elem>;

struct Regs {
    unused: u32,
}

// Stages rows row0.. of a [len, dim] tensor into kv_s at `base` (row stride dim + PAD), zeros
// for rows at or past `len`, 4 consecutive elements per invocation.
fn stage_rows(src_is_k: bool, head: u32, seq_stride: u32, row0: u32, rows: u32, len: u32, dim: u32, base: u32, t: u32) {
    let stride = dim + PAD;
    for (var e = t; e < rows * dim / 4u; e += WG) {
        let r = e / (dim / 4u);
        let d = (e % (dim / 4u)) * 4u;
        var x = vec4<elem>();
        if (row0 + r < len) {
            let at = head + (row0 + r) * seq_stride + d;
            if (src_is_k) {
                x = vec4<elem>(k[at], k[at + 1u], k[at + 2u], k[at + 3u]);
            } else {
                x = vec4<elem>(v[at], v[at + 1u], v[at + 2u], v[at + 3u]);
            }
        }
        let to = base + r * stride + d;
        kv_s[to] = x.x;
        kv_s[to + 1u] = x.y;
        kv_s[to + 2u] = x.z;
        kv_s[to + 3u] = x.w;
    }
}

fn fetch_tile(regs: ptr<function, Regs>, kb: u32, k_head: u32, v_head: u32, t: u32) {}

fn fetch_part(regs: ptr<function, Regs>, kb: u32, k_head: u32, v_head: u32, t: u32, want_k: bool) {}

// K's rows (`want_k`) or V's of the tile from key kb, straight from device memory.
fn put_part(regs: ptr<function, Regs>, kb: u32, k_head: u32, v_head: u32, t: u32, want_k: bool) {
    if (want_k) {
        stage_rows(true, k_head, p.k.w, kb, BK, p.kv_len, HEAD_DIM, 0u, t);
    } else {
        stage_rows(false, v_head, p.v.w, kb, BK, p.kv_len, V_HEAD_DIM, BK * (HEAD_DIM + PAD), t);
    }
}

fn put_tile(regs: ptr<function, Regs>, kb: u32, k_head: u32, v_head: u32, t: u32) {
    stage_rows(true, k_head, p.k.w, kb, BK, p.kv_len, HEAD_DIM, 0u, t);
    stage_rows(false, v_head, p.v.w, kb, BK, p.kv_len, V_HEAD_DIM, BK * (HEAD_DIM + PAD), t);
}
