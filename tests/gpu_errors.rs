//! wgpu's errors come back as typed `Error::Gpu` values through error scopes, never as panics or
//! aborts: a real out-of-memory (device memory exhausted), validation errors (a context stating
//! capabilities or limits the device lacks, another device's buffer, a destroyed buffer), a lost
//! device, and a wait past the context's timeout. After a typed error the context keeps working,
//! and a caller's encoder stays valid.
//!
//! The tests run one at a time (see [`alone`]), and the devices and instances they make are
//! kept until the process exits (see [`keep_until_exit`]): NVIDIA's Vulkan driver (580.159.04,
//! H200) deadlocked in parallel runs of this file, one test's thread in `vkDestroyDevice` or
//! `vkDestroyInstance` while another's was inside the driver (compiling a pipeline, destroying its
//! own device, or leaving the thread): 3 of 13 runs while the out-of-memory child filled the
//! GPU's memory, and 1 of 8 with that test alone (runs 120 and 123 in BENCHMARKS.md).

mod common;

use std::process::Command;
use std::sync::{Mutex, MutexGuard};

use common::ctx;
use wgpu_sdpa::{
    Attention, AttentionBuffers, AttentionDesc, Capabilities, Context, DType, Error, GpuErrorKind,
    Path, PlanOptions, Tensor,
};

fn gpu_kind(e: &Error) -> Option<GpuErrorKind> {
    match e {
        Error::Gpu { kind, .. } => Some(*kind),
        _ => None,
    }
}

fn storage(device: &wgpu::Device, bytes: u64) -> wgpu::Buffer {
    device.create_buffer(&wgpu::BufferDescriptor {
        label: None,
        size: bytes,
        usage: wgpu::BufferUsages::STORAGE,
        mapped_at_creation: false,
    })
}

/// Buffers for `desc`, zero-filled.
fn buffers(device: &wgpu::Device, desc: &AttentionDesc) -> [wgpu::Buffer; 4] {
    [Tensor::Q, Tensor::K, Tensor::V, Tensor::Out]
        .map(|t| storage(device, desc.required_bytes(t).next_multiple_of(4)))
}

/// Held by every test that uses the GPU for its whole body: they run one at a time (the module
/// docs say why). A failed test's poison is ignored (the lock guards no data).
fn alone() -> MutexGuard<'static, ()> {
    static GPU: Mutex<()> = Mutex::new(());
    GPU.lock().unwrap_or_else(|e| e.into_inner())
}

/// Keeps a device, an instance or a context made by a test alive until the process exits, so that
/// no device or instance is destroyed while the other tests' threads are inside the driver (the
/// module docs say why). What is tested here is the errors, not the teardown, which every other
/// test binary exercises.
fn keep_until_exit<T>(x: T) {
    std::mem::forget(x);
}

fn expect_adapter() -> bool {
    std::env::var("WGPU_SDPA_REQUIRE_ADAPTER").is_ok_and(|v| v == "1")
}

// ---------------------------------------------------------------------------------------------
// Out of memory

const OOM_CHILD: &str = "WGPU_SDPA_OOM_CHILD";

