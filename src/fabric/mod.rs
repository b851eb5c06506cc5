//! The fabric: N devices, one exchange slot per device, and a barrier.
//!
//! Everything the collectives need from the machine they run on is here, so
//! that they can be written once and run over OS threads ([`ThreadFabric`]) or
//! Web Workers sharing memory.
//!
//! # The exchange protocol
//!
//! Each device owns a slot of [`Fabric::slot_words`] `u32` words. Time is cut
//! into *epochs* by barriers: epoch `k` of a device is the stretch between its
//! `k`-th and `(k+1)`-th call to [`Fabric::barrier`]. Because every device runs
//! the same program, every device passes the same barriers in the same order,
//! so a single barrier over all devices separates the epochs of everyone even
//! when a collective only combines smaller groups.
//!
//! To need only one barrier per exchange, each slot is split into two halves
//! used alternately ([`half_offset`]):
//! - in epoch `k` a device writes only into half `k % 2` of its own slot;
//! - in epoch `k` a device reads only half `(k - 1) % 2` of other slots, which
//!   their owners finished writing before barrier `k`.
//!
//! No two devices then ever touch the same word concurrently with one of them
//! writing: when a device is in epoch `k`, every other device has finished
//! epoch `k - 1` (it reached barrier `k`) and has not started epoch `k + 1`
//! (that needs this device at barrier `k + 1`), so everyone else is reading
//! half `(k - 1) % 2` of this slot while its owner writes half `k % 2`. The
//! barrier gives the release/acquire ordering that makes the words written in
//! epoch `k - 1` visible in epoch `k`. The rule holds across collectives, so
//! consecutive collectives need no barrier in between.
//!
//! # Lending (optional)
//!
//! A fabric whose devices share one address space may also offer
//! [`Lending`]: a device *lends* the others a reference-counted, immutable
//! value (an operand's buffer, a share of a result) instead of copying it into
//! its slot, and the others read it where it lies. The same epochs govern it,
//! with two *lanes* per device in place of the two slot halves:
//! - in epoch `k` a device lends only into lane `k % 2`, tagged `k`, and may
//!   take back (reclaim) what that lane held, lent in epoch `k - 2` or before;
//! - in epoch `k` a device borrows from others only what they lent in epoch
//!   `k - 1`, and drops its borrowed references before its next barrier.
//!
//! Lent values are shared as `Arc<dyn Any + Send + Sync>`, immutable except
//! through `unsafe` code that keeps to the epochs (the result buffers that
//! the members of a group fill together, see `collectives::shared`), so safe
//! callers cannot cause a data race; the protocol decides whether a borrower
//! finds the value it expects (a borrow is checked against the epoch tag and
//! fails instead of returning another epoch's value) and whether a reclaimed
//! value is free for reuse (`Arc::try_unwrap` tells). The default
//! [`Fabric::lending`] offers nothing, and callers then use slots.

pub mod phases;
pub mod threads;

pub use threads::{run_on_threads, ThreadFabric, WaitPolicy, DEFAULT_TIMEOUT};

use std::any::Any;
use std::sync::Arc;

use crate::err;
use crate::error::Result;

/// A value one device lends the others for one epoch.
pub type Lent = Arc<dyn Any + Send + Sync>;

/// Exchange by reference between devices of one address space; see
/// "Lending" in the module documentation for the protocol.
pub trait Lending: Send + Sync {
    /// Puts `value` into lane `epoch % 2` of `device` (its current epoch),
    /// tagged with that epoch. Only `device` itself may call this.
    fn lend(&self, device: usize, value: Lent);

    /// Takes out what lane `epoch % 2` of `device` holds (lent two or more
    /// epochs ago, borrowed by nobody any more if the protocol is kept), so
    /// that `device` can reuse it. Only `device` itself may call this.
    fn reclaim(&self, device: usize) -> Option<Lent>;

    /// What device `from` lent in epoch `epoch`, or `None` if its lane holds
    /// nothing from that epoch.
    fn borrow(&self, from: usize, epoch: u64) -> Option<Lent>;
}

/// N devices that exchange words through per-device slots and meet at a
/// barrier. See the module documentation for the protocol callers follow.
pub trait Fabric: Send + Sync {
    /// Number of devices.
    fn devices(&self) -> usize;

    /// Capacity of each device's slot, in `u32` words.
    fn slot_words(&self) -> usize;

    /// Writes `data` at `offset` into `device`'s own slot.
    ///
    /// Only `device` itself may call this, and only into the half of its slot
    /// that belongs to its current epoch. Panics if the range exceeds the
    /// slot: callers size their exchanges from [`Fabric::slot_words`].
    fn write(&self, device: usize, offset: usize, data: &[u32]);

    /// Reads `out.len()` words at `offset` from the slot of device `from`
    /// (the previous epoch's half when `from` is another device). Panics if the
    /// range exceeds the slot.
    fn read(&self, from: usize, offset: usize, out: &mut [u32]);

    /// [`Fabric::write`] of typed elements, as their words (`to_bits` for
    /// float32). The default converts them a block at a time; a fabric whose
    /// copies have a fixed cost per call (the browser's) copies them whole.
    fn write_elems(&self, device: usize, offset: usize, data: Elems) {
        let mut block = [0u32; ELEMS_BLOCK];
        for s in (0..data.len()).step_by(ELEMS_BLOCK) {
            let block = &mut block[..ELEMS_BLOCK.min(data.len() - s)];
            data.words(s, block);
            self.write(device, offset + s, block);
        }
    }

