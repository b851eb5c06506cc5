//! Collective primitives over named axes: their shape and VMA rules and their
//! derivatives. How they move data is in `collectives` (over the fabric) and
//! `exec` (which picks fabric or lockstep).
//!
//! Transposes follow JAX. With VMA tracked (shard_map, check_vma=True) a psum
//! makes a value invariant, so its transpose is `pvary` (no data movement) and
//! the transpose of `pvary` is `psum_invariant`. Untracked (pmap, vmap,
//! check_vma=False) psum transposes to psum.

use crate::error::Result;
use crate::ir::{Aval, AxisSet};
use crate::mesh::fmt_names;
use crate::primitives::{AxisEnv, Prim};
use crate::trace::{bind1, Value};
use crate::{bail, err};

/// A collective and its parameters. `axes` are the mesh (or map) axes whose
/// devices form each group, major to minor.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(target_arch = "wasm32", derive(serde::Serialize, serde::Deserialize))]
pub enum CollectiveKind {
    /// Sum over the group (untracked VMA: transposes to psum).
    Psum {
        /// Group axes.
        axes: Vec<String>,
        /// JAX's `axis_index_groups`.
        groups: Option<IndexGroups>,
    },
    /// Sum over the group of a varying value, giving an invariant one.
    PsumInvariant {
        /// Group axes.
        axes: Vec<String>,
    },
    /// Elementwise maximum over the group.
    Pmax {
        /// Group axes.
        axes: Vec<String>,
        /// JAX's `axis_index_groups`.
        groups: Option<IndexGroups>,
    },
    /// Elementwise minimum over the group.
    Pmin {
        /// Group axes.
        axes: Vec<String>,
        /// JAX's `axis_index_groups`.
        groups: Option<IndexGroups>,
    },
    /// Every member's value, stacked (or concatenated when tiled) along `axis`.
    AllGather {
        /// Group axes.
        axes: Vec<String>,
        /// JAX's `axis_index_groups` (always None when `invariant`).
        groups: Option<IndexGroups>,
        /// Where the gathered dimension goes.
        axis: usize,
        /// Concatenate instead of stacking.
        tiled: bool,
        /// The result is typed invariant over `axes` (JAX's `to='invarying'`,
        /// the primitive `all_gather_invariant`) instead of varying.
        invariant: bool,
    },
    /// Sum over the group, each member keeping its block of `dim`.
    PsumScatter {
        /// Group axes.
        axes: Vec<String>,
        /// JAX's `axis_index_groups`.
        groups: Option<IndexGroups>,
        /// The dimension scattered.
        dim: usize,
        /// Keep the dimension (size/p) instead of removing it (size must be p).
        tiled: bool,
    },
    /// Sends each member's value to another: (source rank, destination rank) pairs.
    Ppermute {
        /// Group axes.
        axes: Vec<String>,
        /// (source, destination) pairs of group ranks.
        perm: Vec<(usize, usize)>,
    },
    /// Member i's block j of `split_axis` goes to member j, stacked at `concat_axis`.
    AllToAll {
        /// Group axes.
        axes: Vec<String>,
        /// JAX's `axis_index_groups`.
        groups: Option<IndexGroups>,
        /// The dimension cut into one block per member.
        split_axis: usize,
        /// The dimension along which received blocks are joined.
        concat_axis: usize,
        /// Keep dimensions (blocks concatenated) instead of removing/inserting one.
        tiled: bool,
    },
    /// The device's index along `axes` (an int32 scalar).
    AxisIndex {
        /// Axes, major to minor.
        axes: Vec<String>,
    },
    /// Marks an invariant value as varying over `axes` (no data movement).
    Pvary {
        /// Axes added to the VMA.
        axes: Vec<String>,
    },
}

/// JAX's `axis_index_groups`: the indices along a collective's axes split
/// into groups that each run the collective on their own. Index `i` is the
/// device whose `axis_index(axes)` is `i`; a member's rank within its group
/// (which orders all_gather's blocks and picks psum_scatter's block) is its
/// place in the listed group, not its index.
///
/// The Python API checks that the groups cover `0..total` exactly once
/// ([`IndexGroups::new`]); whether they fit the axis is known only when the
/// collective runs on devices ([`IndexGroups::check`]), where JAX lowers it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(target_arch = "wasm32", derive(serde::Serialize, serde::Deserialize))]
pub struct IndexGroups(Vec<Vec<usize>>);