/// The out-of-memory scenario, run in a child process (below) so that exhausting device memory
/// cannot disturb other tests: fill device memory, then ask `Attention::run` for more.
#[test]
fn oom_child() {
    if std::env::var(OOM_CHILD).is_err() {
        return; // only as the child of out_of_device_memory_is_a_typed_error
    }
    let ctx = Context::headless().expect("context");
    let desc = AttentionDesc::new(1, 1, 1, 16, 8192, 256); // k and v: 8 MiB each
    let attention = Attention::with_options(
        &ctx,
        &desc,
        &PlanOptions {
            path: Path::Unfused,
            ..ctx.plan_options()
        },
    )
    .expect("plan");
    let n = |t| desc.required_elements(t) as usize;
    let (q, k, v) = (
        vec![0.01f32; n(Tensor::Q)],
        vec![0.02f32; n(Tensor::K)],
        vec![0.5f32; n(Tensor::V)],
    );
    // Exhaust device memory: buffers of 1 GiB, then 64 MiB, then 4 MiB, each size until the
    // device refuses one (at most 512 of each, in case a driver never does).
    let device = ctx.device();
    let mut hog = Vec::new();
    let mut refused = 0;
    for size in [1u64 << 30, 64 << 20, 4 << 20] {
        if size > ctx.capabilities().max_buffer_bytes {
            continue;
        }
        for _ in 0..512 {
            let scope = device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
            let b = device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("hog"),
                size,
                usage: wgpu::BufferUsages::STORAGE,
                mapped_at_creation: false,
            });
            if pollster::block_on(scope.pop()).is_some() {
                refused += 1;
                break;
            }
            hog.push(b);
        }
    }
    let held: u64 = hog.iter().map(|b| b.size()).sum();
    println!("held {} MiB, {refused} sizes refused", held >> 20);
    if refused < 3 {
        println!("OOM-SKIPPED: the device never ran out of memory");
        return;
    }
    let e = attention.run(&q, &k, &v, None).expect_err("no memory left");
    println!("run with memory exhausted: {e}");
    assert_eq!(gpu_kind(&e), Some(GpuErrorKind::OutOfMemory), "{e:?}");
    // Memory back: the same Attention runs (equal keys: every output is v = 0.5).
    drop(hog);
    device.poll(wgpu::PollType::wait_indefinitely()).unwrap();
    let out = attention.run(&q, &k, &v, None).expect("after freeing");
    assert!(out.iter().all(|&x| (x - 0.5).abs() < 1e-6));
    println!("OOM-OK");
}

#[test]
fn out_of_device_memory_is_a_typed_error() {
    let _alone = alone();
    let Some(ctx) = ctx() else { return };
    let exe = std::env::current_exe().unwrap();
    // On a CPU adapter (lavapipe) device memory is host memory, which the child's address space
    // limit (ulimit -v, 6 GiB) bounds; a GPU runs out of its own memory.
    let cpu = ctx.capabilities().device_type == wgpu::DeviceType::Cpu;
    let limit = if cpu { "ulimit -v 6291456; " } else { "" };
    let output = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "{limit}exec \"$0\" oom_child --exact --nocapture --test-threads 1"
        ))
        .arg(&exe)
        .env(OOM_CHILD, "1")
        .output()
        .expect("spawn the child");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    println!("child:\n{stdout}\n{stderr}");
    assert!(
        output.status.success(),
        "the child failed ({:?}): {stdout}\n{stderr}",
        output.status
    );
    if stdout.contains("OOM-SKIPPED") {
        eprintln!("SKIPPED: out of memory (the device never refused an allocation)");
        assert!(
            !expect_adapter() || !cpu,
            "lavapipe under ulimit must run out"
        );
        return;
    }
    assert!(stdout.contains("OOM-OK"), "{stdout}");
}

// ---------------------------------------------------------------------------------------------
// Limits the device does not have

