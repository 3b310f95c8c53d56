//! `sdpa bench`.

use std::process::ExitCode;

use indicatif::{ProgressBar, ProgressStyle};
use serde_json::json;
use wgpu_sdpa::bench::{
    check_kv_copies, clock, decode_sweep, default_sweep, measure_rotating, BenchRow, BenchShape,
    PathTiming,
};
use wgpu_sdpa::{DType, Error, Result};

#[derive(clap::Args)]
pub struct Args {
    /// Also write the rows as JSON to this file.
    #[arg(long)]
    json: Option<std::path::PathBuf>,
    /// Dtypes (f16, f32); default: the default sweep's.
    #[arg(long, value_delimiter = ',')]
    dtype: Vec<String>,
    /// Head dims; with --len replaces the default sweep.
    #[arg(long, value_delimiter = ',')]
    hdim: Vec<u32>,
    /// Sequence lengths (q_len = kv_len unless --kv-len is given).
    #[arg(long, value_delimiter = ',')]
    len: Vec<u32>,
    /// Key lengths: each length of --len (the query) against each of these, e.g. chunked
    /// prefill (--len 256 --kv-len 32768).
    #[arg(long, value_delimiter = ',')]
    kv_len: Vec<u32>,
    /// Query and key/value heads, e.g. 32,8 (default: 32,32; with --decode 32,8).
    #[arg(long, value_delimiter = ',')]
    heads: Vec<u32>,
    /// Batch (default: 1).
    #[arg(long)]
    batch: Option<u32>,
    /// Masks to run: none, causal (comma-separated; default: none).
    #[arg(long, value_delimiter = ',')]
    mask: Vec<String>,
    /// [B, L, H, D] layouts (the seed's tpose = 1).
    #[arg(long)]
    tpose: bool,
    /// Skip the unfused path (for shapes whose score matrix would not fit).
    #[arg(long)]
    fused_only: bool,
    /// Force the fused kernel's blocks, e.g. 32x64 (tuning).
    #[arg(long)]
    blocks: Option<String>,
    /// Stage f16 inputs as f32 in the fused kernel's workgroup memory (tuning).
    #[arg(long)]
    stage_f32: bool,
    /// The decode sweep: q_len 1 against kv_len 256..131072 (or --len), 32/8 heads, head dim 128,
    /// f16 (or --heads, --hdim, --dtype; --batch, --mask and --tpose apply too); the second
    /// column is the decode kernel, with the GB/s of K and V it reads.
    #[arg(long)]
    decode: bool,
    /// Use the portable fused kernel even where cooperative matrices are listed.
    #[arg(long)]
    portable: bool,
    /// Time the fused kernel in the second column even where the planner takes the decode kernel
    /// (q_len <= 8, and short queries against long caches).
    #[arg(long, conflicts_with = "decode")]
    no_decode: bool,
    /// Keep wgpu's runtime bounds checks in the shaders (slower; for comparison).
    #[arg(long)]
    checks: bool,
    /// GPU milliseconds to spend per measurement.
    #[arg(long, default_value_t = 300.0)]
    budget_ms: f64,
    /// Copies of K and V the calls take in turn (1 to 16). With copies that together exceed
    /// the GPU's last-level cache several times (e.g. 4 at 16384 keys on an H200), no call finds
    /// the last call's K and V there: the cold-cache time of a model whose layers each read
    /// their own cache. With 1 (the default) the calls repeat on the same K and V.
    #[arg(long, default_value_t = 1)]
    kv_copies: u32,
}

fn parse_dtype(s: &str) -> Result<DType> {
    s.parse()
        .map_err(|_| Error::invalid("--dtype", s, "must be f16 or f32"))
}

/// The bench's shapes as its flags give them, checked before the adapter is asked for. The rows
/// follow from them and the adapter ([`Sweep::rows`]: a CPU adapter's default and decode sweeps
/// are shorter).
enum Sweep {
    /// The default sweep, kept to these dtypes (all of them where empty).
    Default { dtypes: Vec<DType> },
    /// Rows from the flags.
    Given(Given),
}

