//! Collectives over a fabric that lends (see "Lending" in [`crate::fabric`]):
//! members read each other's operands where they lie instead of copying them
//! through slots, and share one result buffer where the result is the same
//! for all of them.

use std::any::Any;
use std::sync::Arc;

use super::layout::{buffer_words, place, AllToAllPlan, GatherPlan, SplitPlan};
use super::reduce::{fold_from, mean_in_place, ReduceOp};
use super::shared::SharedWords;
use super::DeviceCtx;
use super::SMALL_ALLREDUCE_WORDS;
use crate::array::{Array, Buffer, DType};
use crate::err;
use crate::error::Result;
use crate::fabric::Lending;

/// Words folded per block: the block stays in cache while every member's
/// operand streams past it, and is then written out once.
const FOLD_BLOCK: usize = 1 << 12;

/// What device `from` lent in epoch `epoch`, as a `T`.
fn borrowed<T: Any + Send + Sync>(
    lending: &dyn Lending,
    from: usize,
    epoch: u64,
    what: &str,
) -> Result<Arc<T>> {
    lending
        .borrow(from, epoch)
        .and_then(|v| v.downcast::<T>().ok())
        .ok_or_else(|| {
            err!(
                RuntimeError,
                "{what}: device {from} lent nothing in epoch {epoch}; every device must \
                 run the same collectives in the same order"
            )
        })
}

/// One device's call of a collective over a fabric that lends: the device,
/// the fabric's lending, the collective (named as at the barrier), and the
/// device's group in rank order with its own rank.
pub(crate) struct LentCall<'a> {
    pub ctx: &'a DeviceCtx<'a>,
    pub lending: &'a dyn Lending,
    pub what: &'a str,
    pub members: &'a [usize],
    pub rank: usize,
}

/// What a member lends for an all-reduce: its operand, and, from the
/// member of rank 0, the buffer everyone writes its share of the result into.
struct Offer {
    input: Buffer,
    out: Option<SharedWords>,
}

/// An all-reduce with `op` over the group `members` (this device has rank
/// `rank`), divided by `mean` when given (pmean's divisor), with two barriers
/// whatever the size:
/// 1. epoch `e`: each member lends its operand, and rank 0 also an unwritten
///    result buffer; barrier;
/// 2. epoch `e + 1`: each member folds its `1/p` share straight from the
///    borrowed operands, in rank order (the folds of the slot path and of
///    lockstep, so the same bits), and writes it into the result buffer;
///    barrier;
/// 3. every member holds the one result buffer, which nobody writes again.
///
/// Operands of at most [`SMALL_ALLREDUCE_WORDS`] words are folded whole by
/// every member into its own result after step 1, with one barrier: a second
/// barrier costs more than the redundant additions.
pub(crate) fn all_reduce(
    call: &LentCall,
    x: &Array,
    op: ReduceOp,
    mean: Option<usize>,
) -> Result<Array> {
    let (lending, what, members, rank) = (call.lending, call.what, call.members, call.rank);
    let (fabric, me) = (call.ctx.fabric, call.ctx.position);
    let (n, p, dtype) = (x.size(), members.len(), x.dtype());
    let out_dtype = if mean.is_some() {
        DType::F32
    } else {
        op.result_dtype(dtype)
    };
    let small = n <= SMALL_ALLREDUCE_WORDS;
    let e0 = fabric.epoch(me);
    lending.lend(
        me,
        Arc::new(Offer {
            input: x.buffer().clone(),
            out: (rank == 0 && !small).then(|| SharedWords::new(n)),
        }),
    );
    fabric.barrier(me, what)?;
    let offers = members
        .iter()
        .map(|&m| borrowed::<Offer>(lending, m, e0, what))
        .collect::<Result<Vec<_>>>()?;
    if let Some(o) = offers.iter().find(|o| o.input.len() != n) {
        return Err(err!(
            RuntimeError,
            "{what}: a member lent {} elements instead of {n}",
            o.input.len()
        ));
    }
    // Folds elements `at..at + block.len()` of every operand into `block`.
    let reduce_into = |at: usize, block: &mut [u32]| {
        buffer_words(&offers[0].input, at, block);
        for o in &offers[1..] {
            fold_from(op, dtype, block, &o.input, at);
        }
        if let Some(divisor) = mean {
            mean_in_place(block, dtype, divisor);
        }
    };
    if small {
        let mut words = vec![0u32; n];
        reduce_into(0, &mut words);
        return Array::from_words(x.shape(), out_dtype, &words);
    }
    let out = offers[0]
        .out
        .clone()
        .filter(|o| o.len() == n)
        .ok_or_else(|| err!(RuntimeError, "{what}: rank 0 lent no result buffer"))?;
    // Rank r's share is r*n/p..(r+1)*n/p: the shares of ranks 0..p cover
    // 0..n without overlap, so once every member has written its own, every
    // word of `out` is written.
    let (s, e) = (rank * n / p, (rank + 1) * n / p);
    let mut block = vec![0u32; FOLD_BLOCK.min(e - s)];
    for at in (s..e).step_by(FOLD_BLOCK) {
        let block = &mut block[..FOLD_BLOCK.min(e - at)];
        reduce_into(at, block);
        // SAFETY: this member alone writes its share `s..e` of `out`, and
        // nobody reads `out` before the barrier below.
        unsafe { out.write(at, block) };
    }
    drop(offers);
    fabric.barrier(me, what)?;
    // SAFETY: every member wrote its share before entering the barrier just
    // passed, the shares cover `out`, and nobody writes it after.
    let buffer = unsafe { out.into_buffer(out_dtype) };
    Array::from_buffer(x.shape(), buffer)
}

