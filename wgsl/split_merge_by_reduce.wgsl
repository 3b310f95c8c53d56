// The end of a decode split pass whose splits the reduce pass merges (wgsl/vector_reduce.wgsl,
// a second dispatch): nothing to do. wgsl/split_merge_in_pass.wgsl is the other ending.
fn merge_splits(kv_head: u32, qv0: u32, b: u32, t: u32) {}