impl IndexGroups {
    /// The groups as given, or JAX's ValueError when they do not cover
    /// `0..total` exactly once (`total` being the sum of their sizes).
    pub fn new(groups: Vec<Vec<usize>>) -> Result<IndexGroups> {
        let total: usize = groups.iter().map(Vec::len).sum();
        let mut seen = vec![false; total];
        for &i in groups.iter().flatten() {
            if i >= total || std::mem::replace(&mut seen[i], true) {
                bail!(
                    ValueError,
                    "axis_index_groups must cover all indices exactly once"
                );
            }
        }
        Ok(IndexGroups(groups))
    }

    /// The groups, each in rank order.
    pub fn groups(&self) -> &[Vec<usize>] {
        &self.0
    }

    /// The group size JAX gives shapes and pmean's divisor: the first
    /// group's, whatever the others' (JAX's `psum(1, axes, groups)`).
    pub fn size(&self) -> usize {
        self.0.first().map_or(0, Vec::len)
    }

    /// True when every group has the same size.
    pub fn equal_sizes(&self) -> bool {
        self.0.iter().all(|g| g.len() == self.size())
    }

    /// Checks the groups against an axis of `n` indices, as JAX's lowering
    /// and XLA's verifier do for the collective `name`: no index past the
    /// axis, every index in some group and, unless `uneven` is allowed,
    /// groups of one size.
    pub fn check(&self, n: usize, name: &str, uneven: bool) -> Result<()> {
        let total: usize = self.0.iter().map(Vec::len).sum();
        if total > n {
            bail!(IndexError, "tuple index out of range");
        }
        if self.0.is_empty() {
            bail!(
                ValueError,
                "Cannot lower jaxpr with verifier errors:\n\treplica groups should be a rank 2 tensor"
            );
        }
        if !uneven && !self.equal_sizes() {
            if name == "all_to_all" {
                bail!(ValueError, "Replica groups must be equally sized");
            }
            bail!(
                ValueError,
                "Cannot lower jaxpr with verifier errors:\n\tInvalid replica id -1"
            );
        }
        if self.0.iter().any(Vec::is_empty) {
            bail!(
                RuntimeError,
                "INTERNAL: during context [hlo verifier]: Instruction cannot have an empty \
                 replica group: {name} with axis_index_groups={}",
                self.fmt()
            );
        }
        if total < n {
            bail!(
                RuntimeError,
                "INTERNAL: during context [hlo verifier]: replica groups should contain {n} \
                 flattened IDs, but found {total}: {name} with axis_index_groups={}",
                self.fmt()
            );
        }
        Ok(())
    }

    /// Whether all_to_all over these groups leaves its operand as it is: JAX
    /// emits no exchange when the first group has one member, whatever the
    /// others. Fails as [`IndexGroups::check`] on an index past the axis.
    pub fn all_to_all_is_identity(&self, n: usize) -> Result<bool> {
        if self.0.iter().map(Vec::len).sum::<usize>() > n {
            bail!(IndexError, "tuple index out of range");
        }
        Ok(self.size() == 1)
    }

    /// The group holding the device of index `rank` within `full` (the
    /// devices along the axes, by index), and that device's rank in it.
    pub fn split(&self, full: &[usize], rank: usize) -> Result<(Vec<usize>, usize)> {
        for g in &self.0 {
            if let Some(r) = g.iter().position(|&i| i == rank) {
                let members = g
                    .iter()
                    .map(|&i| {
                        full.get(i)
                            .copied()
                            .ok_or_else(|| err!(IndexError, "tuple index out of range"))
                    })
                    .collect::<Result<_>>()?;
                return Ok((members, r));
            }
        }
        bail!(
            RuntimeError,
            "axis_index_groups {} leave index {rank} in no group",
            self.fmt()
        )
    }