#[test]
fn buffers_past_max_buffer_size() {
    let _alone = alone();
    let Some(shared) = ctx() else { return };
    let desc = AttentionDesc::new(1, 4, 4, 64, 64, 64); // 64 KiB a tensor
    let n = desc.required_elements(Tensor::Q) as usize;
    let x = vec![0.25f32; n];

    // Stated lower: a typed limit error before anything is allocated.
    let mut caps = shared.capabilities().clone();
    caps.max_buffer_bytes = 32 * 1024;
    let lowered = Context::from_parts(shared.device().clone(), shared.queue().clone(), caps);
    let attention = Attention::new(&lowered, &desc).unwrap();
    let e = attention.run(&x, &x, &x, None).unwrap_err();
    assert!(
        matches!(&e, Error::ExceedsLimit { limit_name, limit: 32768, .. } if limit_name == "max_buffer_size"),
        "{e}"
    );

    // A device whose real limit is 32 KiB, wrapped with capabilities that claim more: wgpu
    // rejects the buffer (validation), which comes back typed, not as a panic.
    let instance = wgpu_sdpa::context::instance();
    keep_until_exit(instance.clone());
    let adapter = pollster::block_on(instance.request_adapter(&Default::default())).unwrap();
    let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
        required_limits: wgpu::Limits {
            max_buffer_size: 32 * 1024,
            ..adapter.limits()
        },
        ..Default::default()
    }))
    .unwrap();
    keep_until_exit(device.clone());
    let honest = Context::from_wgpu(device.clone(), queue.clone(), &adapter);
    assert_eq!(honest.capabilities().max_buffer_bytes, 32 * 1024);
    // Host slices longer than the device's largest buffer (a whole KV cache, say) are fine when
    // the layouts need less: only what they touch is uploaded.
    let fits = AttentionDesc::new(1, 2, 2, 16, 16, 64); // 8 KiB a tensor
    let long: Vec<f32> = (0..16 * 1024).map(|i| (i % 64) as f32 / 64.0).collect(); // 64 KiB
    let out = Attention::new(&honest, &fits)
        .unwrap()
        .run(&long, &vec![0.0; 16 * 1024], &long, None)
        .unwrap();
    assert_eq!(out.len(), 2 * 16 * 64);
    assert!(out
        .iter()
        .enumerate()
        .all(|(i, &o)| (o - (i % 64) as f32 / 64.0).abs() < 1e-6));
    let e = Attention::new(&honest, &desc)
        .unwrap()
        .run(&x, &x, &x, None)
        .unwrap_err();
    assert!(matches!(e, Error::ExceedsLimit { .. }), "{e}");
    let mut claimed = honest.capabilities().clone();
    claimed.max_buffer_bytes = 1 << 30;
    let claiming = Context::from_parts(device, queue, claimed);
    let e = Attention::new(&claiming, &desc)
        .unwrap()
        .run(&x, &x, &x, None)
        .unwrap_err();
    println!("{e}");
    assert_eq!(gpu_kind(&e), Some(GpuErrorKind::Validation), "{e:?}");
    // The context still works for a problem that fits.
    let small = AttentionDesc::new(1, 1, 1, 8, 8, 8);
    let y = vec![0.5f32; 64];
    let out = Attention::new(&claiming, &small)
        .unwrap()
        .run(&y, &y, &y, None)
        .unwrap();
    assert!(out.iter().all(|&o| (o - 0.5).abs() < 1e-6));
}

#[test]
fn capabilities_the_device_lacks_give_a_validation_error() {
    let _alone = alone();
    let Some(ctx) = ctx() else { return };
    if ctx
        .device()
        .features()
        .contains(wgpu::Features::EXPERIMENTAL_COOPERATIVE_MATRIX)
        || !ctx.capabilities().shader_f16
    {
        eprintln!(
            "SKIPPED: this device has cooperative matrices (or lacks f16): no false claim to make"
        );
        return;
    }
    // Claim NVIDIA's cooperative matrices on a device without them: the shader module fails to
    // compile inside the pipeline cache's error scope, with the Attention's own scope open
    // around it (wgpu panicked when that outer scope was left by the early return).
    let mut caps = Capabilities::nvidia_vulkan();
    caps.max_workgroup_storage_bytes = ctx.capabilities().max_workgroup_storage_bytes;
    let claiming = Context::from_parts(ctx.device().clone(), ctx.queue().clone(), caps);
    let desc = AttentionDesc::new(1, 1, 1, 64, 64, 64).with_dtype(DType::F16);
    let e = Attention::new(&claiming, &desc).unwrap_err();
    println!("{e}");
    assert_eq!(gpu_kind(&e), Some(GpuErrorKind::Validation), "{e:?}");
    assert!(e.to_string().contains("fused_coop"), "{e}");
    // Nothing was cached: asking again fails the same way, and the honest context is unaffected.
    assert!(Attention::new(&claiming, &desc).is_err());
    assert_eq!(claiming.compiled_pipelines(), 0);
    let h = vec![half::f16::from_f32(0.5); 64 * 64];
    let out = Attention::new(ctx, &desc)
        .unwrap()
        .run(&h, &h, &h, None)
        .unwrap();
    assert!(out.iter().all(|&o| o.to_f32() == 0.5));
}

