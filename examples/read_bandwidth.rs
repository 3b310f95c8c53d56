//! The yardstick for the decode kernel's bandwidth: how long a kernel that only reads K and V
//! (no arithmetic besides folding the words together) takes through wgpu on the default adapter,
//! timed with the clock `sdpa bench` uses (timestamps at the start and end of each call's compute
//! pass, the median of 20 calls). Sizes are those of `sdpa bench --decode`: K and V of 8 KV
//! heads, head dim 128, f16, for each key length; plus an empty pass (the clock's floor) and the
//! platform's floor for one call: a one-workgroup dispatch recorded 200 times back to back
//! between two timestamps of the encoder, a compute pass each (as `sdpa bench`'s back-to-back
//! column records its calls) or all in one pass.
//!
//! ```text
//! cargo run --release --example read_bandwidth -- 16384 131072
//! ```
//!
//! Each reading workgroup (256 threads) takes a contiguous share of the words and issues 8
//! independent 16-byte loads per thread per step; the grid is the given workgroup counts (264:
//! the decode kernel's aim on the H200, two an SM; 1056; 4224). Then, with 264 workgroups, the
//! same bytes read in the decode kernel's patterns: 4 loads a thread in flight; each workgroup
//! reading the same share of K and of V, 4 loads of each together; and V's 4 loads asked for
//! once K's have arrived (as the driver schedules the decode kernel's loop); and that last
//! pattern with each share read by two workgroups at once (as the decode kernel's two query
//! groups of a KV head, 5-8 query vectors, read the same keys), at 264 and 528 workgroups.
//!
//! Last, at 264 workgroups, the two clocks side by side (a pass each, its own timestamps; all 20
//! calls in one pass between two timestamps of the encoder, as `sdpa bench`'s `b2b_1pass`) for
//! one stream of 8 loads and for K then V, each also with the decode kernel's workgroup memory
//! held (18688 bytes); and for one stream of 8 loads after 1024, 256 or 64 steps of straight-line
//! integer code run once (`long_code`), after the reads with 1024, and followed by 2 KB of stores
//! a workgroup: what a compute pass of its own charges a kernel for its code (on the H200 ~0.3 us
//! a KB where K and V stream from memory; BENCHMARKS.md, thirty-seventh session). Exit status 2
//! without an adapter or timestamps.

use wgpu_sdpa::Context;

const SHADER: &str = r#"
@group(0) @binding(0) var<storage, read> k: array<vec4<u32>>;
@group(0) @binding(1) var<storage, read> v: array<vec4<u32>>;
@group(0) @binding(2) var<storage, read_write> sink: array<u32>;

// words: vec4s of K (and of V); per_group: vec4s a workgroup reads (of K and V together in mode
// 0 and 3, of each in modes 1 and 2); mode: the access pattern; zero: 0 (a dependence the
// compiler cannot see through); readers: workgroups reading each share (workgroups w, w + n,
// w + 2n, ... of n * readers read the same).
struct Share { words: u32, per_group: u32, mode: u32, zero: u32, readers: u32, pad0: u32, pad1: u32, pad2: u32 }
@group(0) @binding(3) var<uniform> share: Share;

fn word(i: u32) -> vec4<u32> {
    if (i < share.words) {
        return k[i];
    }
    if (i < 2u * share.words) {
        return v[i - share.words];
    }
    return vec4<u32>();
}

fn kw(i: u32) -> vec4<u32> {
    return select(vec4<u32>(), k[min(i, share.words - 1u)], i < share.words);
}

fn vw(i: u32) -> vec4<u32> {
    return select(vec4<u32>(), v[min(i, share.words - 1u)], i < share.words);
}

