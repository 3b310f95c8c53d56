//! Property-based harness over the `sdpa run` file reader, `tensor_file::read_run_inputs`:
//! safetensors files generated from random problems (valid ones, and ones with one semantic
//! defect: a wrong dtype, a wrong rank, mismatched heads or lengths, a zero-size or absurd
//! dimension, a mask that does not broadcast, NaN and infinite values) and then mutated byte by
//! byte (truncated, bytes flipped, header length rewritten, bytes inserted or deleted). Every file
//! gives valid inputs or a typed error naming the tensor (or `header`), never a panic: a valid file
//! reads back exactly (NaN payloads included), a file with a known defect is rejected naming the
//! defective tensor, and whatever a mutated file gives passes the same consistency checks.
//!
//! The files are written here, header JSON and all, independently of `tensor_file`'s writer.
//! Short run (CI): 10,000 files. Long run: `PROPTEST_CASES=1000000 cargo test --release --test
//! fuzz_files`.

mod common;

use std::sync::atomic::{AtomicUsize, Ordering};

use half::f16;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use wgpu_sdpa::tensor_file::{read_run_inputs, HostTensor, RunInputs};
use wgpu_sdpa::{CausalAlignment, DType, Error, Mask, Tensor};

/// One tensor of a file: name, dtype string, shape, raw little-endian data.
#[derive(Debug, Clone)]
struct Entry {
    name: String,
    dtype: &'static str,
    shape: Vec<u64>,
    data: Vec<u8>,
}

/// A file as safetensors lays it out: 8-byte header length, JSON header, data.
fn write_file(entries: &[Entry]) -> Vec<u8> {
    let mut header = String::from("{");
    let mut offset = 0u64;
    for (i, e) in entries.iter().enumerate() {
        if i > 0 {
            header.push(',');
        }
        let shape: Vec<String> = e.shape.iter().map(|n| n.to_string()).collect();
        let end = offset + e.data.len() as u64;
        header.push_str(&format!(
            "\"{}\":{{\"dtype\":\"{}\",\"shape\":[{}],\"data_offsets\":[{offset},{end}]}}",
            e.name,
            e.dtype,
            shape.join(",")
        ));
        offset = end;
    }
    header.push('}');
    while header.len() % 8 != 0 {
        header.push(' ');
    }
    let mut out = (header.len() as u64).to_le_bytes().to_vec();
    out.extend_from_slice(header.as_bytes());
    for e in entries {
        out.extend_from_slice(&e.data);
    }
    out
}

/// Float values, with NaN (two payloads), infinities, zeros of both signs and subnormals mixed in.
fn value(bits: u32, special: u8) -> f32 {
    match special % 16 {
        0 => f32::NAN,
        1 => f32::from_bits(0x7fc0_1234), // a NaN with a payload
        2 => f32::INFINITY,
        3 => f32::NEG_INFINITY,
        4 => -0.0,
        5 => f32::from_bits(1), // smallest subnormal
        6 => 65504.0,
        _ => (bits % 2001) as f32 / 1000.0 - 1.0,
    }
}

fn float_bytes(n: u64, f16_dtype: bool, seed: u32, specials: bool) -> Vec<u8> {
    let mut out = Vec::with_capacity(n as usize * 4);
    let mut x = seed | 1;
    for _ in 0..n {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        let v = value(x, if specials { (x >> 24) as u8 } else { 255 });
        if f16_dtype {
            out.extend_from_slice(&f16::from_f32(v).to_bits().to_le_bytes());
        } else {
            out.extend_from_slice(&v.to_bits().to_le_bytes());
        }
    }
    out
}

/// What is wrong with a generated file, and the error field the reader must name.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Defect {
    None,
    Missing(usize),       // q, k, v
    WrongDtype(usize),    // q (not a float), k or v (not q's)
    WrongRank(usize, u8), // rank 0..=6 other than 4
    ZeroDim(usize, usize),
    BatchMismatch,   // k's batch differs from q's
    HeadDimMismatch, // k's head dim differs from q's
    VHeadsMismatch,  // v's heads differ from k's
    VLenMismatch,    // v's length differs from k's
    HeadsNotDivisible,
    HeadDimNotMultipleOf8,
    MaskWrongDtype,
    MaskNotBroadcastable,
    MaskRank(u8),       // 0 or 5
    MaskAndCausal,      // a mask in the file and --causal
    NanScale,           // --scale NaN
    AbsurdShape(usize), // a shape whose product overflows, data far too short
}