/// The shapes `--len`, `--hdim` or `--decode` ask for.
struct Given {
    dtypes: Vec<DType>,
    causals: Vec<bool>,
    head_dims: Vec<u32>,
    q_lens: Vec<u32>,
    /// Key lengths: `None` the adapter's decode sweep's; empty, each query length's own.
    kv_lens: Option<Vec<u32>>,
    heads: [u32; 2],
    batch: u32,
    transposed: bool,
}

impl Sweep {
    /// The flags' shapes, or a typed error naming the flag (`--kv-len` with `--decode`, a
    /// dtype, heads or mask that does not parse, a shape flag the default sweep would ignore).
    fn parse(args: &Args) -> Result<Sweep> {
        if args.decode && !args.kv_len.is_empty() {
            return Err(Error::invalid(
                "--kv-len",
                format!("{:?}", args.kv_len),
                "is for query lengths above 8: with --decode, --len gives the key lengths",
            ));
        }
        let dtypes = args
            .dtype
            .iter()
            .map(|s| parse_dtype(s))
            .collect::<Result<Vec<_>>>()?;
        if !args.decode && args.hdim.is_empty() && args.len.is_empty() && args.kv_len.is_empty() {
            // The default sweep has its own heads, batch, masks and layouts: an option that
            // would change them is refused rather than ignored.
            for (flag, value) in [
                (
                    "--heads",
                    (!args.heads.is_empty()).then(|| format!("{:?}", args.heads)),
                ),
                ("--batch", args.batch.map(|b| b.to_string())),
                (
                    "--mask",
                    (!args.mask.is_empty()).then(|| args.mask.join(",")),
                ),
                ("--tpose", args.tpose.then(|| "true".to_string())),
            ] {
                if let Some(value) = value {
                    return Err(Error::invalid(
                        flag,
                        value,
                        "applies with --len, --hdim or --decode, not to the default sweep",
                    ));
                }
            }
            return Ok(Sweep::Default { dtypes });
        }
        let heads = match args.heads.as_slice() {
            [] if args.decode => [32, 8],
            [] => [32, 32],
            &[q, kv] => [q, kv],
            _ => {
                return Err(Error::invalid(
                    "--heads",
                    format!("{:?}", args.heads),
                    "must be two numbers, e.g. 32,8",
                ))
            }
        };
        let causals = if args.mask.is_empty() {
            vec![false]
        } else {
            args.mask
                .iter()
                .map(|m| match m.as_str() {
                    "none" => Ok(false),
                    "causal" => Ok(true),
                    other => Err(Error::invalid("--mask", other, "must be none or causal")),
                })
                .collect::<Result<Vec<_>>>()?
        };
        // The decode sweep's head dim and dtype, or a length and head dim of the seed's, where
        // not given (the decode sweep's key lengths depend on the adapter).
        let decode = &decode_sweep(false)[0];
        let (q_lens, kv_lens, head_dims, default_dtypes) = if args.decode {
            let kv_lens = (!args.len.is_empty()).then(|| args.len.clone());
            (vec![1], kv_lens, vec![decode.head_dim], vec![decode.dtype])
        } else {
            let lens = if args.len.is_empty() {
                vec![1024]
            } else {
                args.len.clone()
            };
            (
                lens,
                Some(args.kv_len.clone()),
                vec![64],
                vec![DType::F16, DType::F32],
            )
        };
        Ok(Sweep::Given(Given {
            dtypes: if dtypes.is_empty() {
                default_dtypes
            } else {
                dtypes
            },
            causals,
            head_dims: if args.hdim.is_empty() {
                head_dims
            } else {
                args.hdim.clone()
            },
            q_lens,
            kv_lens,
            heads,
            batch: args.batch.unwrap_or(1),
            transposed: args.tpose,
        }))
    }

