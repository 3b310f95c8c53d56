//! The benchmark behind `sdpa bench` and `cargo bench`: the seed's table, unfused against fused
//! on the same buffers, timed with GPU timestamps where the adapter has them.

use std::time::Instant;

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use crate::attention::{read_buffer, readback_buffer, Attention, AttentionBuffers};
use crate::context::Context;
use crate::desc::{AttentionDesc, CausalAlignment, DType, Mask, Tensor};
use crate::error::{Error, Result};
use crate::planner::{Path, PlanOptions};

/// One row of the sweep.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BenchShape {
    /// Batch.
    pub batch: u32,
    /// Query length.
    pub q_len: u32,
    /// Key length.
    pub kv_len: u32,
    /// Head dim (q, k and v).
    pub head_dim: u32,
    /// Query heads.
    pub q_heads: u32,
    /// Key/value heads.
    pub kv_heads: u32,
    /// `[B, L, H, D]` layouts instead of `[B, H, L, D]` (the seed's `tpose`).
    pub transposed: bool,
    /// Storage dtype.
    pub dtype: DType,
    /// Causal (bottom-right) instead of no mask.
    pub causal: bool,
}

impl BenchShape {
    /// The kernel the row's second column times on an adapter with `caps`: the decode kernel
    /// where `Path::Auto` takes it (q_len <= 8, and short queries against long enough caches
    /// but for those the portable kernel takes with its keys split), else the fused one.
    pub fn fast_path(&self, caps: &crate::Capabilities) -> Path {
        let auto = crate::planner::plan(caps, &self.desc(), &crate::PlanOptions::default());
        match auto.as_ref().map(|p| p.kernel()) {
            Ok(crate::Kernel::Vector(_)) => Path::Vector,
            _ => Path::Fused,
        }
    }

    /// The problem description of the row.
    pub fn desc(&self) -> AttentionDesc {
        let mut d = AttentionDesc::new(
            self.batch,
            self.q_heads,
            self.kv_heads,
            self.q_len,
            self.kv_len,
            self.head_dim,
        )
        .with_dtype(self.dtype);
        if self.causal {
            d = d.with_mask(Mask::Causal(CausalAlignment::BottomRight));
        }
        if self.transposed {
            d = d.transposed();
        }
        d
    }
}

/// How one path of a row went.
#[derive(Debug, Clone, PartialEq)]
pub struct PathTiming {
    /// Median milliseconds per call, or why there is none.
    pub ms: std::result::Result<f64, String>,
    /// The plan's summary.
    pub plan: String,
    /// Device memory beyond q, k, v and out, bytes (the unfused score matrix).
    pub extra_bytes: u64,
    /// Milliseconds per call of the same calls recorded back to back, between two timestamps
    /// written in the command encoder (the way `torch_sdpa_bench.py` times a loop of calls with
    /// CUDA events: what a generation loop sees), where the adapter has
    /// `TIMESTAMP_QUERY_INSIDE_ENCODERS`. Includes the barriers between calls; leaves out the
    /// start and end of each call's own pass, which [`PathTiming::ms`] includes.
    pub back_to_back_ms: Option<f64>,
    /// [`PathTiming::back_to_back_ms`] with the calls' dispatches recorded in one compute pass
    /// ([`Attention::encode_in_pass`]), as a model that shares its pass with the calls records
    /// them: no pass a call.
    pub back_to_back_one_pass_ms: Option<f64>,
}

impl PathTiming {
    /// A path that did not run, and why.
    fn not_run(why: String) -> Self {
        PathTiming {
            ms: Err(why),
            plan: String::new(),
            extra_bytes: 0,
            back_to_back_ms: None,
            back_to_back_one_pass_ms: None,
        }
    }
}

/// A measured row.
#[derive(Debug, Clone, PartialEq)]
pub struct BenchRow {
    /// The shape.
    pub shape: BenchShape,
    /// Unfused timing.
    pub unfused: PathTiming,
    /// Timing of the fused kernel (the decode kernel where `Path::Auto` takes it).
    pub fused: PathTiming,
    /// Floating-point operations of one call (visible keys only).
    pub flops: f64,
    /// Bytes of K and V one call must read at least once.
    pub kv_bytes: f64,
}