impl Defect {
    /// The field an error must name, or `None` for a valid file.
    fn field(self) -> Option<&'static str> {
        const NAMES: [&str; 3] = ["q", "k", "v"];
        Some(match self {
            Defect::None => return None,
            Defect::Missing(i) | Defect::WrongDtype(i) | Defect::WrongRank(i, _) => NAMES[i],
            Defect::ZeroDim(i, _) => NAMES[i],
            Defect::BatchMismatch | Defect::HeadDimMismatch => "k",
            Defect::VHeadsMismatch | Defect::VLenMismatch => "v",
            Defect::HeadsNotDivisible => "q_heads",
            Defect::HeadDimNotMultipleOf8 => "head_dim",
            Defect::MaskWrongDtype
            | Defect::MaskNotBroadcastable
            | Defect::MaskRank(_)
            | Defect::MaskAndCausal => "mask",
            Defect::NanScale => "scale",
            Defect::AbsurdShape(_) => "header",
        })
    }
}

fn defect() -> impl Strategy<Value = Defect> {
    prop_oneof![
        8 => Just(Defect::None),
        1 => (0usize..3).prop_map(Defect::Missing),
        1 => (0usize..3).prop_map(Defect::WrongDtype),
        1 => ((0usize..3), prop::sample::select(vec![0u8, 1, 2, 3, 5, 6])).prop_map(|(i, r)| Defect::WrongRank(i, r)),
        1 => ((0usize..3), (0usize..4)).prop_map(|(i, d)| Defect::ZeroDim(i, d)),
        1 => Just(Defect::BatchMismatch),
        1 => Just(Defect::HeadDimMismatch),
        1 => Just(Defect::VHeadsMismatch),
        1 => Just(Defect::VLenMismatch),
        1 => Just(Defect::HeadsNotDivisible),
        1 => Just(Defect::HeadDimNotMultipleOf8),
        1 => Just(Defect::MaskWrongDtype),
        1 => Just(Defect::MaskNotBroadcastable),
        1 => prop::sample::select(vec![0u8, 5]).prop_map(Defect::MaskRank),
        1 => Just(Defect::MaskAndCausal),
        1 => Just(Defect::NanScale),
        1 => (0usize..3).prop_map(Defect::AbsurdShape),
    ]
}

/// A random problem as a file.
#[derive(Debug, Clone)]
struct FileSpec {
    f16: bool,
    /// batch, kv heads, group, q_len, kv_len, head_dim / 8, v_head_dim / 8
    sizes: [u64; 7],
    /// None, or (boolean, which of [b, h, q, k] are broadcast as 1, leading dims dropped).
    mask: Option<(bool, [bool; 4], u8)>,
    causal: Option<CausalAlignment>,
    scale: Option<f32>,
    specials: bool,
    seed: u32,
    defect: Defect,
}

fn file_spec() -> impl Strategy<Value = FileSpec> {
    (
        any::<bool>(),
        (
            1u64..=3,
            1u64..=3,
            1u64..=3,
            1u64..=12,
            1u64..=12,
            1u64..=4,
            1u64..=4,
        ),
        prop::option::weighted(0.5, (any::<bool>(), any::<[bool; 4]>(), 0u8..4)),
        prop::option::weighted(
            0.3,
            prop::sample::select(vec![CausalAlignment::BottomRight, CausalAlignment::TopLeft]),
        ),
        prop::option::weighted(0.3, -2.0f32..2.0),
        any::<bool>(),
        any::<u32>(),
        defect(),
    )
        .prop_map(
            |(f16, (b, hkv, g, lq, lk, d8, dv8), mask, causal, scale, specials, seed, defect)| {
                FileSpec {
                    f16,
                    sizes: [b, hkv, g, lq, lk, d8, dv8],
                    mask,
                    causal,
                    scale,
                    specials,
                    seed,
                    defect,
                }
            },
        )
}

/// The file's tensors, the reader's arguments, and the expected problem for a valid file.
struct Built {
    entries: Vec<Entry>,
    causal: Option<CausalAlignment>,
    scale: Option<f32>,
}