    /// As JAX prints the parameter: `((0, 1), (2, 3))`.
    pub fn fmt(&self) -> String {
        let tuple = |items: Vec<String>| {
            if items.len() == 1 {
                format!("({},)", items[0])
            } else {
                format!("({})", items.join(", "))
            }
        };
        tuple(
            self.0
                .iter()
                .map(|g| tuple(g.iter().map(|i| i.to_string()).collect()))
                .collect(),
        )
    }
}

/// `axis_index_groups` as JAX prints it: the groups or `None`.
fn fmt_groups(groups: &Option<IndexGroups>) -> String {
    groups.as_ref().map_or("None".into(), IndexGroups::fmt)
}

impl CollectiveKind {
    /// The group axes.
    pub fn axes(&self) -> &[String] {
        use CollectiveKind::*;
        match self {
            Psum { axes, .. }
            | PsumInvariant { axes }
            | Pmax { axes, .. }
            | Pmin { axes, .. }
            | AllGather { axes, .. }
            | PsumScatter { axes, .. }
            | Ppermute { axes, .. }
            | AllToAll { axes, .. }
            | AxisIndex { axes }
            | Pvary { axes } => axes,
        }
    }

    /// JAX's `axis_index_groups`, for the collectives that take them.
    pub fn index_groups(&self) -> Option<&IndexGroups> {
        use CollectiveKind::*;
        match self {
            Psum { groups, .. }
            | Pmax { groups, .. }
            | Pmin { groups, .. }
            | AllGather { groups, .. }
            | PsumScatter { groups, .. }
            | AllToAll { groups, .. } => groups.as_ref(),
            _ => None,
        }
    }

    /// JAX's primitive name.
    pub fn name(&self) -> &'static str {
        use CollectiveKind::*;
        match self {
            Psum { .. } => "psum",
            PsumInvariant { .. } => "psum_invariant",
            Pmax { .. } => "pmax",
            Pmin { .. } => "pmin",
            AllGather {
                invariant: false, ..
            } => "all_gather",
            AllGather {
                invariant: true, ..
            } => "all_gather_invariant",
            PsumScatter { .. } => "reduce_scatter",
            Ppermute { .. } => "ppermute",
            AllToAll { .. } => "all_to_all",
            AxisIndex { .. } => "axis_index",
            Pvary { .. } => "pvary",
        }
    }

    /// Parameters for the jaxpr printer. `size` is the group size (JAX's
    /// `axis_size` parameter of all_gather and reduce_scatter), when known.
    pub fn params_sized(&self, size: Option<usize>) -> Vec<(String, String)> {
        use CollectiveKind::*;
        let axes = fmt_names(self.axes());
        let b = |v: bool| if v { "True" } else { "False" }.to_string();
        let size = self.index_groups().map(IndexGroups::size).or(size);
        let axis_size = || size.map(|n| ("axis_size".to_string(), n.to_string()));
        match self {
            Psum { groups, .. } | Pmax { groups, .. } | Pmin { groups, .. } => vec![
                ("axes".into(), axes),
                ("axis_index_groups".into(), fmt_groups(groups)),
            ],
            PsumInvariant { .. } | Pvary { .. } => vec![("axes".into(), axes)],
            AllGather {
                axis,
                tiled,
                groups,
                invariant,
                ..
            } => {
                let mut p = vec![("all_gather_dimension".into(), axis.to_string())];
                if !invariant {
                    p.push(("axis_index_groups".into(), fmt_groups(groups)));
                }
                p.push(("axis_name".into(), axes));
                p.extend(axis_size());
                p.push(("tiled".into(), b(*tiled)));
                p
            }
            PsumScatter {
                dim, tiled, groups, ..
            } => {
                let mut p = vec![
                    ("axis_index_groups".into(), fmt_groups(groups)),
                    ("axis_name".into(), axes),
                ];
                p.extend(axis_size());
                p.push(("scatter_dimension".into(), dim.to_string()));
                p.push(("tiled".into(), b(*tiled)));
                p
            }
            Ppermute { perm, .. } => {
                let p: Vec<String> = perm.iter().map(|(a, b)| format!("({a}, {b})")).collect();
                let perm = if p.len() == 1 {
                    format!("({},)", p[0])
                } else {
                    format!("({})", p.join(", "))
                };
                vec![("axis_name".into(), axes), ("perm".into(), perm)]
            }
            AllToAll {
                split_axis,
                concat_axis,
                tiled,
                groups,
                ..
            } => vec![
                ("axis_index_groups".into(), fmt_groups(groups)),
                ("axis_name".into(), axes),
                ("concat_axis".into(), concat_axis.to_string()),
                ("split_axis".into(), split_axis.to_string()),
                ("tiled".into(), b(*tiled)),
            ],
            AxisIndex { axes, .. } => vec![("axis_name".into(), axes.join(","))],
        }
    }

    /// Parameters for the jaxpr printer, without the group size.
    pub fn params(&self) -> Vec<(String, String)> {
        self.params_sized(None)
    }
}

