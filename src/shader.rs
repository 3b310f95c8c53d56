//! WGSL sources and their specialisations.
//!
//! Each kernel is one file of `wgsl/`, preceded by the shared pieces it uses (`params.wgsl`,
//! `mask.wgsl`) and a short generated header (`enable f16;`, `alias elem = ...;`). Everything
//! else that varies (tile sizes, head dims, mask kind) is a WGSL `override` constant, so one
//! source serves every shape and a [`ShaderVariant`] is the source plus its constants.

use crate::desc::DType;

const PARAMS: &str = include_str!("../wgsl/params.wgsl");
const MASK: &str = include_str!("../wgsl/mask.wgsl");
const UNFUSED_SCORES: &str = include_str!("../wgsl/unfused_scores.wgsl");
const UNFUSED_SOFTMAX: &str = include_str!("../wgsl/unfused_softmax.wgsl");
const UNFUSED_PV: &str = include_str!("../wgsl/unfused_pv.wgsl");
const FUSED: &str = include_str!("../wgsl/fused.wgsl");
const FUSED_COOP: &str = include_str!("../wgsl/fused_coop.wgsl");
const COOP_STAGE_SCALAR: &str = include_str!("../wgsl/coop_stage_scalar.wgsl");
const COOP_STAGE_VEC: &str = include_str!("../wgsl/coop_stage_vec.wgsl");
const COOP_WORD_F16: &str = include_str!("../wgsl/coop_word_f16.wgsl");
const COOP_WORD_F32: &str = include_str!("../wgsl/coop_word_f32.wgsl");
const COOP_WORD_SPLIT: &str = include_str!("../wgsl/coop_word_split.wgsl");
const COOP_SPLIT_NONE: &str = include_str!("../wgsl/coop_split_none.wgsl");
const COOP_SPLIT_F32: &str = include_str!("../wgsl/coop_split_f32.wgsl");
const COOP_KV_WHOLE: &str = include_str!("../wgsl/coop_kv_whole.wgsl");
const COOP_KV_SPLIT: &str = include_str!("../wgsl/coop_kv_split.wgsl");
const FUSED_KV_WHOLE: &str = include_str!("../wgsl/fused_kv_whole.wgsl");
const FUSED_KV_SPLIT: &str = include_str!("../wgsl/fused_kv_split.wgsl");
const SPLIT_PARTIAL: &str = include_str!("../wgsl/split_partial.wgsl");
const SPLIT_COMBINE: &str = include_str!("../wgsl/split_combine.wgsl");
const PARTIAL_WORDS: &str = include_str!("../wgsl/partial_words.wgsl");
const PARTIAL_QUADS: &str = include_str!("../wgsl/partial_quads.wgsl");
const PARTIAL_LAYOUT: &str = include_str!("../wgsl/partial_layout.wgsl");
const SPLIT_MERGE_BY_REDUCE: &str = include_str!("../wgsl/split_merge_by_reduce.wgsl");
const SPLIT_MERGE_IN_PASS: &str = include_str!("../wgsl/split_merge_in_pass.wgsl");
const SPLIT_SCALES: &str = include_str!("../wgsl/split_scales.wgsl");
const SPLIT_MAXIMA: &str = include_str!("../wgsl/split_maxima.wgsl");
const COOP_MAXIMA_WHOLE: &str = include_str!("../wgsl/coop_maxima_whole.wgsl");
const COOP_MAXIMA_SPLIT: &str = include_str!("../wgsl/coop_maxima_split.wgsl");
const VECTOR: &str = include_str!("../wgsl/vector.wgsl");
const VECTOR_REDUCE: &str = include_str!("../wgsl/vector_reduce.wgsl");
const VECTOR_COOP: &str = include_str!("../wgsl/vector_coop.wgsl");
const VECTOR_COOP_TEAMS: &str = include_str!("../wgsl/vector_coop_teams.wgsl");
const VECTOR_SUBGROUP: &str = include_str!("../wgsl/vector_subgroup.wgsl");
const DECODE_QUERY: &str = include_str!("../wgsl/decode_query.wgsl");
const DECODE_CHUNKS: &str = include_str!("../wgsl/decode_chunks.wgsl");
const ROUND_F16: &str = include_str!("../wgsl/round_f16.wgsl");