/// Lends `x`'s buffer, passes a barrier, and borrows the buffers that the
/// devices `from` lent, each checked to hold `x.size()` elements of `x`'s
/// dtype (every device runs the same collective on the same shapes).
fn exchange_operands(call: &LentCall, x: &Array, from: &[usize]) -> Result<Vec<Arc<Buffer>>> {
    let (fabric, me, lending, what) = (call.ctx.fabric, call.ctx.position, call.lending, call.what);
    let e0 = fabric.epoch(me);
    lending.lend(me, Arc::new(x.buffer().clone()));
    fabric.barrier(me, what)?;
    from.iter()
        .map(|&m| {
            let b = borrowed::<Buffer>(lending, m, e0, what)?;
            if b.len() != x.size() || b.dtype() != x.dtype() {
                return Err(err!(
                    RuntimeError,
                    "{what}: device {m} lent {} elements of {} instead of {} of {}",
                    b.len(),
                    b.dtype().name(),
                    x.size(),
                    x.dtype().name()
                ));
            }
            Ok(b)
        })
        .collect()
}

/// `ppermute` over a fabric that lends, with one barrier and no copy: the
/// receiver's result shares the buffer of the sender's operand. `source` is
/// the device this one receives from, if any (every device lends, so that
/// all pass the same barrier).
pub(crate) fn ppermute(call: &LentCall, x: &Array, source: Option<usize>) -> Result<Array> {
    let from: Vec<usize> = source.into_iter().collect();
    match exchange_operands(call, x, &from)?.first() {
        Some(b) => Array::from_buffer(x.shape(), Buffer::clone(b)),
        None => Array::from_words(x.shape(), x.dtype(), &vec![0; x.size()]),
    }
}