/// The number of devices in each group over `axes`, or JAX's NameError for an
/// axis no enclosing map binds (listing those that are bound).
pub fn group_size(axes: &[String], env: &AxisEnv) -> Result<usize> {
    let mut n = 1;
    for (i, a) in axes.iter().enumerate() {
        if axes[..i].contains(a) {
            bail!(
                ValueError,
                "axis name '{a}' appears twice in {}",
                fmt_names(axes)
            );
        }
        let size = env.sizes.get(a).ok_or_else(|| {
            let bound: Vec<String> = env.sizes.keys().cloned().collect();
            if bound.is_empty() {
                err!(
                    NameError,
                    "unbound axis name: {a}. No axis names are bound here: collectives must be \
                     called inside shard_map, pmap or vmap(axis_name=...)"
                )
            } else {
                err!(
                    NameError,
                    "unbound axis name: {a}. The axis names bound here are {}",
                    fmt_names(&bound)
                )
            }
        })?;
        n *= size;
    }
    Ok(n)
}

/// Validates a permutation of group ranks.
pub fn check_perm(perm: &[(usize, usize)], n: usize) -> Result<()> {
    let mut src = vec![false; n];
    let mut dst = vec![false; n];
    for &(s, d) in perm {
        if s >= n || d >= n {
            bail!(
                ValueError,
                "ppermute: pair ({s}, {d}) names a rank outside the group of size {n}"
            );
        }
        if std::mem::replace(&mut src[s], true) {
            bail!(ValueError, "ppermute sources and destinations must be unique, got {perm:?}: source {s} repeats");
        }
        if std::mem::replace(&mut dst[d], true) {
            bail!(ValueError, "ppermute sources and destinations must be unique, got {perm:?}: destination {d} repeats");
        }
    }
    Ok(())
}

/// An axis name as JAX's messages show the argument: the name alone, or a
/// tuple of names.
fn axis_name_arg(axes: &[String]) -> String {
    match axes {
        [one] => one.clone(),
        _ => fmt_names(axes),
    }
}