fn build(spec: &FileSpec) -> Built {
    let [b, hkv, g, lq, lk, d8, dv8] = spec.sizes;
    let (hq, d, dv) = (hkv * g, d8 * 8, dv8 * 8);
    let float = if spec.f16 { "F16" } else { "F32" };
    let mut shapes = [
        vec![b, hq, lq, d],
        vec![b, hkv, lk, d],
        vec![b, hkv, lk, dv],
    ];
    let mut dtypes = [float; 3];
    match spec.defect {
        Defect::WrongDtype(0) => {
            dtypes[0] = if spec.seed.is_multiple_of(2) {
                "I32"
            } else {
                "BF16"
            }
        }
        Defect::WrongDtype(i) => dtypes[i] = if spec.f16 { "F32" } else { "F16" },
        Defect::WrongRank(i, r) => {
            let r = r as usize;
            shapes[i] = if r < 4 {
                shapes[i][4 - r..].to_vec()
            } else {
                [vec![1; r - 4], shapes[i].clone()].concat()
            };
            // keep the element count: a rank error, not a size error
        }
        Defect::ZeroDim(i, dim) => shapes[i][dim] = 0,
        Defect::BatchMismatch => shapes[1][0] = b + 1,
        Defect::HeadDimMismatch => shapes[1][3] = d + 8,
        Defect::VHeadsMismatch => shapes[2][1] = hkv + 1,
        Defect::VLenMismatch => shapes[2][2] = lk + 1,
        Defect::HeadsNotDivisible if g * hkv > 1 => {
            // q heads not a multiple of k heads: k gets hq + 1 heads (v follows k).
            shapes[1][1] = hq + 1;
            shapes[2][1] = hq + 1;
        }
        Defect::HeadsNotDivisible => {
            shapes[0][1] = 3;
            shapes[1][1] = 2;
            shapes[2][1] = 2;
        }
        Defect::HeadDimNotMultipleOf8 => {
            shapes[0][3] = d + 4;
            shapes[1][3] = d + 4;
        }
        _ => {}
    }
    let size = |dtype: &str| match dtype {
        "F32" | "I32" => 4,
        _ => 2,
    };
    let mut entries = Vec::new();
    for (i, name) in ["q", "k", "v"].into_iter().enumerate() {
        if spec.defect == Defect::Missing(i) {
            continue;
        }
        let n: u64 = shapes[i].iter().product();
        let mut data = if dtypes[i] == float {
            float_bytes(n, spec.f16, spec.seed.wrapping_add(i as u32), spec.specials)
        } else {
            vec![0x3c; (n * size(dtypes[i])) as usize]
        };
        let mut shape = shapes[i].clone();
        if spec.defect == Defect::AbsurdShape(i) {
            // 2^16 in every dimension: 2^64 elements, a product that overflows u64.
            shape = vec![1 << 16; 4];
            data.truncate(16);
        }
        entries.push(Entry {
            name: name.into(),
            dtype: dtypes[i],
            shape,
            data,
        });
    }
    let mut mask = spec.mask;
    if matches!(
        spec.defect,
        Defect::MaskWrongDtype
            | Defect::MaskNotBroadcastable
            | Defect::MaskRank(_)
            | Defect::MaskAndCausal
    ) && mask.is_none()
    {
        mask = Some((false, [false; 4], 0));
    }
    if let Some((boolean, broadcast, dropped)) = mask {
        let full = [b, hq, lq, lk];
        let mut shape: Vec<u64> = (0..4)
            .map(|i| if broadcast[i] { 1 } else { full[i] })
            .collect();
        // Leading dimensions of extent 1 may be left out (numpy broadcasting).
        let mut dropped = dropped as usize;
        while dropped > 0 && shape.len() > 1 && shape[0] == 1 {
            shape.remove(0);
            dropped -= 1;
        }
        let mut dtype = if boolean { "BOOL" } else { float };
        match spec.defect {
            Defect::MaskWrongDtype => {
                dtype = if boolean {
                    "I32"
                } else if spec.f16 {
                    "F32"
                } else {
                    "F16"
                }
            }
            Defect::MaskNotBroadcastable => {
                let last = shape.len() - 1;
                shape[last] = lk + 1;
            }
            Defect::MaskRank(0) => shape.clear(),
            Defect::MaskRank(_) => shape = [vec![1], shape, vec![1; 4]].concat()[..5].to_vec(),
            _ => {}
        }
        let n: u64 = shape.iter().product();
        let data = match dtype {
            "BOOL" => (0..n)
                .map(|i| (!(i * 7 + spec.seed as u64).is_multiple_of(3)) as u8)
                .collect(),
            "I32" => vec![1; (n * 4) as usize],
            _ => float_bytes(n, dtype == "F16", spec.seed ^ 0xabc, spec.specials),
        };
        entries.push(Entry {
            name: "mask".into(),
            dtype,
            shape,
            data,
        });
    }
    let causal = match spec.defect {
        Defect::MaskAndCausal => Some(CausalAlignment::BottomRight),
        _ if mask.is_some() => None,
        _ => spec.causal,
    };
    let scale = match spec.defect {
        Defect::NanScale => Some(f32::NAN),
        _ => spec.scale,
    };
    Built {
        entries,
        causal,
        scale,
    }
}

