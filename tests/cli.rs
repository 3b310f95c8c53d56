//! The `sdpa` tool: `run` on generated safetensors files against the f64 reference, malformed
//! files (typed errors, exit status 2, nothing panics), and `check` / `info` on this adapter.

mod common;

use std::process::Command;

use half::f16;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use safetensors::SafeTensors;
use wgpu_sdpa::reference::{attention_reference, compare, default_atol, RefMask};
use wgpu_sdpa::tensor_file::{read_run_inputs, write_tensors, HostTensor};
use wgpu_sdpa::{AttentionDesc, CausalAlignment, DType};

fn sdpa() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_sdpa"));
    c.env("XDG_RUNTIME_DIR", std::env::temp_dir());
    c
}

/// Runs `sdpa` with `args` and asserts a usage error: exit status 2, every one of `needles` in
/// its message. `WGPU_ADAPTER_NAME` names no adapter: the error is the flag's only if the flags
/// are checked before an adapter is asked for.
fn assert_usage_error(args: &[&str], needles: &[&str]) {
    let mut command = sdpa();
    command.env("WGPU_ADAPTER_NAME", "no adapter has this name");
    let out = command.args(args).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
    for needle in needles {
        assert!(
            stderr.contains(needle),
            "{args:?}: no {needle:?} in {stderr}"
        );
    }
}

/// Runs `sdpa bench` with `args` and `--json` into a scratch file, asserts it succeeded, and
/// returns its stdout, the parsed JSON and the JSON's text.
fn bench_json(args: &[&str]) -> (String, serde_json::Value, String) {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("bench.json");
    let out = sdpa()
        .arg("bench")
        .args(args)
        .arg("--json")
        .arg(&json)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "{args:?}: {stdout}");
    let text = std::fs::read_to_string(&json).unwrap();
    let v = serde_json::from_str(&text).unwrap();
    (stdout, v, text)
}

fn values(rng: &mut StdRng, n: usize, hi: f64) -> Vec<f64> {
    (0..n).map(|_| rng.gen::<f64>() * hi).collect()
}

fn tensor(dtype: DType, x: &[f64]) -> HostTensor {
    match dtype {
        DType::F32 => HostTensor::F32(x.iter().map(|&v| v as f32).collect()),
        DType::F16 => HostTensor::F16(x.iter().map(|&v| f16::from_f64(v)).collect()),
    }
}

fn widen(t: &HostTensor) -> Vec<f64> {
    match t {
        HostTensor::F32(x) => x.iter().map(|&v| v as f64).collect(),
        HostTensor::F16(x) => x.iter().map(|v| v.to_f64()).collect(),
        HostTensor::Bool(x) => x.iter().map(|&b| b as u8 as f64).collect(),
    }
}