/// A kernel entry point (one WGSL file, entry `main`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum KernelEntry {
    /// Unfused step 1, `wgsl/unfused_scores.wgsl`.
    UnfusedScores,
    /// Unfused step 2, `wgsl/unfused_softmax.wgsl`.
    UnfusedSoftmax,
    /// Unfused step 3, `wgsl/unfused_pv.wgsl`.
    UnfusedPv,
    /// The portable fused kernel, `wgsl/fused.wgsl`.
    Fused,
    /// The cooperative-matrix fused kernel, `wgsl/fused_coop.wgsl`.
    FusedCoop,
    /// The split pass of f32 tensors on f16 fragments, `wgsl/split_scales.wgsl`: each head's
    /// largest magnitudes, for the factors of [`KernelEntry::FusedCoopSplit`].
    SplitScales,
    /// `wgsl/fused_coop.wgsl` on f32 tensors with f16 fragments (`wgsl/coop_split_f32.wgsl`),
    /// reading [`KernelEntry::SplitScales`]' maxima.
    FusedCoopSplit,
    /// `wgsl/fused_coop.wgsl` with the keys split over workgroups (`wgsl/coop_kv_split.wgsl`:
    /// each writes its split's partial result for [`KernelEntry::VectorReduce`]).
    FusedCoopKv,
    /// [`KernelEntry::FusedCoopSplit`] with the keys split over workgroups, as
    /// [`KernelEntry::FusedCoopKv`]; the maxima follow the partial results in the scratch.
    FusedCoopSplitKv,
    /// `wgsl/fused.wgsl` with the keys split over workgroups (`wgsl/fused_kv_split.wgsl`: each
    /// writes its split's partial result for [`KernelEntry::VectorReduce`]).
    FusedKv,
    /// The decode kernel's split pass, `wgsl/vector.wgsl`.
    Vector,
    /// The decode kernel's reduce pass, `wgsl/vector_reduce.wgsl`.
    VectorReduce,
    /// The decode kernel's split pass on cooperative matrices, `wgsl/vector_coop.wgsl`.
    VectorCoop,
    /// The decode kernel's split pass on cooperative matrices with each subgroup streaming its
    /// own keys, `wgsl/vector_coop_teams.wgsl`.
    VectorCoopTeams,
    /// The decode kernel's split pass with each subgroup streaming its own keys,
    /// `wgsl/vector_subgroup.wgsl`.
    VectorSubgroup,
    /// [`KernelEntry::VectorSubgroup`] whose last split to finish merges the splits
    /// (`wgsl/split_merge_in_pass.wgsl`, no reduce pass): Vulkan with `@coherent` storage.
    VectorSubgroupMerged,
}

/// How a kernel binds one of the crate's fixed binding slots.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum BindingKind {
    Uniform,
    Read,
    ReadWrite,
}

/// The fixed binding slots shared by every kernel.
pub(crate) mod slot {
    pub const PARAMS: u32 = 0;
    pub const Q: u32 = 1;
    pub const K: u32 = 2;
    pub const V: u32 = 3;
    pub const OUT: u32 = 4;
    pub const MASK: u32 = 5;
    pub const SCRATCH: u32 = 6;
    /// The arrival counters of [`super::KernelEntry::VectorSubgroupMerged`].
    pub const ARRIVALS: u32 = 7;
}