fn fail(what: String) -> TestCaseError {
    TestCaseError::fail(what)
}

fn host_bits(t: &HostTensor) -> Vec<u8> {
    match t {
        HostTensor::F32(x) => x.iter().flat_map(|v| v.to_bits().to_le_bytes()).collect(),
        HostTensor::F16(x) => x.iter().flat_map(|v| v.to_bits().to_le_bytes()).collect(),
        HostTensor::Bool(x) => x.iter().map(|&v| v as u8).collect(),
    }
}

/// What any successful read must satisfy, whatever the file was.
fn consistent(inputs: &RunInputs) -> Result<(), TestCaseError> {
    let desc = &inputs.desc;
    desc.validate()
        .map_err(|e| fail(format!("read an invalid problem: {e}: {desc:?}")))?;
    let dtype_matches = |t: &HostTensor| {
        matches!(
            (t, desc.dtype),
            (HostTensor::F32(_), DType::F32) | (HostTensor::F16(_), DType::F16)
        )
    };
    for (tensor, data) in [
        (Tensor::Q, &inputs.q),
        (Tensor::K, &inputs.k),
        (Tensor::V, &inputs.v),
    ] {
        if !dtype_matches(data) || data.len() as u64 != desc.required_elements(tensor) {
            return Err(fail(format!(
                "{tensor:?}: {} elements for {desc:?}",
                data.len()
            )));
        }
    }
    match (&inputs.mask, &desc.mask) {
        (None, Mask::None | Mask::Causal(_)) => {}
        (Some(m @ HostTensor::Bool(_)), Mask::Boolean(_))
            if m.len() as u64 >= desc.required_elements(Tensor::Mask) => {}
        (Some(m), Mask::Additive(_))
            if dtype_matches(m) && m.len() as u64 >= desc.required_elements(Tensor::Mask) => {}
        (m, kind) => {
            return Err(fail(format!(
                "mask {:?} elements for a {} mask of {desc:?}",
                m.as_ref().map(|m| m.len()),
                kind.name()
            )))
        }
    }
    Ok(())
}

static READ_OK: AtomicUsize = AtomicUsize::new(0);
static TYPED: AtomicUsize = AtomicUsize::new(0);

/// A byte-level change to a file.
#[derive(Debug, Clone)]
enum Mutation {
    Truncate(prop::sample::Index),
    Flip(prop::sample::Index, u8),
    HeaderLength(u64),
    Insert(prop::sample::Index, Vec<u8>),
    Delete(prop::sample::Index, usize),
    /// Replace the first occurrence of one header token by another.
    Token(&'static str, &'static str),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    let tokens = prop::sample::select(vec![
        ("F32", "F64"),
        ("F16", "BF16"),
        ("F32", "F4"),
        ("F16", "F6_E2M3"),
        ("BOOL", "U8"),
        ("\"shape\":[", "\"shape\":[0,"),
        ("\"shape\":[", "\"shape\":[18446744073709551615,"),
        ("\"shape\":[", "\"shape\":[4294967296,"),
        ("\"data_offsets\":[0", "\"data_offsets\":[1"),
        ("\"q\"", "\"Q\""),
        ("\"mask\"", "\"__metadata__\""),
        (",", ",,"),
        ("}", ""),
    ]);
    prop_oneof![
        2 => any::<prop::sample::Index>().prop_map(Mutation::Truncate),
        3 => (any::<prop::sample::Index>(), 1u8..=255).prop_map(|(i, x)| Mutation::Flip(i, x)),
        1 => prop_oneof![Just(0u64), Just(u64::MAX), 1u64..4096, any::<u64>()].prop_map(Mutation::HeaderLength),
        1 => (any::<prop::sample::Index>(), prop::collection::vec(any::<u8>(), 1..16)).prop_map(|(i, b)| Mutation::Insert(i, b)),
        1 => (any::<prop::sample::Index>(), 1usize..64).prop_map(|(i, n)| Mutation::Delete(i, n)),
        2 => tokens.prop_map(|(a, b)| Mutation::Token(a, b)),
    ]
}

