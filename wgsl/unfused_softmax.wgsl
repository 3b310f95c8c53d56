// Unfused step 2: each row of the f32 score scratch becomes softmax(scale * s + mask) in place,
// in f32, through `masked_score` (wgsl/mask.wgsl). One workgroup per row: every thread keeps an
// online (max, sum) pair over its strided keys, the pairs are merged in a tree, and a second pass
// writes the probabilities. A row with every key excluded is written as zeros.

@group(0) @binding(6) var<storage, read_write> scores: array<f32>;

const THREADS: u32 = 128u;

var<workgroup> red_max: array<f32, THREADS>;
var<workgroup> red_sum: array<f32, THREADS>;

@compute @workgroup_size(128)
fn main(
    @builtin(workgroup_id) wg: vec3<u32>,
    @builtin(num_workgroups) grid: vec3<u32>,
    @builtin(local_invocation_index) t: u32,
) {
    // The grid is 2-D when there are more rows than one dimension can hold.
    let row = wg.x + wg.y * grid.x;   // row of this chunk's scores
    if (row >= p.head_count * p.q_len) {
        return;
    }
    let z = p.head_base + row / p.q_len;
    let qi = row % p.q_len;
    let b = z / p.q_heads;
    let h = z % p.q_heads;
    let base = row * p.kv_len;

    var m = FLOOR;
    var l = 0.0;
    for (var j = t; j < p.kv_len; j += THREADS) {
        let s = masked_score(scores[base + j], b, h, qi, j);
        let m_new = max(m, s);
        l = l * exp2(m - m_new) + exp2(s - m_new);
        m = m_new;
    }
    red_max[t] = m;
    red_sum[t] = l;
    workgroupBarrier();
    for (var stride = THREADS / 2u; stride > 0u; stride /= 2u) {
        if (t < stride) {
            let m_a = red_max[t];
            let m_b = red_max[t + stride];
            let m_new = max(m_a, m_b);
            red_sum[t] = red_sum[t] * exp2(m_a - m_new) + red_sum[t + stride] * exp2(m_b - m_new);
            red_max[t] = m_new;
        }
        workgroupBarrier();
    }
    let row_max = red_max[0];
    let row_sum = red_sum[0];
    let inv = select(1.0 / row_sum, 0.0, row_sum == 0.0);
    for (var j = t; j < p.kv_len; j += THREADS) {
        let s = masked_score(scores[base + j], b, h, qi, j);
        scores[base + j] = exp2(s - row_max) * inv;
    }
}
