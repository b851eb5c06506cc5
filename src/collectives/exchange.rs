//! The two exchange patterns every fabric collective is built from, pipelined
//! through the slot halves (see [`crate::fabric`] for the epoch protocol).
//!
//! Arrays larger than half a slot are cut into pieces. In each epoch a device
//! both consumes the piece the others wrote in the previous epoch and writes
//! its next piece, so `K` pieces cost `K` barriers, not `2K`.

use super::layout::{array_words, BLOCK};
use super::reduce::{fold, fold_from, ReduceOp};
use super::DeviceCtx;
use crate::array::{Array, Buffer, DType};
use crate::err;
use crate::error::Result;
use crate::fabric::phases::{timed, Phase};
use crate::fabric::{half_offset, half_words, Elems, ElemsMut, Fabric};

/// Reductions of at most this many words per device skip the reduce-scatter:
/// every member folds the whole array itself after a single barrier. For
/// such sizes a second barrier costs far more than the redundant additions.
pub const SMALL_ALLREDUCE_WORDS: usize = 1024;

/// What a device sends: words, or an array whose words are produced block by
/// block on their way into the slot, which spares a copy of the whole array.
#[derive(Clone, Copy)]
pub(crate) enum Words<'a> {
    /// Words ready to send.
    Slice(&'a [u32]),
    /// An array's elements as [`Array::to_words`] gives them.
    Array(&'a Array),
}

impl Words<'_> {
    fn len(&self) -> usize {
        match self {
            Words::Slice(w) => w.len(),
            Words::Array(x) => x.size(),
        }
    }

    /// Writes words `start..start + len` into `device`'s slot at `offset`:
    /// an array's elements in one typed copy, booleans a block at a time.
    fn write(&self, fabric: &dyn Fabric, device: usize, offset: usize, start: usize, len: usize) {
        if len == 0 {
            return;
        }
        let end = start + len;
        match *self {
            Words::Slice(w) => fabric.write(device, offset, &w[start..end]),
            Words::Array(x) => match x.buffer() {
                Buffer::F32(d) => fabric.write_elems(device, offset, Elems::F32(&d[start..end])),
                Buffer::I32(d) => fabric.write_elems(device, offset, Elems::I32(&d[start..end])),
                Buffer::U32(d) => fabric.write(device, offset, &d[start..end]),
                _ => {
                    let mut block = [0u32; BLOCK];
                    for s in (0..len).step_by(BLOCK) {
                        let block = &mut block[..BLOCK.min(len - s)];
                        array_words(x, start + s, block);
                        fabric.write(device, offset + s, block);
                    }
                }
            },
        }
    }

    /// Words `start..start + out.len()`, into `out`.
    pub(super) fn copy_to(&self, start: usize, out: &mut [u32]) {
        match *self {
            Words::Slice(w) => out.copy_from_slice(&w[start..start + out.len()]),
            Words::Array(x) => array_words(x, start, out),
        }
    }

    /// `acc op` words `start..start + acc.len()`, read where they lie.
    pub(super) fn fold_into(&self, op: ReduceOp, dtype: DType, acc: &mut [u32], start: usize) {
        match *self {
            Words::Slice(w) => fold(op, dtype, acc, &w[start..start + acc.len()]),
            Words::Array(x) => fold_from(op, dtype, acc, x.buffer(), start),
        }
    }

    /// Places words `start..start + len` into `out` at `at`, as elements.
    pub(super) fn place_into(&self, start: usize, len: usize, out: &mut ElemsMut, at: usize) {
        timed(Phase::Local, || {
            let mut block = [0u32; BLOCK];
            for s in (0..len).step_by(BLOCK) {
                let block = &mut block[..BLOCK.min(len - s)];
                self.copy_to(start + s, block);
                out.set_words(at + s, block);
            }
        })
    }

    /// Words `start..start + len`.
    fn range(&self, start: usize, len: usize) -> Vec<u32> {
        let mut out = vec![0u32; len];
        self.copy_to(start, &mut out);
        out
    }
}

fn too_small(ctx: &DeviceCtx, what: &str, need: usize) -> crate::error::Error {
    err!(
        RuntimeError,
        "{what}: the fabric's slots ({} words) are too small: this exchange needs at \
         least {} words per slot",
        ctx.fabric.slot_words(),
        2 * need
    )
}

