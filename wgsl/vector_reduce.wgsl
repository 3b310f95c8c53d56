// Decode, second pass: combines the KV splits of wgsl/vector.wgsl. For each query vector,
// out = sum_s 2^(m_s - M) O_s / sum_s 2^(m_s - M) l_s with M the largest split max; a query vector
// whose every key was excluded (all l_s = 0) is written as zeros.

override V_HEAD_DIM: u32 = 128u;

@group(0) @binding(4) var<storage, read_write> out: array<elem>;
@group(0) @binding(6) var<storage, read> partial: array<f32>;

const THREADS: u32 = 64u;

@compute @workgroup_size(64)
fn main(
    @builtin(workgroup_id) wg: vec3<u32>,
    @builtin(num_workgroups) grid: vec3<u32>,
    @builtin(local_invocation_index) t: u32,
) {
    let qv = wg.x + wg.y * grid.x; // (b * q_heads + h) * q_len + i
    let vectors = p.batch * p.q_heads * p.q_len;
    if (qv >= vectors) {
        return;
    }
    let i = qv % p.q_len;
    let h = (qv / p.q_len) % p.q_heads;
    let b = qv / (p.q_len * p.q_heads);
    let splits = p.kv_splits;
    let ml = vectors * splits * V_HEAD_DIM;
    var m_all = FLOOR;
    for (var s = 0u; s < splits; s++) {
        m_all = max(m_all, partial[ml + 2u * (qv * splits + s)]);
    }
    var denom = 0.0;
    for (var s = 0u; s < splits; s++) {
        let at = ml + 2u * (qv * splits + s);
        denom += exp2(partial[at] - m_all) * partial[at + 1u];
    }
    let inv = select(1.0 / denom, 0.0, denom == 0.0);
    let out_row = row_base(p.out, b, h, i);
    for (var c = t; c < V_HEAD_DIM; c += THREADS) {
        var num = 0.0;
        for (var s = 0u; s < splits; s++) {
            let w = exp2(partial[ml + 2u * (qv * splits + s)] - m_all);
            num += w * partial[(qv * splits + s) * V_HEAD_DIM + c];
        }
        out[out_row + c] = elem(num * inv);
    }
}