fn apply(bytes: &mut Vec<u8>, m: &Mutation) {
    match m {
        Mutation::Truncate(i) => {
            let at = i.index(bytes.len().max(1));
            bytes.truncate(at);
        }
        Mutation::Flip(i, x) if !bytes.is_empty() => {
            let at = i.index(bytes.len());
            bytes[at] ^= x;
        }
        Mutation::HeaderLength(n) if bytes.len() >= 8 => {
            bytes[..8].copy_from_slice(&n.to_le_bytes());
        }
        Mutation::Insert(i, b) => {
            let at = i.index(bytes.len() + 1);
            bytes.splice(at..at, b.iter().copied());
        }
        Mutation::Delete(i, n) if !bytes.is_empty() => {
            let at = i.index(bytes.len());
            let end = (at + n).min(bytes.len());
            bytes.drain(at..end);
        }
        Mutation::Token(from, to) => {
            let header_end = bytes
                .get(..8)
                .map(|l| u64::from_le_bytes(l.try_into().unwrap()))
                .map_or(0, |n| (8 + n).min(bytes.len() as u64) as usize);
            let header = String::from_utf8_lossy(&bytes[8.min(header_end)..header_end]).to_string();
            if let Some(pos) = header.find(from) {
                let mut h = header.clone();
                h.replace_range(pos..pos + from.len(), to);
                let mut out = (h.len() as u64).to_le_bytes().to_vec();
                out.extend_from_slice(h.as_bytes());
                out.extend_from_slice(&bytes[header_end..]);
                *bytes = out;
            }
        }
        _ => {}
    }
}

fn check_file(spec: &FileSpec, mutations: &[Mutation]) -> Result<(), TestCaseError> {
    let built = build(spec);
    let mut bytes = write_file(&built.entries);
    for m in mutations {
        apply(&mut bytes, m);
    }
    let result = read_run_inputs(&bytes, built.causal, built.scale);
    match &result {
        Ok(inputs) => {
            READ_OK.fetch_add(1, Ordering::Relaxed);
            consistent(inputs)?;
        }
        Err(e) => {
            TYPED.fetch_add(1, Ordering::Relaxed);
            let named = match e {
                Error::TensorFile { field, problem } => !field.is_empty() && !problem.is_empty(),
                Error::InvalidDesc { field, .. } | Error::ExceedsLimit { field, .. } => {
                    !field.is_empty()
                }
                _ => false,
            };
            if !named || e.to_string().is_empty() {
                return Err(fail(format!("untyped error {e:?}")));
            }
        }
    }
    if !mutations.is_empty() {
        return Ok(());
    }
    // Unmutated: the outcome is known.
    match (spec.defect.field(), result) {
        (None, Ok(inputs)) => {
            // Exactly the generated problem and bits.
            let [b, hkv, g, lq, lk, d8, dv8] = spec.sizes;
            let d = &inputs.desc;
            let got = [
                d.batch,
                d.kv_heads,
                d.q_heads / d.kv_heads,
                d.q_len,
                d.kv_len,
                d.head_dim / 8,
                d.v_head_dim / 8,
            ]
            .map(|x| x as u64);
            if got != [b, hkv, g, lq, lk, d8, dv8]
                || d.dtype != if spec.f16 { DType::F16 } else { DType::F32 }
                || d.scale.map(f32::to_bits) != built.scale.map(f32::to_bits)
            {
                return Err(fail(format!("read {d:?} for {spec:?}")));
            }
            let mask_kind_right = match (&built.entries.iter().find(|e| e.name == "mask"), d.mask) {
                (None, Mask::None) => built.causal.is_none(),
                (None, Mask::Causal(a)) => built.causal == Some(a),
                (Some(e), Mask::Boolean(_)) => e.dtype == "BOOL",
                (Some(e), Mask::Additive(_)) => e.dtype != "BOOL",
                _ => false,
            };
            if !mask_kind_right {
                return Err(fail(format!("mask {:?} for {spec:?}", d.mask)));
            }
            for (i, t) in [&inputs.q, &inputs.k, &inputs.v].into_iter().enumerate() {
                if host_bits(t) != built.entries[i].data {
                    return Err(fail(format!("tensor {i} bits changed for {spec:?}")));
                }
            }
            // The mask: every element [b, h, i, j] is the file's element at its broadcast index.
            if let (Some(m), Some(entry)) = (
                &inputs.mask,
                built.entries.iter().find(|e| e.name == "mask"),
            ) {
                check_mask(&inputs, m, entry)?;
            }
            Ok(())
        }
        (None, Err(e)) => Err(fail(format!("valid file rejected: {e}: {spec:?}"))),
        (Some(field), Ok(_)) => Err(fail(format!(
            "file with defect {:?} (field {field}) was read: {spec:?}",
            spec.defect
        ))),
        (Some(field), Err(e)) => {
            if e.field() == Some(field) {
                Ok(())
            } else {
                Err(fail(format!(
                    "defect {:?}: error names {:?}, expected {field}: {e}",
                    spec.defect,
                    e.field()
                )))
            }
        }
    }
}