impl KernelEntry {
    /// A short name (labels, tables).
    pub fn name(self) -> &'static str {
        match self {
            KernelEntry::UnfusedScores => "unfused_scores",
            KernelEntry::UnfusedSoftmax => "unfused_softmax",
            KernelEntry::UnfusedPv => "unfused_pv",
            KernelEntry::Fused => "fused",
            KernelEntry::FusedCoop => "fused_coop",
            KernelEntry::SplitScales => "split_scales",
            KernelEntry::FusedCoopSplit => "fused_coop_split",
            KernelEntry::FusedCoopKv => "fused_coop_kv",
            KernelEntry::FusedCoopSplitKv => "fused_coop_split_kv",
            KernelEntry::FusedKv => "fused_kv",
            KernelEntry::Vector => "vector",
            KernelEntry::VectorReduce => "vector_reduce",
            KernelEntry::VectorCoop => "vector_coop",
            KernelEntry::VectorCoopTeams => "vector_coop_teams",
            KernelEntry::VectorSubgroup => "vector_subgroup",
            KernelEntry::VectorSubgroupMerged => "vector_subgroup_merged",
        }
    }

    fn body(self) -> &'static str {
        match self {
            KernelEntry::UnfusedScores => UNFUSED_SCORES,
            KernelEntry::UnfusedSoftmax => UNFUSED_SOFTMAX,
            KernelEntry::UnfusedPv => UNFUSED_PV,
            KernelEntry::Fused | KernelEntry::FusedKv => FUSED,
            KernelEntry::FusedCoop
            | KernelEntry::FusedCoopSplit
            | KernelEntry::FusedCoopKv
            | KernelEntry::FusedCoopSplitKv => FUSED_COOP,
            KernelEntry::SplitScales => SPLIT_SCALES,
            KernelEntry::Vector => VECTOR,
            KernelEntry::VectorReduce => VECTOR_REDUCE,
            KernelEntry::VectorCoop => VECTOR_COOP,
            KernelEntry::VectorCoopTeams => VECTOR_COOP_TEAMS,
            KernelEntry::VectorSubgroup | KernelEntry::VectorSubgroupMerged => VECTOR_SUBGROUP,
        }
    }

    /// The declaration of `partial` (the split partial results of `wgsl/split_partial.wgsl`),
    /// their layout (`wgsl/partial_layout.wgsl`) and the stores that go with them, for the
    /// passes that use it: 16-byte quads for the subgroup kernel (`@coherent` where its last
    /// split reads every split's) and the reduce pass (read only); floats for the kernels that
    /// also store single columns.
    fn partial_declaration(self) -> Option<(String, [&'static str; 2])> {
        // (`@coherent`, access, element, the stores' piece)
        let (coherent, access, element, stores) = match self {
            KernelEntry::VectorSubgroupMerged => (true, "read_write", "vec4<f32>", PARTIAL_QUADS),
            KernelEntry::VectorSubgroup => (false, "read_write", "vec4<f32>", PARTIAL_QUADS),
            KernelEntry::VectorReduce => (false, "read", "vec4<f32>", ""),
            KernelEntry::FusedCoopKv
            | KernelEntry::FusedCoopSplitKv
            | KernelEntry::FusedKv
            | KernelEntry::Vector
            | KernelEntry::VectorCoop
            | KernelEntry::VectorCoopTeams => (false, "read_write", "f32", PARTIAL_WORDS),
            _ => return None,
        };
        let declaration = format!(
            "@group(0) @binding({}) {}var<storage, {access}> partial: array<{element}>;\n",
            slot::SCRATCH,
            if coherent { "@coherent " } else { "" },
        );
        Some((declaration, [PARTIAL_LAYOUT, stores]))
    }

    fn uses_mask(self) -> bool {
        // The reduce pass applies no mask but uses mask.wgsl's constants.
        !matches!(
            self,
            KernelEntry::UnfusedScores | KernelEntry::UnfusedPv | KernelEntry::SplitScales
        )
    }

    /// The binding slots the kernel declares, with their access.
    pub(crate) fn bindings(self) -> &'static [(u32, BindingKind)] {
        use BindingKind::*;
        match self {
            KernelEntry::UnfusedScores => &[
                (slot::PARAMS, Uniform),
                (slot::Q, Read),
                (slot::K, Read),
                (slot::SCRATCH, ReadWrite),
            ],
            KernelEntry::UnfusedSoftmax => &[
                (slot::PARAMS, Uniform),
                (slot::MASK, Read),
                (slot::SCRATCH, ReadWrite),
            ],
            KernelEntry::UnfusedPv => &[
                (slot::PARAMS, Uniform),
                (slot::V, Read),
                (slot::OUT, ReadWrite),
                (slot::SCRATCH, Read),
            ],
            KernelEntry::Fused | KernelEntry::FusedCoop => &[
                (slot::PARAMS, Uniform),
                (slot::Q, Read),
                (slot::K, Read),
                (slot::V, Read),
                (slot::OUT, ReadWrite),
                (slot::MASK, Read),
            ],
            KernelEntry::SplitScales => &[
                (slot::PARAMS, Uniform),
                (slot::Q, Read),
                (slot::K, Read),
                (slot::V, Read),
                (slot::SCRATCH, ReadWrite),
            ],
            // Every pass that writes split partial results (the reduce pass reads them).
            KernelEntry::FusedCoopKv
            | KernelEntry::FusedCoopSplitKv
            | KernelEntry::FusedKv
            | KernelEntry::Vector
            | KernelEntry::VectorCoop
            | KernelEntry::VectorCoopTeams
            | KernelEntry::VectorSubgroup => &[
                (slot::PARAMS, Uniform),
                (slot::Q, Read),
                (slot::K, Read),
                (slot::V, Read),
                (slot::OUT, ReadWrite),
                (slot::MASK, Read),
                (slot::SCRATCH, ReadWrite),
            ],
            KernelEntry::FusedCoopSplit => &[
                (slot::PARAMS, Uniform),
                (slot::Q, Read),
                (slot::K, Read),
                (slot::V, Read),
                (slot::OUT, ReadWrite),
                (slot::MASK, Read),
                (slot::SCRATCH, Read),
            ],
            KernelEntry::VectorReduce => &[
                (slot::PARAMS, Uniform),
                (slot::OUT, ReadWrite),
                (slot::MASK, Read),
                (slot::SCRATCH, Read),
            ],
            KernelEntry::VectorSubgroupMerged => &[
                (slot::PARAMS, Uniform),
                (slot::Q, Read),
                (slot::K, Read),
                (slot::V, Read),
                (slot::OUT, ReadWrite),
                (slot::MASK, Read),
                (slot::SCRATCH, ReadWrite),
                (slot::ARRIVALS, ReadWrite),
            ],
        }
    }
}