impl BenchRow {
    /// `t_unfused / t_fused - 1` in percent (the seed's `diff%`), when both ran.
    pub fn diff_percent(&self) -> Option<f64> {
        match (&self.unfused.ms, &self.fused.ms) {
            (Ok(u), Ok(f)) => Some((u / f - 1.0) * 100.0),
            _ => None,
        }
    }

    /// GB/s of K and V bytes read by a timing (the decode kernels' measure: they are memory-bound).
    pub fn kv_gbps(&self, t: &PathTiming) -> Option<f64> {
        t.ms.as_ref()
            .ok()
            .map(|ms| self.kv_bytes / (ms * 1e-3) / 1e9)
    }

    /// [`BenchRow::kv_gbps`] of the back-to-back time.
    pub fn kv_gbps_back_to_back(&self, t: &PathTiming) -> Option<f64> {
        t.back_to_back_ms
            .map(|ms| self.kv_bytes / (ms * 1e-3) / 1e9)
    }

    /// [`BenchRow::kv_gbps`] of the back-to-back time in one pass.
    pub fn kv_gbps_back_to_back_one_pass(&self, t: &PathTiming) -> Option<f64> {
        t.back_to_back_one_pass_ms
            .map(|ms| self.kv_bytes / (ms * 1e-3) / 1e9)
    }

    /// TFLOP/s of a timing.
    pub fn tflops(&self, t: &PathTiming) -> Option<f64> {
        t.ms.as_ref().ok().map(|ms| self.flops / (ms * 1e-3) / 1e12)
    }
}

/// How times were taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Clock {
    /// GPU timestamps at the beginning and end of the compute pass.
    GpuTimestamps,
    /// Wall clock around submit and wait (adapters without timestamp queries).
    WallClock,
}

/// The clock [`measure`] uses on this context.
pub fn clock(ctx: &Context) -> Clock {
    if ctx.capabilities().timestamps {
        Clock::GpuTimestamps
    } else {
        Clock::WallClock
    }
}