// The workgroup's reads of its share, folded into one word.
fn read_share(wg: vec3<u32>, n: vec3<u32>, t: u32) -> vec4<u32> {
    let begin = (wg.x % (n.x / share.readers)) * share.per_group;
    var acc = vec4<u32>();
    if (share.mode == 0u || share.mode >= 4u) {
        // One stream (the workgroup's share of K then V), 8 loads a thread in flight.
        let end = min(begin + share.per_group, 2u * share.words);
        for (var i = begin + t; i < end; i += 8u * 256u) {
            let a = word(i);
            let b = word(i + 256u);
            let c = word(i + 512u);
            let d = word(i + 768u);
            let e = word(i + 1024u);
            let f = word(i + 1280u);
            let g = word(i + 1536u);
            let h = word(i + 1792u);
            acc ^= ((a ^ b) ^ (c ^ d)) ^ ((e ^ f) ^ (g ^ h));
        }
    } else if (share.mode == 3u) {
        // One stream, 4 loads a thread in flight.
        let end = min(begin + share.per_group, 2u * share.words);
        for (var i = begin + t; i < end; i += 4u * 256u) {
            acc ^= (word(i) ^ word(i + 256u)) ^ (word(i + 512u) ^ word(i + 768u));
        }
    } else if (share.mode == 1u) {
        // Two streams (the same share of K and of V), 4 loads of each in flight together.
        let end = min(begin + share.per_group, share.words);
        for (var i = begin + t; i < end; i += 4u * 256u) {
            let a = kw(i) ^ kw(i + 256u) ^ kw(i + 512u) ^ kw(i + 768u);
            let b = vw(i) ^ vw(i + 256u) ^ vw(i + 512u) ^ vw(i + 768u);
            acc ^= a ^ b;
        }
    } else {
        // Two streams, V's 4 loads asked for once K's 4 have arrived (as the decode kernel's
        // driver code does).
        let end = min(begin + share.per_group, share.words);
        for (var i = begin + t; i < end; i += 4u * 256u) {
            let a = kw(i) ^ kw(i + 256u) ^ kw(i + 512u) ^ kw(i + 768u);
            let j = i + (a.x & share.zero);
            let b = vw(j) ^ vw(j + 256u) ^ vw(j + 512u) ^ vw(j + 768u);
            acc ^= a ^ b;
        }
    }
    return acc;
}

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) n: vec3<u32>,
        @builtin(local_invocation_index) t: u32) {
    var before = vec4<u32>();
    if (share.mode == 4u) {
        before = long_code_1024(wg.x, t);
    } else if (share.mode == 6u) {
        before = long_code_256(wg.x, t);
    } else if (share.mode == 7u) {
        before = long_code_64(wg.x, t);
    }
    var acc = read_share(wg, n, t) ^ before;
    if (share.mode == 8u) {
        acc ^= long_code_1024(acc.x, acc.y ^ t);
    }
    let x = acc.x ^ acc.y ^ acc.z ^ acc.w;
    if (share.mode == 5u) {
        // 2 KB a workgroup stored after the reads (the decode call's split results: 33 splits
        // x 4 query vectors x 128 f32 a KV head, 2 KB a workgroup).
        sink[wg.x * 512u + t] = x;
        sink[wg.x * 512u + 256u + t] = x ^ t;
    } else if (x == 0x12345678u) {
        sink[wg.x * 512u + t] = x; // keeps the loads alive; practically never taken
    }
}

// The decode kernel's workgroup memory at d128 (18708 bytes): the same reads by a workgroup
// that also holds 18688 bytes of workgroup memory (two such workgroups an SM, as the decode
// kernel's), written before the reads and read after them.
var<workgroup> held: array<vec4<u32>, 1168>;

@compute @workgroup_size(256)
fn main_held(@builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) n: vec3<u32>,
             @builtin(local_invocation_index) t: u32) {
    for (var i = t; i < 1168u; i += 256u) {
        held[i] = vec4<u32>(i);
    }
    workgroupBarrier();
    let acc = read_share(wg, n, t) ^ held[(t * 5u) % 1168u];
    let x = acc.x ^ acc.y ^ acc.z ^ acc.w;
    if (x == 0x12345678u) {
        sink[wg.x * 512u + t] = x; // keeps the loads alive; practically never taken
    }
}
"#;