/// The shape of an exchange in which every device sends `chunks` chunks of
/// `chunk_words` words each and reads one chunk from each of some devices.
///
/// Every device of the fabric must run the same exchange (same fields): they
/// fix the number of barriers.
pub(crate) struct Exchange<'a> {
    /// The collective, for errors: `all_gather over ('x',)`.
    pub what: &'a str,
    /// Members of each group. With groups of one, a device's own words are
    /// consumed without a barrier.
    pub group_size: usize,
    /// Chunks each device sends.
    pub chunks: usize,
    /// Words in each chunk.
    pub chunk_words: usize,
}

/// Where a piece of a source's chunk lies in the fabric, for the consumer of
/// [`Exchange::run_with`] to read.
#[derive(Clone, Copy)]
pub(crate) struct Lies {
    /// The device whose slot holds it.
    pub from: usize,
    /// Its offset in that slot.
    pub offset: usize,
}

impl Exchange<'_> {
    /// Sends `send` (the chunks one after another; `None` for a device that
    /// sends nothing) and reads chunk `chunk` of every device in `sources`.
    /// `consume` receives `(index in sources, start within the chunk, words)`
    /// for each piece, sources in order within a piece.
    pub fn run(
        &self,
        ctx: &DeviceCtx,
        send: Option<Words>,
        sources: &[usize],
        chunk: usize,
        mut consume: impl FnMut(usize, usize, &[u32]),
    ) -> Result<()> {
        let mut buf = vec![];
        let chunk_at = chunk * self.chunk_words;
        self.run_with(
            ctx,
            send,
            None,
            sources,
            chunk,
            |i, start, len, lies| match (lies, send) {
                (Some(at), _) => {
                    buf.resize(len.max(buf.len()), 0);
                    ctx.fabric.read(at.from, at.offset, &mut buf[..len]);
                    consume(i, start, &buf[..len]);
                }
                (None, Some(send)) => consume(i, start, &send.range(chunk_at + start, len)),
                (None, None) => {}
            },
        )
    }

    /// [`Exchange::run`], with the consumer reading each piece itself from
    /// where it lies (`None`: this device's own words, in a group of one),
    /// so that it can read straight into its result or not read at all.
    /// Chunk `keep` of `send` (if any) is not written: its reader is this
    /// device, which takes it from its own words.
    pub fn run_with(
        &self,
        ctx: &DeviceCtx,
        send: Option<Words>,
        keep: Option<usize>,
        sources: &[usize],
        chunk: usize,
        mut consume: impl FnMut(usize, usize, usize, Option<Lies>),
    ) -> Result<()> {
        let Exchange {
            what,
            group_size,
            chunks,
            chunk_words,
        } = *self;
        if chunk_words == 0 {
            return Ok(());
        }
        if group_size == 1 {
            if send.is_some() {
                for i in 0..sources.len() {
                    consume(i, 0, chunk_words, None);
                }
            }
            return Ok(());
        }
        let (fabric, me) = (ctx.fabric, ctx.position);
        let m = chunk_words.min(half_words(fabric) / chunks);
        if m == 0 {
            return Err(too_small(ctx, what, chunks));
        }
        let pieces = chunk_words.div_ceil(m);
        let piece = |k: usize| (k * m, ((k + 1) * m).min(chunk_words));
        let e0 = fabric.epoch(me);
        for t in 0..=pieces {
            let epoch = e0 + t as u64;
            if t >= 1 {
                let (start, end) = piece(t - 1);
                let len = end - start;
                let offset = half_offset(fabric, epoch - 1) + chunk * len;
                for (i, &from) in sources.iter().enumerate() {
                    consume(i, start, len, Some(Lies { from, offset }));
                }
            }
            if t < pieces {
                let (start, end) = piece(t);
                let len = end - start;
                if let Some(send) = send {
                    let base = half_offset(fabric, epoch);
                    for j in (0..chunks).filter(|&j| Some(j) != keep) {
                        send.write(fabric, me, base + j * len, j * chunk_words + start, len);
                    }
                }
                fabric.barrier(me, what)?;
            }
        }
        Ok(())
    }
}