/// The generated-header part of a cooperative-matrix variant: the fragment size and the
/// fragment counts, which size function-local arrays (WGSL allows no `override` there).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct CoopHeader {
    /// Fragment size: `coop_mat8x8` or `coop_mat16x16`.
    pub frag: u32,
    /// `head_dim / frag`: Q fragments per subgroup.
    pub q_frags: u32,
    /// `v_head_dim / frag`: O fragments per subgroup.
    pub o_frags: u32,
    /// Parts of the head dims Q is staged in (dividing `q_frags`): 1, or more on Vulkan when the
    /// block does not fit at once.
    pub q_parts: u32,
    /// K and V are staged in 16-byte words fetched a tile ahead (every offset and stride of
    /// K and V a multiple of 16 bytes), else element by element.
    pub word_staging: bool,
    /// f32 tensors on f16 fragments, each value as a hi and a lo part
    /// (`wgsl/coop_split_f32.wgsl`; needs `word_staging`).
    pub split: bool,
}

/// The generated header: directives first, then the aliases and constants the kernels are
/// written against (`elem`, `stage`, and for cooperative-matrix kernels `FRAG`, `Q_FRAGS`,
/// `O_FRAGS` and the fragment types).
pub(crate) fn header(dtype: DType, stage: DType, coop: Option<CoopHeader>) -> String {
    let mut src = String::new();
    if dtype == DType::F16 || stage == DType::F16 {
        src.push_str("enable f16;\n");
    }
    if coop.is_some() {
        src.push_str("enable wgpu_cooperative_matrix;\n");
    }
    src.push_str(&format!("alias elem = {};\n", dtype.wgsl()));
    src.push_str(&format!("alias stage = {};\n", stage.wgsl()));
    if let Some(c) = coop {
        let (f, e) = (c.frag, stage.wgsl());
        src.push_str(&format!(
            "const FRAG: u32 = {f}u;\nconst Q_FRAGS: u32 = {}u;\nconst O_FRAGS: u32 = {}u;\n\
             alias frag_a = coop_mat{f}x{f}<{e}, A>;\nalias frag_b = coop_mat{f}x{f}<{e}, B>;\n\
             alias frag_c = coop_mat{f}x{f}<f32, C>;\n",
            c.q_frags, c.o_frags
        ));
    }
    src.push('\n');
    src
}

/// One compiled specialisation of a kernel: entry, storage dtype and override constants.
/// Equal variants share one pipeline in the context's cache.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ShaderVariant {
    /// The kernel.
    pub entry: KernelEntry,
    /// The storage dtype (`elem` in the WGSL).
    pub dtype: DType,
    /// The dtype of workgroup-memory tiles (`stage` in the WGSL).
    pub stage: DType,
    /// The cooperative-matrix header, for [`KernelEntry::FusedCoop`].
    pub coop: Option<CoopHeader>,
    /// Override constants, by name.
    pub constants: Vec<(&'static str, u32)>,
}

