//! One `Attention` shared by 8 threads, each recording and submitting its own work on its own
//! buffers (through `Attention::encode` into its own encoder, and through `Attention::run`),
//! every result checked against the f64 reference; for both kernels, the unfused one sharing its
//! score scratch between the threads' submissions. And 8 threads planning and compiling at once
//! on one context: each pipeline variant compiled once.

mod common;

use std::collections::HashSet;
use std::sync::Barrier;

use common::ctx;
use wgpu::util::DeviceExt;
use wgpu_sdpa::{
    attention_reference, compare, Attention, AttentionBuffers, AttentionDesc, Context, HostMask,
    Mask, MaskLayout, PlanOptions, RefMask, Tensor,
};

const THREADS: usize = 8;
const ROUNDS: usize = 4;

struct Inputs {
    q: Vec<f32>,
    k: Vec<f32>,
    v: Vec<f32>,
    mask: Vec<f32>,
}

fn inputs(desc: &AttentionDesc, seed: u64) -> Inputs {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        (x >> 11) as f64 / (1u64 << 53) as f64
    };
    let mut draw = |t: Tensor, lo: f64, hi: f64| -> Vec<f32> {
        (0..desc.required_elements(t))
            .map(|_| (lo + (hi - lo) * next()) as f32)
            .collect()
    };
    let q = draw(Tensor::Q, -1.0, 1.0);
    let k = draw(Tensor::K, -1.0, 1.0);
    let v = draw(Tensor::V, 0.0, 1.0);
    let mask = draw(Tensor::Mask, -3.0, 1.0)
        .into_iter()
        .map(|m| if m < -2.5 { f32::NEG_INFINITY } else { m })
        .collect();
    Inputs { q, k, v, mask }
}

fn reference(desc: &AttentionDesc, i: &Inputs) -> Vec<f64> {
    let w = |x: &[f32]| x.iter().map(|&e| e as f64).collect::<Vec<_>>();
    let mask = w(&i.mask);
    attention_reference(
        desc,
        &w(&i.q),
        &w(&i.k),
        &w(&i.v),
        Some(RefMask::Additive(&mask)),
    )
}

/// One thread's round through `encode`: its own buffers, encoder, submission and read-back.
fn through_encode(ctx: &Context, attention: &Attention, i: &Inputs) -> Vec<f64> {
    let device = ctx.device();
    let upload = |data: &[f32]| {
        device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: None,
            contents: bytemuck::cast_slice(data),
            usage: wgpu::BufferUsages::STORAGE,
        })
    };
    let (q, k, v, mask) = (upload(&i.q), upload(&i.k), upload(&i.v), upload(&i.mask));
    let bytes = attention.desc().required_bytes(Tensor::Out);
    let out = device.create_buffer(&wgpu::BufferDescriptor {
        label: None,
        size: bytes,
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
        mapped_at_creation: false,
    });
    let staging = device.create_buffer(&wgpu::BufferDescriptor {
        label: None,
        size: bytes,
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let mut encoder = device.create_command_encoder(&Default::default());
    attention
        .encode(
            &mut encoder,
            &AttentionBuffers {
                q: &q,
                k: &k,
                v: &v,
                out: &out,
                mask: Some(&mask),
            },
        )
        .unwrap();
    encoder.copy_buffer_to_buffer(&out, 0, &staging, 0, bytes);
    ctx.queue().submit([encoder.finish()]);
    let (tx, rx) = std::sync::mpsc::channel();
    staging
        .slice(..)
        .map_async(wgpu::MapMode::Read, move |r| tx.send(r).unwrap());
    device.poll(wgpu::PollType::wait_indefinitely()).unwrap();
    rx.recv().unwrap().unwrap();
    let result = bytemuck::cast_slice::<u8, f32>(&staging.slice(..).get_mapped_range().unwrap())
        .iter()
        .map(|&x| x as f64)
        .collect();
    staging.unmap();
    result
}

#[test]
fn eight_threads_share_one_attention() {
    let Some(ctx) = ctx() else { return };
    let (b, hq, hkv, lq, lk, d) = (2, 4, 2, 40, 57, 32);
    let desc = AttentionDesc::new(b, hq, hkv, lq, lk, d)
        .with_mask(Mask::Additive(MaskLayout::dense(true, false, hq, lq, lk)));
    for path in common::PATHS {
        let attention = Attention::with_options(
            ctx,
            &desc,
            &PlanOptions {
                path,
                ..ctx.plan_options()
            },
        )
        .unwrap();
        let start = Barrier::new(THREADS);
        let failures: Vec<String> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..THREADS)
                .map(|t| {
                    let (attention, start, desc) = (&attention, &start, &desc);
                    s.spawn(move || {
                        start.wait(); // all threads record and submit at once
                        let mut failures = Vec::new();
                        for round in 0..ROUNDS {
                            let seed = (t * ROUNDS + round) as u64;
                            let i = inputs(desc, seed);
                            let out = if (t + round) % 2 == 0 {
                                through_encode(ctx, attention, &i)
                            } else {
                                attention
                                    .run(&i.q, &i.k, &i.v, Some(HostMask::Additive(&i.mask)))
                                    .unwrap()
                                    .into_iter()
                                    .map(|x| x as f64)
                                    .collect()
                            };
                            let c = compare(desc, &out, &reference(desc, &i), 2e-5);
                            if !c.passed() {
                                failures.push(format!("thread {t} round {round}: {c:?}"));
                            }
                        }
                        failures
                    })
                })
                .collect();
            handles
                .into_iter()
                .flat_map(|h| h.join().expect("a thread panicked"))
                .collect()
        });
        assert!(failures.is_empty(), "{path}: {failures:#?}");
        println!(
            "{path}: {THREADS} threads x {ROUNDS} rounds on one Attention ({}), all match the reference",
            attention.plan()
        );
    }
}

#[test]
fn eight_threads_plan_and_compile_at_once() {
    let Some(shared) = ctx() else { return };
    // A context of its own, so its pipeline count is this test's alone.
    let ctx = Context::from_parts(
        shared.device().clone(),
        shared.queue().clone(),
        shared.capabilities().clone(),
    );
    let descs: Vec<AttentionDesc> = (0..THREADS)
        .map(|t| {
            AttentionDesc::new(
                1,
                2,
                1,
                20 + 10 * (t as u32 % 4),
                30,
                32 * (1 + t as u32 % 2),
            )
        })
        .collect();
    let start = Barrier::new(THREADS);
    std::thread::scope(|s| {
        for desc in &descs {
            let (ctx, start) = (&ctx, &start);
            s.spawn(move || {
                start.wait();
                for path in common::PATHS {
                    let options = PlanOptions {
                        path,
                        ..ctx.plan_options()
                    };
                    Attention::with_options(ctx, desc, &options).unwrap();
                }
            });
        }
    });
    let mut variants = HashSet::new();
    for desc in &descs {
        for path in common::PATHS {
            let options = PlanOptions {
                path,
                ..ctx.plan_options()
            };
            variants.extend(
                wgpu_sdpa::plan(ctx.capabilities(), desc, &options)
                    .unwrap()
                    .shader_variants(),
            );
        }
    }
    assert_eq!(ctx.compiled_pipelines(), variants.len());
    println!(
        "{THREADS} threads planning {} problems at once: {} pipelines, one per variant",
        descs.len() * 2,
        variants.len()
    );
}
