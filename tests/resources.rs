//! Convenience calls (`Attention::run` on tiny shapes, unfused and fused, with and without a
//! mask) do not grow device memory, live wgpu objects or pipelines: measured through wgpu's
//! allocator report (`Device::generate_allocator_report`) and internal counters (the `counters`
//! feature, enabled for the tests), on a device of the test's own, before and after.
//!
//! CI runs 10,000 calls (about 8 s on lavapipe); `WGPU_SDPA_RESOURCE_CALLS=100000 cargo test
//! --release --test resources` is the long run (README "Reliability" has the figures).

use std::collections::HashSet;

use wgpu_sdpa::{
    Attention, AttentionDesc, CausalAlignment, Context, HostMask, Mask, MaskLayout, Path,
    PlanOptions,
};

#[derive(Debug, Clone, Copy, PartialEq)]
struct Snapshot {
    allocated: u64,
    reserved: u64,
    buffers: isize,
    bind_groups: isize,
    buffer_memory: isize,
    allocations: isize,
    pipelines: isize,
}

fn snapshot(ctx: &Context) -> Snapshot {
    // Resources dropped by earlier calls are freed once the device has been polled.
    ctx.device()
        .poll(wgpu::PollType::wait_indefinitely())
        .unwrap();
    let report = ctx.device().generate_allocator_report();
    let c = ctx.device().get_internal_counters().hal;
    Snapshot {
        allocated: report.as_ref().map_or(0, |r| r.total_allocated_bytes),
        reserved: report.as_ref().map_or(0, |r| r.total_reserved_bytes),
        buffers: c.buffers.read(),
        bind_groups: c.bind_groups.read(),
        buffer_memory: c.buffer_memory.read(),
        allocations: c.memory_allocations.read(),
        pipelines: c.compute_pipelines.read(),
    }
}

/// Resident host memory of this process, bytes (Linux; 0 elsewhere).
fn rss() -> u64 {
    std::fs::read_to_string("/proc/self/statm")
        .ok()
        .and_then(|s| s.split_whitespace().nth(1)?.parse::<u64>().ok())
        .map_or(0, |pages| pages * 4096)
}

/// A planned problem with its q, k, v and optional additive mask.
type Problem = (Attention, Vec<f32>, Vec<f32>, Vec<f32>, Option<Vec<f32>>);

#[test]
fn convenience_calls_do_not_grow_device_memory_objects_or_pipelines() {
    let ctx = match Context::headless() {
        Ok(ctx) => ctx,
        Err(e) if std::env::var("WGPU_SDPA_REQUIRE_ADAPTER").is_ok_and(|v| v == "1") => {
            panic!("no adapter, and WGPU_SDPA_REQUIRE_ADAPTER=1: {e}")
        }
        Err(e) => {
            eprintln!("SKIPPED: no wgpu adapter ({e})");
            return;
        }
    };
    let calls: usize = std::env::var("WGPU_SDPA_RESOURCE_CALLS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(10_000);
    let plain =
        AttentionDesc::new(1, 2, 1, 4, 9, 16).with_mask(Mask::Causal(CausalAlignment::TopLeft));
    let masked = AttentionDesc::new(1, 2, 2, 33, 9, 8)
        .with_mask(Mask::Additive(MaskLayout::dense(false, true, 2, 33, 9)));
    let problems: Vec<Problem> = [
        (plain.clone(), Path::Unfused),
        (plain, Path::Fused),
        (masked.clone(), Path::Unfused),
        (masked, Path::Fused),
    ]
    .into_iter()
    .map(|(desc, path)| {
        let a = Attention::with_options(
            &ctx,
            &desc,
            &PlanOptions {
                path,
                ..ctx.plan_options()
            },
        )
        .unwrap();
        let n = |t| desc.required_elements(t) as usize;
        let fill = |t, x: f32| vec![x; n(t)];
        let mask = desc
            .mask
            .layout()
            .map(|_| fill(wgpu_sdpa::Tensor::Mask, -0.5));
        (
            a,
            fill(wgpu_sdpa::Tensor::Q, 0.1),
            fill(wgpu_sdpa::Tensor::K, 0.2),
            fill(wgpu_sdpa::Tensor::V, 0.75),
            mask,
        )
    })
    .collect();
    let call = |i: usize| {
        let (a, q, k, v, mask) = &problems[i % problems.len()];
        let out = a
            .run(q, k, v, mask.as_deref().map(HostMask::Additive))
            .unwrap();
        // Equal keys (or masked ones) average V, which is 0.75 everywhere; rows whose keys are
        // all masked (causal top-left never masks row 0's key 0) would be 0.
        assert!(out.iter().all(|&x| (x - 0.75).abs() < 1e-6), "{out:?}");
    };
    let variants: HashSet<_> = problems
        .iter()
        .flat_map(|(a, ..)| a.plan().shader_variants())
        .collect();

    // Warm up: every pipeline compiled, wgpu's pools and the allocator at their working size.
    for i in 0..200 {
        call(i);
    }
    let before = snapshot(&ctx);
    let rss_before = rss();
    let compiled = ctx.compiled_pipelines();
    assert_eq!(compiled, variants.len(), "one pipeline per variant");
    let started = std::time::Instant::now();
    let mut peak = before;
    for i in 0..calls {
        call(i);
        if i % 500 == 499 {
            let s = snapshot(&ctx);
            peak.allocated = peak.allocated.max(s.allocated);
            peak.buffers = peak.buffers.max(s.buffers);
            peak.bind_groups = peak.bind_groups.max(s.bind_groups);
        }
    }
    let elapsed = started.elapsed().as_secs_f64();
    let after = snapshot(&ctx);
    let rss_after = rss();
    println!(
        "{calls} calls in {elapsed:.1} s ({:.2} ms each)\n  before: {before:?}\n  after:  {after:?}\n  peak allocated {} B, buffers {}, bind groups {}\n  host RSS {} -> {} KiB",
        1e3 * elapsed / calls as f64,
        peak.allocated,
        peak.buffers,
        peak.bind_groups,
        rss_before / 1024,
        rss_after / 1024
    );
    assert_eq!(
        ctx.compiled_pipelines(),
        compiled,
        "pipelines compiled again"
    );
    assert_eq!(after.pipelines, before.pipelines, "live pipelines");
    assert_eq!(after.buffers, before.buffers, "live buffers");
    assert_eq!(after.bind_groups, before.bind_groups, "live bind groups");
    assert_eq!(after.buffer_memory, before.buffer_memory, "buffer memory");
    assert_eq!(after.allocated, before.allocated, "allocated device memory");
    assert!(
        after.reserved <= before.reserved,
        "reserved device memory grew"
    );
    // Host memory: allow allocator noise, not growth per call (a leak of even 1 KiB a call
    // would be 10 MB at the default count).
    if rss_before > 0 {
        let growth = rss_after.saturating_sub(rss_before);
        assert!(
            growth < 8 << 20,
            "host RSS grew by {growth} B over {calls} calls"
        );
    }
}