    /// The rows on an adapter (`cpu_adapter`: the default and decode sweeps' shorter forms).
    fn rows(&self, cpu_adapter: bool) -> Vec<BenchShape> {
        let g = match self {
            Sweep::Default { dtypes } => {
                let mut rows = default_sweep(cpu_adapter);
                if !dtypes.is_empty() {
                    rows.retain(|r| dtypes.contains(&r.dtype));
                }
                return rows;
            }
            Sweep::Given(g) => g,
        };
        let decode_kv_lens: Vec<u32>;
        let kv_lens = match &g.kv_lens {
            Some(lens) => lens,
            None => {
                decode_kv_lens = decode_sweep(cpu_adapter).iter().map(|r| r.kv_len).collect();
                &decode_kv_lens
            }
        };
        let mut rows = Vec::new();
        for &dtype in &g.dtypes {
            for &causal in &g.causals {
                for &head_dim in &g.head_dims {
                    for &q_len in &g.q_lens {
                        // Without --kv-len each query length is its own key length.
                        let own = [q_len];
                        let kv_lens = if kv_lens.is_empty() {
                            &own[..]
                        } else {
                            kv_lens
                        };
                        for &kv_len in kv_lens {
                            rows.push(BenchShape {
                                batch: g.batch,
                                q_len,
                                kv_len,
                                head_dim,
                                q_heads: g.heads[0],
                                kv_heads: g.heads[1],
                                transposed: g.transposed,
                                dtype,
                                causal,
                            });
                        }
                    }
                }
            }
        }
        rows
    }
}

fn ms(t: &PathTiming) -> String {
    match &t.ms {
        Ok(ms) => format!("{ms:.3}"),
        Err(_) => "n/a".into(),
    }
}

fn opt(x: Option<f64>, precision: usize) -> String {
    x.map(|x| format!("{x:.precision$}"))
        .unwrap_or_else(|| "n/a".into())
}

/// TFLOP/s with three significant digits below 1 (CPU adapters), two decimals above.
fn tflops(x: Option<f64>) -> String {
    match x {
        Some(x) if x < 1.0 => format!("{x:.3}"),
        other => opt(other, 2),
    }
}

fn json_row(r: &BenchRow) -> serde_json::Value {
    let s = &r.shape;
    let timing = |t: &PathTiming| {
        json!({
            "ms": t.ms.as_ref().ok(),
            "error": t.ms.as_ref().err(),
            "tflops": r.tflops(t),
            "plan": t.plan,
            "extra_bytes": t.extra_bytes,
            "back_to_back_ms": t.back_to_back_ms,
            "kv_gbps_back_to_back": r.kv_gbps_back_to_back(t),
            "back_to_back_one_pass_ms": t.back_to_back_one_pass_ms,
            "kv_gbps_back_to_back_one_pass": r.kv_gbps_back_to_back_one_pass(t),
        })
    };
    json!({
        "B": s.batch, "qsl": s.q_len, "ksl": s.kv_len, "hdim": s.head_dim,
        "n_qh": s.q_heads, "n_kvh": s.kv_heads, "tpose": s.transposed,
        "dtype": s.dtype.to_string(), "mask": if s.causal { "causal" } else { "none" },
        "unfused": timing(&r.unfused), "fused": timing(&r.fused),
        "diff_percent": r.diff_percent(), "flops": r.flops,
        "kv_bytes": r.kv_bytes,
        "unfused_kv_gbps": r.kv_gbps(&r.unfused), "fused_kv_gbps": r.kv_gbps(&r.fused),
    })
}