thread_local! {
    /// Scratch words reused by the all-reduce of this thread, so that a device
    /// running many collectives allocates its working space once.
    static SCRATCH: std::cell::RefCell<Vec<u32>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Runs `f` on `len` scratch words of this thread (their contents are
/// whatever the last user left), or on fresh ones if the scratch is in use.
fn with_scratch<R>(len: usize, f: impl FnOnce(&mut [u32]) -> R) -> R {
    SCRATCH.with(|cell| match cell.try_borrow_mut() {
        Ok(mut v) => {
            if v.len() < len {
                timed(Phase::Alloc, || v.resize(len, 0));
            }
            f(&mut v[..len])
        }
        Err(_) => f(&mut timed(Phase::Alloc, || vec![0u32; len])),
    })
}

/// [`all_reduce`] of at most [`SMALL_ALLREDUCE_WORDS`] words: every member
/// writes its words once, and each reads all of them and reduces them in
/// rank order.
fn all_reduce_small(
    ctx: &DeviceCtx,
    what: &str,
    (op, dtype): (ReduceOp, DType),
    members: &[usize],
    words: Words,
    out: &mut ElemsMut,
) -> Result<()> {
    let (fabric, me, n) = (ctx.fabric, ctx.position, words.len());
    let e0 = fabric.epoch(me);
    words.write(fabric, me, half_offset(fabric, e0), 0, n);
    fabric.barrier(me, what)?;
    let base = half_offset(fabric, e0);
    let mut acc = [0u32; SMALL_ALLREDUCE_WORDS];
    let mut buf = [0u32; SMALL_ALLREDUCE_WORDS];
    let (acc, buf) = (&mut acc[..n], &mut buf[..n]);
    fabric.read(members[0], base, acc);
    for &src in &members[1..] {
        fabric.read(src, base, buf);
        fold(op, dtype, acc, buf);
    }
    out.set_words(0, acc);
    Ok(())
}

/// [`all_reduce`] over two members: each writes its whole operand, a piece
/// per epoch, reads the other's piece straight into `out` and folds its own
/// into it. The same words cross the fabric as through a reduce-scatter
/// (the operand in, the other's operand out, where the reduce-scatter moves
/// half of each twice), but with one barrier per piece instead of one more
/// than the pieces, and without working space.
fn all_reduce_pair(
    ctx: &DeviceCtx,
    what: &str,
    (op, dtype): (ReduceOp, DType),
    members: &[usize],
    rank: usize,
    words: Words,
    out: &mut ElemsMut,
) -> Result<()> {
    let other = [members[1 - rank]];
    Exchange {
        what,
        group_size: 2,
        chunks: 1,
        chunk_words: words.len(),
    }
    .run_with(ctx, Some(words), None, &other, 0, |_, start, len, lies| {
        if let Some(at) = lies {
            ctx.fabric
                .read_elems(at.from, at.offset, out.range(start, start + len));
        }
        timed(Phase::Fold, || {
            fold_pair(op, dtype, rank, words, out, start, len)
        });
    })
}

/// Element `i` of `out[start..start + len]` (the other member's operand)
/// made `x0[i] op x1[i]`, with this member's operand `words` as `x{rank}`:
/// the rank order of [`fold`], a cache-sized block at a time.
fn fold_pair(
    op: ReduceOp,
    dtype: DType,
    rank: usize,
    words: Words,
    out: &mut ElemsMut,
    start: usize,
    len: usize,
) {
    let mut acc = [0u32; BLOCK];
    let mut next = [0u32; BLOCK];
    for s in (0..len).step_by(BLOCK) {
        let b = BLOCK.min(len - s);
        let (acc, next) = (&mut acc[..b], &mut next[..b]);
        if rank == 0 {
            words.copy_to(start + s, acc);
            out.words(start + s, next);
            fold(op, dtype, acc, next);
        } else {
            out.words(start + s, acc);
            words.fold_into(op, dtype, acc, start + s);
        }
        out.set_words(start + s, acc);
    }
}

/// How [`all_reduce`] cuts `n` words for `p` members into pieces that fit
/// half a slot of `half` words, each half holding [this member's reduced
/// share of a piece | a piece]: the piece length, or None if not even one
/// word fits.
fn all_reduce_piece(n: usize, p: usize, half: usize) -> Option<usize> {
    let mut m = (half * p / (p + 1)).min(n);
    while m > 0 && m + m.div_ceil(p) > half {
        m -= 1;
    }
    (m > 0).then_some(m)
}

/// All-reduce of `words` (values of `dtype`) over the group `members`, in
/// which this device has rank `rank`, into `out`: reduce-scatter then
/// all-gather, so each member reduces `1/p` of the data, reading its share
/// from every member in rank order. Small arrays take a single exchange
/// instead ([`SMALL_ALLREDUCE_WORDS`]).
///
/// Every word crosses the fabric at most once each way: a member writes the
/// others' shares of its operand (its own share it folds from where it
/// lies), its reduced share, and reads the others' reduced shares straight
/// into `out`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn all_reduce(
    ctx: &DeviceCtx,
    what: &str,
    op: ReduceOp,
    dtype: DType,
    members: &[usize],
    rank: usize,
    words: Words,
    out: &mut ElemsMut,
) -> Result<()> {
    let (fabric, me) = (ctx.fabric, ctx.position);
    let (n, p) = (words.len(), members.len());
    if n == 0 || p == 1 {
        words.place_into(0, n, out, 0);
        return Ok(());
    }
    let half = half_words(fabric);
    if n <= SMALL_ALLREDUCE_WORDS && n <= half {
        return all_reduce_small(ctx, what, (op, dtype), members, words, out);
    }
    if p == 2 {
        return all_reduce_pair(ctx, what, (op, dtype), members, rank, words, out);
    }
    let m = all_reduce_piece(n, p, half).ok_or_else(|| too_small(ctx, what, 2))?;
    let share_cap = m.div_ceil(p);
    let pieces = n.div_ceil(m);
    let piece = |k: usize| (k * m, ((k + 1) * m).min(n));
    // Member r's share of a piece of `len` words.
    let share = |r: usize, len: usize| (r * len / p, (r + 1) * len / p);

    with_scratch(2 * share_cap, |scratch| {
        let (acc, buf) = scratch.split_at_mut(share_cap);
        let e0 = fabric.epoch(me);
        for t in 0..=pieces + 1 {
            let epoch = e0 + t as u64;
            let write_base = half_offset(fabric, epoch);
            let read_base = half_offset(fabric, epoch.wrapping_sub(1));
            if t >= 2 {
                // Gather the others' reduced shares of piece t - 2 (this
                // member's own went out when it was reduced).
                let (start, end) = piece(t - 2);
                for (r, &src) in members.iter().enumerate().filter(|&(r, _)| r != rank) {
                    let (s, e) = share(r, end - start);
                    fabric.read_elems(src, read_base, out.range(start + s, start + e));
                }
            }
            if (1..=pieces).contains(&t) {
                // Reduce this member's share of piece t - 1, in rank order.
                let (start, end) = piece(t - 1);
                let (s, e) = share(rank, end - start);
                let (acc, buf) = (&mut acc[..e - s], &mut buf[..e - s]);
                let at = read_base + share_cap + s;
                for (r, &src) in members.iter().enumerate() {
                    match (r == rank, r == 0) {
                        (true, true) => timed(Phase::Local, || words.copy_to(start + s, acc)),
                        (true, false) => {
                            timed(Phase::Fold, || words.fold_into(op, dtype, acc, start + s))
                        }
                        (false, true) => fabric.read(src, at, acc),
                        (false, false) => {
                            fabric.read(src, at, buf);
                            timed(Phase::Fold, || fold(op, dtype, acc, buf));
                        }
                    }
                }
                fabric.write(me, write_base, acc);
                timed(Phase::Local, || out.set_words(start + s, acc));
            }
            if t < pieces {
                // Every share of piece t but this member's own, which it
                // folds from its operand.
                let (start, end) = piece(t);
                let (s, e) = share(rank, end - start);
                let base = write_base + share_cap;
                words.write(fabric, me, base, start, s);
                words.write(fabric, me, base + e, start + e, end - start - e);
            }
            if t <= pieces {
                fabric.barrier(me, what)?;
            }
        }
        Ok(())
    })
}