fn main() {
    let lens: Vec<u64> = std::env::args()
        .skip(1)
        .map(|a| a.parse().expect("key lengths"))
        .collect();
    let lens = if lens.is_empty() {
        vec![4096, 16384, 32768, 65536, 131072]
    } else {
        lens
    };
    let ctx = match Context::headless() {
        Ok(c) => c,
        Err(e) => {
            eprintln!("no adapter: {e}");
            std::process::exit(2);
        }
    };
    let device = ctx.device();
    if !device.features().contains(wgpu::Features::TIMESTAMP_QUERY) {
        eprintln!("the adapter has no TIMESTAMP_QUERY");
        std::process::exit(2);
    }
    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some("read bandwidth"),
        source: wgpu::ShaderSource::Wgsl(
            format!(
                "{SHADER}{}{}{}",
                long_code(1024),
                long_code(256),
                long_code(64)
            )
            .into(),
        ),
    });
    let pipeline_of = |entry| {
        device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some(entry),
            layout: None,
            module: &module,
            entry_point: Some(entry),
            compilation_options: Default::default(),
            cache: None,
        })
    };
    let pipeline = pipeline_of("main");
    let held = pipeline_of("main_held");
    let one_pass_clock = device
        .features()
        .contains(wgpu::Features::TIMESTAMP_QUERY_INSIDE_ENCODERS);
    println!("# read_bandwidth on {}", ctx.capabilities().adapter_name);
    println!("kv_len, bytes, workgroups, mode, ms, GB/s");
    for &len in &lens {
        // K and V each: 8 KV heads x len x 128 dims x 2 bytes.
        let bytes = 8 * len * 128 * 2;
        // One stream of 8 loads at each grid, then the decode kernel's patterns at its grid.
        // Last, each share read by two workgroups at once (as the decode kernel's two query
        // groups of a KV head read the same keys): at the same grid (half the shares) and at
        // twice it (the same shares); GB/s of the bytes there are, read once.
        for (groups, mode, readers) in [
            (264u32, Mode::OneStream8, 1u32),
            (1056, Mode::OneStream8, 1),
            (4224, Mode::OneStream8, 1),
            (264, Mode::OneStream4, 1),
            (264, Mode::TwoStreams, 1),
            (264, Mode::TwoStreamsKThenV, 1),
            (264, Mode::TwoStreamsKThenV, 2),
            (528, Mode::TwoStreamsKThenV, 2),
        ] {
            let (ms, gbps) = time(&ctx, &pipeline, bytes, groups, mode, readers, false);
            let name = mode.name();
            let name = if readers > 1 {
                format!("{name}-each-share-by-{readers}")
            } else {
                name.to_string()
            };
            println!("{len}, {}, {groups}, {name}, {ms:.4}, {gbps:.0}", 2 * bytes);
        }
        // The two clocks side by side: a pass a call (its own timestamps) and the calls back
        // to back in one pass (the encoder's), without and with the decode kernel's workgroup
        // memory held.
        for (pipeline, held_name) in [(&pipeline, ""), (&held, "-wg-memory-held")] {
            for mode in [
                Mode::OneStream8,
                Mode::TwoStreamsKThenV,
                Mode::LongCode,
                Mode::LongCode256,
                Mode::LongCode64,
                Mode::LongCodeAfter,
                Mode::Stores,
            ] {
                for one_pass in [false, true] {
                    let plain_only = !matches!(mode, Mode::OneStream8 | Mode::TwoStreamsKThenV);
                    if (one_pass && !one_pass_clock) || (plain_only && !held_name.is_empty()) {
                        continue;
                    }
                    let (ms, gbps) = time(&ctx, pipeline, bytes, 264, mode, 1, one_pass);
                    let clock = if one_pass { "one-pass" } else { "pass-each" };
                    println!(
                        "{len}, {}, 264, {}{held_name}-{clock}, {ms:.4}, {gbps:.0}",
                        2 * bytes,
                        mode.name()
                    );
                }
            }
        }
    }
    let (ms, _) = time(&ctx, &pipeline, 16, 1, Mode::OneStream8, 1, false);
    println!("empty pass (one workgroup, 16 bytes), -, 1, -, {ms:.4}, -");
    for layout in [Floor::Passes, Floor::OnePass] {
        let ms = floor(&ctx, &pipeline, layout);
        println!("{}, -, 1, -, {ms:.4}, -", layout.name());
    }
}