/// The output shape of a collective applied to `shape` with groups of `n`.
pub fn out_shape(kind: &CollectiveKind, shape: &[usize], n: usize) -> Result<Vec<usize>> {
    use CollectiveKind::*;
    let mut s = shape.to_vec();
    let check_dim = |d: usize, what: &str| -> Result<()> {
        if d >= shape.len() {
            bail!(
                ValueError,
                "{}: {what} {d} is out of bounds for shape {shape:?}",
                kind.name()
            );
        }
        Ok(())
    };
    match kind {
        Psum { .. } | PsumInvariant { .. } | Pmax { .. } | Pmin { .. } | Pvary { .. } => {}
        AxisIndex { .. } => s = vec![],
        Ppermute { perm, .. } => check_perm(perm, n)?,
        AllGather { axis, tiled, .. } => {
            if *tiled {
                check_dim(*axis, "all_gather_dimension")?;
                s[*axis] *= n;
            } else {
                if *axis > shape.len() {
                    bail!(
                        ValueError,
                        "all_gather: axis {axis} is out of bounds for shape {shape:?}"
                    );
                }
                s.insert(*axis, n);
            }
        }
        PsumScatter { dim, tiled, .. } => {
            check_dim(*dim, "scatter_dimension")?;
            if *tiled {
                if s[*dim] % n != 0 {
                    bail!(ValueError, "tiled reduce_scatter operand scatter dimension size {} must be divisible by shard_count {n}", s[*dim]);
                }
                s[*dim] /= n;
            } else {
                if s[*dim] != n {
                    bail!(ValueError, "reduce_scatter operand scatter dimension size {} must match shard count {n}", s[*dim]);
                }
                s.remove(*dim);
            }
        }
        AllToAll {
            split_axis,
            concat_axis,
            tiled,
            ..
        } => {
            check_dim(*split_axis, "split_axis")?;
            if *tiled {
                check_dim(*concat_axis, "concat_axis")?;
                if s[*split_axis] % n != 0 {
                    bail!(ValueError, "The size of all_to_all split_axis ({}) has to be divisible by the size of the named axis {} ({n})", s[*split_axis], axis_name_arg(kind.axes()));
                }
                s[*split_axis] /= n;
                s[*concat_axis] *= n;
            } else {
                if s[*split_axis] != n {
                    bail!(ValueError, "all_to_all requires the size of the mapped axis axis_name to equal x.shape[split_axis], but they are {n} and {} respectively.", s[*split_axis]);
                }
                s.remove(*split_axis);
                if *concat_axis > s.len() {
                    bail!(
                        ValueError,
                        "all_to_all: concat_axis {concat_axis} is out of bounds"
                    );
                }
                s.insert(*concat_axis, n);
            }
        }
    }
    Ok(s)
}

/// Shape and VMA rule.
pub fn abstract_eval(kind: &CollectiveKind, ins: &[Aval], env: &AxisEnv) -> Result<Vec<Aval>> {
    use CollectiveKind::*;
    let mut n = group_size(kind.axes(), env)?;
    if let Some(groups) = kind.index_groups() {
        n = groups.size();
        if let (AllToAll { .. }, Some(x)) = (kind, ins.first()) {
            // JAX checks all_to_all's shape before binding, so before vmap
            // refuses the groups.
            out_shape(kind, &x.shape, n)?;
        }
        refuse_vmapped_groups(kind, env)?;
    }
    let axes: AxisSet = kind.axes().iter().cloned().collect();
    let (shape, dtype, vma) = match kind {
        AxisIndex { .. } => (
            vec![],
            crate::array::DType::I32,
            axes.intersection(&env.tracked).cloned().collect(),
        ),
        _ => {
            let x = &ins[0];
            let vma: AxisSet = match kind {
                PsumInvariant { .. } => {
                    if let Some(a) = axes.iter().find(|a| !x.vma.contains(*a)) {
                        bail!(ValueError, "psum_invariant over {} of a value that does not vary over '{a}' (its varying axes are {:?})", fmt_names(kind.axes()), x.vma);
                    }
                    x.vma.difference(&axes).cloned().collect()
                }
                Psum { .. }
                | Pmax { .. }
                | Pmin { .. }
                | AllGather {
                    invariant: true, ..
                } => x.vma.difference(&axes).cloned().collect(),
                Pvary { .. } => x.vma.union(&axes).cloned().collect(),
                _ => x
                    .vma
                    .union(&axes.intersection(&env.tracked).cloned().collect())
                    .cloned()
                    .collect(),
            };
            (out_shape(kind, &x.shape, n)?, x.dtype, vma)
        }
    };
    Ok(vec![Aval {
        shape,
        dtype,
        vma,
        weak: false,
    }])
}

/// JAX's refusal of `axis_index_groups` over an axis bound by vmap.
fn refuse_vmapped_groups(kind: &CollectiveKind, env: &AxisEnv) -> Result<()> {
    use CollectiveKind::*;
    if !kind.axes().iter().any(|a| env.vmapped.contains(a)) {
        return Ok(());
    }
    match kind {
        AllGather { .. } | PsumScatter { .. } => {
            bail!(
                NotImplementedError,
                "axis_index_groups not supported in vmap"
            )
        }
        AllToAll { .. } => bail!(NotImplementedError, "Please open a feature request!"),
        _ => bail!(
            NotImplementedError,
            "axis_index_groups not supported in vmap collectives. Please open a feature request!"
        ),
    }
}