/// The read mask, indexed through the description's layout, equals the file's mask broadcast.
fn check_mask(inputs: &RunInputs, mask: &HostTensor, entry: &Entry) -> Result<(), TestCaseError> {
    let d = &inputs.desc;
    let layout = *d
        .mask
        .layout()
        .ok_or_else(|| fail("no mask layout".into()))?;
    let elem = if entry.dtype == "F32" {
        4
    } else if entry.dtype == "F16" {
        2
    } else {
        1
    };
    let mut shape = entry.shape.clone();
    while shape.len() < 4 {
        shape.insert(0, 1);
    }
    let got = host_bits(mask);
    for b in 0..d.batch as u64 {
        for h in 0..d.q_heads as u64 {
            for i in 0..d.q_len as u64 {
                for j in 0..d.kv_len as u64 {
                    let at = (layout.offset
                        + b * layout.batch_stride
                        + h * layout.head_stride
                        + i * layout.q_stride
                        + j) as usize;
                    let idx = [b, h, i, j];
                    let src = (0..4).fold(0u64, |acc, a| {
                        acc * shape[a] + if shape[a] == 1 { 0 } else { idx[a] }
                    }) as usize;
                    let want = &entry.data[src * elem..(src + 1) * elem];
                    let have = &got[at * elem..(at + 1) * elem];
                    let want_bool = elem == 1 && (want[0] != 0) as u8 == have[0];
                    if have != want && !want_bool {
                        return Err(fail(format!("mask element {idx:?} differs")));
                    }
                }
            }
        }
    }
    Ok(())
}

#[test]
fn generated_and_mutated_files_read_or_give_typed_errors() {
    let cases = common::proptest_cases(10_000);
    let mut runner = TestRunner::new(Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    });
    let strategy = (
        file_spec(),
        prop_oneof![
            2 => Just(Vec::new()),
            3 => prop::collection::vec(mutation(), 1..=3),
        ],
    );
    let started = std::time::Instant::now();
    let result = runner.run(&strategy, |(spec, mutations)| check_file(&spec, &mutations));
    let (ok, typed) = (
        READ_OK.load(Ordering::Relaxed),
        TYPED.load(Ordering::Relaxed),
    );
    println!(
        "{cases} files: {ok} read and consistent, {typed} typed errors, in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    if let Err(e) = result {
        panic!("{e}");
    }
    assert!(
        ok > cases as usize / 10 && typed > cases as usize / 10,
        "{ok} / {typed}"
    );
}

#[test]
fn a_mask_broadcast_past_4_gib_is_refused_before_allocating() {
    // [1, 1, 65535, 1] f32 mask over 65536 keys: 17 GB once expanded, from a 4.5 MB file.
    let (lq, lk) = (65535u64, 65536u64);
    let entries = vec![
        Entry {
            name: "q".into(),
            dtype: "F32",
            shape: vec![1, 1, lq, 8],
            data: vec![0; (lq * 8 * 4) as usize],
        },
        Entry {
            name: "k".into(),
            dtype: "F32",
            shape: vec![1, 1, lk, 8],
            data: vec![0; (lk * 8 * 4) as usize],
        },
        Entry {
            name: "v".into(),
            dtype: "F32",
            shape: vec![1, 1, lk, 8],
            data: vec![0; (lk * 8 * 4) as usize],
        },
        Entry {
            name: "mask".into(),
            dtype: "F32",
            shape: vec![lq, 1],
            data: vec![0; (lq * 4) as usize],
        },
    ];
    let e = read_run_inputs(&write_file(&entries), None, None).unwrap_err();
    println!("{e}");
    assert_eq!(e.field(), Some("mask"));
    assert!(e.to_string().contains("4 GiB"), "{e}");
}