/// Writes q, k, v (and a mask) of `desc`'s shapes, runs `sdpa run` with `extra` options (and
/// `--scale` when `scale` is given), and compares `out` with the f64 reference of the problem as
/// the reader builds it from the same file and options.
fn run_file(
    desc: &AttentionDesc,
    mask: Option<HostTensor>,
    mask_shape: Vec<usize>,
    causal: Option<CausalAlignment>,
    scale: Option<f32>,
    extra: &[&str],
) {
    let dir = tempfile::tempdir().unwrap();
    let mut rng = StdRng::seed_from_u64(5);
    let (b, hq, hkv, lq, lk, d, dv) = (
        desc.batch as usize,
        desc.q_heads as usize,
        desc.kv_heads as usize,
        desc.q_len as usize,
        desc.kv_len as usize,
        desc.head_dim as usize,
        desc.v_head_dim as usize,
    );
    let q = tensor(desc.dtype, &values(&mut rng, b * hq * lq * d, 0.5));
    let k = tensor(desc.dtype, &values(&mut rng, b * hkv * lk * d, 0.5));
    let v = tensor(desc.dtype, &values(&mut rng, b * hkv * lk * dv, 1.0));
    let mut tensors = vec![
        ("q", vec![b, hq, lq, d], q.clone()),
        ("k", vec![b, hkv, lk, d], k.clone()),
        ("v", vec![b, hkv, lk, dv], v.clone()),
    ];
    if let Some(m) = &mask {
        tensors.push(("mask", mask_shape, m.clone()));
    }
    let input = dir.path().join("in.safetensors");
    let output = dir.path().join("out.safetensors");
    std::fs::write(&input, write_tensors(&tensors).unwrap()).unwrap();
    let mut command = sdpa();
    command
        .args(["run", "--input"])
        .arg(&input)
        .arg("--output")
        .arg(&output)
        .args(extra);
    match causal {
        Some(CausalAlignment::BottomRight) => drop(command.arg("--causal")),
        Some(CausalAlignment::TopLeft) => drop(command.arg("--causal-top-left")),
        None => {}
    }
    if let Some(s) = scale {
        command.args(["--scale", &s.to_string()]);
    }
    let status = command.status().unwrap();
    assert!(status.success(), "sdpa run failed: {status}");

    let inputs = read_run_inputs(&std::fs::read(&input).unwrap(), causal, scale).unwrap();
    let bytes = std::fs::read(&output).unwrap();
    let file = SafeTensors::deserialize(&bytes).unwrap();
    let out_view = file.tensor("out").unwrap();
    assert_eq!(out_view.shape(), &[b, hq, lq, dv]);
    let out: Vec<f64> = match desc.dtype {
        DType::F32 => bytemuck::pod_collect_to_vec::<u8, f32>(out_view.data())
            .iter()
            .map(|&x| x as f64)
            .collect(),
        DType::F16 => bytemuck::pod_collect_to_vec::<u8, f16>(out_view.data())
            .iter()
            .map(|x| x.to_f64())
            .collect(),
    };
    let ref_desc = &inputs.desc;
    let mask_values = inputs.mask.as_ref().map(widen);
    let mask_bools: Option<Vec<bool>> = match &inputs.mask {
        Some(HostTensor::Bool(m)) => Some(m.clone()),
        _ => None,
    };
    let ref_mask = match (&mask_bools, &mask_values) {
        (Some(m), _) => Some(RefMask::Boolean(m)),
        (None, Some(m)) => Some(RefMask::Additive(m)),
        _ => None,
    };
    let reference = attention_reference(ref_desc, &widen(&q), &widen(&k), &widen(&v), ref_mask);
    let c = compare(ref_desc, &out, &reference, default_atol(desc.dtype));
    assert!(c.passed(), "{c:?}");
}

#[test]
fn run_matches_the_reference() {
    if common::ctx().is_none() {
        return;
    }
    run_file(
        &AttentionDesc::new(2, 4, 2, 40, 33, 64),
        None,
        vec![],
        None,
        None,
        &[],
    );
    let f16 = AttentionDesc::new(1, 2, 1, 20, 50, 32).with_dtype(DType::F16);
    run_file(
        &f16,
        None,
        vec![],
        Some(CausalAlignment::BottomRight),
        None,
        &[],
    );
    // A negative scale (a number, not a flag), and a timeout the run keeps within.
    let small = AttentionDesc::new(1, 2, 2, 5, 9, 16);
    run_file(
        &small,
        None,
        vec![],
        Some(CausalAlignment::TopLeft),
        Some(-0.5),
        &["--path", "unfused", "--timeout", "600"],
    );
    // A key-padding boolean mask of shape [B, 1, 1, Lk], broadcast by the reader.
    let mut rng = StdRng::seed_from_u64(9);
    let bools: Vec<bool> = (0..2 * 30).map(|_| rng.gen_bool(0.7)).collect();
    let desc = AttentionDesc::new(2, 2, 2, 33, 30, 32);
    run_file(
        &desc,
        Some(HostTensor::Bool(bools)),
        vec![2, 1, 1, 30],
        None,
        None,
        &[],
    );
    // An additive f16 mask of shape [Lq, 1] (broadcast over keys too), with a scale.
    let adds: Vec<f64> = (0..33)
        .map(|i| if i % 5 == 0 { f64::NEG_INFINITY } else { -0.5 })
        .collect();
    let desc = AttentionDesc::new(1, 2, 2, 33, 30, 32).with_dtype(DType::F16);
    run_file(
        &desc,
        Some(tensor(DType::F16, &adds)),
        vec![33, 1],
        None,
        Some(0.3),
        &[],
    );
}

