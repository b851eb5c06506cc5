//! The two exchange patterns every fabric collective is built from, pipelined
//! through the slot halves (see [`crate::fabric`] for the epoch protocol).
//!
//! Arrays larger than half a slot are cut into pieces. In each epoch a device
//! both consumes the piece the others wrote in the previous epoch and writes
//! its next piece, so `K` pieces cost `K` barriers, not `2K`.

use super::layout::{array_words, BLOCK};
use super::reduce::{fold, ReduceOp};
use super::DeviceCtx;
use crate::array::{Array, DType};
use crate::err;
use crate::error::Result;
use crate::fabric::{half_offset, half_words, Fabric};

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

    /// Writes words `start..start + len` into `device`'s slot at `offset`.
    fn write(&self, fabric: &dyn Fabric, device: usize, offset: usize, start: usize, len: usize) {
        match *self {
            Words::Slice(w) => fabric.write(device, offset, &w[start..start + len]),
            Words::Array(x) => {
                let mut block = [0u32; BLOCK];
                for s in (0..len).step_by(BLOCK) {
                    let block = &mut block[..BLOCK.min(len - s)];
                    array_words(x, start + s, block);
                    fabric.write(device, offset + s, block);
                }
            }
        }
    }

    /// Words `start..start + len`.
    fn range(&self, start: usize, len: usize) -> Vec<u32> {
        let mut out = vec![0u32; len];
        match *self {
            Words::Slice(w) => out.copy_from_slice(&w[start..start + len]),
            Words::Array(x) => array_words(x, start, &mut out),
        }
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
            if let Some(send) = send {
                let words = send.range(chunk * chunk_words, chunk_words);
                for i in 0..sources.len() {
                    consume(i, 0, &words);
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
        let mut buf = vec![0u32; m];
        let e0 = fabric.epoch(me);
        for t in 0..=pieces {
            let epoch = e0 + t as u64;
            if t >= 1 {
                let (start, end) = piece(t - 1);
                let len = end - start;
                let base = half_offset(fabric, epoch - 1) + chunk * len;
                for (i, &src) in sources.iter().enumerate() {
                    fabric.read(src, base, &mut buf[..len]);
                    consume(i, start, &buf[..len]);
                }
            }
            if t < pieces {
                let (start, end) = piece(t);
                let len = end - start;
                if let Some(send) = send {
                    let base = half_offset(fabric, epoch);
                    for j in 0..chunks {
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
                v.resize(len, 0);
            }
            f(&mut v[..len])
        }
        Err(_) => f(&mut vec![0u32; len]),
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
    mut put: impl FnMut(usize, &[u32]),
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
    put(0, acc);
    Ok(())
}

/// All-reduce of `words` (values of `dtype`) over the group `members`, in
/// which this device has rank `rank`: reduce-scatter then all-gather, so each
/// member reduces `1/p` of the data, reading its share from every member in
/// rank order. Small arrays take a single exchange instead
/// ([`SMALL_ALLREDUCE_WORDS`]).
///
/// The result is handed to `put(start, words)` piece by piece, straight from
/// the fabric, so that the caller can write it into the result's own buffer:
/// the calls cover `0..n` exactly once, in no particular order.
#[allow(clippy::too_many_arguments)]
pub(crate) fn all_reduce(
    ctx: &DeviceCtx,
    what: &str,
    op: ReduceOp,
    dtype: DType,
    members: &[usize],
    rank: usize,
    words: Words,
    mut put: impl FnMut(usize, &[u32]),
) -> Result<()> {
    let (fabric, me) = (ctx.fabric, ctx.position);
    let (n, p) = (words.len(), members.len());
    if n == 0 || p == 1 {
        put(0, &words.range(0, n));
        return Ok(());
    }
    let half = half_words(fabric);
    if n <= SMALL_ALLREDUCE_WORDS && n <= half {
        return all_reduce_small(ctx, what, (op, dtype), members, words, put);
    }

    // Each half holds [this member's reduced share of a piece | a piece].
    let mut m = (half * p / (p + 1)).min(n);
    while m > 0 && m + m.div_ceil(p) > half {
        m -= 1;
    }
    if m == 0 {
        return Err(too_small(ctx, what, 2));
    }
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
                for (r, &src) in members.iter().enumerate() {
                    let (s, e) = share(r, end - start);
                    if r != rank {
                        let buf = &mut buf[..e - s];
                        fabric.read(src, read_base, buf);
                        put(start + s, buf);
                    }
                }
            }
            if (1..=pieces).contains(&t) {
                // Reduce this member's share of piece t - 1, in rank order.
                let (start, end) = piece(t - 1);
                let (s, e) = share(rank, end - start);
                let (acc, buf) = (&mut acc[..e - s], &mut buf[..e - s]);
                fabric.read(members[0], read_base + share_cap + s, acc);
                for &src in &members[1..] {
                    fabric.read(src, read_base + share_cap + s, buf);
                    fold(op, dtype, acc, buf);
                }
                fabric.write(me, write_base, acc);
                put(start + s, acc);
            }
            if t < pieces {
                let (start, end) = piece(t);
                words.write(fabric, me, write_base + share_cap, start, end - start);
            }
            if t <= pieces {
                fabric.barrier(me, what)?;
            }
        }
        Ok(())
    })
}
