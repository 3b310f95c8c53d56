//! A probe of the adapter's cooperative matrices (`wgsl/coop_probe.wgsl`): known small-integer
//! matrices multiplied with every load and store layout, compared exactly with the CPU. `sdpa
//! info` prints it, so a user on a new adapter (or a new driver) can see whether what WGSL's
//! `coopLoad`/`coopLoadT`/`coopStore`/`coopStoreT` promise holds there, using only the listed
//! configuration the attention kernel would use.

use crate::capabilities::Capabilities;
use crate::context::Context;
use crate::desc::DType;
use crate::error::Result;
use crate::gpu_errors::ErrorScope;
use crate::kernels::fused_coop::listed_fragment;
use crate::shader::{header, CoopHeader};

const PROBE: &str = include_str!("../wgsl/coop_probe.wgsl");

/// One probed operation.
#[derive(Debug, Clone, PartialEq)]
pub struct ProbeResult {
    /// What was computed, e.g. `"coopLoadT A, coopLoadT B, coopStoreT: A B"`.
    pub name: &'static str,
    /// The largest difference from the exact result.
    pub max_error: f64,
}

impl ProbeResult {
    /// Integer inputs make every product exact: any difference is a wrong layout or a broken op.
    pub fn ok(&self) -> bool {
        self.max_error == 0.0
    }
}

/// The cases, in the order of the result slots of the WGSL.
const CASES: [&str; 13] = [
    "coopLoadT A, coopLoadT B, loaded zero, coopStoreT: A B",
    "coopLoad B (column-major): A B^T",
    "coopLoad A (column-major): A^T B",
    "coopStore (column-major): (A B)^T",
    "constructed zero frag_c(): A B",
    "A and B loaded from storage: A B",
    "two multiply-adds into one fragment: 2 A B",
    "loop-carried accumulator, 3 iterations: 3 A B",
    "fragments through function arguments, twice: 2 A B",
    "padded, offset workgroup rows (stride FRAG+8 / FRAG+4): A B",
    "fragment var under constant conditions: 2 A B",
    "coopLoad B (column-major) from padded rows: A A^T",
    "coopLoad B (column-major) of A: A A^T",
];

/// The configuration the probe uses: the listed f16 one (f32 where only that is listed).
fn configuration(caps: &Capabilities) -> Option<(u32, DType)> {
    [DType::F16, DType::F32]
        .into_iter()
        .find_map(|d| listed_fragment(caps, d).map(|f| (f, d)))
        .filter(|&(_, d)| d == DType::F32 || caps.shader_f16)
}

/// The probe's WGSL for an adapter, or `None` when it lists no usable configuration.
pub fn source(caps: &Capabilities) -> Option<String> {
    let (frag, dtype) = configuration(caps)?;
    let coop = CoopHeader {
        frag,
        q_frags: 1,
        o_frags: 1,
        q_parts: 1,
        word_staging: false,
        split: false,
    };
    Some(header(dtype, dtype, Some(coop)) + PROBE)
}

/// Runs the probe with the listed f16 configuration (f32 where only that is listed), or returns
/// `None` when the adapter lists none (blocking).
#[cfg(not(target_arch = "wasm32"))]
pub fn run(ctx: &Context) -> Result<Option<(u32, DType, Vec<ProbeResult>)>> {
    pollster::block_on(run_async(ctx))
}

