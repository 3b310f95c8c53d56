// Decode, second pass: combines the KV splits of wgsl/vector.wgsl. For each query vector,
// out = sum_s 2^(m_s - M) O_s / sum_s 2^(m_s - M) l_s with M the largest split max; a query vector
// whose every key was excluded (all l_s = 0) is written as zeros.
//
// One workgroup per query vector, written for latency (a few dozen splits, a few hundred values
// each): no thread walks all the splits. First every thread folds the (max, sum) pairs of splits
// t, t + WGR, ... into one online pair, and a tree in workgroup memory merges the pairs into M
// and the denominator. Then thread t owns output columns [4c, 4c + 4) (c = t % (V_HEAD_DIM / 4))
// for splits lane, lane + LANES, ... (lane = t / (V_HEAD_DIM / 4)), and the LANES partial sums of
// each column quad are added in workgroup memory. (The previous version, one thread per column
// walking every split in three serial loops, cost ~0.6 us per split on the H200: 20 us at 32
// splits, more than the split pass it finished.)

override V_HEAD_DIM: u32 = 128u;

@group(0) @binding(4) var<storage, read_write> out: array<elem>;
@group(0) @binding(6) var<storage, read> partial: array<f32>;

const WGR: u32 = 256u;

// (max, sum) pairs of the tree, then each thread's column-quad partial sums.
var<workgroup> ml_s: array<vec2<f32>, WGR>;
var<workgroup> acc_s: array<vec4<f32>, WGR>;

// The online merge of two (max, sum) pairs. Maxes start at FLOOR (finite), so no NaN appears.
fn merge(a: vec2<f32>, b: vec2<f32>) -> vec2<f32> {
    let m = max(a.x, b.x);
    return vec2<f32>(m, a.y * exp2(a.x - m) + b.y * exp2(b.x - m));
}

@compute @workgroup_size(256)
fn main(
    @builtin(workgroup_id) wg: vec3<u32>,
    @builtin(num_workgroups) grid: vec3<u32>,
    @builtin(local_invocation_index) t: u32,
) {
    let qv = wg.x + wg.y * grid.x; // (b * q_heads + h) * q_len + i
    let vectors = p.batch * p.q_heads * p.q_len;
    // Uniform per workgroup: the whole workgroup returns or none of it does.
    if (qv >= vectors) {
        return;
    }
    let i = qv % p.q_len;
    let h = (qv / p.q_len) % p.q_heads;
    let b = qv / (p.q_len * p.q_heads);
    let splits = p.kv_splits;
    // This query vector's (max, sum) pairs, one per split.
    let pairs = vectors * splits * V_HEAD_DIM + 2u * qv * splits;

    var ml = vec2<f32>(FLOOR, 0.0);
    for (var s = t; s < splits; s += WGR) {
        ml = merge(ml, vec2<f32>(partial[pairs + 2u * s], partial[pairs + 2u * s + 1u]));
    }
    ml_s[t] = ml;
    workgroupBarrier();
    for (var w = WGR / 2u; w > 0u; w >>= 1u) {
        if (t < w) {
            ml_s[t] = merge(ml_s[t], ml_s[t + w]);
        }
        workgroupBarrier();
    }
    let m_all = ml_s[0].x;
    let denom = ml_s[0].y;

    let quads = V_HEAD_DIM / 4u; // <= 64: v_head_dim <= 256, so every column has a thread
    let lanes = WGR / quads;
    let c = t % quads;
    let lane = t / quads;
    var acc = vec4<f32>();
    if (lane < lanes) {
        for (var s = lane; s < splits; s += lanes) {
            let w = exp2(partial[pairs + 2u * s] - m_all);
            let at = (qv * splits + s) * V_HEAD_DIM + 4u * c;
            acc += w * vec4<f32>(partial[at], partial[at + 1u], partial[at + 2u], partial[at + 3u]);
        }
    }
    acc_s[t] = acc;
    workgroupBarrier();
    if (t < quads) {
        var sum = vec4<f32>();
        for (var n = 0u; n < lanes; n++) {
            sum += acc_s[n * quads + t];
        }
        let x = vec4<elem>(select(sum / denom, vec4<f32>(0.0), denom == 0.0));
        let at = row_base(p.out, b, h, i) + 4u * t;
        out[at] = x.x;
        out[at + 1u] = x.y;
        out[at + 2u] = x.z;
        out[at + 3u] = x.w;
    }
}
