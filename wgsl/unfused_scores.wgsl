// Unfused step 1: raw scores S[z, i, j] = q[b, h, i, :] · k[b, h / group, j, :] for
// z = b * q_heads + h in head_base..head_base + head_count, into the f32 scratch buffer
// [head_count, q_len, kv_len].
// K/V are read through the kv head of each q head: GQA/MQA need no copy. Scale and mask are
// applied by the softmax step.
//
// A 64 x 64 tile of S per workgroup, 256 threads, each a 4 x 4 block (outer products of a vec4
// of 4 query rows and a vec4 of 4 keys), the head dim streamed in chunks of 16 through
// workgroup memory, stored transposed ([d][row]) so each thread reads one vec4 per operand.

@group(0) @binding(1) var<storage, read> q: array<elem>;
@group(0) @binding(2) var<storage, read> k: array<elem>;
@group(0) @binding(6) var<storage, read_write> scores: array<f32>;

const TILE: u32 = 64u;
const DK: u32 = 16u;
const THREADS: u32 = 256u;

var<workgroup> q_t: array<vec4<f32>, 256>; // [DK][TILE / 4]
var<workgroup> k_t: array<vec4<f32>, 256>; // [DK][TILE / 4]

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) t: u32) {
    let z = p.head_base + wg.z;   // global (batch, head) index; wg.z indexes this chunk's scores
    let b = z / p.q_heads;
    let h = z % p.q_heads;
    let row0 = wg.y * TILE;
    let col0 = wg.x * TILE;
    let q_head = row_base(p.q, b, h, 0u);
    let k_head = row_base(p.k, b, h / p.group, 0u);
    let tr = t / 16u;
    let tc = t % 16u;

    var acc0 = vec4<f32>();
    var acc1 = vec4<f32>();
    var acc2 = vec4<f32>();
    var acc3 = vec4<f32>();
    for (var d0 = 0u; d0 < p.head_dim; d0 += DK) {
        for (var n = 0u; n < 4u; n++) {
            let e = t + n * THREADS;
            let r = e / DK;
            let dd = e % DK;
            let d = d0 + dd;
            var qv = 0.0;
            if (row0 + r < p.q_len && d < p.head_dim) {
                qv = f32(q[q_head + (row0 + r) * p.q.w + d]);
            }
            q_t[dd * 16u + r / 4u][r % 4u] = qv;
            var kv = 0.0;
            if (col0 + r < p.kv_len && d < p.head_dim) {
                kv = f32(k[k_head + (col0 + r) * p.k.w + d]);
            }
            k_t[dd * 16u + r / 4u][r % 4u] = kv;
        }
        workgroupBarrier();
        for (var dd = 0u; dd < DK; dd++) {
            let a = q_t[dd * 16u + tr];
            let c = k_t[dd * 16u + tc];
            acc0 += a.x * c;
            acc1 += a.y * c;
            acc2 += a.z * c;
            acc3 += a.w * c;
        }
        workgroupBarrier();
    }

    let out_head = wg.z * p.q_len * p.kv_len;
    store_row(out_head, row0 + tr * 4u, col0 + tc * 4u, acc0);
    store_row(out_head, row0 + tr * 4u + 1u, col0 + tc * 4u, acc1);
    store_row(out_head, row0 + tr * 4u + 2u, col0 + tc * 4u, acc2);
    store_row(out_head, row0 + tr * 4u + 3u, col0 + tc * 4u, acc3);
}

fn store_row(head: u32, row: u32, col: u32, v: vec4<f32>) {
    if (row >= p.q_len) {
        return;
    }
    for (var c = 0u; c < 4u; c++) {
        if (col + c < p.kv_len) {
            scores[head + row * p.kv_len + col + c] = v[c];
        }
    }
}
