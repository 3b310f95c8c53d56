//! Profiling only: when the splits of a decode call that merges its own splits
//! (`wgsl/split_merge_in_pass.wgsl`) arrive at their query group's counter, relative to the
//! first. Needs `WGPU_SDPA_TUNE=decode_merge_ablate=1024` (the first workgroup of each query
//! group to count polls the counter until all have counted and writes the poll at which each
//! count was reached into the output; wrong results, and it waits for other workgroups, which
//! only a GPU that holds every workgroup of the call at once allows: the H200 at the sizes of
//! `sdpa bench --decode`). With `decode_merge_ablate=3072` it polls 1000 times more after the
//! last, so that `sdpa bench` run with both settings gives the poll's period.
//!
//! ```text
//! WGPU_SDPA_TUNE=decode_merge_ablate=1024 cargo run --release --example arrival_spread -- 16384
//! ```
//!
//! Prints, for each KV head (32/8 heads, d128, f16, q_len 1), the polls at which the 2nd, 3rd,
//! ... split counted (the first 47; zeros past the splits), after 10 calls back to back (the
//! last call's).

use wgpu_sdpa::{Attention, AttentionBuffers, AttentionDesc, Context, DType, Tensor};

fn main() {
    let kv_len: u32 = std::env::args()
        .nth(1)
        .map_or(16384, |a| a.parse().expect("a key length"));
    let ctx = match Context::headless() {
        Ok(c) => c,
        Err(e) => {
            eprintln!("no adapter: {e}");
            std::process::exit(2);
        }
    };
    let desc = AttentionDesc::new(1, 32, 8, 1, kv_len, 128).with_dtype(DType::F16);
    let attention = Attention::new(&ctx, &desc).expect("a plan");
    let device = ctx.device();
    let buffer = |tensor: Tensor, usage: wgpu::BufferUsages| {
        let bytes = desc.required_bytes(tensor).next_multiple_of(4);
        let b = device.create_buffer(&wgpu::BufferDescriptor {
            label: None,
            size: bytes,
            usage: wgpu::BufferUsages::STORAGE | usage,
            mapped_at_creation: false,
        });
        // Small f16 values (0.01 .. 0.5), a repeated pattern.
        let words: Vec<u16> = (0..bytes / 2)
            .map(|i| half::f16::from_f32(0.01 + (i % 50) as f32 * 0.01).to_bits())
            .collect();
        ctx.queue()
            .write_buffer(&b, 0, bytemuck::cast_slice(&words));
        b
    };
    let q = buffer(Tensor::Q, wgpu::BufferUsages::COPY_DST);
    let k = buffer(Tensor::K, wgpu::BufferUsages::COPY_DST);
    let v = buffer(Tensor::V, wgpu::BufferUsages::COPY_DST);
    let out = buffer(
        Tensor::Out,
        wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::COPY_SRC,
    );
    let bytes = out.size();
    let readback = device.create_buffer(&wgpu::BufferDescriptor {
        label: None,
        size: bytes,
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let buffers = AttentionBuffers {
        q: &q,
        k: &k,
        v: &v,
        out: &out,
        mask: None,
    };
    let mut encoder = device.create_command_encoder(&Default::default());
    for _ in 0..10 {
        attention.encode(&mut encoder, &buffers).expect("encoded");
    }
    encoder.copy_buffer_to_buffer(&out, 0, &readback, 0, bytes);
    ctx.queue().submit([encoder.finish()]);
    readback.slice(..).map_async(wgpu::MapMode::Read, |_| {});
    device
        .poll(wgpu::PollType::wait_indefinitely())
        .expect("the GPU finished");
    let data = readback
        .slice(..)
        .get_mapped_range()
        .expect("the readback mapped");
    let halves: &[u16] = bytemuck::cast_slice(&data);
    let value = |i: usize| half::f16::from_bits(halves[i]).to_f32();
    println!("# arrival_spread, kv_len {kv_len}");
    // Query head 4g, row 0: the first query vector of KV head g's group.
    for g in 0..8usize {
        let row = 4 * g * 128;
        let polls: Vec<String> = (1..48).map(|k| format!("{}", value(row + k))).collect();
        println!(
            "kv head {g}: polls in all {}; count k+1 first seen at poll: {}",
            value(row + 127),
            polls.join(" ")
        );
    }
}