pub fn main(args: &Args) -> Result<ExitCode> {
    // Every flag checked before the adapter is asked for (measure_rotating checks the copies
    // too, naming its argument).
    check_kv_copies("--kv-copies", args.kv_copies)?;
    let sweep = Sweep::parse(args)?;
    let blocks = match &args.blocks {
        None => None,
        Some(s) => {
            let parsed = s
                .split_once('x')
                .and_then(|(a, b)| Some((a.parse().ok()?, b.parse().ok()?)));
            Some(parsed.ok_or_else(|| Error::invalid("--blocks", s, "must look like 32x64"))?)
        }
    };
    let ctx = crate::context(args.checks)?;
    let caps = ctx.capabilities();
    let cpu = caps.device_type == wgpu::DeviceType::Cpu;
    let rows = sweep.rows(cpu);
    let options = wgpu_sdpa::PlanOptions {
        fused_blocks: blocks,
        fused_stage: args.stage_f32.then_some(DType::F32),
        cooperative: args.portable.then_some(false),
        path: if args.no_decode {
            wgpu_sdpa::Path::Fused
        } else {
            wgpu_sdpa::Path::Auto
        },
        ..ctx.plan_options()
    };
    println!(
        "# sdpa bench on {} ({:?}), clock: {:?}, shader runtime checks {}",
        caps.adapter_name,
        caps.backend,
        clock(&ctx),
        if ctx.runtime_checks() { "on" } else { "off" }
    );
    if args.kv_copies > 1 {
        println!(
            "# the calls take {} copies of K and V in turn (--kv-copies)",
            args.kv_copies
        );
    }
    if cpu && matches!(sweep, Sweep::Default { .. }) {
        println!("# CPU adapter: reduced default sweep (4 heads, L <= 256); pass --hdim/--len for others");
    }
    println!(
        "  B,   qsl,   ksl, hdim, n_qh, n_kvh, tpose, dtype,   mask,   t_unfs,   t_fuse,    diff%, unfs_TFLOPs, fuse_TFLOPs, fuse_extra_MiB, unfs_extra_MiB, unfs_KV_GBps, fuse_KV_GBps, fuse_b2b, b2b_KV_GBps, b2b_1pass, b2b_1pass_GBps, fused plan"
    );
    let progress = ProgressBar::new(rows.len() as u64);
    progress.set_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let mut json_rows = Vec::new();
    for shape in &rows {
        progress.set_message(format!(
            "{} L={} d={}",
            shape.dtype, shape.q_len, shape.head_dim
        ));
        let row = measure_rotating(
            &ctx,
            shape,
            &options,
            args.budget_ms,
            !args.fused_only,
            args.kv_copies,
        )?;
        let s = &row.shape;
        progress.suspend(|| {
            println!(
                "{:3}, {:5}, {:6}, {:4}, {:4}, {:5}, {:5}, {:>5}, {:>6}, {:>8}, {:>8}, {:>8}, {:>11}, {:>11}, {:>14}, {:>14}, {:>12}, {:>12}, {:>8}, {:>11}, {:>9}, {:>14}, {}",
                s.batch,
                s.q_len,
                s.kv_len,
                s.head_dim,
                s.q_heads,
                s.kv_heads,
                u8::from(s.transposed),
                s.dtype.to_string(),
                if s.causal { "causal" } else { "none" },
                ms(&row.unfused),
                ms(&row.fused),
                opt(row.diff_percent(), 1).to_string() + "%",
                tflops(row.tflops(&row.unfused)),
                tflops(row.tflops(&row.fused)),
                format!("{:.3}", row.fused.extra_bytes as f64 / 1048576.0),
                format!("{:.3}", row.unfused.extra_bytes as f64 / 1048576.0),
                opt(row.kv_gbps(&row.unfused), 1),
                opt(row.kv_gbps(&row.fused), 1),
                opt(row.fused.back_to_back_ms, 4),
                opt(row.kv_gbps_back_to_back(&row.fused), 1),
                opt(row.fused.back_to_back_one_pass_ms, 4),
                opt(row.kv_gbps_back_to_back_one_pass(&row.fused), 1),
                row.fused.ms.as_ref().err().map(|e| e.as_str()).unwrap_or(&row.fused.plan),
            )
        });
        json_rows.push(json_row(&row));
        progress.inc(1);
    }
    progress.finish_and_clear();
    if let Some(path) = &args.json {
        let text = serde_json::to_string_pretty(&json!({
            "adapter": caps.adapter_name,
            "backend": format!("{:?}", caps.backend),
            "clock": format!("{:?}", clock(&ctx)),
            "kv_copies": args.kv_copies,
            "rows": json_rows,
        }))
        .map_err(|e| Error::invalid("--json", path.display(), e.to_string()))?;
        std::fs::write(path, text).map_err(|e| Error::Io {
            path: path.display().to_string(),
            message: e.to_string(),
        })?;
    }
    Ok(ExitCode::SUCCESS)
}