/// `all_gather` over a fabric that lends. Each member's flat operand goes to
/// `[:, r, :]` of the `[outer, p, inner]` result (`plan`). Small results are
/// copied by every member from the lent operands after one barrier; larger
/// ones are built once, with two barriers: rank 0 lends an unwritten result,
/// each member writes its own operand into it, and all share it.
pub(crate) fn all_gather(call: &LentCall, x: &Array, plan: &GatherPlan) -> Result<Array> {
    let (lending, what, members, rank) = (call.lending, call.what, call.members, call.rank);
    let (fabric, me) = (call.ctx.fabric, call.ctx.position);
    let (n, p) = (x.size(), members.len());
    if n * p <= SMALL_ALLREDUCE_WORDS {
        let inputs = exchange_operands(call, x, members)?;
        let mut out = vec![0u32; n * p];
        let mut words = vec![0u32; n];
        for (r, b) in inputs.iter().enumerate() {
            buffer_words(b, 0, &mut words);
            place(&mut out, plan, p, r, 0, &words);
        }
        return Array::from_words(&plan.out_shape, x.dtype(), &out);
    }
    let e0 = fabric.epoch(me);
    lending.lend(me, Arc::new((rank == 0).then(|| SharedWords::new(n * p))));
    fabric.barrier(me, what)?;
    let out = borrowed::<Option<SharedWords>>(lending, members[0], e0, what)?
        .as_ref()
        .clone()
        .filter(|o| o.len() == n * p)
        .ok_or_else(|| err!(RuntimeError, "{what}: rank 0 lent no result buffer"))?;
    // Member r writes exactly the rows `[:, r, :]`: the members' rows
    // cover the result without overlap.
    let inner = plan.inner;
    let mut block = vec![0u32; FOLD_BLOCK.min(n)];
    for o in 0..plan.outer {
        for at in (0..inner).step_by(FOLD_BLOCK) {
            let block = &mut block[..FOLD_BLOCK.min(inner - at)];
            buffer_words(x.buffer(), o * inner + at, block);
            // SAFETY: this member alone writes its rows `[:, rank, :]`, and
            // nobody reads `out` before the barrier below.
            unsafe { out.write((o * p + rank) * inner + at, block) };
        }
    }
    fabric.barrier(me, what)?;
    // SAFETY: every member wrote its rows before entering the barrier just
    // passed, the rows cover `out`, and nobody writes it after.
    let buffer = unsafe { out.into_buffer(x.dtype()) };
    Array::from_buffer(&plan.out_shape, buffer)
}

/// `psum_scatter` over a fabric that lends, with one barrier: the member of
/// rank `r` folds piece `r` (`[:, r, :]` of `[outer, p, inner]`, `split`)
/// of every member's operand, in rank order, straight from the lent buffers.
pub(crate) fn psum_scatter(
    call: &LentCall,
    x: &Array,
    split: &SplitPlan,
    out_shape: &[usize],
) -> Result<Array> {
    let inputs = exchange_operands(call, x, call.members)?;
    let (p, rank, dtype, inner) = (call.members.len(), call.rank, x.dtype(), split.inner);
    let mut acc = vec![0u32; split.piece_words()];
    for o in 0..split.outer {
        let src = (o * p + rank) * inner;
        for at in (0..inner).step_by(FOLD_BLOCK) {
            let len = FOLD_BLOCK.min(inner - at);
            let block = &mut acc[o * inner + at..o * inner + at + len];
            buffer_words(&inputs[0], src + at, block);
            for b in &inputs[1..] {
                fold_from(ReduceOp::Sum, dtype, block, b, src + at);
            }
        }
    }
    Array::from_words(out_shape, ReduceOp::Sum.result_dtype(dtype), &acc)
}

/// `all_to_all` over a fabric that lends, with one barrier: the member of
/// rank `r` copies piece `r` of every member's operand (`plan.split`)
/// straight from the lent buffers into its place in the result
/// (`plan.gather`).
pub(crate) fn all_to_all(call: &LentCall, x: &Array, plan: &AllToAllPlan) -> Result<Array> {
    let inputs = exchange_operands(call, x, call.members)?;
    let (p, rank, split) = (call.members.len(), call.rank, &plan.split);
    let mut out = vec![0u32; split.piece_words() * p];
    let mut block = vec![0u32; FOLD_BLOCK.min(split.inner)];
    for (m, b) in inputs.iter().enumerate() {
        for o in 0..split.outer {
            let src = (o * p + rank) * split.inner;
            for at in (0..split.inner).step_by(FOLD_BLOCK) {
                let block = &mut block[..FOLD_BLOCK.min(split.inner - at)];
                buffer_words(b, src + at, block);
                place(&mut out, &plan.gather, p, m, o * split.inner + at, block);
            }
        }
    }
    Array::from_words(&plan.gather.out_shape, x.dtype(), &out)
}