/// A buffer of `bytes` random values of `dtype` in `[0, hi)` (a repeated 64 KiB block: enough
/// to keep values realistic without spending seconds on the host for gigabyte tensors).
fn random_buffer(
    ctx: &Context,
    label: &str,
    bytes: u64,
    dtype: DType,
    hi: f64,
    seed: u64,
) -> wgpu::Buffer {
    let mut rng = StdRng::seed_from_u64(seed);
    let block: Vec<u8> = match dtype {
        DType::F32 => bytemuck::cast_slice(
            &(0..16384)
                .map(|_| (rng.gen::<f64>() * hi) as f32)
                .collect::<Vec<f32>>(),
        )
        .to_vec(),
        DType::F16 => bytemuck::cast_slice(
            &(0..32768)
                .map(|_| half::f16::from_f64(rng.gen::<f64>() * hi))
                .collect::<Vec<half::f16>>(),
        )
        .to_vec(),
    };
    let size = bytes.next_multiple_of(4).max(4);
    let buffer = ctx.device().create_buffer(&wgpu::BufferDescriptor {
        label: Some(label),
        size,
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let mut at = 0;
    while at < size {
        let n = (size - at).min(block.len() as u64);
        ctx.queue().write_buffer(&buffer, at, &block[..n as usize]);
        at += n;
    }
    buffer
}

/// Times `calls` back-to-back calls of `attention` in one submission, call i on `sets[i % n]`;
/// returns milliseconds per call (median of the per-pass timestamps, or the wall-clock mean).
fn time_calls(
    ctx: &Context,
    attention: &Attention,
    sets: &[AttentionBuffers<'_>],
    calls: u32,
) -> Result<f64> {
    let device = ctx.device();
    let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
        label: Some("bench"),
    });
    match clock(ctx) {
        Clock::GpuTimestamps => {
            let queries = device.create_query_set(&wgpu::QuerySetDescriptor {
                label: Some("bench timestamps"),
                ty: wgpu::QueryType::Timestamp,
                count: 2 * calls,
            });
            for i in 0..calls {
                attention.encode_with_timestamps(
                    &mut encoder,
                    &sets[i as usize % sets.len()],
                    Some(wgpu::ComputePassTimestampWrites {
                        query_set: &queries,
                        beginning_of_pass_write_index: Some(2 * i),
                        end_of_pass_write_index: Some(2 * i + 1),
                    }),
                )?;
            }
            let mut ms = submit_timed(ctx, encoder, &queries, calls)?;
            ms.sort_by(f64::total_cmp);
            Ok(ms[ms.len() / 2])
        }
        Clock::WallClock => {
            for i in 0..calls {
                attention.encode(&mut encoder, &sets[i as usize % sets.len()])?;
            }
            let start = Instant::now();
            ctx.queue().submit([encoder.finish()]);
            device
                .poll(wgpu::PollType::wait_indefinitely())
                .map_err(|e| Error::Gpu {
                    kind: crate::error::GpuErrorKind::DeviceLost,
                    message: e.to_string(),
                })?;
            Ok(start.elapsed().as_secs_f64() * 1e3 / calls as f64)
        }
    }
}

/// Times `calls` calls recorded back to back in one command encoder (call i on `sets[i % n]`),
/// a compute pass each or (`one_pass`) all in one, between two timestamps written in the
/// encoder; milliseconds per call. `None` without `TIMESTAMP_QUERY_INSIDE_ENCODERS`.
fn time_back_to_back(
    ctx: &Context,
    attention: &Attention,
    sets: &[AttentionBuffers<'_>],
    calls: u32,
    one_pass: bool,
) -> Result<Option<f64>> {
    let device = ctx.device();
    let features =
        wgpu::Features::TIMESTAMP_QUERY | wgpu::Features::TIMESTAMP_QUERY_INSIDE_ENCODERS;
    if !device.features().contains(features) {
        return Ok(None);
    }
    let queries = device.create_query_set(&wgpu::QuerySetDescriptor {
        label: Some("bench back-to-back timestamps"),
        ty: wgpu::QueryType::Timestamp,
        count: 2,
    });
    let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
        label: Some("bench back to back"),
    });
    encoder.write_timestamp(&queries, 0);
    if one_pass {
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("bench back to back, one pass"),
            timestamp_writes: None,
        });
        for i in 0..calls {
            attention.encode_in_pass(&mut pass, &sets[i as usize % sets.len()])?;
        }
    } else {
        for i in 0..calls {
            attention.encode(&mut encoder, &sets[i as usize % sets.len()])?;
        }
    }
    encoder.write_timestamp(&queries, 1);
    let total = submit_timed(ctx, encoder, &queries, 1)?;
    Ok(Some(total[0] / calls as f64))
}

/// Resolves the first `pairs` pairs of timestamps of `queries` written in `encoder`, submits it
/// and returns the milliseconds between the two timestamps of each pair.
fn submit_timed(
    ctx: &Context,
    mut encoder: wgpu::CommandEncoder,
    queries: &wgpu::QuerySet,
    pairs: u32,
) -> Result<Vec<f64>> {
    let device = ctx.device();
    let bytes = 16 * pairs as u64;
    let resolve = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("timestamps"),
        size: bytes,
        usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
        mapped_at_creation: false,
    });
    let readback = readback_buffer(device, "timestamps readback", bytes);
    encoder.resolve_query_set(queries, 0..2 * pairs, &resolve, 0);
    encoder.copy_buffer_to_buffer(&resolve, 0, &readback, 0, bytes);
    ctx.queue().submit([encoder.finish()]);
    let raw = pollster::block_on(read_buffer(device, &readback, None))?;
    let ticks: &[u64] = bytemuck::cast_slice(&raw);
    let period_ns = ctx.queue().get_timestamp_period() as f64;
    Ok(ticks
        .chunks(2)
        .map(|t| t[1].saturating_sub(t[0]) as f64 * period_ns * 1e-6)
        .collect())
}

