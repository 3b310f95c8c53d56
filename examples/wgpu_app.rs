//! A wgpu program that owns its device, its buffers and its command encoder, and records
//! attention into its own command stream: no hidden submit, copy or readback by the library.
//!
//!     cargo run --release --example wgpu_app
//!
//! The program fills q, k, v with its own compute shader, records attention after it in the same
//! compute pass (`Attention::encode_in_pass`), copies the result to its own staging buffer,
//! submits once and checks a few rows against the f64 reference.

use wgpu::util::DeviceExt;
use wgpu_sdpa::{
    attention_reference, compare, Attention, AttentionBuffers, AttentionDesc, CausalAlignment,
    Context, Mask, Tensor,
};

/// The application's own kernel: pseudo-random values in [0, 0.5) from an integer hash.
const FILL: &str = r#"
@group(0) @binding(0) var<storage, read_write> x: array<f32>;
@group(0) @binding(1) var<uniform> seed: vec4<u32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    if (id.x < arrayLength(&x)) {
        let h = (id.x * 2654435761u) ^ seed.x;
        x[id.x] = f32((h >> 8u) & 0xffffu) / 131072.0;
    }
}
"#;

/// The same values on the CPU, for the check (exact: integer arithmetic, then a power of two).
fn fill_value(i: usize, seed: u32) -> f64 {
    let h = (i as u32).wrapping_mul(2654435761) ^ seed;
    ((h >> 8) & 0xffff) as f64 / 131072.0
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // The application's wgpu setup.
    let instance = wgpu_sdpa::context::instance();
    let adapter =
        pollster::block_on(instance.request_adapter(&wgpu::RequestAdapterOptions::default()))?;
    let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
        label: Some("my app"),
        required_features: adapter.features() & wgpu::Features::SHADER_F16,
        required_limits: adapter.limits(),
        ..Default::default()
    }))?;
    println!("adapter: {}", adapter.get_info().name);

    // The library on the application's device.
    let ctx = Context::from_wgpu(device.clone(), queue.clone(), &adapter);
    let desc = AttentionDesc::new(1, 8, 2, 128, 128, 64)
        .with_mask(Mask::Causal(CausalAlignment::BottomRight));
    let attention = Attention::new(&ctx, &desc)?;
    println!("plan: {}", attention.plan());

    // The application's buffers.
    let buffer = |label: &str, tensor: Tensor, extra: wgpu::BufferUsages| {
        device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(label),
            size: desc.required_bytes(tensor),
            usage: wgpu::BufferUsages::STORAGE | extra,
            mapped_at_creation: false,
        })
    };
    let q = buffer("q", Tensor::Q, wgpu::BufferUsages::empty());
    let k = buffer("k", Tensor::K, wgpu::BufferUsages::empty());
    let v = buffer("v", Tensor::V, wgpu::BufferUsages::empty());
    let out = buffer("out", Tensor::Out, wgpu::BufferUsages::COPY_SRC);
    let staging = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("staging"),
        size: desc.required_bytes(Tensor::Out),
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });

    // One encoder: the app's fill kernel and attention in one pass, then the app's copy.
    let fill = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: Some("fill"),
        layout: None,
        module: &device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("fill"),
            source: wgpu::ShaderSource::Wgsl(FILL.into()),
        }),
        entry_point: Some("main"),
        compilation_options: Default::default(),
        cache: None,
    });
    let seeds = [17u32, 4242, 99991];
    let fills: Vec<(wgpu::BindGroup, u32)> = [&q, &k, &v]
        .into_iter()
        .zip(seeds)
        .map(|(buffer, seed)| {
            let seed = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("seed"),
                contents: bytemuck::cast_slice(&[seed, 0, 0, 0]),
                usage: wgpu::BufferUsages::UNIFORM,
            });
            let bind = device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: None,
                layout: &fill.get_bind_group_layout(0),
                entries: &[
                    wgpu::BindGroupEntry {
                        binding: 0,
                        resource: buffer.as_entire_binding(),
                    },
                    wgpu::BindGroupEntry {
                        binding: 1,
                        resource: seed.as_entire_binding(),
                    },
                ],
            });
            (bind, (buffer.size() as u32 / 4).div_ceil(64))
        })
        .collect();
    let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
        label: Some("frame"),
    });
    {
        // One compute pass for the app's kernels and attention (`Attention::encode` would
        // record a pass of its own; a pass costs each call a few microseconds on some drivers):
        // wgpu makes attention wait for the fills that wrote its inputs.
        let mut pass = encoder.begin_compute_pass(&Default::default());
        pass.set_pipeline(&fill);
        for (bind, groups) in &fills {
            pass.set_bind_group(0, bind, &[]);
            pass.dispatch_workgroups(*groups, 1, 1);
        }
        attention.encode_in_pass(
            &mut pass,
            &AttentionBuffers {
                q: &q,
                k: &k,
                v: &v,
                out: &out,
                mask: None,
            },
        )?;
    }
    encoder.copy_buffer_to_buffer(&out, 0, &staging, 0, staging.size());
    queue.submit([encoder.finish()]);

    // The app's readback.
    staging
        .slice(..)
        .map_async(wgpu::MapMode::Read, |r| r.expect("map"));
    device.poll(wgpu::PollType::wait_indefinitely())?;
    let result: Vec<f64> = bytemuck::cast_slice::<u8, f32>(&staging.slice(..).get_mapped_range()?)
        .iter()
        .map(|&x| x as f64)
        .collect();

    let host = |tensor: Tensor, seed: u32| -> Vec<f64> {
        (0..desc.required_elements(tensor) as usize)
            .map(|i| fill_value(i, seed))
            .collect()
    };
    let reference = attention_reference(
        &desc,
        &host(Tensor::Q, seeds[0]),
        &host(Tensor::K, seeds[1]),
        &host(Tensor::V, seeds[2]),
        None,
    );
    let c = compare(
        &desc,
        &result,
        &reference,
        wgpu_sdpa::reference::default_atol(desc.dtype),
    );
    println!(
        "max |out - reference| = {:.3e}: {}",
        c.max_abs_diff,
        if c.passed() { "ok" } else { "MISMATCH" }
    );
    if c.passed() {
        Ok(())
    } else {
        Err("mismatch".into())
    }
}