    /// [`Fabric::read`] into typed elements (`from_bits` for float32); the
    /// counterpart of [`Fabric::write_elems`].
    fn read_elems(&self, from: usize, offset: usize, out: ElemsMut) {
        let mut block = [0u32; ELEMS_BLOCK];
        let mut out = out;
        for s in (0..out.len()).step_by(ELEMS_BLOCK) {
            let block = &mut block[..ELEMS_BLOCK.min(out.len() - s)];
            self.read(from, offset + s, block);
            out.set_words(s, block);
        }
    }

    /// Waits until every device has called `barrier` as many times as
    /// `device` has (including this call). `what` names the collective for
    /// error messages, e.g. `psum over ('x',)`.
    ///
    /// Fails with a RuntimeError naming `what` and the devices that never
    /// arrived when the wait exceeds the fabric's timeout, when the fabric is
    /// aborted, or when the devices disagree on which collective they are in.
    fn barrier(&self, device: usize, what: &str) -> Result<()>;

    /// Number of barriers `device` has passed: its current epoch.
    fn epoch(&self, device: usize) -> u64;

    /// Stops the run: wakes every device waiting in a barrier, and makes this
    /// and every later barrier fail with `reason`. The first reason is kept.
    fn abort(&self, reason: &str);

    /// The reason of the first [`Fabric::abort`], if any.
    fn aborted(&self) -> Option<String>;

    /// Exchange by reference, for fabrics whose devices share an address
    /// space. None by default: the collectives then go through the slots.
    fn lending(&self) -> Option<&dyn Lending> {
        None
    }
}

/// Elements converted at a time by the default typed copies: small enough
/// to stay in the L1 cache.
const ELEMS_BLOCK: usize = 1024;

/// Elements whose words cross the fabric: `f32` as its bits, `i32` as its
/// two's complement, `u32` as is.
#[derive(Clone, Copy)]
pub enum Elems<'a> {
    /// float32 elements.
    F32(&'a [f32]),
    /// int32 elements.
    I32(&'a [i32]),
    /// Words.
    U32(&'a [u32]),
}

impl Elems<'_> {
    /// Number of elements.
    pub fn len(&self) -> usize {
        match self {
            Elems::F32(d) => d.len(),
            Elems::I32(d) => d.len(),
            Elems::U32(d) => d.len(),
        }
    }

    /// True when there are no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The words of elements `start..start + out.len()`.
    pub fn words(&self, start: usize, out: &mut [u32]) {
        let end = start + out.len();
        match self {
            Elems::F32(d) => {
                for (o, v) in out.iter_mut().zip(&d[start..end]) {
                    *o = v.to_bits();
                }
            }
            Elems::I32(d) => {
                for (o, &v) in out.iter_mut().zip(&d[start..end]) {
                    *o = v as u32;
                }
            }
            Elems::U32(d) => out.copy_from_slice(&d[start..end]),
        }
    }
}

/// Typed elements to fill from words; see [`Elems`].
pub enum ElemsMut<'a> {
    /// float32 elements.
    F32(&'a mut [f32]),
    /// int32 elements.
    I32(&'a mut [i32]),
    /// Words.
    U32(&'a mut [u32]),
}

impl ElemsMut<'_> {
    /// Number of elements.
    pub fn len(&self) -> usize {
        match self {
            ElemsMut::F32(d) => d.len(),
            ElemsMut::I32(d) => d.len(),
            ElemsMut::U32(d) => d.len(),
        }
    }

    /// True when there are no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Elements `start..end`, borrowed again.
    pub fn range(&mut self, start: usize, end: usize) -> ElemsMut<'_> {
        match self {
            ElemsMut::F32(d) => ElemsMut::F32(&mut d[start..end]),
            ElemsMut::I32(d) => ElemsMut::I32(&mut d[start..end]),
            ElemsMut::U32(d) => ElemsMut::U32(&mut d[start..end]),
        }
    }

    /// The words of elements `start..start + out.len()`.
    pub fn words(&self, start: usize, out: &mut [u32]) {
        let elems = match self {
            ElemsMut::F32(d) => Elems::F32(d),
            ElemsMut::I32(d) => Elems::I32(d),
            ElemsMut::U32(d) => Elems::U32(d),
        };
        elems.words(start, out);
    }

    /// Sets elements `start..start + words.len()` from their words.
    pub fn set_words(&mut self, start: usize, words: &[u32]) {
        let end = start + words.len();
        match self {
            ElemsMut::F32(d) => {
                for (o, &w) in d[start..end].iter_mut().zip(words) {
                    *o = f32::from_bits(w);
                }
            }
            ElemsMut::I32(d) => {
                for (o, &w) in d[start..end].iter_mut().zip(words) {
                    *o = w as i32;
                }
            }
            ElemsMut::U32(d) => d[start..end].copy_from_slice(words),
        }
    }
}

/// Refuses a fabric of no devices, or with slots too small to hold one
/// word in each half.
pub fn check_shape(devices: usize, slot_words: usize) -> Result<()> {
    if devices == 0 {
        return Err(err!(ValueError, "a fabric needs at least one device"));
    }
    if slot_words < 2 {
        return Err(err!(
            ValueError,
            "a fabric slot needs at least 2 words (one per half), got {slot_words}"
        ));
    }
    Ok(())
}

/// Words available to one epoch's writes: half a slot.
pub fn half_words(fabric: &dyn Fabric) -> usize {
    fabric.slot_words() / 2
}

/// Offset of the slot half used by epoch `epoch`: writes in epoch `k` go to
/// `half_offset(f, k)`, reads of others' data in epoch `k` come from
/// `half_offset(f, k - 1)`.
pub fn half_offset(fabric: &dyn Fabric, epoch: u64) -> usize {
    (epoch % 2) as usize * half_words(fabric)
}
