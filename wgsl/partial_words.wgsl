// Stores to `partial` declared as array<f32> (src/shader.rs writes the declaration): the
// kernels that also store single columns (wgsl/vector_coop.wgsl, wgsl/coop_kv_split.wgsl) or
// read their own maxima back (wgsl/coop_maxima_split.wgsl). Indices are in floats.

// The column quad [at, at + 4).
fn put_quad(at: u32, o: vec4<f32>) {
    partial[at] = o.x;
    partial[at + 1u] = o.y;
    partial[at + 2u] = o.z;
    partial[at + 3u] = o.w;
}

// The pair [at, at + 2).
fn put_pair(at: u32, x: vec2<f32>) {
    partial[at] = x.x;
    partial[at + 1u] = x.y;
}