/// WGSL of `long_code_{steps}(a, b)`: `steps` integer steps over 8 chains written out (a
/// multiply, a shift and an xor each), run once before or after the reads of the long-code
/// modes: 1024 steps are some 2,000-3,000 instructions, 30-50 KB of code (the decode kernel's
/// executable is 24 KB on the H200).
fn long_code(steps: u32) -> String {
    let mut f = format!(
        "\nfn long_code_{steps}(a: u32, b: u32) -> vec4<u32> {{\n    var x = array<u32, 8>(a, b, a ^ b, a + b, a * 3u, b * 5u, a ^ 7u, b ^ 11u);\n"
    );
    for i in 0..steps {
        let (c, d, r) = (i % 8, (i + 3) % 8, 1 + i % 13);
        let m = 0x9e37_79b9u32.wrapping_mul(i + 1) | 1;
        f += &format!("    x[{c}u] = (x[{c}u] * {m}u) ^ (x[{d}u] >> {r}u);\n");
    }
    f += "    return vec4<u32>(x[0] ^ x[1], x[2] ^ x[3], x[4] ^ x[5], x[6] ^ x[7]);\n}\n";
    f
}

/// How [`back_to_back`] records its calls (for [`floor`]'s empty dispatch, and [`time`]'s
/// one-pass clock).
#[derive(Clone, Copy)]
enum Floor {
    /// One compute pass a call, as `sdpa bench`'s back-to-back column records its calls.
    Passes,
    /// All the calls' dispatches in one compute pass.
    OnePass,
}

impl Floor {
    fn name(self) -> &'static str {
        match self {
            Floor::Passes => "empty dispatch back to back, a pass each",
            Floor::OnePass => "empty dispatch back to back, one pass",
        }
    }
}

/// The platform's floor for one call: milliseconds a call of 200 one-workgroup dispatches (16
/// bytes read) recorded back to back, between two timestamps written in the encoder (no
/// timestamps inside the passes), as `sdpa bench`'s back-to-back column times its calls.
fn floor(ctx: &Context, pipeline: &wgpu::ComputePipeline, layout: Floor) -> f64 {
    let device = ctx.device();
    let buffer = |label, usage| {
        device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(label),
            size: 1024,
            usage,
            mapped_at_creation: false,
        })
    };
    let storage = wgpu::BufferUsages::STORAGE;
    let (k, v, sink) = (
        buffer("k", storage),
        buffer("v", storage),
        buffer("sink", storage),
    );
    let share = buffer(
        "share",
        wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
    );
    ctx.queue().write_buffer(
        &share,
        0,
        bytemuck::cast_slice(&[1u32, 2048, 0, 0, 1, 0, 0, 0]),
    );
    let bind = bind_group(device, pipeline, [&k, &v, &sink, &share]);
    back_to_back(ctx, pipeline, &bind, 1, 200, layout)
}