/// Runs `sdpa run` on `bytes` and returns (exit code, stderr).
fn run_bad(bytes: &[u8], extra: &[&str]) -> (i32, String) {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("bad.safetensors");
    std::fs::write(&input, bytes).unwrap();
    let out = sdpa()
        .args(["run", "--input"])
        .arg(&input)
        .arg("--output")
        .arg(dir.path().join("out.safetensors"))
        .args(extra)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn file(tensors: &[(&str, Vec<usize>, HostTensor)]) -> Vec<u8> {
    write_tensors(tensors).unwrap()
}

fn f32s(n: usize) -> HostTensor {
    HostTensor::F32(vec![0.25; n])
}

#[test]
fn malformed_files_exit_2_with_the_field_named() {
    let good = file(&[
        ("q", vec![1, 2, 4, 8], f32s(64)),
        ("k", vec![1, 2, 4, 8], f32s(64)),
        ("v", vec![1, 2, 4, 8], f32s(64)),
    ]);
    let cases: Vec<(&str, Vec<u8>, Vec<&str>, &str)> = vec![
        (
            "garbage",
            b"not a safetensors file at all".to_vec(),
            vec![],
            "header",
        ),
        (
            "truncated",
            good[..good.len() - 10].to_vec(),
            vec![],
            "header",
        ),
        ("empty", vec![], vec![], "header"),
        (
            "missing v",
            file(&[
                ("q", vec![1, 2, 4, 8], f32s(64)),
                ("k", vec![1, 2, 4, 8], f32s(64)),
            ]),
            vec![],
            "tensor file: v",
        ),
        (
            "rank 3",
            file(&[
                ("q", vec![2, 4, 8], f32s(64)),
                ("k", vec![1, 2, 4, 8], f32s(64)),
                ("v", vec![1, 2, 4, 8], f32s(64)),
            ]),
            vec![],
            "tensor file: q: has rank 3",
        ),
        (
            "mixed dtypes",
            file(&[
                ("q", vec![1, 2, 4, 8], f32s(64)),
                ("k", vec![1, 2, 4, 8], HostTensor::F16(vec![f16::ONE; 64])),
                ("v", vec![1, 2, 4, 8], f32s(64)),
            ]),
            vec![],
            "tensor file: k: has dtype F16",
        ),
        (
            "bool q",
            file(&[
                ("q", vec![1, 2, 4, 8], HostTensor::Bool(vec![true; 64])),
                ("k", vec![1, 2, 4, 8], f32s(64)),
                ("v", vec![1, 2, 4, 8], f32s(64)),
            ]),
            vec![],
            "tensor file: q: has dtype BOOL",
        ),
        (
            "k head dim differs",
            file(&[
                ("q", vec![1, 2, 4, 8], f32s(64)),
                ("k", vec![1, 2, 4, 16], f32s(128)),
                ("v", vec![1, 2, 4, 8], f32s(64)),
            ]),
            vec![],
            "tensor file: k: has shape",
        ),
        (
            "heads not divisible",
            file(&[
                ("q", vec![1, 3, 4, 8], f32s(96)),
                ("k", vec![1, 2, 4, 8], f32s(64)),
                ("v", vec![1, 2, 4, 8], f32s(64)),
            ]),
            vec![],
            "q_heads",
        ),
        (
            "zero-size dimension",
            file(&[
                ("q", vec![1, 2, 0, 8], f32s(0)),
                ("k", vec![1, 2, 4, 8], f32s(64)),
                ("v", vec![1, 2, 4, 8], f32s(64)),
            ]),
            vec![],
            "zero-size",
        ),
        (
            "mask does not broadcast",
            file(&[
                ("q", vec![1, 2, 4, 8], f32s(64)),
                ("k", vec![1, 2, 4, 8], f32s(64)),
                ("v", vec![1, 2, 4, 8], f32s(64)),
                ("mask", vec![3, 4], HostTensor::Bool(vec![true; 12])),
            ]),
            vec![],
            "tensor file: mask: has shape [3, 4]",
        ),
        (
            "mask of another float dtype",
            file(&[
                ("q", vec![1, 2, 4, 8], f32s(64)),
                ("k", vec![1, 2, 4, 8], f32s(64)),
                ("v", vec![1, 2, 4, 8], f32s(64)),
                ("mask", vec![4, 4], HostTensor::F16(vec![f16::ZERO; 16])),
            ]),
            vec![],
            "tensor file: mask: has dtype F16",
        ),
        (
            "mask and --causal",
            {
                file(&[
                    ("q", vec![1, 2, 4, 8], f32s(64)),
                    ("k", vec![1, 2, 4, 8], f32s(64)),
                    ("v", vec![1, 2, 4, 8], f32s(64)),
                    ("mask", vec![4, 4], HostTensor::Bool(vec![true; 16])),
                ])
            },
            vec!["--causal"],
            "use one of them",
        ),
        (
            "head dim 12",
            {
                file(&[
                    ("q", vec![1, 2, 4, 12], f32s(96)),
                    ("k", vec![1, 2, 4, 12], f32s(96)),
                    ("v", vec![1, 2, 4, 12], f32s(96)),
                ])
            },
            vec![],
            "head_dim",
        ),
        (
            "vector path on q_len 33",
            file(&[
                ("q", vec![1, 2, 33, 8], f32s(528)),
                ("k", vec![1, 2, 4, 8], f32s(64)),
                ("v", vec![1, 2, 4, 8], f32s(64)),
            ]),
            vec!["--path", "vector"],
            "path vector cannot serve this problem: invalid q_len = 33",
        ),
        ("nan scale", good.clone(), vec!["--scale", "NaN"], "scale"),
        (
            "negative timeout",
            good.clone(),
            vec!["--timeout", "-1"],
            "invalid --timeout = -1: must be a positive number of seconds",
        ),
        (
            "zero timeout",
            good.clone(),
            vec!["--timeout", "0"],
            "--timeout = 0",
        ),
        (
            "nan timeout",
            good.clone(),
            vec!["--timeout", "NaN"],
            "--timeout = NaN",
        ),
        (
            // 1 us: less than any GPU takes to copy 8 MiB in and run this.
            "past the timeout",
            file(&[
                ("q", vec![1, 8, 256, 64], f32s(8 * 256 * 64)),
                ("k", vec![1, 8, 2048, 64], f32s(8 * 2048 * 64)),
                ("v", vec![1, 8, 2048, 64], f32s(8 * 2048 * 64)),
            ]),
            vec!["--timeout", "0.000001"],
            concat!(
                "wgpu timeout error: the GPU did not finish within the context's wait timeout ",
                "of 1µs"
            ),
        ),
    ];
    for (name, bytes, extra, expect) in cases {
        let (code, stderr) = run_bad(&bytes, &extra);
        println!("{name}: exit {code}: {}", stderr.trim());
        assert_eq!(code, 2, "{name}: {stderr}");
        assert!(
            stderr.contains(expect),
            "{name}: expected {expect:?} in {stderr:?}"
        );
        assert!(!stderr.contains("panicked"), "{name}: {stderr}");
    }
    let (code, stderr) = {
        let out = sdpa()
            .args([
                "run",
                "--input",
                "/nonexistent/in.safetensors",
                "--output",
                "x",
            ])
            .output()
            .unwrap();
        (
            out.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("/nonexistent/in.safetensors"), "{stderr}");
}

#[test]
fn check_and_info_run_on_this_adapter() {
    if common::ctx().is_none() {
        return;
    }
    let out = sdpa()
        .args(["check", "--filter", "f32 mha"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    println!("{stdout}");
    assert!(out.status.success(), "{stdout}");
    assert!(stdout.contains("2 of 2 cases passed"), "{stdout}");
    let out = sdpa().arg("info").output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success());
    assert!(
        stdout.contains("prefill 4096, 32 heads, d64: fused"),
        "{stdout}"
    );
}

#[test]
fn bench_takes_kv_copies_in_turn_and_rejects_a_count_out_of_range() {
    // Out of range: a typed error naming the flag, exit 2, before any adapter is asked for.
    for bad in ["0", "17"] {
        assert_usage_error(
            &["bench", "--decode", "--len", "256", "--kv-copies", bad],
            &["--kv-copies", bad, "1 to 16"],
        );
    }
    if common::ctx().is_none() {
        return;
    }
    let (stdout, v, text) = bench_json(&[
        "--decode",
        "--len",
        "256",
        "--fused-only",
        "--budget-ms",
        "5",
        "--kv-copies",
        "3",
    ]);
    assert!(
        stdout.contains("take 3 copies of K and V in turn"),
        "{stdout}"
    );
    assert_eq!(v["kv_copies"], 3, "{text}");
    let row = &v["rows"][0];
    assert_eq!(row["ksl"], 256, "{text}");
    let ms = row["fused"]["ms"].as_f64().unwrap_or(0.0);
    assert!(ms > 0.0, "{text}");
    assert!(
        row["fused"]["plan"]
            .as_str()
            .unwrap_or("")
            .starts_with("vector"),
        "{text}"
    );
}

#[test]
fn bench_refuses_flags_that_do_not_parse_before_the_adapter() {
    // Each a typed error naming the flag and the value (exit 2), checked before any adapter is
    // asked for.
    for (args, needles) in [
        (
            &["bench", "--len", "64", "--blocks", "32"][..],
            &["--blocks", "32", "32x64"][..],
        ),
        (
            &["bench", "--dtype", "bf16"],
            &["--dtype", "bf16", "f16 or f32"],
        ),
        (
            &["bench", "--len", "64", "--heads", "32,8,2"],
            &["--heads", "[32, 8, 2]", "two numbers"],
        ),
        (
            &["bench", "--len", "64", "--mask", "sliding"],
            &["--mask", "sliding", "none or causal"],
        ),
        (
            &["bench", "--decode", "--kv-len", "4096"],
            &["--kv-len", "[4096]", "--len gives the key lengths"],
        ),
    ] {
        assert_usage_error(args, needles);
    }
}

#[test]
fn bench_decode_takes_the_shape_flags_and_the_default_sweep_refuses_them() {
    // The default sweep has its own heads, batch, masks and layouts: a flag that would change
    // them is a typed error naming it (exit 2), before any adapter is asked for.
    for (args, shown) in [
        (&["bench", "--heads", "32,8"][..], "[32, 8]"),
        (&["bench", "--batch", "2"], "2"),
        (&["bench", "--mask", "causal"], "causal"),
        (&["bench", "--tpose"], "true"),
    ] {
        assert_usage_error(args, &[args[1], shown, "default sweep"]);
    }
    if common::ctx().is_none() {
        return;
    }
    // With --decode the head dim, heads, batch and mask given are the rows'.
    let (_, v, text) = bench_json(&[
        "--decode",
        "--len",
        "40",
        "--hdim",
        "64,96",
        "--heads",
        "8,2",
        "--batch",
        "2",
        "--mask",
        "causal",
        "--fused-only",
        "--budget-ms",
        "5",
    ]);
    let rows = v["rows"].as_array().unwrap();
    let dims: Vec<_> = rows.iter().map(|r| r["hdim"].as_u64().unwrap()).collect();
    assert_eq!(dims, [64, 96], "{text}");
    for r in rows {
        assert_eq!(
            (
                &r["B"],
                &r["qsl"],
                &r["ksl"],
                &r["n_qh"],
                &r["n_kvh"],
                &r["mask"],
                &r["dtype"]
            ),
            (
                &2.into(),
                &1.into(),
                &40.into(),
                &8.into(),
                &2.into(),
                &"causal".into(),
                &"f16".into()
            ),
            "{text}"
        );
        assert!(
            r["fused"]["plan"]
                .as_str()
                .unwrap_or("")
                .starts_with("vector"),
            "{text}"
        );
        // The calls back to back in one pass are timed wherever they are in a pass each.
        if r["fused"]["back_to_back_ms"].is_f64() {
            let one_pass = r["fused"]["back_to_back_one_pass_ms"]
                .as_f64()
                .unwrap_or(0.0);
            assert!(one_pass > 0.0, "{text}");
        }
    }
}