impl ShaderVariant {
    /// A variant staging tiles in its storage dtype, without cooperative matrices.
    pub fn new(entry: KernelEntry, dtype: DType, constants: Vec<(&'static str, u32)>) -> Self {
        ShaderVariant {
            entry,
            dtype,
            stage: dtype,
            coop: None,
            constants,
        }
    }

    /// The WGSL source of the module: generated header, shared pieces, kernel.
    pub fn source(&self) -> String {
        let mut src = header(self.dtype, self.stage, self.coop);
        src.push_str(PARAMS);
        if self.entry.uses_mask() {
            src.push_str(MASK);
        }
        // The fused kernel's per-head factors and staging (the decode kernel has its own).
        if let Some(c) = self.coop.filter(|_| {
            !matches!(
                self.entry,
                KernelEntry::VectorCoop | KernelEntry::VectorCoopTeams
            )
        }) {
            src.push_str(if c.split {
                COOP_SPLIT_F32
            } else {
                COOP_SPLIT_NONE
            });
            if c.word_staging {
                src.push_str(COOP_STAGE_VEC);
                src.push_str(match (self.dtype, c.split) {
                    (_, true) => COOP_WORD_SPLIT,
                    (DType::F16, false) => COOP_WORD_F16,
                    (DType::F32, false) => COOP_WORD_F32,
                });
            } else {
                src.push_str(COOP_STAGE_SCALAR);
            }
        }
        src.push_str(self.entry.body());
        // After the kernel, whose overrides it uses (with it ahead of them, naga 30's
        // `process_overrides` panicked: an `unreachable!` on an override with neither name nor
        // id).
        let tail: &[&str] = match self.entry {
            KernelEntry::FusedCoopKv => &[SPLIT_PARTIAL, COOP_KV_SPLIT],
            KernelEntry::FusedCoopSplitKv => &[
                SPLIT_PARTIAL,
                SPLIT_MAXIMA,
                COOP_MAXIMA_SPLIT,
                COOP_KV_SPLIT,
            ],
            KernelEntry::FusedCoop => &[COOP_KV_WHOLE],
            KernelEntry::FusedCoopSplit => &[COOP_MAXIMA_WHOLE, COOP_KV_WHOLE],
            KernelEntry::SplitScales => &[SPLIT_MAXIMA],
            KernelEntry::FusedKv => &[SPLIT_PARTIAL, FUSED_KV_SPLIT],
            KernelEntry::Fused => &[FUSED_KV_WHOLE],
            KernelEntry::Vector => &[SPLIT_PARTIAL, DECODE_QUERY, DECODE_CHUNKS],
            KernelEntry::VectorSubgroup => &[
                SPLIT_PARTIAL,
                SPLIT_MERGE_BY_REDUCE,
                DECODE_QUERY,
                DECODE_CHUNKS,
            ],
            KernelEntry::VectorSubgroupMerged => &[
                SPLIT_PARTIAL,
                SPLIT_COMBINE,
                SPLIT_MERGE_IN_PASS,
                DECODE_QUERY,
                DECODE_CHUNKS,
            ],
            KernelEntry::VectorReduce => &[SPLIT_COMBINE],
            KernelEntry::VectorCoop => &[SPLIT_PARTIAL, DECODE_QUERY, COOP_WORD_F16, ROUND_F16],
            KernelEntry::VectorCoopTeams => &[SPLIT_PARTIAL, DECODE_QUERY, ROUND_F16],
            _ => &[],
        };
        if let Some((declaration, pieces)) = self.entry.partial_declaration() {
            src.push_str(&declaration);
            pieces.iter().for_each(|piece| src.push_str(piece));
        }
        tail.iter().for_each(|piece| src.push_str(piece));
        src
    }

    /// The override constants as wgpu takes them.
    pub fn pipeline_constants(&self) -> Vec<(&'static str, f64)> {
        self.constants
            .iter()
            .map(|&(name, value)| (name, value as f64))
            .collect()
    }

    /// A label for wgpu objects and tables, e.g. `fused f16 BQ=32 BK=32 ...`.
    pub fn label(&self) -> String {
        let mut s = format!("{} {} stage={}", self.entry.name(), self.dtype, self.stage);
        if let Some(c) = self.coop {
            s.push_str(&format!(" frag={}", c.frag));
        }
        for (name, value) in &self.constants {
            s.push_str(&format!(" {name}={value}"));
        }
        s
    }
}