/// Measures one path of a shape: warm-up, then enough calls for about `budget_ms` of GPU time
/// (at least 3, at most 50); then the same number back to back, three times (the median).
fn measure_path(
    ctx: &Context,
    desc: &AttentionDesc,
    options: &PlanOptions,
    buffers: &[AttentionBuffers<'_>],
    budget_ms: f64,
) -> PathTiming {
    let attention = match Attention::with_options(ctx, desc, options) {
        Ok(a) => a,
        Err(e) => return PathTiming::not_run(e.to_string()),
    };
    let plan = attention.plan().to_string();
    let extra_bytes = attention.plan().scratch_bytes();
    let timed = time_calls(ctx, &attention, buffers, 1).and_then(|first| {
        let calls = (budget_ms / first.max(1e-3)).clamp(3.0, 50.0) as u32;
        Ok((time_calls(ctx, &attention, buffers, calls)?, calls))
    });
    let back_to_back = |one_pass| {
        let &(_, calls) = timed.as_ref().ok()?;
        let mut times = (0..3)
            .map(|_| {
                time_back_to_back(ctx, &attention, buffers, calls, one_pass)
                    .ok()
                    .flatten()
            })
            .collect::<Option<Vec<f64>>>()?;
        times.sort_by(f64::total_cmp);
        Some(times[1])
    };
    let back_to_back_ms = back_to_back(false);
    let back_to_back_one_pass_ms = back_to_back(true);
    PathTiming {
        ms: timed.map(|(ms, _)| ms).map_err(|e| e.to_string()),
        plan,
        extra_bytes,
        back_to_back_ms,
        back_to_back_one_pass_ms,
    }
}

/// The most copies of K and V [`measure_rotating`] takes in turn.
pub const MAX_KV_COPIES: u32 = 16;

/// `kv_copies` (named `field` in the error) within 1 to [`MAX_KV_COPIES`], or the typed error.
pub fn check_kv_copies(field: &str, kv_copies: u32) -> Result<()> {
    if (1..=MAX_KV_COPIES).contains(&kv_copies) {
        return Ok(());
    }
    Err(Error::invalid(
        field,
        kv_copies,
        format!("must be 1 to {MAX_KV_COPIES}"),
    ))
}

/// Measures one row: unfused (unless `with_unfused` is false) and fused on the same buffers.
/// `options` carries tuning overrides; its `path` picks the second column's kernel: `Fused` the
/// fused kernel on every row, anything else [`BenchShape::fast_path`].
pub fn measure(
    ctx: &Context,
    shape: &BenchShape,
    options: &PlanOptions,
    budget_ms: f64,
    with_unfused: bool,
) -> BenchRow {
    measure_copies(ctx, shape, options, budget_ms, with_unfused, 1)
}

/// [`measure`] with the calls taking `kv_copies` copies of K and V in turn (1 to
/// [`MAX_KV_COPIES`]): where the copies together exceed the GPU's last-level cache several
/// times, no call finds the K and V bytes of the call before it there, as in a model whose
/// layers each read their own cache (with one copy, the calls repeat on the same K and V, and
/// whatever part of them the cache holds from one call serves the next).
pub fn measure_rotating(
    ctx: &Context,
    shape: &BenchShape,
    options: &PlanOptions,
    budget_ms: f64,
    with_unfused: bool,
    kv_copies: u32,
) -> Result<BenchRow> {
    check_kv_copies("kv_copies", kv_copies)?;
    Ok(measure_copies(
        ctx,
        shape,
        options,
        budget_ms,
        with_unfused,
        kv_copies,
    ))
}

/// [`measure_rotating`] with `kv_copies` checked.
fn measure_copies(
    ctx: &Context,
    shape: &BenchShape,
    options: &PlanOptions,
    budget_ms: f64,
    with_unfused: bool,
    kv_copies: u32,
) -> BenchRow {
    let desc = shape.desc();
    let scale = desc.effective_scale() as f64;
    let bytes = |t: Tensor| desc.required_bytes(t);
    let q = random_buffer(ctx, "q", bytes(Tensor::Q), desc.dtype, 0.5, 1);
    let kv: Vec<(wgpu::Buffer, wgpu::Buffer)> = (0..kv_copies as u64)
        .map(|c| {
            (
                random_buffer(ctx, "k", bytes(Tensor::K), desc.dtype, 0.5, 2 + 10 * c),
                random_buffer(ctx, "v", bytes(Tensor::V), desc.dtype, scale, 3 + 10 * c),
            )
        })
        .collect();
    let out = random_buffer(ctx, "out", bytes(Tensor::Out), desc.dtype, 0.0, 4);
    let buffers: Vec<AttentionBuffers> = kv
        .iter()
        .map(|(k, v)| AttentionBuffers {
            q: &q,
            k,
            v,
            out: &out,
            mask: None,
        })
        .collect();
    let second = match options.path {
        Path::Fused => Path::Fused,
        _ => shape.fast_path(ctx.capabilities()),
    };
    let options = |path| PlanOptions { path, ..*options };
    let unfused = if with_unfused {
        measure_path(ctx, &desc, &options(Path::Unfused), &buffers, budget_ms)
    } else {
        PathTiming::not_run("skipped".into())
    };
    let fused = measure_path(ctx, &desc, &options(second), &buffers, budget_ms);
    BenchRow {
        shape: *shape,
        unfused,
        fused,
        flops: desc.flops(),
        kv_bytes: (bytes(Tensor::K) + bytes(Tensor::V)) as f64,
    }
}

/// The decode sweep (`sdpa bench --decode`): q_len 1 against kv_len 256..131072, 32/8 heads,
/// head dim 128, f16 (kv_len <= 4096 on a CPU adapter).
pub fn decode_sweep(cpu_adapter: bool) -> Vec<BenchShape> {
    let lens: &[u32] = if cpu_adapter {
        &[256, 1024, 4096]
    } else {
        &[256, 1024, 4096, 16384, 32768, 65536, 131072]
    };
    lens.iter()
        .map(|&kv_len| BenchShape {
            batch: 1,
            q_len: 1,
            kv_len,
            head_dim: 128,
            q_heads: 32,
            kv_heads: 8,
            transposed: false,
            dtype: DType::F16,
            causal: false,
        })
        .collect()
}

/// The default sweep: the seed's shapes (B=1, 32/32 heads, hdim 64, 80 and 128 at
/// L = 32..4096, f16 and f32, as `torch_sdpa_bench.py` runs them) plus GQA 32/8 and causal rows.
/// On a CPU adapter (lavapipe) a reduced sweep (4 heads, L <= 256) that finishes in minutes.
pub fn default_sweep(cpu_adapter: bool) -> Vec<BenchShape> {
    let row = |dtype, head_dim, len, q_heads, kv_heads, causal| BenchShape {
        batch: 1,
        q_len: len,
        kv_len: len,
        head_dim,
        q_heads,
        kv_heads,
        transposed: false,
        dtype,
        causal,
    };
    let mut rows = Vec::new();
    if cpu_adapter {
        for dtype in [DType::F16, DType::F32] {
            for len in [32, 64, 128, 256] {
                rows.push(row(dtype, 64, len, 4, 4, false));
            }
            rows.push(row(dtype, 128, 256, 4, 4, false));
            rows.push(row(dtype, 64, 256, 4, 1, false));
            rows.push(row(dtype, 64, 256, 4, 4, true));
        }
        return rows;
    }
    for dtype in [DType::F16, DType::F32] {
        for head_dim in [64, 80, 128] {
            for len in [32, 64, 128, 256, 512, 1024, 2048, 4096] {
                rows.push(row(dtype, head_dim, len, 32, 32, false));
            }
        }
        rows.push(row(dtype, 128, 4096, 32, 8, false));
        rows.push(row(dtype, 64, 4096, 32, 32, true));
        rows.push(row(dtype, 128, 4096, 32, 32, true));
    }
    rows
}
