//! One result buffer for a whole group, over a fabric that lends.
//!
//! An all-reduce or an all-gather gives every member of a group the same
//! array. Over a fabric whose devices share an address space, the members can
//! build that array once, each writing its own part, and then all hold it:
//! arrays are immutable, so one buffer behind an `Arc` serves everyone, and no
//! member copies the others' parts.
//!
//! A [`SharedWords`] is that buffer while it is being filled. It is the one
//! place in the collectives where devices write memory that other devices
//! also hold, so its writes are `unsafe` and follow one contract:
//! - between two barriers, members write disjoint ranges, each its own, and
//!   nobody reads;
//! - after the second barrier nobody writes, and the ranges written cover the
//!   whole buffer; only then does anyone turn it into a [`Buffer`].
//!
//! The barrier between the two is what orders every write before every read
//! (see [`crate::fabric`]).

use std::cell::UnsafeCell;
use std::mem::MaybeUninit;
use std::sync::Arc;

use crate::array::{Buffer, DType};

/// A 32-bit word that may be written through a shared reference and may not
/// be written yet.
type Word = UnsafeCell<MaybeUninit<u32>>;

/// Words the members of a group fill in disjoint ranges and then share; see
/// the module documentation for the contract.
#[derive(Clone)]
pub(crate) struct SharedWords {
    words: Arc<[Word]>,
}

// SAFETY: the only access to the words that is not a plain shared read is
// `write`, which is `unsafe` and whose contract excludes two devices touching
// one word at the same time with one of them writing. (The `Arc` of cells
// alone is neither `Send` nor `Sync`, as cells are not `Sync`.)
unsafe impl Send for SharedWords {}
unsafe impl Sync for SharedWords {}

impl SharedWords {
    /// `n` words, none written yet. Nothing touches them here: the members
    /// fault in the pages of their own ranges as they write them.
    pub fn new(n: usize) -> SharedWords {
        let words = Arc::<[Word]>::new_uninit_slice(n);
        // SAFETY: a `Word` is valid uninitialised (it is `MaybeUninit` inside
        // an `UnsafeCell`), so there is nothing to initialise.
        SharedWords {
            words: unsafe { words.assume_init() },
        }
    }

    /// The number of words.
    pub fn len(&self) -> usize {
        self.words.len()
    }

    /// Writes `data` at word `start`.
    ///
    /// # Safety
    /// No other thread may read or write words `start..start + data.len()`
    /// until a barrier that every holder passes after this call.
    pub unsafe fn write(&self, start: usize, data: &[u32]) {
        let range = &self.words[start..start + data.len()];
        // A `Word` has the layout of a `u32`, and the cells grant the right
        // to write through a shared reference.
        let dst = UnsafeCell::raw_get(range.as_ptr()).cast::<u32>();
        unsafe { std::ptr::copy_nonoverlapping(data.as_ptr(), dst, data.len()) };
    }

    /// The words as the elements of an array of `dtype`, sharing this
    /// buffer (a copy for booleans, which are stored as bytes).
    ///
    /// # Safety
    /// Every word has been written, and no thread writes any any more: the
    /// writers' ranges covered the buffer and they all passed a barrier that
    /// the caller passed after them.
    pub unsafe fn into_buffer(self, dtype: DType) -> Buffer {
        let raw = Arc::into_raw(self.words);
        // SAFETY: all words are initialised and no longer written (the
        // caller's guarantee), so they are plain `u32`s; `f32` and `i32`
        // have the size and alignment of a `Word`, so the allocation is a
        // valid `Arc` of either, as `Arc::from_raw` requires.
        unsafe {
            match dtype {
                DType::F32 => Buffer::F32(Arc::from_raw(raw as *const [f32])),
                DType::I32 => Buffer::I32(Arc::from_raw(raw as *const [i32])),
                DType::U32 => Buffer::U32(Arc::from_raw(raw as *const [u32])),
                DType::Bool => {
                    let words: Arc<[u32]> = Arc::from_raw(raw as *const [u32]);
                    Buffer::Bool(words.iter().map(|&w| w != 0).collect())
                }
                DType::C64 => unreachable!(
                    "complex64 values never reach the fabric: the primitives refuse them"
                ),
                narrow => unreachable!(
                    "{} values never reach the fabric: the collectives refuse them",
                    narrow.name()
                ),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Barrier;

    #[test]
    fn threads_fill_disjoint_ranges_and_all_hold_the_result() {
        let shared = SharedWords::new(10);
        let barrier = Barrier::new(2);
        let buffers: Vec<Buffer> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..2)
                .map(|t| {
                    let (shared, barrier) = (shared.clone(), &barrier);
                    s.spawn(move || {
                        let words: Vec<u32> = (0..5).map(|i| (t * 5 + i) as u32).collect();
                        // SAFETY: thread t alone writes words 5t..5t+5, and
                        // nobody reads before the barrier.
                        unsafe { shared.write(t * 5, &words) };
                        barrier.wait();
                        // SAFETY: both halves are written and no one writes.
                        unsafe { shared.into_buffer(DType::I32) }
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        drop(shared);
        let want: Vec<i32> = (0..10).collect();
        for b in &buffers {
            assert!(matches!(b, Buffer::I32(d) if d[..] == want[..]));
        }
        // One allocation, held by both results.
        let (Buffer::I32(a), Buffer::I32(b)) = (&buffers[0], &buffers[1]) else {
            unreachable!()
        };
        assert!(Arc::ptr_eq(a, b));
    }

    #[test]
    fn booleans_are_copied_out_of_the_words() {
        let shared = SharedWords::new(3);
        // SAFETY: one thread writes everything, then converts.
        let b = unsafe {
            shared.write(0, &[1, 0, 1]);
            shared.into_buffer(DType::Bool)
        };
        assert!(matches!(b, Buffer::Bool(d) if d[..] == [true, false, true]));
    }
}