/// Milliseconds a call of `calls` dispatches of `groups` workgroups recorded back to back as
/// `layout` says, between two timestamps written in the encoder: a warm-up submission first,
/// then the timed one.
fn back_to_back(
    ctx: &Context,
    pipeline: &wgpu::ComputePipeline,
    bind: &wgpu::BindGroup,
    groups: u32,
    calls: u32,
    layout: Floor,
) -> f64 {
    let device = ctx.device();
    let queries = device.create_query_set(&wgpu::QuerySetDescriptor {
        label: None,
        ty: wgpu::QueryType::Timestamp,
        count: 2,
    });
    let mut ticks = Vec::new();
    for _ in 0..2 {
        let mut encoder = device.create_command_encoder(&Default::default());
        encoder.write_timestamp(&queries, 0);
        match layout {
            Floor::Passes => {
                for _ in 0..calls {
                    let mut pass = encoder.begin_compute_pass(&Default::default());
                    pass.set_pipeline(pipeline);
                    pass.set_bind_group(0, bind, &[]);
                    pass.dispatch_workgroups(groups, 1, 1);
                }
            }
            Floor::OnePass => {
                let mut pass = encoder.begin_compute_pass(&Default::default());
                pass.set_pipeline(pipeline);
                pass.set_bind_group(0, bind, &[]);
                for _ in 0..calls {
                    pass.dispatch_workgroups(groups, 1, 1);
                }
            }
        }
        encoder.write_timestamp(&queries, 1);
        ticks = resolve_ticks(ctx, encoder, &queries, 2);
    }
    let period = ctx.queue().get_timestamp_period() as f64;
    ticks[1].saturating_sub(ticks[0]) as f64 * period * 1e-6 / calls as f64
}

