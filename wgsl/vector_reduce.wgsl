// Decode, second pass: combines the KV splits of wgsl/vector.wgsl. For each query vector,
// out = sum_s 2^(m_s - M) O_s / sum_s 2^(m_s - M) l_s with M the largest split max; a query vector
// whose every key was excluded (all l_s = 0) is written as zeros.
//
// One workgroup per query vector, written for latency (a few dozen splits, a few hundred values
// each): one round of loads and one barrier. Thread t owns output columns [4c, 4c + 4)
// (c = t % (V_HEAD_DIM / 4)) of the groups of 4 consecutive splits lane, lane + LANES, ...
// (lane = t / (V_HEAD_DIM / 4)); it loads a group's column quads and (max, sum) pairs together
// (wgsl/split_combine.wgsl's `merge_group4`: 6 loads for 4 splits) and folds them into an
// online (max, sum, quad) of its own: no load waits for another. The LANES partial states of
// each column quad are then merged in workgroup memory. (Before: one thread per column walking
// every split in serial loops, ~0.6 us per split on the H200; then a (max, sum) pass with a tree
// in workgroup memory ahead of the column pass: two rounds of loads and nine barriers.)

override V_HEAD_DIM: u32 = 128u;
override ABLATE: u32 = 0u; // profiling only (wrong results): 2 the pass returns at once, 8 no output stores, 16 no loads

@group(0) @binding(4) var<storage, read_write> out: array<elem>;
// `partial` (binding 6, read-only, array<vec4<f32>>) is declared by the generated header.

const WGR: u32 = 256u;

// Per thread: its lane's (max, sum) (the same in every thread of a lane) and its column quad.
var<workgroup> ml_s: array<vec2<f32>, WGR>;
var<workgroup> acc_s: array<vec4<f32>, WGR>;

@compute @workgroup_size(256)
fn main(
    @builtin(workgroup_id) wg: vec3<u32>,
    @builtin(num_workgroups) grid: vec3<u32>,
    @builtin(local_invocation_index) t: u32,
) {
    let qv = wg.x + wg.y * grid.x; // (b * q_heads + h) * q_len + i
    let vectors = p.batch * p.q_heads * p.q_len;
    // Uniform per workgroup: the whole workgroup returns or none of it does.
    if (qv >= vectors || (ABLATE & 2u) != 0u) {
        return;
    }
    let i = qv % p.q_len;
    let h = (qv / p.q_len) % p.q_heads;
    let b = qv / (p.q_len * p.q_heads);

    let quads = V_HEAD_DIM / 4u; // <= 64: v_head_dim <= 256, so every column has a thread
    let lanes = WGR / quads;
    let c = t % quads;
    let lane = t / quads;
    var st = Part(FLOOR, 0.0, vec4<f32>());
    if (lane < lanes && (ABLATE & 16u) == 0u) {
        for (var g = lane; 4u * g < p.kv_splits; g += lanes) {
            st = merge_group4(st, qv, g, c);
        }
    }
    ml_s[t] = vec2<f32>(st.m, st.l);
    acc_s[t] = st.o;
    workgroupBarrier();
    if (t < quads) {
        var m_all = FLOOR;
        for (var n = 0u; n < lanes; n++) {
            m_all = max(m_all, ml_s[n * quads + t].x);
        }
        var denom = 0.0;
        var sum = vec4<f32>();
        for (var n = 0u; n < lanes; n++) {
            let w = exp2(ml_s[n * quads + t].x - m_all);
            denom += w * ml_s[n * quads + t].y;
            sum += w * acc_s[n * quads + t];
        }
        let x = vec4<elem>(select(sum / denom, vec4<f32>(0.0), denom == 0.0));
        let at = row_base(p.out, b, h, i) + 4u * t;
        if ((ABLATE & 8u) != 0u && denom != -1.0) {
            return;
        }
        out[at] = x.x;
        out[at + 1u] = x.y;
        out[at + 2u] = x.z;
        out[at + 3u] = x.w;
    }
}
