// Stores to `partial` declared as array<vec4<f32>> (src/shader.rs writes the declaration), for
// wgsl/split_partial.wgsl: one 16-byte store a column quad instead of four. Indices are in
// floats, as in wgsl/partial_words.wgsl: a quad starts at a multiple of 4, a pair at a multiple
// of 2 (the scratch is a whole number of quads: src/kernels/vector/splits.rs, partial_bytes).

// The column quad [at, at + 4).
fn put_quad(at: u32, o: vec4<f32>) {
    partial[at / 4u] = o;
}

// The pair [at, at + 2): the first or second half of its quad.
fn put_pair(at: u32, x: vec2<f32>) {
    if ((at & 2u) == 0u) {
        partial[at / 4u].x = x.x;
        partial[at / 4u].y = x.y;
    } else {
        partial[at / 4u].z = x.x;
        partial[at / 4u].w = x.y;
    }
}