// ---------------------------------------------------------------------------------------------
// Buffers wgpu rejects

#[test]
fn another_devices_or_a_destroyed_buffer_is_a_typed_error_and_the_encoder_stays_valid() {
    let _alone = alone();
    if ctx().is_none() {
        return;
    }
    let instance = wgpu_sdpa::context::instance();
    keep_until_exit(instance.clone());
    let adapter = pollster::block_on(instance.request_adapter(&Default::default())).unwrap();
    let (mine, queue) = pollster::block_on(adapter.request_device(&Default::default())).unwrap();
    let (other, _) = pollster::block_on(adapter.request_device(&Default::default())).unwrap();
    keep_until_exit((mine.clone(), other.clone()));
    let ctx = Context::from_wgpu(mine.clone(), queue, &adapter);
    let desc = AttentionDesc::new(1, 2, 2, 8, 8, 16);
    let attention = Attention::new(&ctx, &desc).unwrap();
    let [q, k, v, out] = buffers(&mine, &desc);
    let foreign = storage(&other, desc.required_bytes(Tensor::K));
    let destroyed = storage(&mine, desc.required_bytes(Tensor::V));
    destroyed.destroy();

    let mut encoder = mine.create_command_encoder(&Default::default());
    let good = AttentionBuffers {
        q: &q,
        k: &k,
        v: &v,
        out: &out,
        mask: None,
    };
    for (name, buffers) in [
        (
            "another device's k",
            AttentionBuffers {
                k: &foreign,
                ..good
            },
        ),
        (
            "a destroyed v",
            AttentionBuffers {
                v: &destroyed,
                ..good
            },
        ),
    ] {
        // A destroyed buffer is only invalid once submitted (WebGPU's rule): either a typed
        // error now or a recording that the submission below would reject; never a panic.
        match attention.encode(&mut encoder, &buffers) {
            Err(e) => {
                println!("{name}: {e}");
                assert_eq!(gpu_kind(&e), Some(GpuErrorKind::Validation), "{e:?}");
            }
            Ok(()) => {
                assert_eq!(
                    name, "a destroyed v",
                    "another device's buffer must be refused"
                );
                println!("{name}: accepted when recorded (WebGPU rejects it at submission)");
                encoder = mine.create_command_encoder(&Default::default());
            }
        }
    }
    // The encoder the errors left behind records valid work and finishes without error.
    attention.encode(&mut encoder, &good).unwrap();
    let scope = mine.push_error_scope(wgpu::ErrorFilter::Validation);
    ctx.queue().submit([encoder.finish()]);
    assert!(pollster::block_on(scope.pop()).is_none());
}

// ---------------------------------------------------------------------------------------------
// Device lost

#[test]
fn a_lost_device_gives_device_lost_errors() {
    let _alone = alone();
    if ctx().is_none() {
        return;
    }
    // A device of the test's own: it is destroyed, which is how a lost device is simulated.
    let ctx = Context::headless().unwrap();
    keep_until_exit(ctx.clone());
    let unwatched = Context::from_parts(
        ctx.device().clone(),
        ctx.queue().clone(),
        ctx.capabilities().clone(),
    );
    let desc = AttentionDesc::new(1, 2, 2, 8, 8, 16);
    let attention = Attention::new(&ctx, &desc).unwrap();
    let attention_unwatched = Attention::new(&unwatched, &desc).unwrap();
    let x = vec![0.5f32; desc.required_elements(Tensor::Q) as usize];
    assert!(ctx.device_lost().is_none());
    let [q, k, v, out] = buffers(ctx.device(), &desc);

    ctx.device().destroy();

    // The convenience call notices (through the callback Context::headless installs).
    let e = attention.run(&x, &x, &x, None).unwrap_err();
    println!("run: {e}");
    assert_eq!(gpu_kind(&e), Some(GpuErrorKind::DeviceLost), "{e:?}");
    let reason = ctx.device_lost().expect("the callback ran");
    assert!(reason.contains("Destroyed"), "{reason}");
    // From then on every call says so at once.
    let e = Attention::new(&ctx, &AttentionDesc::new(1, 1, 1, 4, 4, 8)).unwrap_err();
    assert_eq!(gpu_kind(&e), Some(GpuErrorKind::DeviceLost), "{e:?}");
    let mut encoder = ctx.device().create_command_encoder(&Default::default());
    let buffers = AttentionBuffers {
        q: &q,
        k: &k,
        v: &v,
        out: &out,
        mask: None,
    };
    let e = attention.encode(&mut encoder, &buffers).unwrap_err();
    assert_eq!(gpu_kind(&e), Some(GpuErrorKind::DeviceLost), "{e:?}");
    // A context without the callback (a caller's device wrapped by from_parts): still a typed
    // error, not a panic; the loss shows as a buffer that cannot be mapped.
    let e = attention_unwatched.run(&x, &x, &x, None).unwrap_err();
    println!("unwatched run: {e}");
    assert_eq!(gpu_kind(&e), Some(GpuErrorKind::DeviceLost), "{e:?}");
}