/// Resolves the first `count` timestamps of `queries` written in `encoder`, submits it and
/// returns them in ticks.
fn resolve_ticks(
    ctx: &Context,
    mut encoder: wgpu::CommandEncoder,
    queries: &wgpu::QuerySet,
    count: u32,
) -> Vec<u64> {
    let device = ctx.device();
    let size = 8 * count as u64;
    let resolve = device.create_buffer(&wgpu::BufferDescriptor {
        label: None,
        size,
        usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
        mapped_at_creation: false,
    });
    let readback = device.create_buffer(&wgpu::BufferDescriptor {
        label: None,
        size,
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    encoder.resolve_query_set(queries, 0..count, &resolve, 0);
    encoder.copy_buffer_to_buffer(&resolve, 0, &readback, 0, size);
    ctx.queue().submit([encoder.finish()]);
    readback
        .slice(..)
        .map_async(wgpu::MapMode::Read, |r| r.expect("map"));
    device
        .poll(wgpu::PollType::wait_indefinitely())
        .expect("poll");
    let view = readback.slice(..).get_mapped_range().expect("mapped");
    bytemuck::cast_slice(&view).to_vec()
}

/// How each workgroup reads its share (the shader's `mode`).
#[derive(Clone, Copy)]
enum Mode {
    /// A contiguous share of K then V, 8 loads of 16 bytes a thread in flight.
    OneStream8 = 0,
    /// The same K and V shares of one workgroup at a time, K's 4 loads and V's 4 together.
    TwoStreams = 1,
    /// As `TwoStreams`, V's 4 loads asked for once K's 4 have arrived (the decode kernel's way).
    TwoStreamsKThenV = 2,
    /// As `OneStream8` with 4 loads a thread in flight.
    OneStream4 = 3,
    /// As `OneStream8` after 1024 steps of code run once (`long_code`).
    LongCode = 4,
    /// As `OneStream8`, then 2 KB stored a workgroup.
    Stores = 5,
    /// As `LongCode` with 256 steps.
    LongCode256 = 6,
    /// As `LongCode` with 64 steps.
    LongCode64 = 7,
    /// As `OneStream8`, then 1024 steps of code run once on what was read.
    LongCodeAfter = 8,
}

impl Mode {
    fn name(self) -> &'static str {
        match self {
            Mode::OneStream8 => "one-stream-8-loads",
            Mode::TwoStreams => "k-and-v-4+4-together",
            Mode::TwoStreamsKThenV => "k-and-v-4-then-4",
            Mode::OneStream4 => "one-stream-4-loads",
            Mode::LongCode => "one-stream-8-loads-after-long-code",
            Mode::Stores => "one-stream-8-loads-then-2KB-stores",
            Mode::LongCode256 => "one-stream-8-loads-after-long-code-256",
            Mode::LongCode64 => "one-stream-8-loads-after-long-code-64",
            Mode::LongCodeAfter => "one-stream-8-loads-then-long-code",
        }
    }

    /// Whether a workgroup's share counts K's vec4s only (it reads as many of V's).
    fn paired(self) -> bool {
        matches!(self, Mode::TwoStreams | Mode::TwoStreamsKThenV)
    }

    /// The vec4s a thread's step reads from one stream.
    fn step(self) -> u32 {
        match self {
            Mode::OneStream8
            | Mode::LongCode
            | Mode::Stores
            | Mode::LongCode256
            | Mode::LongCode64
            | Mode::LongCodeAfter => 8,
            _ => 4,
        }
    }
}

/// Median milliseconds of 20 timed passes reading two buffers of `bytes` each with `groups`
/// workgroups, each share by `readers` of them, and the GB/s of the bytes (read once). With
/// `one_pass`, the 20 dispatches in one pass between two timestamps of the encoder instead
/// (`sdpa bench`'s `b2b_1pass`): their mean.
fn time(
    ctx: &Context,
    pipeline: &wgpu::ComputePipeline,
    bytes: u64,
    groups: u32,
    mode: Mode,
    readers: u32,
    one_pass: bool,
) -> (f64, f64) {
    let device = ctx.device();
    let buffer = |label| {
        device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(label),
            size: bytes,
            usage: wgpu::BufferUsages::STORAGE,
            mapped_at_creation: false,
        })
    };
    let (k, v) = (buffer("k"), buffer("v"));
    let sink = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("sink"),
        size: groups as u64 * 512 * 4,
        usage: wgpu::BufferUsages::STORAGE,
        mapped_at_creation: false,
    });
    let words = (bytes / 16) as u32;
    let shared = if mode.paired() { words } else { 2 * words };
    let per_group = shared
        .div_ceil(groups / readers)
        .next_multiple_of(mode.step() * 256);
    let share = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("share"),
        size: 32,
        usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    ctx.queue().write_buffer(
        &share,
        0,
        bytemuck::cast_slice(&[words, per_group, mode as u32, 0, readers, 0, 0, 0]),
    );
    let bind = bind_group(device, pipeline, [&k, &v, &sink, &share]);
    let calls = 20u32;
    if one_pass {
        let ms = back_to_back(ctx, pipeline, &bind, groups, calls, Floor::OnePass);
        return (ms, 2.0 * bytes as f64 / (ms * 1e-3) / 1e9);
    }
    let queries = device.create_query_set(&wgpu::QuerySetDescriptor {
        label: None,
        ty: wgpu::QueryType::Timestamp,
        count: 2 * calls,
    });
    let mut encoder = device.create_command_encoder(&Default::default());
    for i in 0..calls {
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: None,
            timestamp_writes: Some(wgpu::ComputePassTimestampWrites {
                query_set: &queries,
                beginning_of_pass_write_index: Some(2 * i),
                end_of_pass_write_index: Some(2 * i + 1),
            }),
        });
        pass.set_pipeline(pipeline);
        pass.set_bind_group(0, &bind, &[]);
        pass.dispatch_workgroups(groups, 1, 1);
    }
    let ticks = resolve_ticks(ctx, encoder, &queries, 2 * calls);
    let period = ctx.queue().get_timestamp_period() as f64;
    let mut ms: Vec<f64> = ticks
        .chunks(2)
        .map(|t| t[1].saturating_sub(t[0]) as f64 * period * 1e-6)
        .collect();
    ms.sort_by(f64::total_cmp);
    let m = ms[ms.len() / 2];
    (m, 2.0 * bytes as f64 / (m * 1e-3) / 1e9)
}

/// The shader's bind group: K, V, the sink and the share, bindings 0 to 3.
fn bind_group(
    device: &wgpu::Device,
    pipeline: &wgpu::ComputePipeline,
    buffers: [&wgpu::Buffer; 4],
) -> wgpu::BindGroup {
    let entries: Vec<wgpu::BindGroupEntry> = (0u32..)
        .zip(buffers)
        .map(|(binding, buffer)| wgpu::BindGroupEntry {
            binding,
            resource: buffer.as_entire_binding(),
        })
        .collect();
    device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: None,
        layout: &pipeline.get_bind_group_layout(0),
        entries: &entries,
    })
}