/// [`run`] as a future (the form a browser needs).
pub async fn run_async(ctx: &Context) -> Result<Option<(u32, DType, Vec<ProbeResult>)>> {
    let caps = ctx.capabilities();
    let (Some((frag, dtype)), Some(source)) = (configuration(caps), source(caps)) else {
        return Ok(None);
    };
    let n = frag as usize;
    let a: Vec<f64> = (0..n * n)
        .map(|i| ((i / n * 3 + i % n * 5) % 7) as f64 - 3.0)
        .collect();
    let b: Vec<f64> = (0..n * n)
        .map(|i| ((i / n * 2 + i % n * 3) % 5) as f64 - 2.0)
        .collect();
    let at = |m: &[f64], r: usize, c: usize| m[r * n + c];
    let product = |ta: bool, tb: bool| -> Vec<f64> {
        (0..n * n)
            .map(|i| {
                let (r, c) = (i / n, i % n);
                (0..n)
                    .map(|k| {
                        let x = if ta { at(&a, k, r) } else { at(&a, r, k) };
                        let y = if tb { at(&b, c, k) } else { at(&b, k, c) };
                        x * y
                    })
                    .sum()
            })
            .collect()
    };
    let ab = product(false, false);
    let transposed: Vec<f64> = (0..n * n).map(|i| ab[(i % n) * n + i / n]).collect();
    let times = |k: f64| ab.iter().map(|x| k * x).collect::<Vec<f64>>();
    let a_at: Vec<f64> = (0..n * n)
        .map(|i| (0..n).map(|k| at(&a, i / n, k) * at(&a, i % n, k)).sum())
        .collect();
    let expected: [Vec<f64>; 13] = [
        ab.clone(),
        product(false, true),
        product(true, false),
        transposed,
        ab.clone(),
        ab.clone(),
        times(2.0),
        times(3.0),
        times(2.0),
        ab.clone(),
        times(2.0),
        a_at.clone(),
        a_at,
    ];

    let device = ctx.device();
    let scope = ErrorScope::push(device);
    let bytes = |m: &[f64]| -> Vec<u8> {
        match dtype {
            DType::F16 => bytemuck::cast_slice(
                &m.iter()
                    .map(|&x| half::f16::from_f64(x))
                    .collect::<Vec<_>>(),
            )
            .to_vec(),
            DType::F32 => {
                bytemuck::cast_slice(&m.iter().map(|&x| x as f32).collect::<Vec<_>>()).to_vec()
            }
        }
    };
    use wgpu::util::DeviceExt;
    let input = |label: &str, m: &[f64]| {
        device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some(label),
            contents: &bytes(m),
            usage: wgpu::BufferUsages::STORAGE,
        })
    };
    let (a_buf, b_buf) = (input("probe a", &a), input("probe b", &b));
    let out_bytes = (CASES.len() * n * n * 4) as u64;
    let results = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("probe results"),
        size: out_bytes,
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
        mapped_at_creation: false,
    });
    let readback = crate::attention::readback_buffer(device, "probe readback", out_bytes);
    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some("coop probe"),
        source: wgpu::ShaderSource::Wgsl(source.into()),
    });
    let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: Some("coop probe"),
        layout: None,
        module: &module,
        entry_point: Some("main"),
        compilation_options: Default::default(),
        cache: None,
    });
    let bind = device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("coop probe"),
        layout: &pipeline.get_bind_group_layout(0),
        entries: &[
            wgpu::BindGroupEntry {
                binding: 0,
                resource: a_buf.as_entire_binding(),
            },
            wgpu::BindGroupEntry {
                binding: 1,
                resource: b_buf.as_entire_binding(),
            },
            wgpu::BindGroupEntry {
                binding: 2,
                resource: results.as_entire_binding(),
            },
        ],
    });
    let mut encoder = device.create_command_encoder(&Default::default());
    {
        let mut pass = encoder.begin_compute_pass(&Default::default());
        pass.set_pipeline(&pipeline);
        pass.set_bind_group(0, &bind, &[]);
        pass.dispatch_workgroups(1, 1, 1);
    }
    encoder.copy_buffer_to_buffer(&results, 0, &readback, 0, out_bytes);
    ctx.queue().submit([encoder.finish()]);
    if let Some(e) = scope.pop() {
        return Err(e);
    }
    let raw = crate::attention::read_buffer(device, &readback, None).await?;
    let got: &[f32] = bytemuck::cast_slice(&raw);
    let probes = CASES
        .iter()
        .zip(&expected)
        .enumerate()
        .map(|(slot, (&name, want))| ProbeResult {
            name,
            max_error: got[slot * n * n..(slot + 1) * n * n]
                .iter()
                .zip(want)
                .map(|(&g, &w)| (g as f64 - w).abs())
                .fold(0.0, f64::max),
        })
        .collect();
    Ok(Some((frag, dtype, probes)))
}
