//! A device's collective log as bytes, for writing it back through shared
//! memory: a JSON head (each event's collective, positions, time, and its
//! arrays' shapes and types) followed by every array's elements as 32-bit
//! words (see [`super::wire`]), so that large operands never pass through
//! JSON numbers.
//!
//! Layout: the head's length in bytes (u32, little-endian), the head padded
//! to a multiple of 4 bytes, then the words, little-endian, in event order
//! (each event's operands, then its results).

use serde::{Deserialize, Serialize};

use super::wire::{array_from_words, push_words};
use crate::array::{numel, Array, DType};
use crate::err;
use crate::error::Result;
use crate::exec::log::{DeviceLog, Event};
use crate::primitives::CollectiveKind;

/// The log without its array elements.
#[derive(Serialize, Deserialize)]
struct Head {
    position: usize,
    total_us: f64,
    events: Vec<EventHead>,
}

/// One event without its array elements.
#[derive(Serialize, Deserialize)]
struct EventHead {
    kind: CollectiveKind,
    #[serde(default)]
    called_as: Option<String>,
    #[serde(default)]
    line: Option<u32>,
    positions: Vec<usize>,
    elapsed_us: f64,
    before: Vec<(Vec<usize>, DType)>,
    after: Vec<(Vec<usize>, DType)>,
}

fn avals(arrays: &[Array]) -> Vec<(Vec<usize>, DType)> {
    arrays
        .iter()
        .map(|a| (a.shape().to_vec(), a.dtype()))
        .collect()
}

/// `log` as bytes.
pub fn encode(log: &DeviceLog) -> Result<Vec<u8>> {
    let mut words = Vec::new();
    let events = log
        .events
        .iter()
        .map(|e| {
            for a in e.before.iter().chain(&e.after) {
                push_words(a, &mut words);
            }
            EventHead {
                kind: e.kind.clone(),
                called_as: e.called_as.clone(),
                line: e.line,
                positions: e.positions.clone(),
                elapsed_us: e.elapsed_us,
                before: avals(&e.before),
                after: avals(&e.after),
            }
        })
        .collect();
    let head = serde_json::to_vec(&Head {
        position: log.position,
        total_us: log.total_us,
        events,
    })
    .map_err(|e| err!(RuntimeError, "cannot serialise the device's log: {e}"))?;
    let padded = head.len().div_ceil(4) * 4;
    let mut bytes = Vec::with_capacity(4 + padded + 4 * words.len());
    bytes.extend((head.len() as u32).to_le_bytes());
    bytes.extend(&head);
    bytes.resize(4 + padded, 0);
    for w in words {
        bytes.extend(w.to_le_bytes());
    }
    Ok(bytes)
}

/// The log [`encode`] made `bytes` of.
pub fn decode(bytes: &[u8]) -> Result<DeviceLog> {
    let bad = |what: &str| err!(RuntimeError, "a device's log is malformed: {what}");
    let len = bytes
        .get(..4)
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize)
        .ok_or_else(|| bad("no head"))?;
    let head: Head =
        serde_json::from_slice(bytes.get(4..4 + len).ok_or_else(|| bad("short head"))?)
            .map_err(|e| bad(&e.to_string()))?;
    let words: Vec<u32> = bytes
        .get(4 + len.div_ceil(4) * 4..)
        .ok_or_else(|| bad("no elements"))?
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    let mut at = 0;
    let mut take = |avals: &[(Vec<usize>, DType)]| -> Result<Vec<Array>> {
        avals
            .iter()
            .map(|(shape, dtype)| {
                let n = numel(shape);
                let chunk = words
                    .get(at..at + n)
                    .ok_or_else(|| bad("too few elements"))?;
                at += n;
                array_from_words(shape, *dtype, chunk)
            })
            .collect()
    };
    let mut events = Vec::with_capacity(head.events.len());
    for e in head.events {
        let before = take(&e.before)?;
        let after = take(&e.after)?;
        events.push(Event {
            kind: e.kind,
            called_as: e.called_as,
            line: e.line,
            positions: e.positions,
            before,
            after,
            elapsed_us: e.elapsed_us,
        });
    }
    Ok(DeviceLog {
        position: head.position,
        events,
        total_us: head.total_us,
    })
}