// ---------------------------------------------------------------------------------------------
// Waiting

#[test]
fn a_wait_past_the_timeout_is_a_typed_error_and_the_work_completes() {
    let _alone = alone();
    let Some(shared) = ctx() else { return };
    // A context of its own on the same device (the timeout is shared by clones, and only by them).
    let ctx = shared.with_runtime_checks(shared.runtime_checks());
    let clone = ctx.clone();
    assert_eq!(ctx.wait_timeout(), None);
    // K all zeros: every score is 0, so every output row is the mean of V's rows.
    let desc = AttentionDesc::new(1, 8, 8, 256, 2048, 64); // K and V: 4 MiB each
    let n = |t| desc.required_elements(t) as usize;
    let (q_len, kv_len, d) = (
        desc.q_len as usize,
        desc.kv_len as usize,
        desc.head_dim as usize,
    );
    let q = vec![0.25f32; n(Tensor::Q)];
    let k = vec![0.0f32; n(Tensor::K)];
    let v: Vec<f32> = (0..n(Tensor::V))
        .map(|e| ((e / d * 7 + e % d) % 13) as f32 / 13.0)
        .collect();
    let expected = |h: usize, c: usize| {
        let rows = &v[h * kv_len * d..(h + 1) * kv_len * d];
        rows.chunks(d).map(|r| r[c] as f64).sum::<f64>() / kv_len as f64
    };
    let check = |out: &[f32]| {
        for (i, &o) in out.iter().enumerate() {
            let (h, c) = (i / (q_len * d), i % d);
            assert!((o as f64 - expected(h, c)).abs() < 1e-5, "{i}: {o}");
        }
    };
    let attention = Attention::new(&ctx, &desc).unwrap();

    // 1 us: less than any GPU takes to copy 8 MiB in and run this, let alone a CPU adapter.
    let timeout = std::time::Duration::from_micros(1);
    ctx.set_wait_timeout(Some(timeout));
    assert_eq!(
        clone.wait_timeout(),
        Some(timeout),
        "clones share the setting"
    );
    assert_eq!(shared.wait_timeout(), None, "a context of its own");
    // The wait starts after the submission: a thread held up between the two (on a loaded
    // machine) can find the work done. Up to 3 tries, each result that does come back checked.
    let mut timed_out = None;
    for attempt in 1..=3 {
        match attention.run(&q, &k, &v, None) {
            Err(e) => {
                timed_out = Some(e);
                break;
            }
            Ok(out) => {
                println!("try {attempt}: the work was done before the wait began");
                check(&out);
            }
        }
    }
    let e = timed_out.expect("none of 3 waits of 1 us timed out");
    println!("{e}");
    assert_eq!(gpu_kind(&e), Some(GpuErrorKind::Timeout), "{e:?}");
    assert!(e.to_string().contains("1µs"), "{e}");

    // Without it, the next call waits behind the abandoned one and comes back right.
    ctx.set_wait_timeout(None);
    check(&attention.run(&q, &k, &v, None).unwrap());
}