/// The transpose of a linear collective, or None for the nonlinear ones.
fn transpose_kind(kind: &CollectiveKind) -> Option<CollectiveKind> {
    use CollectiveKind::*;
    Some(match kind.clone() {
        Psum { axes, groups } => Psum { axes, groups },
        PsumInvariant { axes } => Pvary { axes },
        Pvary { axes } => PsumInvariant { axes },
        AllGather {
            axes,
            groups,
            axis,
            tiled,
            invariant: false,
        } => PsumScatter {
            axes,
            groups,
            dim: axis,
            tiled,
        },
        PsumScatter {
            axes,
            groups,
            dim,
            tiled,
        } => AllGather {
            axes,
            groups,
            axis: dim,
            tiled,
            invariant: false,
        },
        Ppermute { axes, perm } => Ppermute {
            axes,
            perm: perm.iter().map(|&(s, d)| (d, s)).collect(),
        },
        AllToAll {
            axes,
            groups,
            split_axis,
            concat_axis,
            tiled,
        } => AllToAll {
            axes,
            groups,
            split_axis: concat_axis,
            concat_axis: split_axis,
            tiled,
        },
        AllGather {
            invariant: true, ..
        }
        | Pmax { .. }
        | Pmin { .. }
        | AxisIndex { .. } => return None,
    })
}

fn no_rule(kind: &CollectiveKind) -> crate::error::Error {
    err!(
        NotImplementedError,
        "Differentiation rule for '{}' not implemented",
        kind.name()
    )
}

/// Forward-mode rule: linear collectives apply themselves to the tangent.
pub fn jvp(kind: &CollectiveKind, _p: &[Value], t: &[Option<Value>]) -> Result<Vec<Option<Value>>> {
    match (kind, &t.first()) {
        (CollectiveKind::AxisIndex { .. }, _) => Ok(vec![None]),
        (CollectiveKind::Pmax { .. } | CollectiveKind::Pmin { .. }, Some(Some(_))) => {
            Err(no_rule(kind))
        }
        (_, Some(Some(tx))) => Ok(vec![Some(bind1(
            Prim::Collective(kind.clone()),
            std::slice::from_ref(tx),
        )?)]),
        _ => Ok(vec![None]),
    }
}

/// Reverse-mode rule: the transpose collective applied to the cotangent.
pub fn vjp(
    kind: &CollectiveKind,
    p: &[Value],
    cts: &[Option<Value>],
) -> Result<Vec<Option<Value>>> {
    let Some(ct) = &cts[0] else {
        return Ok(vec![None; p.len()]);
    };
    if p.is_empty() || p[0].dtype() != crate::array::DType::F32 {
        return Ok(vec![None; p.len()]);
    }
    if let CollectiveKind::AllGather {
        axes,
        axis,
        tiled,
        invariant: true,
        ..
    } = kind
    {
        return Ok(vec![Some(own_block(
            ct,
            axes,
            *axis,
            *tiled,
            &p[0].shape(),
        )?)]);
    }
    let t = transpose_kind(kind).ok_or_else(|| no_rule(kind))?;
    Ok(vec![Some(bind1(
        Prim::Collective(t),
        std::slice::from_ref(ct),
    )?)])
}

/// The transpose of an invariant all_gather: the cotangent is one value shared
/// by the group, and each member's input contributed only its own block of it.
fn own_block(
    ct: &Value,
    axes: &[String],
    axis: usize,
    tiled: bool,
    in_shape: &[usize],
) -> Result<Value> {
    let idx = crate::ops::axis_index(axes)?;
    if tiled {
        let size = in_shape[axis];
        let start = crate::ops::mul(
            &idx,
            &crate::ops::scalar(size as f64, crate::array::DType::I32),
        )?;
        crate::ops::dynamic_slice_in_dim(ct, &start, size, axis as i64)
    } else {
        let block = crate::ops::dynamic_slice_in_dim(ct, &idx, 1, axis as i64)?;
        crate::ops::reshape(&block, in_shape)
    }
}
